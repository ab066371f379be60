"""The pod-group cycle and workload-aware preemption of kube-scheduler v1.36.2, rule by rule, each
on a small cluster built for it (scheduler/schedule_one_podgroup.py, preemption/podgroup_preemption.py)."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.versions import V1_36_2, apply_feature_gates
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.gosort import sort_slice
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.preemption.podgroup_preemption import VictimUnit, more_important_victim
from kubectl_preempt.scheduler.schedule_one_podgroup import BIND, FAILURE, order_members
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_gang, make_node, make_pdb, make_pod

WAITING_AT_PERMIT = ("pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
                     "one or more plugins asked to wait and no plugin rejected pod")
WAP_NOT_ELIGIBLE = "no new claims to deallocate, preemption: not eligible due to workload aware preemption enabled"


def scheduler(objs: list[dict[str, Any]], *, wap: bool = True) -> Scheduler:
    v = apply_feature_gates(V1_36_2, {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": wap})
    return Scheduler(Cluster.from_objects(objs), default_config(v))


def nodes(n: int, cpu: str = "4") -> list[dict[str, Any]]:
    return [make_node(f"n{i}").alloc(cpu=cpu, memory="16Gi").obj() for i in range(1, n + 1)]


def filler(name: str, node: str, prio: int = 100, cpu: str = "1", start: str = "2026-01-01T00:00:00Z",
           ns: str = "batch") -> dict[str, Any]:
    return make_pod(name).ns(ns).priority(prio).req(cpu=cpu, memory="1Gi").on(node).start_time(start).obj()


def gang(name: str, size: int, cpu: str, *, min_count: int | None = None, prio: int = 10000, ns: str = "gang",
         group_prio: int | None = None, **kw: Any) -> list[dict[str, Any]]:
    out = [make_gang(name, size if min_count is None else min_count, namespace=ns,
                     priority=prio if group_prio is None else group_prio, **kw)]
    out += [make_pod(f"{name}-{i}").ns(ns).priority(prio).req(cpu=cpu, memory="1Gi").in_pod_group(name).obj()
            for i in range(size)]
    return out


def cycle(s: Scheduler, key: str) -> Any:
    ns, name = key.split("/")
    members = [p for p in s.cluster.pods.values() if p.namespace == ns and not p.node_name
               and (p.spec.get("schedulingGroup") or {}).get("podGroupName") == name]
    return s.schedule_pod_group(key, sorted(members, key=lambda p: p.name))


def test_a_gang_that_fits_binds_every_member_and_is_scheduled() -> None:
    """schedule_one_podgroup.go podGroupSchedulingDefaultAlgorithm: the Permit of the member that
    reaches minCount succeeds, and the group's condition is PodGroupScheduled True."""
    s = scheduler(nodes(2) + gang("train", 4, "2"))
    r = cycle(s, "gang/train")
    assert r.status.is_success()
    assert [m.action for m in r.members] == [BIND] * 4
    assert sorted(m.suggested_host for m in r.members) == ["n1", "n1", "n2", "n2"]
    assert r.condition == {"type": "PodGroupScheduled", "status": "True", "reason": "Scheduled", "message": ""}
    # every assumption undone: the scheduler's snapshot is as it was (binding is the caller's)
    assert all(not ni.pods for ni in s.snapshot.list())


def test_all_or_nothing_no_member_binds_when_the_gang_does_not_fit() -> None:
    """schedule_one_podgroup.go submitPodGroupAlgorithmResult: members that fit waited at Permit
    (GangScheduling: "waiting for minCount pods from a gang to be scheduled") and go back
    unschedulable with that message; the one that fits nowhere keeps its own FitError."""
    s = scheduler(nodes(2) + gang("train", 3, "3"), wap=False)
    r = cycle(s, "gang/train")
    assert not r.status.is_success()
    assert [m.action for m in r.members] == [FAILURE] * 3
    fitted = [m for m in r.members if m.suggested_host]
    assert len(fitted) == 2
    assert {m.message for m in fitted} == {WAITING_AT_PERMIT}
    rejected = next(m for m in r.members if not m.suggested_host)
    assert rejected.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert r.condition["status"] == "False" and r.condition["message"] == "pod group is unschedulable"
    assert all(m.nominated_node == "" for m in fitted)


