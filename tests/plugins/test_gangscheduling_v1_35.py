"""kube-scheduler v1.35.6's GangScheduling, rule by rule, each on a small cluster built for it
(plugins/gangscheduling GangSchedulingV135; upstream pkg/scheduler/framework/plugins/gangscheduling
gangscheduling.go and backend/workloadmanager podgroupinfo.go of v1.35.6). v1.35 has no pod-group
cycle: a pod names its Workload and pod group in spec.workloadRef, is scheduled alone, counted
assumed by Reserve, and waits at Permit for minCount of its gang."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.versions import V1_35_6, apply_feature_gates
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins.gangscheduling import (ALLOW_KEY, CLOCK_KEY, GangSchedulingV135, go_duration,
                                                    timeout_rejection)
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod, make_workload

GATES = {"GenericWorkload": True, "GangScheduling": True}
WAITING = "waiting for minCount pods from a gang to be waiting on permit"


def scheduler(objs: list[dict[str, Any]], gates: dict[str, bool] | None = None) -> Scheduler:
    v = apply_feature_gates(V1_35_6, GATES if gates is None else gates)
    return Scheduler(Cluster.from_objects(objs), default_config(v))


def member(name: str, *, group: str = "workers", workload: str = "train", node: str = "", replica: str = "",
           cpu: str = "1") -> dict[str, Any]:
    b = make_pod(name).ns("gang").req(cpu=cpu, memory="1Gi").workload_ref(workload, group, replica)
    return (b.on(node) if node else b).obj()


def gang_cluster(size: int, min_count: int | None = 3, *, bound: int = 0) -> list[dict[str, Any]]:
    objs = [make_node("n1").alloc(cpu="8", memory="16Gi").obj(),
            make_workload("train", {"workers": min_count}, namespace="gang", version="v1alpha1")]
    objs += [member(f"w-{i}", node="n1" if i < bound else "") for i in range(size)]
    return objs


def plugin(s: Scheduler, pod_key: str = "gang/w-0") -> GangSchedulingV135:
    fwk = s.framework_for(s.cluster.pods[pod_key])
    assert fwk is not None
    [pl] = [p for p in fwk.points["permit"] if p.name == "GangScheduling"]
    assert isinstance(pl, GangSchedulingV135)
    return pl


@pytest.mark.parametrize("objs,pod,want", [
    pytest.param(gang_cluster(3)[:1] + [member("w-0")], "gang/w-0",
                 (Code.UnschedulableAndUnresolvable, 'waiting for pods\'s workload "train" to appear in scheduling queue'),
                 id="a member whose Workload does not exist waits for it"),
    pytest.param(gang_cluster(3)[:2] + [member("w-0", group="ps")], "gang/w-0",
                 (Code.UnschedulableAndUnresolvable, 'pod group "ps" doesn\'t exist for a workload "train"'),
                 id="a member naming a pod group its Workload has not waits"),
    pytest.param(gang_cluster(2), "gang/w-0",
                 (Code.UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue"),
                 id="a gang with fewer pods than minCount waits out of the queue"),
    pytest.param(gang_cluster(3), "gang/w-0", (Code.Success, ""), id="a gang with minCount pods enters the queue"),
    pytest.param(gang_cluster(1, None), "gang/w-0", (Code.Success, ""), id="a basic pod group is not a gang"),
    pytest.param(gang_cluster(3)[:1] + [make_pod("solo").ns("gang").obj()], "gang/solo", (Code.Success, ""),
                 id="a pod without a workloadRef is not this plugin's"),
])
def test_pre_enqueue(objs: list[dict[str, Any]], pod: str, want: tuple[Code, str]) -> None:
    """gangscheduling.go PreEnqueue (v1.35.6): the Workload, its pod group's policy, then AllPods >= minCount."""
    s = scheduler(objs)
    st = plugin(s, pod).pre_enqueue(s.cluster.pods[pod])
    assert (st.code, st.message()) == want


def test_a_member_waits_at_permit_until_min_count_are_assumed_then_every_assumed_one_is_allowed() -> None:
    """gangscheduling.go Reserve (AssumePod) and Permit: assumed or assigned < minCount waits."""
    s = scheduler(gang_cluster(3))
    pods = [s.cluster.pods[f"gang/w-{i}"] for i in range(3)]
    first = s.reserve_and_permit(pods[0], "n1", 0.0)
    assert first.status.code == Code.Wait and first.timeout == 300.0
    assert first.details is not None and first.details["reason"] == WAITING
    # Permit's handle.Activate: the unscheduled members may have waited for this one
    assert sorted(p.name for p in first.activate) == ["w-1", "w-2"]
    second = s.reserve_and_permit(pods[1], "n1", 0.0)
    assert second.status.code == Code.Wait and second.details["assumedOrAssigned"] == 2
    third = s.reserve_and_permit(pods[2], "n1", 0.0)
    assert third.status.is_success()
    assert sorted(third.allowed) == sorted(p.uid for p in pods)


def test_bound_members_count_towards_the_quorum() -> None:
    """podgroupinfo.go addPod: a member with a node is assigned; Permit counts assumed and assigned."""
    s = scheduler(gang_cluster(3, bound=2))
    got = s.reserve_and_permit(s.cluster.pods["gang/w-2"], "n1", 0.0)
    assert got.status.is_success()


def test_a_question_forgets_what_reserve_assumed() -> None:
    """keep=False (explain's lone cycle): Unreserve (ForgetPod) runs, the next member still waits."""
    s = scheduler(gang_cluster(2, 2))
    a = s.reserve_and_permit(s.cluster.pods["gang/w-0"], "n1", 0.0, keep=False)
    b = s.reserve_and_permit(s.cluster.pods["gang/w-1"], "n1", 0.0, keep=False)
    assert a.status.code == b.status.code == Code.Wait


