"""Follow mode: the recording as it happened, each preemption it shows explained and checked."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.follow import find_incidents
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.replay.simulate import initial_objects
from tests.builders import make_node, make_pdb, make_pod

from .helpers import START, at, ev, seconds, trace

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


def test_follow_groups_the_victims_by_their_priority_class_as_simulate_does() -> None:
    # the bundled demo: what the cluster evicted is batch and standard pods, never "(none)"
    from pathlib import Path

    from kubectl_preempt.io.trace import read_trace
    demo = str(Path(__file__).resolve().parents[2] / "traces" / "demo.jsonl.gz")
    follow = replay(read_trace(demo), mode="follow")["summary"]["victimsByPriorityClass"]
    simulate = replay(read_trace(demo))["summary"]["victimsByPriorityClass"]
    assert follow == [{"priorityClass": "batch", "victims": 11}, {"priorityClass": "standard", "victims": 3}]
    assert follow == simulate


def test_a_preemptor_released_early_by_asynchronous_preemption_decides_again_and_agrees() -> None:
    # hi takes a on n1; released before a's deletion is made, it is tried again, preempts b on
    # n2 and is nominated there. By the time b's condition is recorded, a's deletion is too: a
    # scheduler that had seen it would have refused (a terminating pod on the nominated node),
    # so the second decision was made before it, as if a were not yet terminating
    def low(name: str, node: str, *, deleting: bool = False, disrupted: bool = False) -> dict[str, Any]:
        b = make_pod(name).priority(1).req(cpu="2").on(node).start_time("2026-03-01T09:00:00Z")
        if disrupted:
            b = b.set("status.conditions", DISRUPTION)
        if deleting:
            b = b.set("metadata.deletionTimestamp", at(40))
        return b.obj()

    hi = make_pod("hi").priority(100).req(cpu="2")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", low("a", "n1")), ev(0, "ADDED", low("b", "n2")),
              ev(10, "ADDED", hi.obj()),
              ev(10.1, "MODIFIED", low("a", "n1", disrupted=True)),
              ev(10.11, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").nominated("n1").obj()),
              ev(10.2, "MODIFIED", low("a", "n1", disrupted=True, deleting=True)),
              ev(10.3, "MODIFIED", low("b", "n2", disrupted=True)),
              ev(10.31, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").nominated("n2").obj())]
    report = replay(trace(*events, end=20), mode="follow")
    first, second = report["preemptions"]
    assert (first["node"], first["victims"], first["agrees"]) == ("n1", ["default/a"], True)
    assert (second["node"], second["victims"]) == ("n2", ["default/b"])
    assert second["replayed"]["victimsOnRecordedNode"] == ["default/b"]
    assert second["agrees"] is True, second["differences"]


def test_the_schedulers_preempted_events_attribute_each_victim_to_its_preemptor() -> None:
    # two preemptions on n1 within a second; b's condition is recorded closer to hi1's
    # nomination than to hi2's, but the Preempted event says hi2 took it
    def low(name: str, disrupted: bool = False) -> dict[str, Any]:
        b = make_pod(name).priority(1).req(cpu="2").on("n1").start_time("2026-03-01T09:00:00Z")
        return (b.set("status.conditions", DISRUPTION) if disrupted else b).obj()

    def event(victim: str, preemptor: str, t: float) -> dict[str, Any]:
        return ev(t, "ADDED", {"apiVersion": "v1", "kind": "Event",
                               "metadata": {"name": f"{victim}.1", "namespace": "default"},
                               "reason": "Preempted", "message": f"Preempted by pod uid-{preemptor} on node n1",
                               "involvedObject": {"kind": "Pod", "namespace": "default", "name": victim,
                                                  "uid": f"uid-{victim}"}})

    hi = lambda name: make_pod(name).priority(100).req(cpu="2")  # noqa: E731
    base = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
            ev(0, "ADDED", low("a")), ev(0, "ADDED", low("b")),
            ev(10, "ADDED", hi("hi1").obj()), ev(10, "ADDED", hi("hi2").obj()),
            ev(10.8, "MODIFIED", low("a", disrupted=True)),
            ev(10.9, "MODIFIED", hi("hi1").nominated("n1").obj()),
            ev(10.95, "MODIFIED", low("b", disrupted=True)),
            ev(12, "MODIFIED", hi("hi2").nominated("n1").obj())]
    with_events = base + [event("a", "hi1", 10.8), event("b", "hi2", 10.95)]
    tl = normalize(trace(*with_events, end=30))
    incs = find_incidents(initial_objects(tl.initial), tl.events)
    assert sorted((i.preemptor_key, i.victims) for i in incs) == [("default/hi1", ["default/a"]),
                                                                 ("default/hi2", ["default/b"])]
    # without the events, timing alone gives b to the nomination closest to its condition
    tl = normalize(trace(*base, end=30))
    incs = find_incidents(initial_objects(tl.initial), tl.events)
    assert sorted((i.preemptor_key, i.victims) for i in incs) == [("default/hi1", ["default/a", "default/b"]),
                                                                 ("default/hi2", [])]


def test_a_victim_the_event_names_goes_to_its_preemptors_nomination_on_its_node_closest_in_time() -> None:
    """A pod nominated on n1 twice within the signal window (a decision at 10.9, the nomination
    cleared, another at 21.9): each Event-attributed victim is the sign of the decision nearest
    to it, not of the first one (the cluster's record counts a pod's decisions on a node apart
    when they are more than 10 s apart)."""
    def low(name: str, disrupted: bool = False) -> dict[str, Any]:
        b = make_pod(name).priority(1).req(cpu="2").on("n1").start_time("2026-03-01T09:00:00Z")
        return (b.set("status.conditions", DISRUPTION) if disrupted else b).obj()

    def event(victim: str, t: float) -> dict[str, Any]:
        return ev(t, "ADDED", {"apiVersion": "v1", "kind": "Event",
                               "metadata": {"name": f"{victim}.1", "namespace": "default"},
                               "reason": "Preempted", "message": "Preempted by pod uid-hi on node n1",
                               "involvedObject": {"kind": "Pod", "namespace": "default", "name": victim,
                                                  "uid": f"uid-{victim}"}})

    hi = lambda: make_pod("hi").priority(100).req(cpu="4")  # noqa: E731
    tl = normalize(trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
                         ev(0, "ADDED", low("a")), ev(0, "ADDED", low("b")), ev(10, "ADDED", hi().obj()),
                         ev(10.8, "MODIFIED", low("a", disrupted=True)), event("a", 10.85),
                         ev(10.9, "MODIFIED", hi().nominated("n1").obj()),
                         ev(15, "MODIFIED", hi().obj()),
                         ev(21.8, "MODIFIED", low("b", disrupted=True)), event("b", 21.85),
                         ev(21.9, "MODIFIED", hi().nominated("n1").obj()), end=40))
    incs = find_incidents(initial_objects(tl.initial), tl.events)
    assert sorted((round(i.time - START), i.victims) for i in incs) == [(11, ["default/a"]), (22, ["default/b"])]


def test_a_victims_condition_before_the_event_naming_its_preemptor_is_attributed_by_the_event() -> None:
    """A preemptor that is never nominated (a pod-group member: v1.36 nominates none of them) and
    whose victims' DisruptionTarget condition is recorded before the scheduler's Preempted event:
    the event names the preemptor; the condition must not open an incident without one first."""
    low = make_pod("a").priority(1).req(cpu="2").on("n1").start_time("2026-03-01T09:00:00Z")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", low.obj()),
              ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()),
              ev(10.05, "MODIFIED", low.set("status.conditions", DISRUPTION).obj()),
              ev(10.09, "ADDED", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "a.1", "namespace": "default"},
                                  "reason": "Preempted", "message": "Preempted by pod uid-hi on node n1",
                                  "involvedObject": {"kind": "Pod", "namespace": "default", "name": "a",
                                                     "uid": "uid-a"}})]
    tl = normalize(trace(*events, end=30))
    [inc] = find_incidents(initial_objects(tl.initial), tl.events)
    assert (inc.preemptor_uid, inc.node, inc.victims) == ("uid-hi", "n1", ["default/a"])


def test_a_nomination_with_only_already_terminating_victims_is_reported_as_a_renomination() -> None:
    # hi preempted a on n1 and was nominated there; later it is nominated to n1 again with no new
    # victim: the scheduler decided again, counting a (terminating) as its victim
    hi = make_pod("hi").priority(100).req(cpu="2")
    a = make_pod("a").priority(1).req(cpu="2").on("n1").start_time("2026-03-01T09:00:00Z")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", a.obj()),
              ev(10, "ADDED", hi.obj()),
              ev(10.1, "MODIFIED", a.set("status.conditions", DISRUPTION).obj()),
              ev(10.15, "MODIFIED", hi.nominated("n1").obj()),
              ev(10.2, "MODIFIED", a.set("metadata.deletionTimestamp", at(40)).obj()),
              ev(30, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").obj()),
              ev(30.1, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").nominated("n1").obj())]
    report = replay(trace(*events, end=60), mode="follow")
    first, again = report["preemptions"]
    assert "renomination" not in first and first["victims"] == ["default/a"]
    assert again["renomination"] is True and again["victims"] == []
    assert again["replayed"]["victimsOnRecordedNode"] == ["default/a"]
    assert again["agrees"] is True, again["differences"]
    assert report["summary"]["renominations"] == 1


# --- writes delivered in one backlog with a decision's first sign ----------------------------------

def _backlog_trace(pdb_at: float) -> dict:
    """n1 holds `guarded` (covered by PDB web, 1 disruption allowed), n2 holds `free`, started
    earlier: without a PDB violation anywhere the scheduler takes n1, whose victim started later.
    The disruption controller writes the PDB down to 0 at `pdb_at`; the first sign of the
    decision (guarded's DisruptionTarget) is written at 10.3."""
    guarded = (make_pod("guarded").priority(1).req(cpu="2").on("n1").label("app", "web")
               .start_time("2026-03-01T09:59:00Z"))
    free = make_pod("free").priority(1).req(cpu="2").on("n2").start_time("2026-03-01T09:00:00Z")
    hi = make_pod("hi").priority(100).req(cpu="2")
    sel = {"matchLabels": {"app": "web"}}
    target = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", guarded.obj()), ev(0, "ADDED", free.obj()),
              ev(0, "ADDED", make_pdb("web", sel, 1)),
              ev(10, "ADDED", hi.obj()),
              ev(pdb_at, "MODIFIED", make_pdb("web", sel, 0)),
              ev(10.3, "MODIFIED", guarded.set("status.conditions", target).obj()),
              ev(10.35, "MODIFIED", hi.nominated("n1").obj())]
    return trace(*sorted(events, key=lambda e: seconds(e["time"])), end=20)


def test_a_pdb_status_delivered_with_the_first_sign_is_taken_as_written_after_the_decision() -> None:
    # the recorder wrote the PDB update and the sign at one instant (a backlog): the update may
    # have come after the decision, and the decision that took `guarded` says it did
    [p] = replay(_backlog_trace(10.3), mode="follow")["preemptions"]
    assert p["replayed"]["node"] == "n1"
    assert p["agrees"] is True, p["differences"]


def test_a_pdb_status_recorded_before_the_preemptor_came_is_what_the_decision_saw() -> None:
    # written before the preemptor existed: the scheduler had it, and with no disruption left on
    # n1 the replay takes n2; the recorded n1 is a difference
    [p] = replay(_backlog_trace(9.5), mode="follow")["preemptions"]
    assert p["replayed"]["node"] == "n2"
    assert p["agrees"] is False and p["verdict"] == "differs"
    assert "undecidableFromTrace" not in p["replayed"]
