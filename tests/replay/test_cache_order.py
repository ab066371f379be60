"""Victims of equal priority and start time are reprieved in the scheduler cache's pod order on
their node (append on add, the last pod moved into a removed pod's place, an update is a removal
and an add), not in name order; follow mode sees the pods the scheduler had already assumed."""
from __future__ import annotations

from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod

from .helpers import ev, trace

STARTED = "2026-03-01T09:00:00Z"
DISRUPTION = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
               "message": "default-scheduler: preempting to accommodate a higher priority pod"}]


def _low(name: str, **extra: Any) -> dict[str, Any]:
    b = make_pod(name).priority(1).req(cpu="1").on("n1").start_time(STARTED).set("status.phase", "Running")
    for path, value in extra.items():
        b = b.set(path.replace("__", "."), value)
    return b.obj()


def _node_with_three_equal_pods() -> list[dict[str, Any]]:
    # n1: 4 CPUs, a, b, c of 1 CPU each, priority 1, started in the same second
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
            ev(0, "ADDED", _low("a")), ev(0, "ADDED", _low("b")), ev(0, "ADDED", _low("c"))]


HI = make_pod("hi").priority(100).req(cpu="2").obj()


@pytest.mark.parametrize("updated,victim", [
    (None, "c"),     # list order a, b, c: a and b are reprieved, c is not
    ("a", "a"),      # a's update: c takes its place and a goes last -> c, b, a
    ("b", "b"),      # b's update: c takes its place and b goes last -> a, c, b
], ids=["no update: the last listed pod is the victim", "an update of a moves it last: a is the victim",
        "an update of b moves it last: b is the victim"])
def test_simulate_takes_the_victim_the_cache_order_gives(updated: str | None, victim: str) -> None:
    events = _node_with_three_equal_pods()
    if updated:
        # a status change only (a condition): the cache still removes the pod and adds it again
        events.append(ev(5, "MODIFIED", _low(updated, status__conditions=[{"type": "Ready", "status": "True"}])))
    events.append(ev(10, "ADDED", HI))
    report = replay(trace(*events, end=20))
    [p] = report["preemptions"]
    assert p["victims"] == [f"default/{victim}"]


