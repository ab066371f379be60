"""Issue 26 follow-up: the replay's API calls take what the trace's own calls took. The gap from a
victim's DisruptionTarget patch reaching the watch to its deletionTimestamp reaching it is one
delete call (Evaluator.PreemptPod calls delete as soon as the patch returns); with enough such
victims in the trace, their median is the latency of the replay's calls, else the default. In run
k >= 2 of `replay --runs`, each call takes one of the measured times, drawn."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.io.trace import parse_rfc3339
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.render.replay import render_replay
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.replay.calibration import api_latency_of
from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY, plan_calls
from tests.builders import make_node, make_pod

from .helpers import ev, trace

DISRUPTION = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
              "message": "default-scheduler: preempting to accommodate a higher priority pod"}


def latency_trace(victims: int, gap: float) -> dict[str, Any]:
    """n1 (4 cpu) runs low (4 cpu, grace 30); n2 (7 cpu) runs `victims` small pods the recorded
    scheduler preempted, each patched at 1+i s and deleted `gap` s later. hi (4 cpu, priority
    100) arrives at 10 s and the replay preempts low for it."""
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
           ev(0, "ADDED", make_node("n2").alloc(cpu="7", memory="8Gi").obj()),
           ev(0, "ADDED", make_pod("low").priority(1).req(cpu="4").start_time("2026-03-01T09:00:00Z")
              .set("spec.terminationGracePeriodSeconds", 30).on("n1").obj())]
    for i in range(victims):
        v = make_pod(f"v{i}").priority(1000).req(cpu="1").start_time("2026-03-01T09:00:00Z").on("n2")
        evs.append(ev(0, "ADDED", v.obj()))
        evs.append(ev(1 + i, "MODIFIED", v.set("status.conditions", [DISRUPTION]).obj()))
        evs.append(ev(1 + i + gap, "MODIFIED", v.set("metadata.deletionTimestamp", "2026-03-01T10:00:40Z").obj()))
    evs.append(ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="4").obj()))
    evs.sort(key=lambda e: e["time"])
    return trace(*evs, end=20)


def test_the_delete_calls_latency_is_measured_on_the_recorded_victims() -> None:
    assert api_latency_of(normalize(latency_trace(5, 0.02)).events) == pytest.approx(0.02)
    # too few victims to say: the default stands
    assert api_latency_of(normalize(latency_trace(4, 0.02)).events) is None


def test_the_replays_calls_take_the_traces_latency() -> None:
    r = replay(latency_trace(5, 0.02))
    assert r["summary"]["asyncPreemption"]["apiLatencySeconds"] == pytest.approx(0.02)
    assert r["summary"]["asyncPreemption"]["apiLatencyFrom"] == "trace"
    [p] = [p for p in r["preemptions"] if p["preemptor"] == "default/hi"]
    # one victim: its patch then its delete, 20 ms each, from the decision at 10:00:10
    assert p["victimDetails"][0]["deletionTimestamp"] == "2026-03-01T10:00:10.040Z"
    r = replay(latency_trace(4, 0.02))
    assert r["summary"]["asyncPreemption"]["apiLatencySeconds"] == DEFAULT_API_LATENCY
    assert r["summary"]["asyncPreemption"]["apiLatencyFrom"] == "default"
    [p] = [p for p in r["preemptions"] if p["preemptor"] == "default/hi"]
    assert p["victimDetails"][0]["deletionTimestamp"] == "2026-03-01T10:00:10.090Z"


# --- replay --runs: each call of a preemption takes its own drawn time ---------------------------

def _pod(name: str) -> Pod:
    return Pod(make_pod(name).priority(1).req(cpu="1").on("n1").obj())


def test_without_a_draw_every_call_takes_the_one_latency() -> None:
    """api_dispatcher.plan_calls mirrors prepareCandidateAsync: all victims but the last in
    parallel (a patch, then a delete), then the last one; v1.35+ hold the preemptor until that
    last delete (executor.go isRunningPreemption)."""
    victims = [_pod("a"), _pod("b"), _pod("c")]
    calls = plan_calls(_pod("hi"), victims, [], 10.0, 0.02, release_after_last_delete=True)
    assert [(round(c.at - 10, 3), c.what, c.pod.name) for c in calls] == [
        (0.02, "patch", "a"), (0.02, "patch", "b"), (0.04, "delete", "a"), (0.04, "delete", "b"),
        (0.06, "patch", "c"), (0.08, "delete", "c"), (0.08, "release", "hi")]


def test_with_a_draw_each_call_takes_its_own_time_and_a_worker_takes_the_next_piece_when_free() -> None:
    """The Parallelizer's 16 workers (parallelize.Until) each take the next victim as soon as
    they are done with one; each PreemptPod is a patch then a delete, each answered in its own
    time; the last victim's calls wait for all of them."""
    victims = [_pod(f"v{i}") for i in range(18)]  # 17 in parallel, then the last
    times = iter([0.01, 0.01] + [0.05, 0.05] * 15 + [0.02, 0.03] + [0.1, 0.2])
    calls = plan_calls(_pod("hi"), victims, [], 0.0, 0.02, release_after_last_delete=True, draw=lambda: next(times))
    at = {(c.what, c.pod.name): round(c.at, 3) for c in calls}
    # v0's worker was done first (0.02 s): it takes v16, the 17th piece, while the others still work
    assert at["patch", "v0"] == 0.01 and at["delete", "v0"] == 0.02
    assert at["patch", "v16"] == 0.04 and at["delete", "v16"] == 0.07
    assert at["delete", "v15"] == 0.1
    # the last victim after every other one: its patch 0.1 s, its delete 0.2 s after that
    assert at["patch", "v17"] == 0.2 and at["delete", "v17"] == 0.4 and at["release", "hi"] == 0.4
    assert [c.at for c in calls] == sorted(c.at for c in calls)