def test_a_gang_of_min_count_below_its_size_schedules_when_min_count_members_fit() -> None:
    """gangscheduling.go Permit: the quorum is minCount scheduled pods; a rejected member leaves
    the group schedulable (podGroupSchedulingDefaultAlgorithm continues past it)."""
    s = scheduler(nodes(2) + gang("train", 3, "3", min_count=2))
    r = cycle(s, "gang/train")
    assert r.status.is_success()
    assert [m.action for m in r.members].count(BIND) == 2
    assert r.condition["status"] == "True"


def test_a_group_that_cannot_fit_even_with_every_lower_pod_gone_gets_no_victims() -> None:
    """podgrouppreemption.go selectVictimsOnDomain: with every potential victim removed the group
    still does not fit, so the search ends there; the condition appends its status
    ("pod group is unschedulable, pod group is unschedulable")."""
    objs = nodes(3) + [filler(f"f{i}", f"n{i % 3 + 1}") for i in range(6)] + gang("huge", 4, "3")
    s = scheduler(objs)
    r = cycle(s, "gang/huge")
    assert r.preemption is not None and not r.preemption.fits_without_all
    assert r.preempted is None and r.preemption.victims == []
    assert not r.waiting_on_preemption
    assert r.condition["message"] == "pod group is unschedulable, pod group is unschedulable"


def test_workload_aware_preemption_removes_all_then_reprieves_the_most_important_first() -> None:
    """podgrouppreemption.go selectVictimsOnDomain: every lower unit removed, the group fits, then
    units are put back most important first (higher priority, then earlier start) and each that
    still lets the group fit is reprieved; members get "not eligible due to workload aware
    preemption enabled" and no nomination (DefaultPreemption.PostFilter)."""
    objs = nodes(2)
    objs += [filler("old-a", "n1", start="2026-01-01T00:00:00Z"), filler("old-b", "n1", start="2026-01-01T00:00:01Z"),
             filler("new-a", "n1", start="2026-01-01T00:10:00Z"), filler("new-b", "n1", start="2026-01-01T00:10:01Z")]
    objs += [filler(f"full-{i}", "n2", prio=20000) for i in range(4)]
    objs += gang("train", 1, "2")
    s = scheduler(objs)
    r = cycle(s, "gang/train")
    rec = r.preempted
    assert rec is not None and r.waiting_on_preemption
    assert [u.key for u in rec.victims] == ["batch/new-a", "batch/new-b"]
    assert [r.unit.key for r in rec.reprieves if r.kept] == ["batch/old-a", "batch/old-b"]
    m = r.members[0]
    assert m.message.endswith(WAP_NOT_ELIGIBLE) and m.nominated_node is None


def test_disruption_mode_pod_group_evicts_the_whole_group_together() -> None:
    """types.go newDomainForWorkloadPreemption: the pods of a PodGroup whose disruptionMode is
    PodGroup are one unit, evicted together though one of them would free enough."""
    objs = nodes(3) + [filler(f"f{i}", f"n{i + 1}", cpu="3") for i in range(3)]
    objs += gang("low", 3, "1", prio=50, ns="batch", disruption_mode="PodGroup")
    for i, p in enumerate(o for o in objs if o["metadata"]["name"].startswith("low-")):
        p["spec"]["nodeName"] = f"n{i + 1}"
    objs += gang("train", 1, "1")
    s = scheduler(objs)
    rec = cycle(s, "gang/train").preempted
    assert rec is not None
    assert [(u.key, [p.key for p in u.pods]) for u in rec.victims] == [
        ("batch/low", ["batch/low-0", "batch/low-1", "batch/low-2"])]


def test_disruption_mode_pod_lets_a_group_lose_one_pod() -> None:
    """isPodGroupPreemptiblePod: with disruptionMode Pod each pod of the group is its own unit."""
    objs = nodes(3) + [filler(f"f{i}", f"n{i + 1}", cpu="3") for i in range(3)]
    objs += gang("low", 3, "1", prio=50, ns="batch", disruption_mode="Pod")
    for i, p in enumerate(o for o in objs if o["metadata"]["name"].startswith("low-")):
        p["spec"]["nodeName"] = f"n{i + 1}"
    objs += gang("train", 1, "1")
    rec = cycle(scheduler(objs), "gang/train").preempted
    assert rec is not None and len(rec.victims) == 1 and len(rec.victims[0].pods) == 1


