"""Issue 26, point 7: a stalled recorder is not a slow cluster. A stretch with no event and no
bookmark far longer than the trace's own usual gaps (and than two bookmark periods) is reported as
a recorder gap, in JSON and as a `note:`, and the waits that run through it are flagged."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.check.api import check
from kubectl_preempt.io.trace import write_trace
from kubectl_preempt.render.replay import render_replay
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.timeline import MIN_GAP_SECONDS, find_gaps, gap_threshold, normalize
from tests.builders import make_node, make_pod, make_priority_class
from tests.conftest import run_cli

from .helpers import at, ev, trace

STALL_FROM, STALL_TO = 40.0, 640.0


def stalled(stall_to: float = STALL_TO) -> dict[str, Any]:
    """n1 (4 cpu) runs hog (3 cpu). A small pod is created every second for 40 s (the trace's usual
    gap: 1 s); big (2 cpu) arrives at +30 s and cannot fit until hog is deleted; huge (10 cpu) at
    +35 s never fits. Then nothing, no bookmark either, until `stall_to`, when hog is deleted."""
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
           ev(0, "ADDED", make_pod("hog").uid("uid-hog").req(cpu="3").on("n1").set("status.phase", "Running").obj())]
    for i in range(40):
        evs.append(ev(1 + i, "ADDED", make_pod(f"small-{i}").uid(f"uid-small-{i}").req(cpu="10m").obj()))
    evs.append(ev(30.5, "ADDED", make_pod("big").uid("uid-big").req(cpu="2").obj()))
    evs.append(ev(35.5, "ADDED", make_pod("huge").uid("uid-huge").req(cpu="10").obj()))
    hog = make_pod("hog").uid("uid-hog").req(cpu="3").on("n1").set("status.phase", "Running").obj()
    evs.append(ev(stall_to, "DELETED", hog))
    return trace(*evs, end=stall_to + 60)


def test_a_stall_far_beyond_the_usual_gaps_is_a_gap() -> None:
    tl = normalize(stalled())
    assert gap_threshold(tl) == MIN_GAP_SECONDS  # 4 x the usual 1 s is below the floor
    assert [(g.start - tl.start, g.end - tl.start) for g in find_gaps(tl)] == [(STALL_FROM, STALL_TO)]


def test_a_quiet_stretch_under_the_floor_is_not_a_gap() -> None:
    # 100 s without events: a watch with bookmarks can be that quiet (one per kind a minute)
    assert find_gaps(normalize(stalled(stall_to=STALL_FROM + 100))) == []


def test_a_sparse_trace_is_measured_by_its_own_gaps() -> None:
    """Events five minutes apart (a generated trace, a watch stream without bookmarks): ten minutes of
    quiet is their usual rhythm, not a stall; forty minutes is."""
    def sparse(last: float) -> dict[str, Any]:
        evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4").obj())]
        evs += [ev(300 * (i + 1), "ADDED", make_pod(f"p{i}").req(cpu="10m").obj()) for i in range(25)]
        evs.append(ev(300 * 25 + last, "ADDED", make_pod("late").req(cpu="10m").obj()))
        return trace(*evs)

    assert gap_threshold(normalize(sparse(600))) == 1200
    assert find_gaps(normalize(sparse(600))) == []
    gaps = find_gaps(normalize(sparse(2400)))
    assert [(g.seconds) for g in gaps] == [2400]


@pytest.mark.parametrize("mode", ["simulate", "follow"])
def test_the_report_lists_the_gap(mode: str) -> None:
    r = replay(stalled(), mode=mode)
    assert r["trace"]["gaps"] == [{"start": at(STALL_FROM), "end": at(STALL_TO), "seconds": 600.0}]
    assert r["trace"]["gapThresholdSeconds"] == MIN_GAP_SECONDS
    assert replay(stalled(stall_to=STALL_FROM + 100), mode=mode)["trace"]["gaps"] == []


def test_waits_across_the_gap_are_flagged() -> None:
    s = replay(stalled())["summary"]
    # big waited from +30.5 s to hog's deletion at +640 s, through the stall; the smalls did not
    assert s["timeToSchedule"]["podsWaitingAcrossGaps"] == 1
    assert s["timeToSchedule"]["pods"] == 41
    never = {n["pod"]: n for n in s["neverScheduled"]}
    assert never["default/huge"]["waitedAcrossGap"] is True
    quiet = replay(stalled(stall_to=STALL_FROM + 100))["summary"]
    assert "podsWaitingAcrossGaps" not in quiet["timeToSchedule"]
    assert "waitedAcrossGap" not in quiet["neverScheduled"][0]


def test_runs_flag_the_time_to_schedule_distribution() -> None:
    r = replay(stalled(), runs=2, jobs=1)
    assert r["distribution"]["timeToSchedule"]["spansRecorderGaps"] == 1
    assert ("note: the time to schedule above spans 1 recorder gap (see the note above): waits across it include "
            "the recorder's stall") in render_replay(r).splitlines()
    assert "spansRecorderGaps" not in replay(stalled(stall_to=STALL_FROM + 100), runs=2, jobs=1)["distribution"]["timeToSchedule"]


NOTE = ("note: recorder gap 10:00:40 to 10:10:40 (10m): no event and no bookmark for longer than 2m, far beyond "
        "the trace's usual gaps: the recorder stalled, not the cluster; waits across it are flagged")


def test_the_cli_says_it_in_the_table_and_on_stderr_for_data(tmp_path: Path) -> None:
    t = stalled()
    write_trace(str(tmp_path / "stall.jsonl"), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace",
                                                "startTime": t["header"]["startTime"]}, t["events"])
    run = run_cli(["replay", "stall.jsonl"], cwd=tmp_path)
    assert run.code == 0, run
    assert run.out.splitlines()[2] == NOTE
    assert "(41 pods bound; 1 of them waited across a recorder gap)" in run.out
    assert "(across a recorder gap)" in run.out  # huge, never scheduled
    assert "recorder gap" not in run.err
    run = run_cli(["replay", "stall.jsonl", "-o", "json"], cwd=tmp_path)
    assert json.loads(run.out)["trace"]["gaps"][0]["seconds"] == 600.0
    assert NOTE.replace("note: ", "note: stall.jsonl: ", 1) in run.err
    run = run_cli(["replay", "stall.jsonl", "-o", "markdown"], cwd=tmp_path)
    assert f"- {NOTE}" in run.out


def test_check_lists_the_gap_per_trace() -> None:
    r = check({"stall": stalled()}, [make_priority_class("x", 5)])
    assert r["traces"][0]["gaps"] == [{"start": at(STALL_FROM), "end": at(STALL_TO), "seconds": 600.0}]
    from kubectl_preempt.render.check_output import render_check

    assert f"  {NOTE}" in render_check(r, "table")
