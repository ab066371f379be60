"""ResourceClaims in a v1.36 pod-group cycle: each member's Reserve holds the devices it was given
(dynamicresources.go Reserve, SignalClaimPendingAllocation), so the next members' allocators see
them taken (dra_manager.go ListAllAllocatedDevices counts allocations in flight); members that
share a claim share its one allocation (PreFilter: podGroupState.pendingAllocations); every
allocation in flight goes with the cycle's unreserveAndForget; and a pod outside the cycle whose
claim is being allocated waits ("resource claim ... is in the process of being allocated")."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2, apply_feature_gates
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.scheduler.schedule_one_podgroup import BIND, FAILURE
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_gang, make_node, make_pod

DRIVER = "gpu.example.com"
DEVICE_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}


def gpus(node: str, n: int = 1) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-gpus"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}"} for i in range(n)]}}


def claim(name: str, ns: str = "gang") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": f"claim-{name}"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}, "status": {}}


def gang_with_claims(claims: list[str]) -> list[dict[str, Any]]:
    """PodGroup gang/train (minCount = its members) of one 1-cpu pod per claim named."""
    return [make_gang("train", len(claims), namespace="gang", priority=100)] + [
        make_pod(f"train-{i}").ns("gang").priority(100).req(cpu="1", memory="1Gi").in_pod_group("train")
        .resource_claim("gpu", claim=c).obj() for i, c in enumerate(claims)]


def scheduler(nodes: list[str], objs: list[dict[str, Any]]) -> Scheduler:
    v = apply_feature_gates(V1_36_2, {"GenericWorkload": True, "GangScheduling": True})
    base = [make_node(n).alloc(cpu="8", memory="16Gi").obj() for n in nodes] + [DEVICE_CLASS]
    return Scheduler(Cluster.from_objects(base + objs), default_config(v))


def cycle(s: Scheduler) -> Any:
    members = sorted((p for p in s.cluster.pods.values() if p.namespace == "gang"), key=lambda p: p.name)
    return s.schedule_pod_group("gang/train", members)


def test_a_member_does_not_get_the_device_an_earlier_member_reserved() -> None:
    # one GPU on the only node: train-0's Reserve holds gpu-0, so train-1's allocator finds none
    # and the gang of two cannot be placed (without Reserve both members took gpu-0)
    s = scheduler(["n1"], [gpus("n1"), claim("c0"), claim("c1")] + gang_with_claims(["c0", "c1"]))
    r = cycle(s)
    assert [m.action for m in r.members] == [FAILURE, FAILURE]
    assert [m.suggested_host for m in r.members] == ["n1", ""]
    assert "cannot allocate all claims" in r.members[1].message
    # the cycle's unreserveAndForget dropped what it held: nothing stays in flight
    assert len(s.claim_tracker) == 0


def test_members_with_a_device_each_are_placed_where_devices_are_free() -> None:
    s = scheduler(["n1", "n2"], [gpus("n1"), gpus("n2"), claim("c0"), claim("c1")] + gang_with_claims(["c0", "c1"]))
    r = cycle(s)
    assert [m.action for m in r.members] == [BIND, BIND]
    assert sorted(m.suggested_host for m in r.members) == ["n1", "n2"]
    assert len(s.claim_tracker) == 0


def test_members_sharing_a_claim_share_its_one_allocation() -> None:
    # train-0 and train-1 name the one claim `shared`: train-0's Reserve allocates it on its node,
    # train-1 reuses that allocation in the cycle, and so goes where it is (the allocation's node
    # selector), though another node has a free GPU and less load
    s = scheduler(["n1", "n2"], [gpus("n1"), gpus("n2"), claim("shared")] + gang_with_claims(["shared", "shared"]))
    r = cycle(s)
    assert [m.action for m in r.members] == [BIND, BIND]
    hosts = [m.suggested_host for m in r.members]
    assert hosts[0] == hosts[1]
    assert len(s.claim_tracker) == 0


def test_a_claim_being_allocated_for_another_pod_makes_the_pod_wait() -> None:
    # dynamicresources.go PreFilter: an allocation in flight (another pod reserved it, its binding
    # has not written it yet) is not the pod's to use; UnschedulableAndUnresolvable
    objs = [make_node("n1").alloc(cpu="8", memory="16Gi").obj(), DEVICE_CLASS, gpus("n1"), claim("c0", ns="default"),
            make_pod("p").req(cpu="1").resource_claim("gpu", claim="c0").obj()]
    s = Scheduler(Cluster.from_objects(objs), default_config(V1_34_1))
    c0 = next(c for c in s.cluster.extra["ResourceClaim"])
    s.claim_tracker.signal_claim_pending_allocation("claim-c0", {**c0, "status": {"allocation": {"devices": {
        "results": [{"request": "gpu", "driver": DRIVER, "pool": "n1", "device": "gpu-0"}]}}}})
    res = s.schedule(s.cluster.pods["default/p"])
    assert "resource claim default/c0 is in the process of being allocated" in res.message