def test_the_pod_groups_priority_is_authoritative_for_preemptor_and_victims() -> None:
    """util.PodGroupPriority: the preemptor's priority is its PodGroup's, not its pods' (pods of
    priority 0 in a group of 10000 preempt pods of 100), and a PodGroup victim's is its group's
    (pods of 5000 in a group of 50 are preempted)."""
    objs = nodes(1) + [filler("mid", "n1", prio=100, cpu="2")]
    objs += gang("low", 2, "1", prio=5000, group_prio=50, ns="batch", disruption_mode="PodGroup")
    for p in objs:
        if p["metadata"]["name"].startswith("low-"):
            p["spec"]["nodeName"] = "n1"
    objs += gang("train", 1, "4", prio=0, group_prio=10000)
    rec = cycle(scheduler(objs), "gang/train").preempted
    assert rec is not None and rec.priority == 10000
    assert sorted(u.key for u in rec.victims) == ["batch/low", "batch/mid"]
    assert next(u for u in rec.victims if u.key == "batch/low").priority == 50


def test_a_group_of_no_higher_priority_finds_no_victims() -> None:
    """podgrouppreemption.go isPreemptionAllowed: only units of lower priority than the group's;
    with none, UnschedulableAndUnresolvable "No preemption victims found for incoming preemptor"."""
    objs = nodes(1) + [filler("f", "n1", prio=100, cpu="4")] + gang("train", 1, "1", prio=100)
    r = cycle(scheduler(objs), "gang/train")
    assert r.preemption.status.message() == "No preemption victims found for incoming preemptor"
    assert r.condition["message"] == "pod group is unschedulable, No preemption victims found for incoming preemptor"


def test_pdb_violating_units_are_tried_back_first() -> None:
    """podgrouppreemption.go: the PDB-violating units are reprieved first, then the others
    (filterVictimsWithPDBViolation)."""
    objs = nodes(1)
    objs += [make_pod("guarded").ns("batch").priority(100).label("app", "g").req(cpu="2", memory="1Gi").on("n1")
             .start_time("2026-01-01T00:10:00Z").obj(),
             filler("free", "n1", cpu="2", start="2026-01-01T00:00:00Z"),
             make_pdb("keep", {"matchLabels": {"app": "g"}}, 0, namespace="batch")]
    objs += gang("train", 1, "2")
    rec = cycle(scheduler(objs), "gang/train").preempted
    assert [u.key for u in rec.victims] == ["batch/free"]
    assert [(r.unit.key, r.kept, r.pdb_violating) for r in rec.reprieves] == [
        ("batch/guarded", True, True), ("batch/free", False, False)]


def test_gate_off_each_member_runs_default_preemption_inside_the_group_cycle() -> None:
    """WorkloadAwarePreemption off: each member's own DefaultPreemption picks a node and victims
    within the cycle (the members assumed before it in place), and the group waits for it."""
    objs = nodes(2) + [filler(f"f{i}", f"n{i % 2 + 1}", cpu="2") for i in range(4)] + gang("train", 2, "2")
    off = cycle(scheduler(objs, wap=False), "gang/train")
    assert off.preemption is None and off.waiting_on_preemption
    assert sorted(m.suggested_host for m in off.members) == ["n1", "n2"]
    assert all(m.requires_preemption and m.preempted is not None for m in off.members)
    assert all(m.nominated_node == m.suggested_host for m in off.members)
    assert off.condition["message"] == "pod group is unschedulable, pod group is waiting for preemption to complete"
    on = cycle(scheduler(objs, wap=True), "gang/train")
    assert all(not m.requires_preemption and m.preempted is None for m in on.members)
    assert on.preempted is not None and len(on.preempted.victims) == 2


