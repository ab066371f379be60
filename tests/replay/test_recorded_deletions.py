"""Simulate mode and the recording's deletions (issue 26): a recorded terminal status ends a
deletion, it is not a completion; the recorded scheduler's deletions are left out to the end;
the replay's own victims leave when the trace shows such pods leave."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod, make_priority_class

from .helpers import START, at, ev, seconds, trace

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


def _rs_pod(name: str, rs: str, ns: str = "default", grace: int = 30) -> Any:
    return (make_pod(name).ns(ns).priority_class("batch").priority(10).req(cpu="2")
            .set("spec.terminationGracePeriodSeconds", grace)
            .set("metadata.ownerReferences", [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                               "uid": f"uid-{rs}", "controller": True}]))


def _measured_deletion(name: str, rs: str, ns: str, asked: float, took: float, grace: int = 30) -> list[dict[str, Any]]:
    """A user deletes `name` (bound to n9) at `asked`; the kubelet ends it `took` seconds later."""
    pod = _rs_pod(name, rs, ns, grace).running("n9")
    deleting = pod.set("metadata.deletionTimestamp", "2026-03-01T10:01:00Z").set(
        "metadata.deletionGracePeriodSeconds", grace)
    return [ev(asked, "MODIFIED", deleting.obj()),
            ev(asked + took, "MODIFIED", deleting.set("status.phase", "Failed").obj()),
            ev(asked + took + 0.1, "DELETED", deleting.set("status.phase", "Failed").obj())]


def _leaving_trace(victim_rs: str, victim_ns: str) -> dict[str, Any]:
    """The trace measured two deletions of the `app-1a2b3c` workload's pods in `shop` (4.0 s and
    4.4 s of a 30 s grace period); the replay then preempts `victim`, a pod of `victim_rs` in
    `victim_ns`, at 50."""
    return trace(
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_priority_class("web", 1000)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n9").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", _rs_pod("m1", "app-1a2b3c", "shop").running("n9").obj()),
        ev(0, "ADDED", _rs_pod("m2", "app-1a2b3c", "shop").running("n9").obj()),
        ev(0, "ADDED", _rs_pod("victim", victim_rs, victim_ns).running("n1").obj()),
        *_measured_deletion("m1", "app-1a2b3c", "shop", 10, 4.0),
        *_measured_deletion("m2", "app-1a2b3c", "shop", 20, 4.4),
        ev(50, "ADDED", make_pod("high").priority_class("web").priority(1000).req(cpu="2")
           .set("spec.nodeSelector", {"kubernetes.io/hostname": "n1"}).obj()),
        end=200)


def _victim(report: dict[str, Any]) -> dict[str, Any]:
    [p] = report["preemptions"]
    [d] = p["victimDetails"]
    return d


def test_a_victim_leaves_as_long_after_its_deletion_as_its_workloads_pods_did_in_the_trace() -> None:
    report, log = run(_leaving_trace("app-1a2b3c", "shop"))
    d = _victim(report)
    assert (d["leavesAfterSeconds"], d["leaveFigure"]) == (4.2, "workload shop/app-1a2b3c")
    asked = d["deletionTimestamp"]
    # the median of 4.0 and 4.4 after its delete call, not its 30 s grace period
    assert log.deletes["shop/victim"] == (round(seconds(asked) + 4.2, 3), "preempted")
    assert log.binds["default/high"][0] == log.deletes["shop/victim"][0]
    assert report["summary"]["victimsLeave"] == {"workload": 1, "namespace": 0, "cluster": 0, "gracePeriod": 0}
    assert report["victimsLeave"]["measuredByWorkload"] == [
        {"workload": "shop/app-1a2b3c", "gracePeriodSeconds": 30.0, "deletions": 2, "medianSeconds": 4.2}]


def test_without_a_measure_of_its_workload_a_victim_takes_its_namespaces_then_the_clusters() -> None:
    d = _victim(run(_leaving_trace("other-9f8e7d", "shop"))[0])
    assert (d["leavesAfterSeconds"], d["leaveFigure"]) == (4.2, "namespace shop")
    d = _victim(run(_leaving_trace("other-9f8e7d", "default"))[0])
    assert (d["leavesAfterSeconds"], d["leaveFigure"]) == (4.2, "cluster")


def test_a_measure_under_another_grace_period_is_not_used_the_grace_period_is() -> None:
    tr = _leaving_trace("other-9f8e7d", "default")
    for e in tr["events"]:
        if e["object"].get("metadata", {}).get("name") == "victim":
            e["object"]["spec"]["terminationGracePeriodSeconds"] = 20
    report, log = run(tr)
    d = _victim(report)
    assert (d["leavesAfterSeconds"], d["leaveFigure"]) == (20.0, "gracePeriod")
    assert report["summary"]["victimsLeave"]["gracePeriod"] == 1


def test_a_deletion_is_measured_from_when_its_deletion_timestamp_says_it_was_asked() -> None:
    # seen at 20 but deletionTimestamp 10:00:35Z with a 30 s grace period: the API server set it
    # to the request's time + 30 in whole seconds, so the request came by 6; the kubelet ended the
    # pod at 24, 18 s after it (not 4)
    tr = _leaving_trace("app-1a2b3c", "shop")
    evs = tr["events"]
    m2 = [i for i, e in enumerate(evs) if e["object"].get("metadata", {}).get("name") == "m2"
          and e["type"] == "MODIFIED"]
    for i in m2:
        evs[i]["object"]["metadata"]["deletionTimestamp"] = "2026-03-01T10:00:35Z"
    evs[m2[1]]["time"] = evs[m2[1] + 1]["time"] = at(24)
    [row] = replay(tr)["victimsLeave"]["measuredByWorkload"]
    assert (row["deletions"], row["medianSeconds"]) == (2, 11.0)  # the median of 4.0 and 18.0


def test_a_preemption_in_flight_when_the_trace_begins_stands() -> None:
    """The trace begins between a preemption's first call and its delete (asynchronous
    preemption: prepareCandidateAsync patches each victim's DisruptionTarget condition, then
    deletes it): the decision was made before the trace, as for a victim already terminating, so
    its recorded deletion stands, and `high`, nominated to n1 then, waits for it and binds there
    without preempting anew. Before, only a victim with a deletionTimestamp counted as made before
    the trace: `low`'s deletion was left out as the recorded scheduler's, low stayed, and high
    preempted on its own (low or low-2)."""
    low = _low("low").set("status.conditions", PREEMPTED)
    tr = trace(
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", low.obj()),
        ev(0, "ADDED", _low("low-2").running("n2").obj()),
        ev(0, "ADDED", make_pod("high").priority(1000).req(cpu="2").nominated("n1").obj()),
        ev(0.05, "MODIFIED", low.set("metadata.deletionTimestamp", "2026-03-01T10:00:30Z").set(
            "metadata.deletionGracePeriodSeconds", 30).obj()),
        ev(30, "MODIFIED", low.set("status.phase", "Failed").obj()),
        ev(30.1, "DELETED", low.obj()),
        end=60)
    report, log = run(tr)
    assert report["preemptions"] == []
    assert log.binds["default/high"][1] == "n1" and log.binds["default/high"][0] >= 30
    assert "default/low-2" not in log.deletes


def test_a_preemption_in_flight_takes_the_victims_its_calls_mark_just_after_the_start() -> None:
    """The same, with two victims: the trace begins after the first's DisruptionTarget patch and
    before the second's (prepareCandidateAsync patches and deletes them one after the other on its
    goroutine). The second, marked on that node within the calls' time, is the same decision's:
    its deletion stands too, and high waits for both. Before, high was released once the first
    went, found the second still there and preempted it (or low-2) itself."""
    first = _low("low").set("status.conditions", PREEMPTED)
    second = _low("low-b")
    tr = trace(
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", first.obj()), ev(0, "ADDED", second.obj()),
        ev(0, "ADDED", _low("low-2").running("n2").obj()),
        ev(0, "ADDED", make_pod("high").priority(1000).req(cpu="4").nominated("n1").obj()),
        ev(0.05, "MODIFIED", first.set("metadata.deletionTimestamp", "2026-03-01T10:00:30Z").obj()),
        ev(0.08, "MODIFIED", second.set("status.conditions", PREEMPTED).obj()),
        ev(0.11, "MODIFIED", second.set("metadata.deletionTimestamp", "2026-03-01T10:00:30Z").obj()),
        ev(30, "DELETED", first.obj()), ev(30.05, "DELETED", second.obj()),
        end=60)
    report, log = run(tr)
    assert report["preemptions"] == []
    assert log.binds["default/high"][1] == "n1" and log.binds["default/high"][0] >= 30


def test_a_deletion_that_stands_keeps_the_mark_the_recording_shows() -> None:
    """The victim marked just after the start keeps the DisruptionTarget condition as the cluster
    wrote it (executor.go PreemptPod: "<scheduler>: preempting to accommodate a higher priority
    podgroup" here), not one the replay would write for a pod's preemption."""
    mark = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
             "message": "default-scheduler: preempting to accommodate a higher priority podgroup"}]
    first = _low("low").set("status.conditions", PREEMPTED)
    second = _low("low-b")

    class Marks(Log):
        def __init__(self) -> None:
            super().__init__()
            self.marks: dict[str, list[Any]] = {}

        def deleted(self, t: float, pod: Pod, reason: str) -> None:
            super().deleted(t, pod, reason)
            self.marks[pod.key] = [c.get("message") for c in pod.status.get("conditions") or ()
                                   if c.get("type") == "DisruptionTarget"]

    tr = trace(
        ev(0, "ADDED", make_priority_class("batch", 10)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", first.obj()), ev(0, "ADDED", second.obj()),
        ev(0, "ADDED", make_pod("high").priority(1000).req(cpu="4").nominated("n1").obj()),
        ev(0.05, "MODIFIED", first.set("metadata.deletionTimestamp", "2026-03-01T10:00:30Z").obj()),
        ev(0.08, "MODIFIED", second.set("status.conditions", mark).obj()),
        ev(0.11, "MODIFIED", second.set("metadata.deletionTimestamp", "2026-03-01T10:00:30Z").obj()),
        ev(30, "DELETED", first.obj()), ev(30.05, "DELETED", second.obj()),
        end=60)
    log = Marks()
    replay(tr, listener=log)
    assert log.marks["default/low-b"] == [mark[0]["message"]]
