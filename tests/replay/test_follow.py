"""Follow mode: the recording as it happened, each preemption it shows explained and checked."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.follow import find_incidents
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.replay.simulate import initial_objects
from tests.builders import make_node, make_pod

from .helpers import at, ev, trace

DISRUPTION = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
               "message": "default-scheduler: preempting to accommodate a higher priority pod"}]


def _victim(name: str, node: str, prio: int, cpu: str, t: float) -> dict[str, Any]:
    return (make_pod(name).priority(prio).req(cpu=cpu).on(node)
            .set("metadata.deletionTimestamp", at(t)).set("status.conditions", DISRUPTION).obj())


def _cluster() -> list[dict[str, Any]]:
    # n1 holds one low pod of 1 CPU priority 1 and one of 2 CPU priority 2; n2 one of 3 CPU priority 5
    return [
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("a").priority(1).req(cpu="1").on("n1").obj()),
        ev(0, "ADDED", make_pod("b").priority(2).req(cpu="2").on("n1").obj()),
        ev(0, "ADDED", make_pod("c").priority(5).req(cpu="3").on("n2").obj()),
        ev(0, "ADDED", make_pod("x").priority(1).req(cpu="1").on("n2").obj()),
    ]


def _preemption(node: str, victims: list[tuple[str, int, str]]) -> list[dict[str, Any]]:
    out = [ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="3").obj())]
    for name, prio, cpu in victims:
        out.append(ev(10.2, "MODIFIED", _victim(name, node, prio, cpu, 10.2)))
    out.append(ev(10.3, "MODIFIED", make_pod("hi").priority(100).req(cpu="3").nominated(node).obj()))
    for name, prio, cpu in victims:
        out.append(ev(40.2, "DELETED", _victim(name, node, prio, cpu, 10.2)))
    out.append(ev(41, "MODIFIED", make_pod("hi").priority(100).req(cpu="3").on(node).obj()))
    return out


def test_incidents_group_a_nomination_with_its_victims() -> None:
    tl = normalize(trace(*_cluster(), *_preemption("n1", [("a", 1, "1"), ("b", 2, "2")]), end=60))
    [inc] = find_incidents(initial_objects(tl.initial), tl.events)
    assert (inc.preemptor_key, inc.node, sorted(inc.victims)) == ("default/hi", "n1", ["default/a", "default/b"])
    # explained before the first sign of it: the victims' conditions at 10.2
    assert tl.events[inc.first_index].time == tl.start + 10.2


def test_a_preemption_the_offline_scheduler_makes_the_same_way_agrees() -> None:
    # on n1 evicting b (priority 2) makes room and a is reprieved; n2 would cost c (priority 5)
    report = replay(trace(*_cluster(), *_preemption("n1", [("b", 2, "2")]), end=60), mode="follow")
    [p] = report["preemptions"]
    assert p["agrees"] is True, p["differences"]
    assert p["replayed"]["node"] == "n1"
    assert p["why"]["decidedBy"] == "lowest highest-victim priority"
    assert report["summary"]["agree"] == 1 and report["summary"]["differ"] == 0


def test_a_preemption_on_another_node_is_flagged() -> None:
    report = replay(trace(*_cluster(), *_preemption("n2", [("c", 5, "3")]), end=60), mode="follow")
    [p] = report["preemptions"]
    assert p["agrees"] is False
    assert p["differences"] == ["the replay nominates n1; the cluster nominated n2"]
    assert report["summary"]["differ"] == 1


def test_other_victims_on_the_same_node_are_flagged() -> None:
    report = replay(trace(*_cluster(), *_preemption("n1", [("a", 1, "1"), ("b", 2, "2")]), end=60), mode="follow")
    [p] = report["preemptions"]
    assert p["agrees"] is False
    assert p["differences"] == ["on n1 the replay evicts [default/b]; the cluster evicted [default/a, default/b]"]


def test_follow_applies_recorded_bindings() -> None:
    report = replay(trace(*_cluster(), *_preemption("n1", [("a", 1, "1"), ("b", 2, "2")]), end=60), mode="follow")
    assert report["summary"]["recordedBindings"] == 1
    assert report["mode"] == "follow"