@pytest.mark.parametrize("a,b,first", [
    pytest.param(("pod", 100, 0, 1), ("pod", 50, 0, 1), "a", id="higher priority first"),
    pytest.param(("pod", 50, 0, 1), ("group", 50, 5, 1), "b", id="a PodGroup before a pod of equal priority"),
    pytest.param(("pod", 50, 9, 1), ("pod", 50, 3, 1), "b", id="pods: the earlier start first"),
    pytest.param(("group", 50, 0, 2), ("group", 50, 0, 3), "b", id="groups: the larger first"),
    pytest.param(("group", 50, 7, 2), ("group", 50, 2, 2), "b", id="groups of one size: the earlier start first"),
])
def test_victim_unit_order(a: tuple, b: tuple, first: str) -> None:
    """podgrouppreemption.go moreImportantVictim."""
    def unit(kind: str, prio: int, start: int, size: int) -> VictimUnit:
        pods = []
        for i in range(size):
            raw = make_pod(f"{kind}{prio}{start}{i}").obj()
            if kind == "group":
                raw["spec"]["schedulingGroup"] = {"podGroupName": "g"}
            pods.append(Pod(raw))
        return VictimUnit(pods, prio, None, start)
    ua, ub = unit(*a), unit(*b)
    units = [ub, ua] if first == "a" else [ua, ub]
    sort_slice(units, more_important_victim)
    assert units[0] is (ua if first == "a" else ub)


def test_members_are_tried_by_priority_then_first_attempt() -> None:
    """schedule_one_podgroup.go podGroupInfoForPod's sort."""
    pods = [Pod(make_pod(n).priority(p).obj()) for n, p in (("a", 1), ("b", 5), ("c", 5))]
    first = {"a": 1.0, "b": 3.0, "c": 2.0}
    assert [p.name for p in order_members(pods, lambda p: first[p.name])] == ["c", "b", "a"]


# schedule_one_podgroup.py InFlightNominations: every member of a pod-group cycle is out of the
# queue while the cycle runs, so the nominator resolves its nomination to a bare pod (podRef.toPod:
# priority 0, no requests) and a higher-priority pod of the cycle does not count it
# (scheduling_queue.go nominatedPodToInfo, framework.go addGENominatedPods). A pod still waiting in
# the queue keeps its nomination's room.
IN_FLIGHT_CASES = [
    pytest.param("gang/train-1", True, {"gang/train-0": "n1", "gang/train-1": "n2"},
                 id="a member fits where another member of its group in the same cycle is nominated"),
    pytest.param("gang/other", False, {},
                 id="a pod waiting in the queue keeps the room of its nomination from a gang member"),
]


@pytest.mark.parametrize("nominated,scheduled,hosts", IN_FLIGHT_CASES)
def test_nominations_of_members_in_flight(nominated: str, scheduled: bool, hosts: dict[str, str]) -> None:
    # n1 has room for one 2-cpu pod and train-0 may go nowhere else; n2 has room for one more
    objs = [make_node("n1").alloc(cpu="4", memory="16Gi").label("pool", "a").obj(),
            make_node("n2").alloc(cpu="4", memory="16Gi").label("pool", "b").obj(),
            filler("big-1", "n1", prio=20000, cpu="2"), filler("big-2", "n2", prio=20000, cpu="2")]
    objs.append(make_gang("train", 2, namespace="gang", priority=10000))
    objs.append(make_pod("train-0").ns("gang").priority(10000).req(cpu="2", memory="1Gi").in_pod_group("train")
                .node_selector(pool="a").obj())
    member = make_pod("train-1").ns("gang").priority(10000).req(cpu="2", memory="1Gi").in_pod_group("train")
    other = make_pod("other").ns("gang").priority(10000).req(cpu="2", memory="1Gi")
    objs.append((member.nominated("n1") if nominated == "gang/train-1" else member).obj())
    if nominated == "gang/other":
        objs.append(other.nominated("n1").obj())
    s = scheduler(objs, wap=False)
    r = cycle(s, "gang/train")
    assert r.status.is_success() == scheduled
    assert {m.pod.key: m.suggested_host for m in r.members if m.action == BIND} == hosts
    # after the cycle the nominator holds the pods themselves again, their priority with them
    held = s.nominator.by_node["n1"]
    assert [p.key for p in held] == [nominated] and held[0].priority == 10000
