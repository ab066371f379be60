"""Follow mode and what the trace cannot settle (issue 26): it says why a recorded preemption may
differ from the replay's (victims whose order in the scheduler's cache comes from before the trace;
a nomination whose writes came a few milliseconds after this decision's), and holds the nomination
of a pod ahead in the queue whose writes came just after, as the scheduler held it."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod

from .helpers import ev, trace

PREEMPTED = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


def _low(name: str, node: str, priority: int = 1, started: str = "2026-03-01T09:00:00Z") -> Any:
    return make_pod(name).priority(priority).req(cpu="2").set("spec.terminationGracePeriodSeconds", 30) \
        .start_time(started).running(node)


def _victim_signal(b: Any, t: float) -> dict[str, Any]:
    return ev(t, "MODIFIED", b.set("status.conditions", PREEMPTED).obj())


def _nominated(name: str, node: str, t: float, priority: int = 1000) -> dict[str, Any]:
    return ev(t, "MODIFIED", make_pod(name).priority(priority).req(cpu="2").set("status.nominatedNodeName", node).obj())


def _follow(tr: dict[str, Any]) -> dict[str, Any]:
    return replay(tr, mode="follow")


def _order_trace(victim: str) -> dict[str, Any]:
    # a and b: one priority, one start second, both on n1 before the trace began
    return trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", _low("a", "n1").obj()),
        ev(0, "ADDED", _low("b", "n1").obj()),
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="2").obj()),
        _nominated("high", "n1", 5.1),
        _victim_signal(_low(victim, "n1"), 5.11),
        end=60)


def test_victims_of_one_priority_and_start_second_placed_before_the_trace_are_each_a_possible_victim() -> None:
    # the cache's order of a and b comes from before the trace: either may be the victim, and the
    # cluster taking the one the replay's estimate does not is a tie with the real one
    replayed_victim = _follow(_order_trace("a"))["preemptions"][0]["replayed"]["victims"]
    other = "b" if replayed_victim == ["default/a"] else "a"
    [p] = _follow(_order_trace(other))["preemptions"]
    assert p["verdict"] == "tied" and p["agrees"] is True, p["differences"]
    assert p["replayed"]["victimOrderUnknown"] is True
    assert p["replayed"]["victimsOnRecordedNode"] == replayed_victim
    assert p["replayed"]["victimAlternatives"] == [[f"default/{other}"]]
    [same] = _follow(_order_trace(replayed_victim[0].split("/")[1]))["preemptions"]
    assert same["verdict"] == "agrees" and same["replayed"]["victimOrderUnknown"] is True


def test_a_difference_among_pods_started_in_different_seconds_is_not_put_down_to_the_order() -> None:
    tr = _order_trace("a")
    tr["events"][2] = ev(0, "ADDED", _low("b", "n1", started="2026-03-01T09:00:01Z").obj())
    # b started later: less important, evicted first by the replay; the cluster evicting a is a real difference
    [p] = _follow(tr)["preemptions"]
    assert p["agrees"] is False and "victimOrderUnknown" not in p["replayed"]


def _racing_trace(p1_first: bool) -> dict[str, Any]:
    """p1 took n1 (the better node: its victim has the lower priority) and p2 took n2; p2's writes
    reached the recording 1 ms before p1's. `p1_first`: p1 came into the queue before p2."""
    created = [ev(4, "ADDED", make_pod(n).priority(1000).req(cpu="2").obj()) for n in ("p1", "p2")]
    return trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", _low("v1", "n1", priority=1).obj()),
        ev(0, "ADDED", _low("v2", "n2", priority=5).obj()),
        *(created if p1_first else created[::-1]),
        _nominated("p2", "n2", 5.000),
        _victim_signal(_low("v2", "n2", priority=5), 5.0005),
        _nominated("p1", "n1", 5.001),
        _victim_signal(_low("v1", "n1", priority=1), 5.0015),
        end=60)


def test_a_nomination_of_a_pod_ahead_in_the_queue_whose_writes_came_after_is_held_when_deciding() -> None:
    # p1 was ahead of p2 in the queue (same priority, queued first): the scheduler decided it
    # first and held its nomination to n1 when it tried p2, which therefore took n2
    rows = {p["preemptor"]: p for p in _follow(_racing_trace(p1_first=True))["preemptions"]}
    assert rows["default/p2"]["agrees"] is True, rows["default/p2"]["differences"]
    assert rows["default/p1"]["agrees"] is True


def test_a_nomination_decided_just_after_whose_pod_was_behind_in_the_queue_is_not_named() -> None:
    # p2 was queued first: the scheduler decided p1 after it, so p1's nomination is no reason for
    # p2's choice; the difference stays, with no hint
    rows = {p["preemptor"]: p for p in _follow(_racing_trace(p1_first=False))["preemptions"]}
    p2 = rows["default/p2"]
    assert p2["agrees"] is False
    assert "nominatedJustAfter" not in p2["replayed"]
    assert rows["default/p1"]["agrees"] is True and "nominatedJustAfter" not in rows["default/p1"]["replayed"]


def test_a_nomination_recorded_just_after_of_a_pod_that_came_after_the_decision_is_not_named() -> None:
    # p1 is created after p2's decision: it cannot have been decided first
    tr = _racing_trace(p1_first=True)
    events = tr["events"]
    p1 = next(e for e in events if e["object"]["metadata"]["name"] == "p1" and e["type"] == "ADDED")
    events.remove(p1)
    events.insert(events.index(next(e for e in events if e["object"].get("metadata", {}).get("name") == "p2"
                                    and e["type"] == "MODIFIED")) + 1, ev(5.0002, "ADDED", p1["object"]))
    rows = {p["preemptor"]: p for p in _follow(tr)["preemptions"]}
    assert "nominatedJustAfter" not in rows["default/p2"]["replayed"]
