"""Issue 26, bad input: a trace whose events contradict each other (a terminal status before a
binding, a deletion of a pod never created) gets a `note:` naming the event and the object, not a
crash; the replay itself is what it was without the note."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.check.api import check
from kubectl_preempt.io.trace import write_trace
from kubectl_preempt.replay import report as report_module
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.timeline import contradictions, normalize
from tests.builders import make_node, make_pod, make_priority_class
from tests.conftest import run_cli

from .helpers import ev, trace


def pod(name: str, **status: Any) -> dict[str, Any]:
    o = make_pod(name).uid(f"uid-{name}").req(cpu="1").obj()
    if status:
        o["status"] = dict(status)
    return o


def bound(o: dict[str, Any], node: str = "n1", phase: str = "Running") -> dict[str, Any]:
    o = copy.deepcopy(o)
    o["spec"]["nodeName"] = node
    o["status"] = {"phase": phase}
    return o


N1 = make_node("n1").alloc(cpu="4", memory="8Gi").obj()


def odd_trace() -> dict[str, Any]:
    p = pod("p")
    return trace(ev(0, "ADDED", N1), ev(5, "ADDED", p), ev(6, "MODIFIED", pod("p", phase="Failed")),
                 ev(7, "MODIFIED", bound(p)),                       # bound after its terminal status
                 ev(8, "DELETED", pod("ghost")),                    # never created
                 ev(9, "ADDED", pod("q")), ev(10, "DELETED", pod("q")), ev(11, "DELETED", pod("q")),  # twice
                 end=30)


def test_each_contradiction_is_named_by_its_event_and_object() -> None:
    assert contradictions(normalize(odd_trace())) == [
        "events[3]: MODIFIED Pod default/p binds it to n1 and moves it back to Running after events[2] gave it the "
        "terminal phase Failed; the events contradict each other",
        "events[4]: DELETED Pod default/ghost, which no earlier event created; the events contradict each other",
        "events[7]: DELETED Pod default/q, which events[6] deleted already; the events contradict each other",
    ]


def test_a_real_lifecycle_contradicts_nothing() -> None:
    """Created, bound, running, deleted gracefully: the kubelet writes Failed on a terminating pod
    and then it is deleted; a pod re-created under the same name; a node deleted after it was
    added; a pod that failed without a node (rejected) and was deleted."""
    p = pod("p")
    terminating = bound(p, phase="Failed")
    terminating["metadata"]["deletionTimestamp"] = "2026-03-01T10:00:09Z"
    t = trace(ev(0, "ADDED", N1), ev(1, "ADDED", p), ev(2, "MODIFIED", bound(p)), ev(3, "MODIFIED", bound(p)),
              ev(9, "MODIFIED", terminating), ev(10, "DELETED", terminating), ev(11, "ADDED", pod("p")),
              ev(12, "MODIFIED", bound(pod("p"))), ev(13, "ADDED", pod("r", phase="Failed")),
              ev(14, "MODIFIED", pod("r", phase="Failed")), ev(15, "DELETED", pod("r", phase="Failed")),
              ev(16, "DELETED", N1), end=30)
    assert contradictions(normalize(t)) == []


def test_many_are_capped() -> None:
    t = trace(ev(0, "ADDED", N1), *[ev(1 + i, "DELETED", pod(f"g{i}")) for i in range(30)], end=60)
    notes = contradictions(normalize(t))
    assert len(notes) == 21 and notes[-1] == "10 more events contradict earlier ones"


@pytest.mark.parametrize("mode", ["simulate", "follow"])
def test_the_report_carries_the_notes_and_nothing_else_changes(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    r = replay(odd_trace(), mode=mode)
    assert len(r["trace"]["notes"]) == 3
    monkeypatch.setattr(report_module, "contradictions", lambda tl: [])
    quiet = replay(odd_trace(), mode=mode)
    assert "notes" not in quiet["trace"]
    r["trace"].pop("notes")
    assert r == quiet


def test_the_cli_notes_them_and_exits_0(tmp_path: Path) -> None:
    t = odd_trace()
    write_trace(str(tmp_path / "odd.jsonl"), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace",
                                              "startTime": t["header"]["startTime"]}, t["events"])
    run = run_cli(["replay", "odd.jsonl", "-o", "json"], cwd=tmp_path)
    assert run.code == 0, run
    assert "Traceback" not in run.err
    assert ("note: odd.jsonl: line 6: DELETED Pod default/ghost, which no earlier event created; the events "
            "contradict each other") in run.err.splitlines()
    assert len(json.loads(run.out)["trace"]["notes"]) == 3
    run = run_cli(["replay", "odd.jsonl", "--follow"], cwd=tmp_path)
    assert run.code == 0, run
    assert ("note: line 5: MODIFIED Pod default/p binds it to n1 and moves it back to Running after line 4 gave it "
            "the terminal phase Failed; the events contradict each other") in run.out.splitlines()
    r = check({"odd": odd_trace()}, [make_priority_class("x", 5)])
    assert len(r["traces"][0]["notes"]) == 3
    (tmp_path / "x.yaml").write_text(json.dumps(make_priority_class("x", 5)))
    run = run_cli(["check", "-t", "odd.jsonl", "-p", "x.yaml", "-o", "json"], cwd=tmp_path)
    assert run.code == 0, run
    assert ("note: odd.jsonl: line 9: DELETED Pod default/q, which line 8 deleted already; the events contradict "
            "each other") in run.err.splitlines()
