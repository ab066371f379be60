"""Issue 26 follow-up: the replay's API calls take what the trace's own calls took. The gap from a
victim's DisruptionTarget patch reaching the watch to its deletionTimestamp reaching it is one
delete call (Evaluator.PreemptPod calls delete as soon as the patch returns); with enough such
victims in the trace, their median is the latency of the replay's calls, else the default."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.replay.calibration import api_latency_of
from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY
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
