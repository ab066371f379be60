"""Simulate mode and the recording's deletions (issue 26): a recorded terminal status ends a
deletion, it is not a completion; the recorded scheduler's deletions are left out to the end;
the replay's own victims leave when the trace shows such pods leave."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod, make_priority_class

from .helpers import START, ev, trace

PREEMPTED = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


class Log(Listener):
    def __init__(self) -> None:
        self.binds: dict[str, tuple[float, str]] = {}
        self.deletes: dict[str, tuple[float, str]] = {}

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.binds[pod.key] = (round(t - START, 3), node)

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        self.deletes[pod.key] = (round(t - START, 3), reason)


def run(tr: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], Log]:
    log = Log()
    return replay(tr, listener=log, **kw), log


def _low(name: str) -> Any:
    return (make_pod(name).priority_class("batch").priority(10).req(cpu="2")
            .set("spec.terminationGracePeriodSeconds", 30).running("n1"))


def _recorded_preemption(victim_conditions: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The cluster: n1 full with two batch pods; `high` (class web) arrives at 5 and the recorded
    scheduler preempts `low`, which ends its grace period at 35 with the kubelet's terminal status
    (Failed, 137) and is removed; `high` is bound at 35.2; `late` (batch) arrives at 40."""
    low = _low("low")
    if victim_conditions is not None:
        low = low.set("status.conditions", victim_conditions)
    deleting = low.set("metadata.deletionTimestamp", "2026-03-01T10:00:35Z").set(
        "metadata.deletionGracePeriodSeconds", 30)
    return [
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_priority_class("web", 1000)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", _low("low").obj()),
        ev(0, "ADDED", _low("other").obj()),
        ev(5, "ADDED", make_pod("high").priority_class("web").priority(1000).req(cpu="2").obj()),
        ev(5.1, "MODIFIED", low.obj()),
        ev(5.12, "MODIFIED", deleting.obj()),
        ev(35.0, "MODIFIED", deleting.set("status.phase", "Failed").obj()),
        ev(35.1, "DELETED", deleting.set("status.phase", "Failed").obj()),
        ev(35.2, "MODIFIED", make_pod("high").priority_class("web").priority(1000).req(cpu="2").running("n1").obj()),
        ev(40, "ADDED", make_pod("late").priority_class("batch").priority(10).req(cpu="2").obj()),
    ]


# a proposal under which the replayed scheduler does not preempt: web below batch
NO_PREEMPTION = [make_priority_class("web", 5)]


def test_a_recorded_terminal_status_after_the_schedulers_deletion_is_not_a_completion() -> None:
    report, log = run(trace(*_recorded_preemption(PREEMPTED), end=120), priority_classes=NO_PREEMPTION)
    assert report["preemptions"] == []
    # low keeps running: the room its recorded preemption freed is not freed in the replay
    assert "default/low" not in log.deletes
    assert "default/high" not in log.binds and "default/late" not in log.binds
    assert sorted(n["pod"] for n in report["summary"]["neverScheduled"]) == ["default/high", "default/late"]


def test_a_preempted_event_alone_marks_the_recorded_schedulers_deletion() -> None:
    # no DisruptionTarget condition on the victim's versions; the scheduler's Preempted Event
    # names it (PreemptPod records one per victim)
    event = {"apiVersion": "v1", "kind": "Event", "reason": "Preempted",
             "metadata": {"name": "low.1", "namespace": "default"},
             "involvedObject": {"kind": "Pod", "namespace": "default", "name": "low", "uid": "uid-low"},
             "message": "Preempted by pod uid-high on node n1"}
    events = _recorded_preemption(None)
    events.insert(6, ev(5.11, "ADDED", event))
    report, log = run(trace(*events, end=120), priority_classes=NO_PREEMPTION)
    assert "default/low" not in log.deletes
    assert "default/high" not in log.binds


def test_a_terminal_status_ending_a_users_deletion_removes_the_pod_when_recorded() -> None:
    # a user deletes `low` at 10 (no DisruptionTarget): the replay applies the deletion, and the
    # kubelet's terminal status at 14 ends it, whatever the replay's own binding times
    low = _low("low").set("metadata.deletionTimestamp", "2026-03-01T10:00:15Z")
    tr = trace(
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", _low("low").obj()),
        ev(0, "ADDED", _low("other").obj()),
        ev(2, "ADDED", make_pod("late").priority_class("batch").priority(10).req(cpu="2").obj()),
        ev(10, "MODIFIED", low.obj()),
        ev(14, "MODIFIED", low.set("status.phase", "Failed").obj()),
        ev(14.2, "DELETED", low.set("status.phase", "Failed").obj()),
        end=60)
    report, log = run(tr)
    assert log.deletes["default/low"] == (14.0, "deleted")
    assert log.binds["default/late"] == (14.0, "n1")
