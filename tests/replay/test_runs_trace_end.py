"""Issue 26 follow-up, point 1: `replay --runs` counts a victim at the decision that evicts it,
as it counts the preemption, not at its delete call: asynchronous preemption makes that call
one status patch later, which may be after the trace's end."""
from __future__ import annotations

from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod

from .helpers import ev, trace

END = 60.0


def late_trace(arrival: float) -> dict:
    """n1 (4 cpu) full of two batch pods (2 cpu, priority 1); a 2-cpu pod of priority 1000
    arrives at `arrival`: it preempts one of them at once; the victim's status patch and delete
    call take one API call each (45 ms by default)."""
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj())]
    for i in range(2):
        evs.append(ev(0, "ADDED", make_pod(f"low-{i}").ns("batch").priority(1).req(cpu="2")
                      .start_time("2026-03-01T09:00:00Z").on("n1").obj()))
    evs.append(ev(arrival, "ADDED", make_pod("web").ns("shop").priority(1000).req(cpu="2").obj()))
    return trace(*evs, end=END)


def test_a_decision_in_the_last_instant_counts_its_victims_with_the_preemption() -> None:
    r = replay(late_trace(END - 0.01), runs=3, jobs=1)
    dist = r["distribution"]
    assert dist["preemptions"]["max"] == 1 and dist["preemptions"]["min"] == 1
    # the victim's delete call would land 80 ms after the end: it is a victim all the same
    assert dist["victims"] == {"p5": 1, "p50": 1, "p95": 1, "min": 1, "max": 1}
    assert dist["victimsByPriorityClass"]["(none)"]["p50"] == 1
    assert dist["victimsByNamespace"]["batch"]["p50"] == 1
    assert sum(dist["evictionProbability"].values()) == 1.0


def test_a_victim_is_counted_once_when_its_delete_call_lands_too() -> None:
    r = replay(late_trace(END - 30), runs=3, jobs=1)
    dist = r["distribution"]
    assert dist["preemptions"]["p50"] == 1
    assert dist["victims"]["max"] == 1
