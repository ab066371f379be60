"""End to end on the bundled traces: traces/proposals/reject/ fails the gate, accept/ passes it.

The assertions are about what each proposal does, not about exact counts, so that regenerating
the traces (traces/generate.py) does not break them as long as the stories stay the same.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

TRACES = REPO / "traces"
REJECT = "traces/proposals/reject/"
ACCEPT = "traces/proposals/accept/"
DEMO = "traces/demo.jsonl.gz"
ROLLOUT = "traces/priorityclass-rollout.jsonl.gz"


@pytest.fixture(scope="module")
def rejected() -> dict:
    run = run_cli(["check", "--trace", "traces/", "--proposed", REJECT, "--protect-namespace", "shop",
                   "--fail-on", "new-victims", "-o", "json"], cwd=REPO)
    assert run.code == 1, run
    return json.loads(run.out)


def test_the_bundled_traces_are_there() -> None:
    assert sorted(p.name for p in TRACES.glob("*.jsonl.gz")), "traces/*.jsonl.gz are missing"
    assert (TRACES / "demo.jsonl.gz").exists() and (TRACES / "priorityclass-rollout.jsonl.gz").exists()


def test_the_accepted_change_passes_every_trace_with_no_pod_changed(tmp_path: Path) -> None:
    junit = tmp_path / "accept.xml"
    run = run_cli(["check", "--trace", "traces/", "--proposed", ACCEPT, "--fail-on", "any-change",
                   "--junit", str(junit), "-o", "json"], cwd=REPO)
    assert run.code == 0, run
    report = json.loads(run.out)
    assert report["passed"] and report["totals"]["podsChanged"] == 0
    assert {t["trace"] for t in report["traces"]} >= {DEMO, ROLLOUT}
    assert all(c["valid"] for c in report["proposed"])
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0" and int(root.get("tests")) == 1 + len(report["traces"])


def test_the_rejected_change_is_refused_by_the_api_server_in_its_words(rejected: dict) -> None:
    [refusal] = [f for f in rejected["validation"]["findings"] if f["severity"] == "error"]
    assert refusal["message"] == ('PriorityClass.scheduling.k8s.io "platform-critical" is invalid: value: Forbidden: '
                                  "maximum allowed value of a user defined priority is 1000000000")
    assert refusal["source"] == "traces/proposals/reject/platform-critical.yaml"


def test_the_rejected_change_recreates_batch_and_old_batch_pods_keep_their_priority(rejected: dict) -> None:
    demo = next(t for t in rejected["traces"] if t["trace"] == DEMO)
    [rc] = demo["recreated"]
    assert rc["priorityClass"] == "batch" and rc["changes"] == {"value": [100, 5000]}
    assert rc["podCount"] > 0 and all(p.startswith("analytics/") for p in rc["podsKeepingOldPriority"])


def test_the_rejected_change_makes_new_victims_in_the_shop(rejected: dict) -> None:
    failing = {(r["rule"], r.get("trace")) for r in rejected["rules"] if not r["passed"]}
    assert ("validation", None) in failing
    assert ("new-victims", DEMO) in failing and ("new-victims", ROLLOUT) in failing
    assert ("protect-namespace shop", DEMO) in failing
    demo = next(t for t in rejected["traces"] if t["trace"] == DEMO)
    shop_victims = [e for e in demo["changes"] if "newlyPreempted" in e["changes"] and e["namespace"] == "shop"]
    assert shop_victims
    # a standard pod preempted by a batch pod created after the change, at the new value
    assert any(e["proposed"]["preemptedBy"].startswith("analytics/") for e in shop_victims)
    assert demo["proposed"]["preemptions"] > demo["baseline"]["preemptions"]


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_the_rejected_change_reads_as_text(fmt: str) -> None:
    run = run_cli(["check", "-t", DEMO, "-p", REJECT, "-o", fmt], cwd=REPO)
    assert run.code == 1
    assert "maximum allowed value of a user defined priority is 1000000000" in run.out
    assert "newly preempted" in run.out


def test_the_replay_helpers_what_if_strands_the_metrics_agent() -> None:
    """traces/proposed-platform-critical.yaml (platform-critical below standard) as a pull request:
    the platform pods that preempted applications now wait instead."""
    run = run_cli(["check", "-t", ROLLOUT, "-p", "traces/proposed-platform-critical.yaml", "-o", "json"], cwd=REPO)
    report = json.loads(run.out)
    [t] = report["traces"]
    assert t["totals"]["noLongerPreempted"] > 0
    assert run.code == (0 if report["passed"] else 1)
