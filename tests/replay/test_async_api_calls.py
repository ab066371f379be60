"""Issue 26 follow-up, points 2 and 3: with SchedulerAsyncAPICalls on (v1.34.1's default),
prepareCandidateAsync's clearNominatedNodeName hands its patches to the API dispatcher and does
not wait for them, so the victims' calls start at the decision; with the gate off they wait for
one patch per cleared nomination. The race this leaves (a preemptor deciding again before its
last victim's delete call) is counted in the summary and the table says it."""
from __future__ import annotations

from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.versions import V1_33_0, V1_34_1, V1_35_6, V1_36_2
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.render.replay import render_replay
from kubectl_preempt.replay.api import replay
from kubectl_preempt.scheduler.backend.api_dispatcher import api_calls_async, plan_calls
from tests.builders import make_node, make_pod

from .helpers import ev, trace


def nominated_trace() -> dict:
    """n1 (4 cpu) runs low-a and low-b (2 cpu, grace 30). mid (priority 10, 2 cpu) preempts low-b
    and is nominated to n1; hi (priority 100, 4 cpu) then preempts low-a there, clearing mid's
    nomination."""
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj())]
    for n in ("a", "b"):
        evs.append(ev(0, "ADDED", make_pod(f"low-{n}").priority(1).req(cpu="2").start_time("2026-03-01T09:00:00Z")
                      .set("spec.terminationGracePeriodSeconds", 30).on("n1").obj()))
    evs.append(ev(5, "ADDED", make_pod("mid").priority(10).req(cpu="2").obj()))
    evs.append(ev(6, "ADDED", make_pod("hi").priority(100).req(cpu="4").obj()))
    return trace(*evs, end=20)


def _hi_delete_call(gates: dict[str, bool]) -> str:
    cfg = parse_config(None, version=V1_34_1)  # v1.34.1: SchedulerAsyncAPICalls on by default
    cfg.feature_gates.update(gates)
    r = replay(nominated_trace(), config=cfg, kubernetes_version="v1.34")
    [hi] = [p for p in r["preemptions"] if p["preemptor"] == "default/hi"]
    assert hi["why"]["clearedNominations"] == ["default/mid"]
    [called] = [d for d in hi["victimDetails"] if not d["alreadyTerminating"]]
    return called["deletionTimestamp"]


def test_cleared_nominations_do_not_delay_the_victims_with_async_api_calls() -> None:
    # the patch then the delete, 45 ms each, from the decision at 10:00:06
    assert _hi_delete_call({}) == "2026-03-01T10:00:06.090Z"
    # the gate off: mid's nomination is cleared first, one call more
    assert _hi_delete_call({"SchedulerAsyncAPICalls": False}) == "2026-03-01T10:00:06.135Z"


def test_the_gate_defaults_follow_the_release() -> None:
    # new in v1.34.1: v1.33's prepareCandidateAsync clears nominations with util.ClearNominatedNodeName,
    # waiting for each call
    assert api_calls_async(parse_config(None, version=V1_33_0)) is False
    assert api_calls_async(parse_config(None, version=V1_34_1)) is True
    assert api_calls_async(parse_config(None, version=V1_35_6)) is False
    assert api_calls_async(parse_config(None, version=V1_36_2)) is False


def test_clear_nomination_patches_land_side_by_side_when_dispatched() -> None:
    hi = Pod(make_pod("hi").priority(100).obj())
    v = Pod(make_pod("v").priority(1).on("n1").obj())
    others = [Pod(make_pod(f"o{i}").priority(1).nominated("n1").obj()) for i in range(2)]
    calls = [(round(c.at, 6), c.what, c.pod.name) for c in plan_calls(hi, [v], others, 0.0, 1.0, clears_wait=False)]
    assert calls == [(0.0, "release", "hi"), (1.0, "clearNomination", "o0"), (1.0, "clearNomination", "o1"),
                     (1.0, "patch", "v"), (2.0, "delete", "v")]


