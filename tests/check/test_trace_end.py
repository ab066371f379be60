"""Issue 26, point 5: a check's per-pod changes and its totals come from one source, the replay's
preemption decisions. A preemption decided in the trace's last instant counts as one even when
asynchronous preemption makes its victims' delete calls after the trace's end; a gate never says
"No pod's outcome changes" beside a table showing `preemptions 1 -> 0`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.check import diff as d
from kubectl_preempt.check.api import check
from kubectl_preempt.check.diff import PodOutcome, pod_changes
from kubectl_preempt.check.policy import Policy
from kubectl_preempt.io.trace import write_trace
from kubectl_preempt.render.check_output import render_check
from tests.conftest import run_cli

from .scenarios import cache_trace, created, make_priority_class, node, pc, preempt_trace, running, trace

END = 300.0


def late_trace(arrival: float = END - 0.01) -> dict[str, Any]:
    """n1 (4 cpu) runs two batch pods of 2 cpu (class batch=100); shop/web (serving=1000, 2 cpu)
    arrives 10 ms before the trace ends: it preempts batch/low-1 at once, but the victim's status
    patch and delete call (45 ms each by default) would land after the end."""
    initial = [node(), make_priority_class("batch", 100), make_priority_class("serving", 1000),
               running("low-0", "batch", "batch", 100, "2"), running("low-1", "batch", "batch", 100, "2")]
    return trace(initial, [(arrival, "ADDED", created("web", "shop", "serving", 1000, "2", when=arrival))], end=END)


def _changes(report: dict[str, Any]) -> dict[str, list[str]]:
    return {e["pod"]: e["changes"] for e in report["traces"][0]["changes"]}


def test_a_preemption_decided_in_the_last_instant_is_a_change_and_fails_any_change() -> None:
    r = check({"late": late_trace()}, [pc("serving", 50)], policy=Policy.from_options(["any-change"]))
    t = r["traces"][0]
    assert (t["baseline"]["preemptions"], t["proposed"]["preemptions"]) == (1, 0)
    assert (t["baseline"]["victims"], t["proposed"]["victims"]) == (1, 0)
    assert _changes(r) == {"batch/low-1": [d.NO_LONGER_PREEMPTED], "shop/web": [d.NO_LONGER_PREEMPTING]}
    victim = next(e for e in t["changes"] if e["pod"] == "batch/low-1")["baseline"]
    # preempted at the decision; its delete call had not been made when the trace ended
    assert victim["outcome"] == "Preempted" and victim["preemptedBy"] == "shop/web"
    assert victim["time"] == "2026-03-01T10:04:59.990Z" and victim["deletionPending"] is True
    web = next(e for e in t["changes"] if e["pod"] == "shop/web")["baseline"]
    assert web["outcome"] == "Nominated" and web["nominatedNode"] == "n1"
    assert web["preemptions"] == [{"node": "n1", "time": "2026-03-01T10:04:59.990Z"}]
    assert r["passed"] is False
    text = render_check(r, "table")
    assert "No pod's outcome changes" not in text
    assert "preempted by shop/web on n1 at 10:04:59.990" in text
    assert "nominated to n1, not bound before the trace ended" in text


def test_a_victim_whose_delete_call_landed_keeps_that_time_and_no_pending_mark() -> None:
    r = check({"early": late_trace(arrival=END - 60)}, [pc("serving", 50)], policy=Policy.from_options(["any-change"]))
    victim = next(e for e in r["traces"][0]["changes"] if e["pod"] == "batch/low-1")["baseline"]
    assert "deletionPending" not in victim
    assert victim["time"] == "2026-03-01T10:04:00.090Z"  # the delete call: two API calls after the decision


@pytest.mark.parametrize("make", [late_trace, preempt_trace, cache_trace], ids=["late", "preempt", "cache"])
@pytest.mark.parametrize("proposal", [[pc("serving", 50)], [pc("jobs", 600)], [pc("batch", 2000)]],
                         ids=["serving-50", "jobs-600", "batch-2000"])
def test_totals_that_differ_always_show_a_changed_pod(make, proposal) -> None:
    """The invariant the gate stands on: when the preemptions or victims of the two replays differ,
    some pod's outcome differs (and `any-change` fails)."""
    r = check({"t": make()}, proposal, policy=Policy.from_options(["any-change"]))
    t = r["traces"][0]
    differ = any(t["baseline"][k] != t["proposed"][k] for k in ("preemptions", "victims"))
    if differ:
        assert t["changes"], t
        assert not r["rules"][1]["passed"]


def test_a_decision_that_evicts_no_one_new_is_still_the_preemptors_change() -> None:
    """A preemption whose victims were all being evicted already counts in `preemptions` but in no
    victim's outcome: the preemptor's own decisions tell the two replays apart."""
    both = {"key": "ns/p", "uid": "u", "priority": 10, "priority_class": "c"}
    assert pod_changes(PodOutcome(**both, preemptions=[("n1", 1.0)]), PodOutcome(**both)) == [d.NO_LONGER_PREEMPTING]
    assert pod_changes(PodOutcome(**both), PodOutcome(**both, preemptions=[("n1", 1.0)])) == [d.NEWLY_PREEMPTING]
    assert pod_changes(PodOutcome(**both, preemptions=[("n1", 1.0)]),
                       PodOutcome(**both, preemptions=[("n1", 1.0), ("n2", 2.0)])) == [d.DIFFERENT_PREEMPTIONS]
    assert pod_changes(PodOutcome(**both, preemptions=[("n1", 1.0)]),
                       PodOutcome(**both, preemptions=[("n1", 3.0)])) == []


def test_the_cli_gate_fails_with_exit_1(tmp_path: Path) -> None:
    t = late_trace()
    write_trace(str(tmp_path / "late.jsonl"), t["header"], t["events"])
    import yaml

    (tmp_path / "serving.yaml").write_text(yaml.safe_dump(pc("serving", 50)))
    run = run_cli(["check", "-t", "late.jsonl", "-p", "serving.yaml", "--fail-on", "any-change"], cwd=tmp_path)
    assert run.code == 1, run
    assert "No pod's outcome changes" not in run.out
    assert "batch/low-1: no longer preempted" in run.out
