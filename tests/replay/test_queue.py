"""The scheduling queue of kube-scheduler v1.34.1: activeQ order, backoff, the unschedulable pool
and the cluster events that move pods out of it."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import names
from kubectl_preempt.framework import events as hints
from kubectl_preempt.scheduler.backend.queue import (ACTIVE, BACKOFF, ERROR_BACKOFF, UNSCHEDULABLE, SchedulingQueue)
from tests.builders import make_node, make_pod


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _queue(clock: Clock, **kw) -> SchedulingQueue:
    return SchedulingQueue(clock, **kw)


def _rejected(clock: Clock, plugin: str, cpu: str | None = None, **queue_kw: Any) -> tuple[Any, Any]:
    """A queue holding pod "a", popped and rejected by `plugin`: in unschedulablePods, as
    AddUnschedulableIfNotPresent leaves a pod after a failed cycle."""
    q = _queue(clock, **queue_kw)
    q.add(pod("a", cpu=cpu) if cpu else pod("a"))
    p = q.pop()
    q.add_unschedulable_if_not_present(p, {plugin})
    return q, p


def pod(name: str, prio: int = 0, **req: str) -> Pod:
    b = make_pod(name).priority(prio)
    if req:
        b = b.req(**req)
    return Pod(b.obj())


def test_active_queue_pops_higher_priority_first_then_the_pod_queued_earlier() -> None:
    clock = Clock()
    q = _queue(clock)
    q.add(pod("low-early", 1))
    clock.t += 1
    q.add(pod("high-late", 100))
    clock.t += 1
    q.add(pod("low-late", 1))
    q.add(pod("high-later", 100))
    order = []
    while (p := q.pop()) is not None:
        order.append(p.pod.name)
    assert order == ["high-late", "high-later", "low-early", "low-late"]


@pytest.mark.parametrize("failures, expected", [
    (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (9, 10.0),
], ids=["the first failure backs off 1 s", "the second 2 s", "the third 4 s", "the fourth 8 s",
        "the fifth is capped at 10 s", "later failures stay at 10 s"])
def test_backoff_doubles_from_one_second_to_ten(failures: int, expected: float) -> None:
    q = _queue(Clock())
    assert q.backoff_duration(failures) == expected


def test_backoff_ends_on_the_whole_second_window_after_the_failure() -> None:
    clock = Clock(1000.4)
    q = _queue(clock)
    q.add(pod("a"))
    p = q.pop()
    # a failure nobody rejected (an error) goes straight to the error backoff queue
    assert q.add_unschedulable_if_not_present(p, ()) == ERROR_BACKOFF
    # 1000.4 + 1 s, truncated to the window: 1001; it completes when the window has passed
    assert q.backoff_time(p) == 1001.0
    assert q.next_backoff_completion() == 1002.0
    clock.t = 1001.9
    assert q.flush_backoff_completed() == 0
    clock.t = 1002.0
    assert q.flush_backoff_completed() == 1
    assert q.where(p.pod) == ACTIVE


def test_a_pod_rejected_by_a_plugin_waits_in_the_unschedulable_pool() -> None:
    clock = Clock()
    q = _queue(clock)
    q.add(pod("a", cpu="8"))
    p = q.pop()
    assert q.add_unschedulable_if_not_present(p, {names.NODE_RESOURCES_FIT}) == UNSCHEDULABLE
    assert not q.has_poppable()
    assert q.unschedulable_pods()[0].name == "a"


def test_deleting_a_bound_pod_moves_a_pod_that_lacked_resources() -> None:
    clock = Clock()
    q, p = _rejected(clock, names.NODE_RESOURCES_FIT, cpu="8")
    clock.t += 5  # past its 1 s backoff
    victim = Pod(make_pod("victim").req(cpu="4").on("n1").obj())
    assert q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE, victim, None) == 1
    assert q.where(p.pod) == ACTIVE


def test_a_pod_still_backing_off_moves_to_the_backoff_queue_and_is_popped_when_nothing_else_waits() -> None:
    clock = Clock(1000.0)
    q, p = _rejected(clock, names.NODE_RESOURCES_FIT, cpu="8")
    clock.t = 1000.5
    victim = Pod(make_pod("victim").req(cpu="4").on("n1").obj())
    q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE, victim, None)
    assert q.where(p.pod) == BACKOFF
    # SchedulerPopFromBackoffQ (on by default in v1.34): an idle scheduler takes it at once
    assert q.pop() is p


def test_without_pop_from_backoff_a_backing_off_pod_waits_for_its_backoff() -> None:
    clock = Clock(1000.0)
    q, p = _rejected(clock, names.NODE_RESOURCES_FIT, cpu="8", pop_from_backoff=False)
    clock.t = 1000.5
    q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE,
                                    Pod(make_pod("v").req(cpu="4").on("n1").obj()), None)
    assert q.pop() is None
    clock.t = 1001.0  # not before the end of the backoff: still backing off
    q.flush_backoff_completed()
    assert q.pop() is None
    clock.t = 1001.001
    q.flush_backoff_completed()
    assert q.pop() is p


def test_deleting_a_pending_pod_does_not_help_a_pod_that_lacked_resources() -> None:
    clock = Clock()
    q, p = _rejected(clock, names.NODE_RESOURCES_FIT, cpu="8")
    pending = Pod(make_pod("other").req(cpu="4").obj())
    assert q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE, pending, None) == 0
    assert q.where(p.pod) == UNSCHEDULABLE


@pytest.mark.parametrize("alloc, moves", [
    ({"cpu": "16", "memory": "8Gi"}, True),
    ({"cpu": "2", "memory": "8Gi"}, False),
], ids=["a new node big enough moves the pod", "a new node too small leaves it"])
def test_a_node_added_moves_a_pod_that_lacked_resources_only_if_it_could_fit(alloc: dict, moves: bool) -> None:
    clock = Clock()
    q, p = _rejected(clock, names.NODE_RESOURCES_FIT, cpu="8")
    clock.t += 5
    node = Node(make_node("n9").alloc(**alloc).obj())
    q.move_all_to_active_or_backoff(hints.EVENT_NODE_ADD, None, node)
    assert (q.where(p.pod) == ACTIVE) is moves


def test_an_event_no_rejecting_plugin_registered_for_leaves_the_pod() -> None:
    clock = Clock()
    q, p = _rejected(clock, names.TAINT_TOLERATION)
    clock.t += 5
    victim = Pod(make_pod("victim").on("n1").obj())
    assert q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE, victim, None) == 0


def test_untainting_a_node_moves_a_pod_rejected_by_its_taint() -> None:
    clock = Clock()
    q, p = _rejected(clock, names.TAINT_TOLERATION)
    clock.t += 5
    old = Node(make_node("n1").taint("dedicated", "gpu").obj())
    new = Node(make_node("n1").obj())
    event = hints.node_scheduling_properties_change(old, new)
    assert event is not None and event.action & hints.UPDATE_NODE_TAINT
    assert q.move_all_to_active_or_backoff(event, old, new) == 1


def test_pods_in_the_pool_for_five_minutes_are_moved_by_the_leftover_flush() -> None:
    clock = Clock(1000.0)
    q, p = _rejected(clock, names.TAINT_TOLERATION)
    clock.t = 1300.0
    assert q.flush_unschedulable_leftover() == 0  # exactly 5 minutes is not more than 5 minutes
    clock.t = 1330.0
    assert q.flush_unschedulable_leftover() == 1
    assert q.where(p.pod) == ACTIVE


def test_a_gated_pod_waits_until_its_scheduling_gates_are_removed() -> None:
    clock = Clock()

    def pre_enqueue(p: Pod) -> tuple[bool, str]:
        return (not p.spec.get("schedulingGates"), names.SCHEDULING_GATES)

    q = _queue(clock, pre_enqueue=pre_enqueue)
    gated = Pod(make_pod("a").set("spec.schedulingGates", [{"name": "wait"}]).obj())
    q.add(gated)
    assert q.where(gated) == UNSCHEDULABLE
    assert q.pop() is None
    ungated = Pod(make_pod("a").obj())
    q.update(gated, ungated)
    assert q.where(ungated) == ACTIVE


def test_a_deleted_pod_leaves_every_queue() -> None:
    clock = Clock()
    q = _queue(clock)
    a, b = pod("a"), pod("b")
    q.add(a)
    q.add(b)
    q.delete(a)
    assert [p.name for p in q.active_pods()] == ["b"]
    assert q.pop().pod is b
    assert q.pop() is None
    assert len(q) == 0


def test_the_attempt_counter_counts_pops() -> None:
    clock = Clock()
    q = _queue(clock)
    q.add(pod("a"))
    for n in (1, 2, 3):
        p = q.pop()
        assert p.attempts == n
        q.add_unschedulable_if_not_present(p, ())
        clock.t += 60
        q.flush_backoff_completed()


def test_a_gated_pods_own_update_is_weighed_by_its_rejectors_and_runs_its_gate_again() -> None:
    """Update (backend/queue/scheduling_queue.go, v1.34.1 and v1.36.2 alike): an unschedulable
    pod's own update is weighed by the hints of the plugins that rejected it (isPodWorthRequeuing)
    and requeued as they say (requeuePodWithQueueingStrategy), its PreEnqueue plugins running
    again on the way. Unlike an event that moves many pods (movePodsToActiveOrBackoffQueue), it is
    not first filtered by the events its gating plugin registered. DefaultPreemption gated this
    pod while its asynchronous preemption ran (PreEnqueue); the preemption is over, which nothing
    tells the queue, and the pod is scaled down, which NodeResourcesFit queues for."""
    clock = Clock()
    preempting: set[str] = set()

    def pre_enqueue(p: Pod) -> tuple[bool, str]:
        return (p.name not in preempting, names.DEFAULT_PREEMPTION)

    q = _queue(clock, pre_enqueue=pre_enqueue)
    big = pod("a", cpu="8")
    q.add(big)
    p = q.pop()
    assert q.add_unschedulable_if_not_present(p, {names.NODE_RESOURCES_FIT}) == UNSCHEDULABLE
    preempting.add("a")  # its PostFilter started the preemption
    clock.t += 5
    victim = Pod(make_pod("victim").req(cpu="4").on("n1").obj())
    # a deletion moves it, and DefaultPreemption's PreEnqueue holds it in the pool
    q.move_all_to_active_or_backoff(hints.EVENT_ASSIGNED_POD_DELETE, victim, None)
    assert q.where(big) == UNSCHEDULABLE and p.gated
    preempting.clear()
    small = pod("a", cpu="4")
    q.update(big, small)
    assert q.where(small) == ACTIVE and not p.gated
    # while the preemption still runs, the same update leaves it gated in the pool
    q2 = _queue(clock, pre_enqueue=lambda x: (False, names.DEFAULT_PREEMPTION))
    q2.add(big)
    assert q2.where(big) == UNSCHEDULABLE
    q2.update(big, small)
    assert q2.where(small) == UNSCHEDULABLE


@pytest.mark.parametrize("plugin", [names.NODE_RESOURCES_FIT, names.NODE_AFFINITY, names.INTER_POD_AFFINITY])
def test_cordoning_any_node_moves_a_pod_a_plugin_registered_for_node_add_rejected(plugin: str) -> None:
    # scheduler.go buildQueueingHintMap (v1.30 to v1.36): a plugin that registered Node/Add but
    # not Node/UpdateNodeTaint is registered for UpdateNodeTaint too, with the default hint
    # (kubernetes#109437): cordoning a node the pod could never use still sends it back
    clock = Clock()
    q, p = _rejected(clock, plugin, cpu="8")
    clock.t += 5
    old = Node(make_node("n7").alloc(cpu="1", memory="1Gi").obj())
    new = Node(make_node("n7").alloc(cpu="1", memory="1Gi").unschedulable().obj())
    event = hints.node_scheduling_properties_change(old, new)
    assert event is not None and event.action == hints.UPDATE_NODE_TAINT
    assert q.move_all_to_active_or_backoff(event, old, new) == 1
    assert q.where(p.pod) == ACTIVE


def test_a_plugin_that_registered_node_taint_updates_keeps_its_own_hint() -> None:
    # the mitigation adds nothing for a plugin that registered UpdateNodeTaint itself: a taint
    # TaintToleration's rejected pod still does not tolerate leaves it where it is
    clock = Clock()
    q, p = _rejected(clock, names.TAINT_TOLERATION)
    clock.t += 5
    old = Node(make_node("n1").taint("dedicated", "gpu").obj())
    new = Node(make_node("n1").taint("dedicated", "gpu").taint("other", "x").obj())
    event = hints.node_scheduling_properties_change(old, new)
    assert event is not None and event.action == hints.UPDATE_NODE_TAINT
    assert q.move_all_to_active_or_backoff(event, old, new) == 0
    assert q.where(p.pod) == UNSCHEDULABLE


def test_the_mitigation_registers_update_node_taint_without_a_hint_for_node_add_plugins_only() -> None:
    from kubectl_preempt.framework.config import default_config
    from kubectl_preempt.framework.runtime import Framework, build_queueing_hint_map
    from kubectl_preempt.plugins.registry import in_tree_registry

    config = default_config()
    fwk = Framework(in_tree_registry(config.version), config.profiles[0])
    node_regs = build_queueing_hint_map(fwk).by_resource[hints.NODE]
    fit_taint = [h for a, p, h in node_regs if p == names.NODE_RESOURCES_FIT and a & hints.UPDATE_NODE_TAINT]
    assert fit_taint == [None]
    # TaintToleration registered UpdateNodeTaint itself, with its hint: nothing added
    tt_taint = [h for a, p, h in node_regs if p == names.TAINT_TOLERATION and a & hints.UPDATE_NODE_TAINT]
    assert len(tt_taint) == 1 and tt_taint[0] is not None


@pytest.mark.parametrize("by_attempts, expected", [(True, 1002.0), (False, 1001.0)],
                         ids=["v1.30 to v1.33: every attempt counts", "v1.34 on: the unschedulable count"])
def test_an_unschedulable_failure_after_an_error_backs_off_by_the_release_s_count(by_attempts: bool,
                                                                                  expected: float) -> None:
    # backend/queue/backoff_queue.go calculateBackoffDuration: v1.33 doubles per Attempts (each
    # pop); v1.34 per UnschedulableCount, or ConsecutiveErrorsCount after an error (which an
    # unschedulable failure resets), so the second failure here backs off 2 s, then 1 s
    clock = Clock(1000.0)
    q = _queue(clock, backoff_by_attempts=by_attempts)
    q.add(pod("a"))
    p = q.pop()
    q.add_unschedulable_if_not_present(p, ())  # an error: no plugin rejected it
    clock.t = 1005.0
    q.flush_backoff_completed()
    p = q.pop()
    assert p is not None and p.attempts == 2
    clock.t = 1000.0
    q.add_unschedulable_if_not_present(p, {names.NODE_RESOURCES_FIT})
    assert q.backoff_time(p) == expected


@pytest.mark.parametrize("skips, where", [(False, UNSCHEDULABLE), (True, ACTIVE)],
                         ids=["v1.34: PreEnqueue again, the gated pod parks", "v1.35: movesFromBackoffQ skips it"])
def test_activate_takes_a_pod_out_of_backoff_as_the_release_does(skips: bool, where: str) -> None:
    # scheduling_queue.go activate deletes the pod from backoffQ, then moveToActiveQ: v1.34 runs
    # PreEnqueue for a ForceActivate (a pod now gated goes to unschedulablePods); v1.35 skips it for
    # a pod that moves from backoffQ (PreEnqueue ran when it entered there)
    clock = Clock(1000.0)
    gated = {"on": False}
    q = _queue(clock, pre_enqueue=lambda p: (not gated["on"], names.SCHEDULING_GATES),
               activate_skips_pre_enqueue=skips)
    q.add(pod("a"))
    p = q.pop()
    assert q.add_unschedulable_if_not_present(p, ()) == ERROR_BACKOFF
    gated["on"] = True
    q.activate([p.pod])
    assert p.where == where


@pytest.mark.parametrize("rule, moved_by_node_add, moved_by_timeout", [
    ("events", False, False), ("schedulingGates", True, True), ("none", True, True)],
    ids=["v1.34 on: only events the gating plugin registered", "v1.31 to v1.33: only SchedulingGates' pods stay",
         "v1.30: every gated pod is asked"])
def test_which_events_reach_a_pod_defaultpreemption_gated(rule: str, moved_by_node_add: bool,
                                                          moved_by_timeout: bool) -> None:
    # scheduling_queue.go movePodsToActiveOrBackoffQueue: v1.34 skips a gated pod unless the event
    # matches one its gating plugin registered (MatchAnyClusterEvent: UnschedulableTimeout's
    # wildcard matches only a registered wildcard); v1.31 to v1.33 skip it only when SchedulingGates
    # gates it; v1.30 skips none. DefaultPreemption registered Pod/Delete alone.
    from kubectl_preempt.framework.events import ClusterEvent, EVENT_UNSCHEDULABLE_TIMEOUT
    clock = Clock()
    preempting = {"a"}
    q = _queue(clock, pre_enqueue=lambda p: (p.name not in preempting, names.DEFAULT_PREEMPTION), gated_events=rule)
    big = pod("a", cpu="8")
    q.add(big)
    p = q.infos[big.uid]
    assert q.where(big) == UNSCHEDULABLE and p.gated
    p.unschedulable_plugins.add(names.NODE_RESOURCES_FIT)
    preempting.clear()  # its preemption is over: PreEnqueue would let it in now
    clock.t += 20
    node = Node(make_node("n9").alloc(cpu="16", memory="16Gi").obj())
    q.move_all_to_active_or_backoff(ClusterEvent(hints.NODE, hints.ADD, "NodeAdd"), None, node)
    assert (q.where(big) != UNSCHEDULABLE) is moved_by_node_add
    if not moved_by_node_add:
        q.move_all_to_active_or_backoff(EVENT_UNSCHEDULABLE_TIMEOUT, None, None)
        assert (q.where(big) != UNSCHEDULABLE) is moved_by_timeout