def test_follow_agrees_with_a_victim_the_name_order_would_not_take() -> None:
    events = _node_with_three_equal_pods()
    events.append(ev(5, "MODIFIED", _low("a", status__conditions=[{"type": "Ready", "status": "True"}])))
    events += [ev(10, "ADDED", HI),
               ev(10.2, "MODIFIED", _low("a", status__conditions=DISRUPTION)),
               ev(10.3, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").nominated("n1").obj())]
    report = replay(trace(*events, end=20), mode="follow")
    [p] = report["preemptions"]
    assert p["replayed"]["victimsOnRecordedNode"] == ["default/a"]
    assert p["agrees"] is True, p["differences"]


def test_explain_on_a_snapshot_keeps_the_snapshots_order() -> None:
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    pods = {n: _low(n) for n in "abc"}
    for order, victim in (("abc", "c"), ("bca", "a"), ("cab", "b")):
        doc = kubectl_preempt.explain([node, *(pods[n] for n in order), HI], "default/hi")
        assert doc["victims"] == [f"default/{victim}"], order


def test_follow_counts_pods_the_scheduler_had_assumed_before_the_decision() -> None:
    # n1 has room for one pod and n2 holds a low pod. p1 and p2 arrive in that order; the
    # scheduler places p1 on n1 and preempts on n2 for p2, but p1's binding reaches the recording
    # after the first sign of p2's preemption: at that sign n1 still looks free
    mk = lambda name: make_pod(name).priority(100).req(cpu="2")  # noqa: E731
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", make_pod("low").priority(1).req(cpu="2").on("n2").start_time(STARTED).obj()),
              ev(10, "ADDED", mk("p1").obj()),
              ev(10, "ADDED", mk("p2").obj()),
              ev(10.1, "MODIFIED", make_pod("low").priority(1).req(cpu="2").on("n2").start_time(STARTED)
                 .set("status.conditions", DISRUPTION).obj()),
              ev(10.12, "MODIFIED", mk("p1").on("n1").obj()),
              ev(10.15, "MODIFIED", mk("p2").nominated("n2").obj())]
    report = replay(trace(*events, end=20), mode="follow")
    [p] = report["preemptions"]
    assert p["preemptor"] == "default/p2"
    assert p["replayed"]["outcome"] == "Preempted"
    assert p["agrees"] is True, p["differences"]


def test_a_dumped_decision_lists_the_pods_in_the_replays_order_so_explain_agrees() -> None:
    events = _node_with_three_equal_pods()
    events.append(ev(5, "MODIFIED", _low("a", status__conditions=[{"type": "Ready", "status": "True"}])))
    events.append(ev(10, "ADDED", HI))
    cases: list[dict[str, Any]] = []
    replay(trace(*events, end=20), on_decision=cases.append)
    [case] = cases
    assert case["expect"]["victims"] == {"n1": ["default/a"]}
    doc = kubectl_preempt.explain(case["objects"], case["pod"])
    assert doc["victims"] == ["default/a"]


# --- the order before the trace: rebuilt from what the initial pods carry --------------------------

BURST = "2026-03-01T09:00:00Z"   # a, b, c created and bound in this second
RUNNING = "2026-03-01T09:00:01Z"  # and their kubelet's status writes in the next, in rv order a, b, c


def _burst_pod(name: str, rv: int | None, node: str = "n1") -> dict[str, Any]:
    b = (make_pod(name).priority(1).req(cpu="1").on(node).start_time(RUNNING).set("status.phase", "Running")
         .set("metadata.creationTimestamp", BURST)
         .set("status.conditions", [{"type": "Ready", "status": "True", "lastTransitionTime": RUNNING}]))
    if rv is not None:
        b = b.set("metadata.resourceVersion", str(rv))
    return b.obj()


def _order(pods: list[dict[str, Any]], delay: float | None) -> list[str]:
    from kubectl_preempt.model.objects import Pod
    from kubectl_preempt.scheduler.backend.cache import PodOrder
    by_uid = {Pod(p).uid: Pod(p).name for p in pods}
    return [by_uid[u] for u in PodOrder.from_history([Pod(p) for p in pods], status_delay=delay).on_node("n1")]


def test_the_history_before_the_trace_is_played_through_the_caches_rules() -> None:
    pods = [_burst_pod("a", 10), _burst_pod("b", 11), _burst_pod("c", 12)]
    # bound a, b, c a second before their status writes: added a, b, c; a's update moves c into
    # its place (c, b, a), b's moves a (c, a, b), c's moves b (b, a, c)
    assert _order(pods, 1.0) == ["b", "a", "c"]
    # each status written right after its binding: the order of the writes
    assert _order(pods, 0.0) == ["a", "b", "c"]
    assert _order(pods, None) == ["a", "b", "c"]
    # resourceVersions, not names, order the writes
    assert _order([_burst_pod("a", 12), _burst_pod("b", 10), _burst_pod("c", 11)], 1.0) == ["c", "b", "a"]
    # no resourceVersion: nothing tells when; the list's order
    assert _order([_burst_pod("c", None), _burst_pod("a", None), _burst_pod("b", None)], 1.0) == ["c", "a", "b"]


def _bound_not_started(name: str, rv: int, when: str = BURST) -> dict[str, Any]:
    # bound in that second, its kubelet not heard from yet: the binding is its last write
    pod = _burst_pod(name, rv)
    pod["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True",
                                                         "lastTransitionTime": when}]}
    return pod


def test_a_pod_not_started_yet_joined_its_node_at_its_last_write() -> None:
    """A trace that starts while pods are bound but not running: no kubelet has written their
    status, so their last write is the binding, when the scheduler's cache took them
    (cache.go AddPod of the bound pod, which it had assumed moments before): no kubelet's delay
    before it. They end in the order of their bindings, whatever the delay the trace measured;
    before, taking the delay off each put b's add before a's update and left c, a, b or b, a, c."""
    pods = [_bound_not_started("a", 10), _bound_not_started("b", 11), _bound_not_started("c", 12)]
    assert _order(pods, 1.0) == ["a", "b", "c"]
    assert _order(pods, 0.0) == ["a", "b", "c"]
    # beside a pod already running (bound in the burst, its status written in the next second), the
    # pods bound after that write come after it, in their own order
    pods = [_burst_pod("r", 20), _bound_not_started("a", 30, RUNNING), _bound_not_started("b", 31, RUNNING)]
    assert _order(pods, 1.0) == ["r", "a", "b"]