def race_trace() -> dict:
    """n1 and n2 (4 cpu) each run one pod of 4 cpu, grace 0. hi (4 cpu) preempts one; released
    before its single victim's calls are made, it is tried again when a pod of the trace is
    deleted in the meantime and decides again while its victim still runs."""
    evs = [ev(0, "ADDED", make_node(n).alloc(cpu="4", memory="8Gi").obj()) for n in ("n1", "n2")]
    for n in ("n1", "n2"):
        evs.append(ev(0, "ADDED", make_pod(f"low-{n}").priority(1).req(cpu="4").start_time("2026-03-01T09:00:00Z")
                      .set("spec.terminationGracePeriodSeconds", 0).on(n).obj()))
    evs.append(ev(0, "ADDED", make_pod("other").priority(1).req(cpu="0").start_time("2026-03-01T09:00:00Z")
                  .on("n1").obj()))
    evs.append(ev(5, "ADDED", make_pod("hi").priority(100).req(cpu="4").obj()))
    evs.append(ev(5.05, "DELETED", make_pod("other").priority(1).req(cpu="0").start_time("2026-03-01T09:00:00Z")
                  .on("n1").obj()))
    return trace(*evs, end=20)


def test_a_decision_before_the_last_delete_call_is_counted_and_shown() -> None:
    # v1.34.1's race: from v1.35 on the preemptor is held until its last victim's deletion is
    # seen (test_async_preemption.py)
    r = replay(race_trace(), kubernetes_version="v1.34")
    s = r["summary"]
    assert s["asyncPreemption"]["apiLatencySeconds"] == 0.045
    # decided at 10:00:05, released at once (one victim), its victim's delete call due at .090:
    # the deletion at .050 requeues it and it decides again, its victim still running
    assert [p["time"] for p in r["preemptions"]] == ["2026-03-01T10:00:05Z", "2026-03-01T10:00:05.050Z"]
    assert s["asyncPreemption"]["decisionsBeforeDeleteCalls"] == 1
    text = render_replay(r)
    assert "  Async preemption      45 ms per API call; 1 decision before the last delete" in text
    assert "  Victims leave after   their grace period " in text
    assert all(len(line) <= 80 for line in text.splitlines() if line.startswith("  Async") or line.startswith("  Victims"))


def test_victims_already_being_deleted_get_calls_before_v1_34() -> None:
    # preemption.go: v1.33's prepareCandidate and prepareCandidateAsync call PreemptPod (a patch, then
    # a delete) on every victim; v1.34 skips one with a deletionTimestamp ("Victim Pod is already
    # deleted, skipping the API call for it"), and makes no call when none is left
    from kubectl_preempt.scheduler.backend.api_dispatcher import plan_sync_calls
    hi = Pod(make_pod("hi").priority(100).obj())
    going = Pod(make_pod("going").priority(1).on("n1").terminating("2026-03-01T10:00:00Z").obj())
    v = Pod(make_pod("v").priority(1).on("n1").obj())
    def called(calls: list) -> list[tuple[str, str]]:
        return [(c.what, c.pod.name) for c in calls if c.what in ("patch", "delete")]
    assert called(plan_calls(hi, [going, v], [], 0.0, 1.0, skip_terminating=False)) == \
        [("patch", "going"), ("delete", "going"), ("patch", "v"), ("delete", "v")]
    assert called(plan_calls(hi, [going, v], [], 0.0, 1.0)) == [("patch", "v"), ("delete", "v")]
    assert plan_calls(hi, [going], [], 0.0, 1.0) == []
    assert called(plan_sync_calls(hi, [going, v], [], 0.0, skip_terminating=False)) == \
        [("patch", "going"), ("patch", "v"), ("delete", "going"), ("delete", "v")]


def test_the_summary_says_how_many_victims_each_leave_figure_timed() -> None:
    # a count after a figure's name read as a duration ("their workload's time 14"): each figure
    # gets a line of its own, the victims it timed counted as victims, within 80 columns
    from kubectl_preempt.render.replay import _leave_and_async_lines

    lines = _leave_and_async_lines({"preemptions": 3, "victimsLeave": {"workload": 14, "namespace": 0,
                                                                       "gracePeriod": 1}})
    assert lines == ["  Victims leave after   their workload's measured time (14 victims)",
                     "                        their grace period (1 victim)"]
    assert all(len(line) <= 80 for line in lines)
