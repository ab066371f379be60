"""v1.35's gang scheduling in a replay (replay/permit_waits.py, plugins/gangscheduling
GangSchedulingV135): each member is scheduled alone, assumed on its node, and waits at Permit until
minCount of its gang are assumed or bound; a gang below minCount never binds, its waiters are
rejected when the gang's five minutes run out and free their nodes."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod, make_workload

from .helpers import START, ev, trace

GATES = {"GenericWorkload": True, "GangScheduling": True}
TIMED_OUT = "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."


class Log(Listener):
    def __init__(self) -> None:
        self.binds: dict[str, tuple[float, str]] = {}
        self.failures: list[tuple[float, str, str]] = []

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.binds[pod.key] = (t, node)

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Any = None) -> None:
        self.failures.append((round(t - START, 3), pod.key, message))


def nodes(n: int, cpu: str = "4") -> list[dict[str, Any]]:
    return [ev(0, "ADDED", make_node(f"n{i}").alloc(cpu=cpu, memory="16Gi").obj()) for i in range(1, n + 1)]


def workload(min_count: int) -> dict[str, Any]:
    return ev(0, "ADDED", make_workload("train", {"workers": min_count}, namespace="gang", version="v1alpha1"))


def member(name: str, cpu: str = "1", prio: int = 1000) -> dict[str, Any]:
    return make_pod(name).ns("gang").priority(prio).req(cpu=cpu, memory="1Gi").workload_ref("train", "workers").obj()


def run(tr: dict[str, Any], gates: dict[str, bool] | None = None) -> tuple[dict[str, Any], Log]:
    log = Log()
    return replay(tr, listener=log, kubernetes_version="v1.35", feature_gates=GATES if gates is None else gates), log


def test_members_wait_at_permit_and_bind_together_when_the_last_reaches_it() -> None:
    """gangscheduling.go Permit: the member completing the quorum allows every waiting one."""
    tr = trace(*nodes(1), workload(3), ev(1, "ADDED", member("w-0")), ev(2, "ADDED", member("w-1")),
               ev(3, "ADDED", member("w-2")), end=30)
    report, log = run(tr)
    assert {k: round(t - START, 3) for k, (t, _) in log.binds.items()} == {"gang/w-0": 3, "gang/w-1": 3, "gang/w-2": 3}
    assert log.failures == []


def test_without_gang_scheduling_each_member_binds_alone_as_it_comes() -> None:
    """GenericWorkload alone adds no plugin in v1.35 (default_plugins.go applyGangScheduling)."""
    tr = trace(*nodes(1), workload(3), ev(1, "ADDED", member("w-0")), ev(2, "ADDED", member("w-1")),
               ev(3, "ADDED", member("w-2")), end=30)
    for gates in ({}, {"GenericWorkload": True}):
        _, log = run(tr, gates)
        assert {k: round(t - START, 3) for k, (t, _) in log.binds.items()} == \
            {"gang/w-0": 1, "gang/w-1": 2, "gang/w-2": 3}


def test_a_gang_below_min_count_never_binds_and_its_waiters_time_out_and_free_the_node() -> None:
    """Three members exist (PreEnqueue lets them in), two fit: they wait at Permit, the third is
    unschedulable; at the gang's deadline both waiters are rejected (waiting_pods_map.go) and go
    back to the queue, and nothing of the gang ever binds."""
    tr = trace(*nodes(1, cpu="2"), workload(3), ev(1, "ADDED", member("w-0")), ev(1, "ADDED", member("w-1")),
               ev(1, "ADDED", member("w-2")), end=400)
    report, log = run(tr)
    assert log.binds == {}
    timed_out = sorted(k for t, k, m in log.failures if m == TIMED_OUT)
    assert len(timed_out) == 2 and all(t == 301 for t, _, m in log.failures if m == TIMED_OUT)
    assert report["preemptions"] == []


def test_a_waiting_member_holds_its_room_on_the_node() -> None:
    """The waiter is assumed in the cache: a pod after it does not get its room."""
    tr = trace(*nodes(1, cpu="2"), workload(3), ev(1, "ADDED", member("w-0", cpu="2")),
               ev(1, "ADDED", member("w-1", cpu="2")), ev(1, "ADDED", member("w-2", cpu="2")),
               ev(2, "ADDED", make_pod("other").ns("default").priority(0).req(cpu="1", memory="1Gi").obj()), end=60)
    _, log = run(tr)
    assert log.binds == {}
    assert any(k == "default/other" for _, k, _ in log.failures)


def test_a_gang_below_min_count_pods_waits_at_pre_enqueue_and_never_binds() -> None:
    """gangscheduling.go PreEnqueue: fewer pods than minCount never enter the queue."""
    tr = trace(*nodes(2), workload(3), ev(1, "ADDED", member("w-0")), ev(2, "ADDED", member("w-1")), end=600)
    report, log = run(tr)
    assert log.binds == {} and log.failures == []
    assert sorted(p["pod"] for p in report["summary"]["neverScheduled"]) == ["gang/w-0", "gang/w-1"]


def test_a_member_waiting_at_permit_that_is_a_victim_is_rejected_not_deleted() -> None:
    """preemption.go PreemptPod (v1.35.6): a victim that is a waiting pod gets waitingPod.Reject
    ("preempted") instead of the DisruptionTarget patch and the delete; it goes back to the queue,
    its room is free, and the preemptor binds there."""
    tr = trace(*nodes(1, cpu="2"), workload(3), ev(1, "ADDED", member("w-0")), ev(1, "ADDED", member("w-1")),
               ev(1, "ADDED", member("w-2")),
               ev(5, "ADDED", make_pod("vip").ns("default").priority(100000).req(cpu="2", memory="1Gi").obj()),
               end=60)
    report, log = run(tr)
    assert list(log.binds) == ["default/vip"]
    rejected = sorted(k for t, k, m in log.failures if m == "0/1 nodes are available: 1 preempted.")
    assert len(rejected) == 2
    [row] = report["preemptions"]
    assert row["preemptor"] == "default/vip" and len(row["victims"]) == 2
    # nothing of the gang was deleted: all three are still there, pending
    assert sorted(p["pod"] for p in report["summary"]["neverScheduled"]) == ["gang/w-0", "gang/w-1", "gang/w-2"]


def test_members_waiting_for_their_workload_enter_the_queue_when_it_is_added() -> None:
    """gangscheduling.go EventsToRegister (v1.35.6): Workload/Add, isSchedulableAfterWorkloadAdded."""
    tr = trace(*nodes(1), ev(1, "ADDED", member("w-0")), ev(1, "ADDED", member("w-1")), ev(1, "ADDED", member("w-2")),
               ev(10, "ADDED", make_workload("train", {"workers": 3}, namespace="gang", version="v1alpha1")), end=60)
    _, log = run(tr)
    assert {k: round(t - START, 3) for k, (t, _) in log.binds.items()} == {"gang/w-0": 10, "gang/w-1": 10, "gang/w-2": 10}


def test_a_group_whose_pods_all_went_starts_its_deadline_afresh() -> None:
    """workloadmanager DeletePod drops a group's info, its schedulingDeadline with it, when its last
    pod is deleted: pods of the same group created later wait a full 5 minutes at Permit."""
    tr = trace(*nodes(1, cpu="2"), workload(3),
               *(ev(1, "ADDED", member(f"w-{i}")) for i in range(3)),
               *(ev(100, "DELETED", member(f"w-{i}")) for i in range(3)),
               *(ev(110, "ADDED", member(f"x-{i}")) for i in range(3)), end=500)
    _, log = run(tr)
    timed_out = [(t, k) for t, k, m in log.failures if m == TIMED_OUT and k.startswith("gang/x-")]
    assert len(timed_out) == 2 and all(t == 410 for t, _ in timed_out), log.failures


def test_a_waiting_member_holds_the_device_its_reserve_found() -> None:
    """dynamicresources.go Reserve: w-0's allocation of the node's one GPU is in flight while it
    waits at Permit (its gang never completes: w-1 fits nowhere); `other`, whose claim needs a GPU
    too, finds none (ListAllAllocatedDevices counts allocations in flight) until the gang's deadline
    rejects w-0 and its Unreserve drops the allocation."""
    from .test_dra_claims import DEVICE_CLASS, SLICE, claim
    gpu = {**claim("c0"), "metadata": {"name": "c0", "namespace": "gang", "uid": "claim-c0"}}
    w0 = make_pod("w-0").ns("gang").priority(1000).req(cpu="1", memory="1Gi").workload_ref("train", "workers") \
        .resource_claim("gpu", claim="c0").obj()
    other = make_pod("other").req(cpu="1", memory="1Gi").resource_claim("gpu", claim="c1").obj()
    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="8", memory="16Gi").obj()), ev(0, "ADDED", DEVICE_CLASS),
               ev(0, "ADDED", SLICE), ev(0, "ADDED", gpu), ev(0, "ADDED", claim("c1")), workload(2),
               ev(1, "ADDED", w0), ev(1, "ADDED", member("w-1", cpu="16")), ev(2, "ADDED", other), end=400)
    _, log = run(tr)
    assert "gang/w-0" not in log.binds
    assert any(k == "default/other" and "cannot allocate all claims" in m for t, k, m in log.failures if t < 300)
    assert log.binds["default/other"][0] - START > 300


def test_a_pending_member_of_another_scheduler_counts_towards_the_gang() -> None:
    """eventhandlers.go addPod (v1.35.6): the workload manager registers every pod before the
    scheduler looks at whose it is, so w-1, pending for another scheduler, is one of the gang's
    pods at PreEnqueue: w-0 enters the queue, waits at Permit for a quorum w-1 never brings (only
    assumed or bound pods count there) and is rejected at the deadline."""
    foreign = make_pod("w-1").ns("gang").priority(1000).req(cpu="1", memory="1Gi") \
        .workload_ref("train", "workers").scheduler("other-scheduler").obj()
    tr = trace(*nodes(1), workload(2), ev(1, "ADDED", foreign), ev(1, "ADDED", member("w-0")), end=400)
    report, log = run(tr)
    assert log.binds == {}
    assert [(t, k) for t, k, m in log.failures if m == TIMED_OUT] == [(301.0, "gang/w-0")]