def test_unreserve_forgets_an_assumed_member() -> None:
    """gangscheduling.go Unreserve -> podGroupInfo.ForgetPod."""
    s = scheduler(gang_cluster(2, 2))
    w0, w1 = s.cluster.pods["gang/w-0"], s.cluster.pods["gang/w-1"]
    assert s.reserve_and_permit(w0, "n1", 0.0).status.code == Code.Wait
    s.unreserve(w0, "n1")
    assert s.reserve_and_permit(w1, "n1", 0.0).status.code == Code.Wait


def test_the_gangs_waiters_share_one_deadline_and_a_new_one_starts_once_it_passed() -> None:
    """podgroupinfo.go SchedulingTimeout: the deadline is set by the first member at Permit; the
    later ones wait what is left of it; once it passed, a new attempt gets a new one."""
    s = scheduler(gang_cluster(4, 4))
    pods = [s.cluster.pods[f"gang/w-{i}"] for i in range(4)]
    assert s.reserve_and_permit(pods[0], "n1", 10.0).timeout == 300.0
    assert s.reserve_and_permit(pods[1], "n1", 110.0).timeout == 200.0
    assert s.reserve_and_permit(pods[2], "n1", 400.0).timeout == 300.0


def test_pods_of_other_replica_keys_are_other_gangs() -> None:
    """podgroupinfo.go podGroupKey: namespace, workload, pod group and replica key."""
    objs = gang_cluster(0, 2) + [member("a-0", replica="a"), member("a-1", replica="a"), member("b-0", replica="b")]
    s = scheduler(objs)
    assert s.reserve_and_permit(s.cluster.pods["gang/a-0"], "n1", 0.0).status.code == Code.Wait
    assert s.reserve_and_permit(s.cluster.pods["gang/b-0"], "n1", 0.0).status.code == Code.Wait
    assert s.reserve_and_permit(s.cluster.pods["gang/a-1"], "n1", 0.0).status.is_success()


@pytest.mark.parametrize("objs,pod,message", [
    pytest.param(gang_cluster(3)[:1] + [member("w-0")], "gang/w-0",
                 'running Permit plugin "GangScheduling": failed to get workload gang/train: '
                 # the generated lister's NotFound: Resource("workload"), the singular kind
                 'workload.scheduling.k8s.io "train" not found', id="the Workload is gone"),
    pytest.param(gang_cluster(3)[:2] + [member("w-0", group="ps")], "gang/w-0",
                 'running Permit plugin "GangScheduling": pod group "ps" doesn\'t exist for a workload "train"',
                 id="the pod group is not in the Workload"),
])
def test_permit_of_a_member_whose_workload_or_group_is_missing_is_an_error(objs: list[dict[str, Any]], pod: str,
                                                                           message: str) -> None:
    """gangscheduling.go Permit: fwk.AsStatus of the lister's NotFound, or of the missing pod group."""
    s = scheduler(objs)
    fwk = s.framework_for(s.cluster.pods[pod])
    st, _ = fwk.run_permit_plugins(CycleState(), s.cluster.pods[pod], "n1")
    assert (st.code, st.message()) == (Code.Error, message)


def test_the_framework_says_a_pod_waits_in_v1_35s_words() -> None:
    """framework.go RunPermitPlugins (v1.35.6): its own message naming the pod, not the plugin's."""
    s = scheduler(gang_cluster(3))
    pod = s.cluster.pods["gang/w-0"]
    state = CycleState()
    state.write(CLOCK_KEY, 0.0)
    st, timeout = s.framework_for(pod).run_permit_plugins(state, pod, "n1")
    assert (st.code, st.message(), timeout) == (Code.Wait, 'one or more plugins asked to wait and no plugin '
                                                           'rejected pod "w-0"', 300.0)
    assert state.get(ALLOW_KEY) is None


def test_without_the_gang_scheduling_gate_there_is_no_plugin_and_no_wait() -> None:
    """default_plugins.go applyGangScheduling: the plugin joins the profile only with the gate;
    GenericWorkload alone changes no decision in v1.35 (only the workload manager and an informer)."""
    for gates in ({}, {"GenericWorkload": True}):
        s = scheduler(gang_cluster(3), gates)
        pod = s.cluster.pods["gang/w-0"]
        fwk = s.framework_for(pod)
        assert all(p.name != "GangScheduling" for ep in ("preEnqueue", "reserve", "permit") for p in fwk.points[ep])
        res = s.schedule(pod)
        assert res.outcome == "Scheduled" and res.permit is None


def test_explain_of_a_member_shows_it_waiting_at_permit_and_forgets_it() -> None:
    """schedulingCycle then WaitOnPermit: the member is placed, then held at Permit for its gang."""
    s = scheduler(gang_cluster(3))
    for name in ("gang/w-0", "gang/w-1"):
        res = s.schedule(s.cluster.pods[name])
        assert res.outcome == "Scheduled" and res.suggested_host == "n1"
        assert res.permit is not None and res.permit.code == Code.Wait and res.permit_timeout == 300.0
        assert res.permit_details is not None and res.permit_details["assumedOrAssigned"] == 1


@pytest.mark.parametrize("seconds,want", [(300.0, "5m0s"), (90.5, "1m30.5s"), (45.0, "45s"), (3600.0, "1h0m0s"),
                                          (0.25, "250ms"), (0.0, "0s")])
def test_go_duration(seconds: float, want: str) -> None:
    assert go_duration(seconds) == want


def test_a_timed_out_waiter_is_rejected_in_the_frameworks_words() -> None:
    """waiting_pods_map.go newWaitingPod: the timer rejects with the plugin's name and the wait."""
    assert timeout_rejection(300.0) == "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
