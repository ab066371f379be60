"""Check reports as table, markdown, json, yaml and JUnit XML (parsed back)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import yaml

from kubectl_preempt.check.api import check
from kubectl_preempt.check.policy import Policy
from kubectl_preempt.render.check_junit import render_junit
from kubectl_preempt.render.check_output import CHECK_FORMATS, render_check
from kubectl_preempt.render.check_report import node_suffix, outcome_text, priority_text, short_reason

from .scenarios import cache_trace, pc, preempt_trace


@pytest.fixture(scope="module")
def failing_report() -> dict:
    return check({"prod.jsonl": preempt_trace(), "cache.jsonl": cache_trace()},
                 [pc("serving", 50), pc("jobs", 800), pc("huge", 2_000_000_000)],
                 policy=Policy.from_options(["new-victims", "unschedulable"], ["shop"], 0))


@pytest.fixture(scope="module")
def passing_report() -> dict:
    return check({"cache.jsonl": cache_trace()}, [pc("jobs", 300)])


def test_table_leads_with_the_verdict_and_names_every_rule(failing_report: dict) -> None:
    text = render_check(failing_report, "table")
    lines = text.splitlines()
    assert lines[0] == f"Check      FAIL ({failing_report['violations']} violations)"
    assert lines[1] == "Policy     validation, new-victims, unschedulable, protect-namespace shop, max-new-victims 0"
    assert 'PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user ' \
           "defined priority is 1000000000" in text
    assert "Trace prod.jsonl" in text and "Trace cache.jsonl" in text
    assert "  re-created: jobs (value 300 -> 800): delete and re-create; 1 pod at the trace's start keeps priority " \
           "300 until re-created" in lines
    assert any(line.split()[:4] == ["shop/cache-0", "500", "newly", "preempted"] for line in lines)
    rules = lines[lines.index("Rules"):]
    assert any(line.split()[:3] == ["protect-namespace", "shop", "cache.jsonl"] and "FAIL" in line for line in rules)
    assert "Violations" in lines


def test_table_of_a_clean_change_says_nothing_changes(passing_report: dict) -> None:
    text = render_check(passing_report, "table")
    assert text.startswith("Check      PASS\n")
    assert "  No pod's outcome changes." in text and "Violations" not in text


def test_markdown_is_a_pull_request_comment(failing_report: dict) -> None:
    text = render_check(failing_report, "markdown")
    assert text.startswith("## ❌ PriorityClass check: FAIL")
    assert "| Rule | Trace | Result | Detail |" in text
    assert "| `protect-namespace shop` | `cache.jsonl` | **FAIL** | 1 new victim in shop |" in text
    assert "<details><summary>2 pods changed: 1 newly preempted, 1 newly scheduled, 1 newly preempts</summary>" in text
    assert text.count("<details>") == text.count("</details>") == 2
    # every table row has as many cells as its header
    for block in text.split("\n\n"):
        rows = [ln for ln in block.splitlines() if ln.startswith("|")]
        if rows:
            widths = {len(ln.replace("\\|", "").split("|")) for ln in rows}
            assert len(widths) == 1, block


def test_markdown_of_a_clean_change(passing_report: dict) -> None:
    assert render_check(passing_report, "markdown").startswith("## ✅ PriorityClass check: PASS")


@pytest.mark.parametrize("fmt, load", [("json", json.loads), ("yaml", yaml.safe_load)], ids=["json", "yaml"])
def test_data_formats_hold_the_whole_report(failing_report: dict, fmt: str, load) -> None:
    assert load(render_check(failing_report, fmt)) == json.loads(json.dumps(failing_report))


def test_every_format_is_known() -> None:
    assert CHECK_FORMATS == ("table", "wide", "markdown", "json", "yaml")
    with pytest.raises(ValueError):
        render_check({}, "html")


def test_junit_has_a_suite_per_trace_and_a_case_per_rule(failing_report: dict) -> None:
    root = ET.fromstring(render_junit(failing_report))
    assert root.tag == "testsuites" and root.get("name") == "kubectl-preempt check"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["validation", "prod.jsonl", "cache.jsonl"]
    cases = {(s, c.get("name")): c for s, suite in suites.items() for c in suite.findall("testcase")}
    assert sorted(name for s, name in cases if s == "prod.jsonl") == \
        sorted(["new-victims", "unschedulable", "protect-namespace shop", "max-new-victims 0"])
    assert int(root.get("tests")) == len(cases) == len(failing_report["rules"])
    failed = {k for k, c in cases.items() if c.find("failure") is not None}
    assert failed == {("validation", "validation"), ("prod.jsonl", "unschedulable"),
                      ("cache.jsonl", "new-victims"), ("cache.jsonl", "protect-namespace shop"),
                      ("cache.jsonl", "max-new-victims 0")}
    assert int(root.get("failures")) == len(failed)
    fail = cases[("cache.jsonl", "new-victims")].find("failure")
    assert fail.get("message") == "1 new victim" and fail.get("type") == "new-victims"
    assert fail.text == "shop/cache-0 (priority 500) newly preempted by batch/job on n1"
    ok = cases[("prod.jsonl", "new-victims")]
    assert ok.find("system-out").text == "0 new victims"
    for suite in suites.values():
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
        assert int(suite.get("failures")) == sum(1 for c in suite.findall("testcase") if c.find("failure") is not None)


def test_junit_of_a_clean_change_has_no_failure(passing_report: dict) -> None:
    root = ET.fromstring(render_junit(passing_report))
    assert root.get("failures") == "0" and root.find(".//failure") is None


@pytest.mark.parametrize("side, text", [
    ({"outcome": "Preempted", "preemptedBy": "a/b", "node": "n1.example.com", "time": "2026-03-01T10:00:05Z",
      "priority": 3}, "preempted by a/b on n1 at 10:00:05"),
    ({"outcome": "Scheduled", "node": "n2.example.com", "time": "2026-03-01T10:00:35Z", "priority": 3},
     "scheduled on n2 at 10:00:35"),
    ({"outcome": "Scheduled", "node": "n2.example.com", "time": "2026-03-01T10:00:35Z", "ended": "completed",
      "endedAt": "2026-03-01T10:09:00Z"}, "scheduled on n2 at 10:00:35, completed at 10:09:00"),
    ({"outcome": "Unschedulable", "priority": 3, "message": "0/2 nodes are available: 2 Insufficient cpu. "
      "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
          "reasons": [{"reason": "Insufficient cpu", "nodes": 2}],
          "preemptionReasons": [{"reason": "No preemption victims found for incoming pod", "nodes": 2}]},
     "unschedulable: 2 Insufficient cpu; preemption: 2 No preemption victims found for incoming pod"),
    ({"outcome": "Pending"}, "pending, not tried before the trace ended"),
    ({"outcome": "Running", "priority": 7}, "running, untouched"),
    ({"outcome": "Running", "priority": 7, "ended": "deleted", "endedAt": "2026-03-01T10:09:00Z"},
     "ran from the start, deleted at 10:09:00"),
    ({"outcome": "Deleted"}, "deleted before it was scheduled"),
], ids=["preempted", "scheduled", "scheduled and then completed", "unschedulable with the FitError shortened",
        "pending", "running", "running from the start until deleted", "deleted before scheduled"])
def test_outcomes_in_words(side: dict, text: str) -> None:
    assert outcome_text(side, ".example.com") == text


@pytest.mark.parametrize("entry, text", [
    ({"baseline": {"priority": 100}, "proposed": {"priority": 5000}}, "100 -> 5000"),
    ({"baseline": {"priority": 100}, "proposed": {"priority": 100}}, "100"),
    ({"baseline": {"outcome": "Running", "priority": 7}, "proposed": {"outcome": "Pending"}}, "7"),
], ids=["a changed priority", "the same priority", "one side unknown"])
def test_priority_column(entry: dict, text: str) -> None:
    assert priority_text(entry) == text


@pytest.mark.parametrize("nodes, suffix", [
    (["ip-1.eu-west-1.compute.internal", "ip-2.eu-west-1.compute.internal"], ".eu-west-1.compute.internal"),
    (["a.x.example.com", "b.y.example.com"], ".example.com"),
    (["node-1", "node-2.example.com"], ""),
    (["a.example.com"], ".example.com"),
], ids=["a shared cloud domain", "the longest shared part", "a name without a domain", "one node"])
def test_node_suffix(nodes: list[str], suffix: str) -> None:
    trace = {"changes": [{"baseline": {"node": n}, "proposed": {}} for n in nodes]}
    assert node_suffix(trace) == suffix


def test_short_reason_leaves_other_messages_alone() -> None:
    assert short_reason({"message": "pod has unbound immediate PersistentVolumeClaims"}) == \
        "pod has unbound immediate PersistentVolumeClaims"


def test_short_reason_reads_the_fields_not_the_message() -> None:
    # a reason holding ". " and a message saying something else: only the fields are read
    side = {"message": "0/3 nodes are available: 3 Insufficient cpu.",
            "reasons": [{"reason": "node(s) had volume node affinity conflict. Or not", "nodes": 2},
                        {"reason": "Insufficient memory", "nodes": 1}],
            "preemptionMessage": "not eligible due to preemptionPolicy=Never."}
    assert short_reason(side) == ("2 node(s) had volume node affinity conflict. Or not, 1 Insufficient memory; "
                                  "preemption: not eligible due to preemptionPolicy=Never")
    assert short_reason({"message": "0/3 nodes are available: x.", "reasons": [],
                         "preFilterMessage": "pod has unbound immediate PersistentVolumeClaims"}) == \
        "pod has unbound immediate PersistentVolumeClaims"


def test_markdown_fits_in_a_github_comment(monkeypatch: pytest.MonkeyPatch, failing_report: dict) -> None:
    from kubectl_preempt.render import check_markdown

    full = render_check(failing_report, "markdown")
    monkeypatch.setattr(check_markdown, "MAX_COMMENT_CHARS", len(full) - 1)
    shorter = render_check(failing_report, "markdown")
    assert len(shorter) < len(full) and shorter.startswith("## ❌")
    monkeypatch.setattr(check_markdown, "MAX_COMMENT_CHARS", 10)
    tiny = render_check(failing_report, "markdown")
    assert "Too many to list here (`-o json` has them all)." in tiny and "| Pod | Priority |" not in tiny