def test_the_kubelets_delay_is_measured_on_pods_bound_during_the_trace() -> None:
    from kubectl_preempt.replay.calibration import status_delay_of
    from kubectl_preempt.replay.timeline import normalize
    w = make_pod("w").priority(1).req(cpu="1")
    x = make_pod("x").priority(1).req(cpu="1")
    events = [ev(5, "ADDED", w.obj()), ev(5.1, "MODIFIED", w.on("n2").obj()),
              ev(6.1, "MODIFIED", w.on("n2").set("status.phase", "Running").obj()),
              ev(7, "ADDED", x.obj()), ev(7.2, "MODIFIED", x.on("n2").obj()),
              ev(8.4, "MODIFIED", x.on("n2").set("status.phase", "Running").obj()),
              # bound before the trace: no binding seen, not measured
              ev(9, "MODIFIED", _burst_pod("a", 20))]
    assert status_delay_of(normalize(trace(*events)).events) == pytest.approx(1.1)
    assert status_delay_of(normalize(trace(*events[-1:])).events) is None


def _preempted(name: str, rv: int) -> dict[str, Any]:
    pod = _burst_pod(name, rv)
    pod["status"]["conditions"] = pod["status"]["conditions"] + DISRUPTION
    return pod


def _burst_trace(*later: dict[str, Any]) -> list[dict[str, Any]]:
    # n1: 4 CPUs and a, b, c from the burst; hi needs 3 CPUs, so one of them is reprieved: the
    # first in the cache's order (b), where the name order and the rv order would keep a. n2 is
    # full with w, bound during the trace: its status came a second after its binding, which is
    # what this cluster's kubelets take
    w = make_pod("w").priority(1).req(cpu="1")
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
            ev(0, "ADDED", make_node("n2").alloc(cpu="1", memory="8Gi").obj()),
            ev(0, "ADDED", _burst_pod("a", 10)), ev(0, "ADDED", _burst_pod("b", 11)),
            ev(0, "ADDED", _burst_pod("c", 12)),
            ev(2, "ADDED", w.obj()), ev(2.1, "MODIFIED", w.on("n2").obj()),
            ev(3.1, "MODIFIED", w.on("n2").set("status.phase", "Running").obj()),
            ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="3").obj()), *later]


def test_simulate_reprieves_the_pod_the_rebuilt_history_puts_first() -> None:
    report = replay(trace(*_burst_trace(), end=20), kubernetes_version="v1.34")  # v1.34.1 places w on n2
    [p] = report["preemptions"]
    assert sorted(p["victims"]) == ["default/a", "default/c"]


def test_follow_agrees_with_victims_only_the_rebuilt_history_explains() -> None:
    events = _burst_trace(ev(10.2, "MODIFIED", _preempted("a", 30)), ev(10.25, "MODIFIED", _preempted("c", 31)),
                          ev(10.3, "MODIFIED", make_pod("hi").priority(100).req(cpu="3").nominated("n1").obj()))
    report = replay(trace(*events, end=20), mode="follow")
    [p] = report["preemptions"]
    assert sorted(p["replayed"]["victimsOnRecordedNode"]) == ["default/a", "default/c"]
    assert p["agrees"] is True, p["differences"]


# --- which places the trace cannot vouch for (TracedPodOrder) ---------------------------------------

def _traced(order: list[str], unknown: str) -> Any:
    from kubectl_preempt.scheduler.backend.cache import PodOrder, TracedPodOrder
    base = PodOrder()
    for u in order:
        base.add("n1", u)
    return TracedPodOrder(base, set(unknown))


@pytest.mark.parametrize("order,unknown,op,after", [
    ("abck", "abc", ("add", "x"), "abc"),
    ("abck", "abc", ("remove", "b"), "ack"),   # k, last, moves into b's unknown place
    ("abck", "abc", ("remove", "k"), "abc"),   # the last pod leaves: nothing moves
    ("abkc", "abc", ("remove", "k"), "abc"),   # an unknown pod moves into k's place: still one of them
    ("abck", "abc", ("update", "a"), "bck"),   # a goes last (known), k takes its unknown place
    ("abk", "ab", ("remove", "a"), "bk"),      # k moves into a's place, which is one of two
    ("ab", "ab", ("remove", "a"), ""),         # one pod of unknown place left: its place is the one left
], ids=["an added pod's place is known",
        "removing a pod of unknown place makes the last pod's place unknown",
        "removing the last pod moves nothing",
        "a pod of unknown place moved into a known place stays doubtful",
        "an update moves the pod last, where its place is known",
        "a pod moved into one of two unknown places joins the doubt",
        "a single doubtful pod has the one place left"])
def test_the_doubt_about_places_follows_the_caches_rules(order: str, unknown: str, op: tuple[str, str],
                                                         after: str) -> None:
    t = _traced(list(order), unknown)
    getattr(t, op[0])("n1", op[1])
    assert "".join(sorted(t.unknown_on("n1"))) == after