def spread_trace() -> dict[str, Any]:
    """latency_trace with victims whose calls took 10, 30, 50, 70 and 90 ms: median 50 ms."""
    t = latency_trace(5, 0.0)
    gaps = iter([0.01, 0.03, 0.05, 0.07, 0.09])
    for e in t["events"]:
        if (e["object"].get("metadata") or {}).get("deletionTimestamp") and e["object"]["metadata"]["name"].startswith("v"):
            e["time"] = f"2026-03-01T10:00:{int(e['time'][17:19]):02d}.{round(next(gaps) * 1000):03d}Z"
    return t


def _deleted_at(report: dict[str, Any]) -> float:
    [p] = [p for p in report["preemptions"] if p["preemptor"] == "default/hi"]
    return round(parse_rfc3339(p["victimDetails"][0]["deletionTimestamp"]) - parse_rfc3339("2026-03-01T10:00:10Z"), 3)


def test_run_one_keeps_the_median_and_later_runs_draw_each_call_from_the_traces_calls() -> None:
    t = spread_trace()
    assert api_latency_of(normalize(t).events) == pytest.approx(0.05)
    # run 1 (the single replay): the patch then the delete, 50 ms each
    assert _deleted_at(replay(t)) == 0.1
    # runs 2..9: two calls, each one of the measured times
    sums = {round(a + b, 3) for a in (0.01, 0.03, 0.05, 0.07, 0.09) for b in (0.01, 0.03, 0.05, 0.07, 0.09)}
    drawn = [_deleted_at(replay(t, run=k)) for k in range(2, 10)]
    assert set(drawn) <= sums and len(set(drawn)) > 1
    # each run draws the same on every replay of it (its seed)
    assert _deleted_at(replay(t, run=5)) == drawn[3]
    # --api-latency fixes every call's time, in every run
    assert _deleted_at(replay(t, run=3, api_latency=0.02)) == 0.04


def test_the_report_says_a_run_drew_its_calls_and_from_how_many() -> None:
    t = spread_trace()
    ap = replay(t, run=2)["summary"]["asyncPreemption"]
    assert ap["apiLatencyDrawnFrom"] == 5 and ap["apiLatencySeconds"] == pytest.approx(0.05)
    assert "apiLatencyDrawnFrom" not in replay(t)["summary"]["asyncPreemption"]
    assert "apiLatencyDrawnFrom" not in replay(t, run=2, api_latency=0.02)["summary"]["asyncPreemption"]
    # the table's line
    table = render_replay(replay(t, run=2), "table")
    assert "each API call drawn from the trace's 5 (median 50 ms)" in table
    assert all(len(line) <= 80 for line in table.splitlines() if "Async preemption" in line)


@pytest.mark.parametrize("latency", [-1, float("inf"), float("nan"), True, "1s"])
def test_an_api_latency_that_is_not_a_finite_number_of_seconds_is_refused(latency: Any) -> None:
    with pytest.raises(InputError) as e:
        replay(latency_trace(0, 0), api_latency=latency)
    assert e.value.field == "--api-latency"
