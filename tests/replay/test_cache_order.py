"""Victims of equal priority and start time are reprieved in the scheduler cache's pod order on
their node (append on add, the last pod moved into a removed pod's place, an update is a removal
and an add), not in name order; follow mode sees the pods the scheduler had already assumed."""
from __future__ import annotations

from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod

from .helpers import at, ev, trace

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
