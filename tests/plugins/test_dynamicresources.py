"""DynamicResources: v1.34 behaviour for pods without claims, and claims from the snapshot."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NodeScore
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import dynamicresources as dra
from tests.builders import make_node, make_pod

UU = Code.UnschedulableAndUnresolvable
DRIVER = "gpu.example.com"


def claim(name: str, *, allocated_on: str | None = None, reserved_for: list[str] | None = None,
          request: dict[str, Any] | None = None, devices: list[str] | None = None,
          owner_uid: str | None = None, deleting: bool = False) -> dict[str, Any]:
    o: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-claim-{name}"},
        "spec": {"devices": {"requests": [request or {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {}}
    if allocated_on is not None or devices:
        alloc: dict[str, Any] = {"devices": {"results": [
            {"request": "gpu", "driver": DRIVER, "pool": "pool-a", "device": d} for d in devices or ()]}}
        if allocated_on is not None:
            alloc["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [allocated_on]}]}]}
        o["status"]["allocation"] = alloc
    if reserved_for is not None:
        o["status"]["reservedFor"] = [{"resource": "pods", "name": u, "uid": u} for u in reserved_for]
    if owner_uid is not None:
        o["metadata"]["ownerReferences"] = [{"kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}]
    if deleting:
        o["metadata"]["deletionTimestamp"] = "2026-01-01T01:00:00Z"
    return o


def device_class(name: str = "gpu", expr: str = f'device.driver == "{DRIVER}"') -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def resource_slice(node: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-gpus"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": "pool-a" if node == "node-a" else node,
                                                                    "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def selected_slice(op: str, node: str) -> dict[str, Any]:
    """A slice of one device on the nodes its nodeSelector (on metadata.name) picks."""
    s = resource_slice("node-a", [gpu("gpu-0")])
    del s["spec"]["nodeName"]
    s["spec"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": op, "values": [node]}]}]}
    return s


def gpu(name: str, model: str = "a100", memory: str = "40Gi") -> dict[str, Any]:
    return {"name": name, "attributes": {"model": {"string": model}},
            "capacity": {"memory": {"value": memory}}}


def setup(objects: list[dict[str, Any]], pod: Any):
    cluster = Cluster.from_objects([make_node("node-a").obj(), make_node("node-b").obj()] + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    return dra.new({}, SimpleNamespace(snapshot=snap, cluster=cluster)), snap, cluster.pod("default/p")


def run(objects: list[dict[str, Any]], pod: Any) -> Any:
    pl, snap, p = setup(objects, pod)
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.list())
    if not st.is_success():
        return ("prefilter", st.code, st.message())
    out = {}
    for ni in snap.list():
        s = pl.filter(state, p, ni)
        out[ni.name] = "ok" if s.is_success() else (s.code, s.message())
    _, post = pl.post_filter(state, p, {})
    out["postfilter"] = (post.code, post.message())
    return out


def test_pod_without_claims_skips_prefilter_after_writing_state_and_postfilter_has_nothing_to_deallocate() -> None:
    pl, snap, p = setup([], make_pod("p"))
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.list())
    assert st.code == Code.Skip
    _, post = pl.post_filter(state, p, {})
    assert (post.code, post.message()) == (Code.Unschedulable, dra.ERR_NO_NEW_CLAIMS)


def test_postfilter_without_prefilter_state_is_the_not_found_error() -> None:
    # a PreFilter plugin before DynamicResources rejected the pod, so its PreFilter never ran
    pl, _, p = setup([], make_pod("p"))
    _, post = pl.post_filter(CycleState(), p, {})
    assert (post.code, post.message()) == (Code.Error, "not found")


@pytest.mark.parametrize("objects,pod,message", [
    ([], make_pod("p").resource_claim("gpu", claim="gpu-1"), 'could not find ResourceClaim "default/gpu-1"'),
    ([], make_pod("p").resource_claim("gpu", template="gpu-tmpl"), 'pod "default/p": ResourceClaim not created yet'),
    ([], make_pod("p").resource_claim("gpu"),
     'pod "default/p", spec.resourceClaim "gpu": none of the supported fields are set'),
    ([claim("gpu-1", deleting=True)], make_pod("p").resource_claim("gpu", claim="gpu-1"),
     'resourceclaim "gpu-1" is being deleted'),
    ([claim("p-gpu", owner_uid="someone-else")],
     make_pod("p").resource_claim("gpu", template="gpu-tmpl").set(
         "status.resourceClaimStatuses", [{"name": "gpu", "resourceClaimName": "p-gpu"}]),
     "ResourceClaim default/p-gpu was not created for pod default/p (pod is not owner)"),
    ([claim("gpu-1", allocated_on="node-a", devices=["gpu-0"], reserved_for=[f"u{i}" for i in range(256)])],
     make_pod("p").resource_claim("gpu", claim="gpu-1"), dra.ERR_CLAIM_IN_USE),
    ([claim("gpu-1")], make_pod("p").resource_claim("gpu", claim="gpu-1"), "request gpu: device class gpu does not exist"),
    ([claim("gpu-1", request={"name": "gpu"})], make_pod("p").resource_claim("gpu", claim="gpu-1"),
     "resource claim default/gpu-1, request gpu: unknown request type"),
], ids=["a missing claim", "a claim from a template not created yet", "a pod claim naming neither",
        "a claim being deleted", "a template's claim owned by another pod",
        "an allocated claim reserved for 256 other pods is in use", "a missing device class",
        "a request of unknown type"])
def test_prefilter_rejections(objects: list, pod: Any, message: str) -> None:
    assert run(objects, pod) == ("prefilter", UU, message)
    # the claim checks (not the claim's state) already keep the pod out of the queue
    pl, _, p = setup(objects, pod)
    enqueue = pl.pre_enqueue(p)
    if message in (dra.ERR_CLAIM_IN_USE,) or message.startswith(("request ", "resource claim ")):
        assert enqueue.is_success()
    else:
        assert (enqueue.code, enqueue.message()) == (UU, message)


def test_template_claim_that_was_intentionally_not_created_is_ignored() -> None:
    pod = make_pod("p").resource_claim("gpu", template="gpu-tmpl").set(
        "status.resourceClaimStatuses", [{"name": "gpu"}])
    assert run([], pod) == ("prefilter", Code.Skip, "")


def test_allocated_claim_is_available_only_where_its_node_selector_matches() -> None:
    got = run([claim("gpu-1", allocated_on="node-a", devices=["gpu-0"])],
              make_pod("p").resource_claim("gpu", claim="gpu-1"))
    assert got == {"node-a": "ok", "node-b": (UU, dra.ERR_CLAIM_NOT_AVAILABLE),
                   "postfilter": (Code.Unschedulable, dra.ERR_DEALLOCATION_COMPLETED)}


def test_an_unavailable_claim_reserved_by_another_pod_is_not_deallocated() -> None:
    got = run([claim("gpu-1", allocated_on="node-a", devices=["gpu-0"], reserved_for=["other"])],
              make_pod("p").resource_claim("gpu", claim="gpu-1"))
    assert got["postfilter"] == (Code.Unschedulable, dra.ERR_STILL_NOT_SCHEDULABLE)


@pytest.mark.parametrize("objects,expect", [
    ([resource_slice("node-a", [gpu("gpu-0")])], {"node-a": "ok", "node-b": (UU, dra.ERR_CANNOT_ALLOCATE)}),
    ([resource_slice("node-a", [gpu("gpu-0")]), claim("taken", devices=["gpu-0"])],
     {"node-a": (UU, dra.ERR_CANNOT_ALLOCATE), "node-b": (UU, dra.ERR_CANNOT_ALLOCATE)}),
    ([resource_slice("node-a", [gpu("gpu-0")]), resource_slice("node-b", [gpu("gpu-0", model="t4")])],
     {"node-a": "ok", "node-b": (UU, dra.ERR_CANNOT_ALLOCATE)}),
    ([selected_slice("NotIn", "node-a")], {"node-a": (UU, dra.ERR_CANNOT_ALLOCATE), "node-b": "ok"}),
    ([selected_slice("Gt", "node-a")],
     {"node-a": (UU, dra.ERR_CANNOT_ALLOCATE), "node-b": (UU, dra.ERR_CANNOT_ALLOCATE)}),
], ids=["a free matching device on the node", "a device allocated to another claim is not free",
        "request selectors filter devices", "a slice's node selector picks the nodes that see its devices",
        "a slice's node selector that does not parse picks no node"])
def test_unallocated_claims_are_allocated_from_the_nodes_slices(objects: list, expect: dict) -> None:
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu", "selectors": [
        {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a100" && '
                               f'device.capacity["{DRIVER}"].memory.compareTo(quantity("16Gi")) >= 0'}}]}}
    got = run([device_class(), claim("gpu-1", request=request)] + objects,
              make_pod("p").resource_claim("gpu", claim="gpu-1"))
    assert got == {**expect, "postfilter": (Code.Unschedulable, dra.ERR_STILL_NOT_SCHEDULABLE)}


def test_a_selector_beyond_the_supported_cel_is_an_error_not_a_guess() -> None:
    got = run([device_class(expr='device.attributes["x"].model.matches("a.*")'), claim("gpu-1"),
               resource_slice("node-a", [gpu("gpu-0")])], make_pod("p").resource_claim("gpu", claim="gpu-1"))
    assert got["node-a"][0] == Code.Error
    assert got["node-a"][1].startswith("kubectl-preempt cannot evaluate this claim offline")


# --- Score, since v1.35 ------------------------------------------------------------------------------
def _scores(objects: list[dict[str, Any]], pod: Any, version: Any) -> dict[str, Any]:
    cluster = Cluster.from_objects([make_node("node-a").obj(), make_node("node-b").obj()] + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = dra.new({}, SimpleNamespace(snapshot=snap, cluster=cluster), version)
    p = cluster.pod("default/p")
    state = CycleState()
    pl.pre_filter(state, p, snap.list())
    feasible = [ni for ni in snap.list() if pl.filter(state, p, ni).is_success()]
    raw = {ni.name: pl.score(state, p, ni) for ni in feasible}
    assert all(st.is_success() for _, st in raw.values())
    scores = [NodeScore(n, s) for n, (s, _) in raw.items()]
    assert pl.score_extensions().normalize_score(state, p, scores).is_success()
    return {s.name: s.score for s in scores}


FIRST_AVAILABLE = {"name": "gpu", "firstAvailable": [
    {"name": "big", "deviceClassName": "gpu", "selectors": [
        {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a100"'}}]},
    {"name": "small", "deviceClassName": "gpu"}]}


def test_v1_34_has_no_score_and_v1_36_scores_every_pod() -> None:
    assert not hasattr(dra.new({}, None, V1_34_1), "score")
    assert _scores([], make_pod("p"), V1_36_2) == {"node-a": 0, "node-b": 0}


def test_an_earlier_first_available_subrequest_scores_higher() -> None:
    objects = [device_class(), claim("gpu-1", request=FIRST_AVAILABLE),
               resource_slice("node-a", [gpu("gpu-0", model="a100")]),
               resource_slice("node-b", [gpu("gpu-0", model="t4")])]
    # node-a gets the first subrequest (8 - 0), node-b the second (8 - 1); normalized to 100
    assert _scores(objects, make_pod("p").resource_claim("gpu", claim="gpu-1"), V1_36_2) == \
        {"node-a": 100, "node-b": 87}


def test_exactly_requests_and_allocated_claims_without_subrequests_score_nothing() -> None:
    objects = [device_class(), claim("gpu-1"), resource_slice("node-a", [gpu("gpu-0")]),
               resource_slice("node-b", [gpu("gpu-0")])]
    assert _scores(objects, make_pod("p").resource_claim("gpu", claim="gpu-1"), V1_36_2) == \
        {"node-a": 0, "node-b": 0}


def test_with_dra_prioritized_list_off_it_still_scores_every_node_with_zero() -> None:
    # dynamicresources.go Score: `if !pl.enabled || !pl.fts.EnableDRAPrioritizedList { return 0 }`;
    # default_plugins.go applyDynamicResources keeps it in the profile with weight 2 whatever that
    # gate says (v1.35.6's README: with DRAPrioritizedList=false the plugin is still a Score plugin)
    from kubectl_preempt.framework.config import default_multi_point
    from kubectl_preempt.framework.versions import apply_feature_gates
    off = apply_feature_gates(V1_36_2, "DRAPrioritizedList=false")
    assert ("DynamicResources", 2) in default_multi_point(off)
    objects = [device_class(), claim("gpu-1", request=FIRST_AVAILABLE),
               resource_slice("node-a", [gpu("gpu-0", model="a100")]),
               resource_slice("node-b", [gpu("gpu-0", model="t4")])]
    assert _scores(objects, make_pod("p").resource_claim("gpu", claim="gpu-1"), off) == {"node-a": 0, "node-b": 0}


@pytest.mark.parametrize("version, allocatable", [("v1.33", False), ("v1.34", True), ("v1.36", True)])
def test_node_allocatable_updates_requeue_from_v1_34(version: str, allocatable: bool) -> None:
    # dynamicresources.go EventsToRegister: UpdateNodeAllocatable joins Add | UpdateNodeLabel in v1.34.1
    from kubectl_preempt.framework import events as ev
    from kubectl_preempt.framework.versions import apply_feature_gates, by_name
    v = by_name(version)
    if not v.features.enable_dynamic_resource_allocation:
        v = apply_feature_gates(v, "DynamicResourceAllocation=true")
    [node] = [e.event for e in dra.new({}, None, v).events_to_register() if e.event.resource == ev.NODE]
    assert bool(node.action & ev.UPDATE_NODE_ALLOCATABLE) is allocatable
    assert node.action & ev.ADD and node.action & ev.UPDATE_NODE_LABEL


@pytest.mark.parametrize("version", ["v1.35", "v1.36"])
def test_an_allocation_that_times_out_is_unresolvable_then_from_v1_36_an_error(version: str, monkeypatch: Any) -> None:
    # dynamicresources.go Filter on context.DeadlineExceeded: v1.35 statusUnschedulable "timed out
    # trying to allocate devices"; v1.36 statusError "node <name>: timed out trying to allocate
    # devices" (retried with backoff). The search is cut short here after one step.
    from kubectl_preempt.framework.versions import by_name
    from kubectl_preempt.plugins.dynamicresources import allocator
    monkeypatch.setattr(allocator, "MAX_SEARCH_STEPS", 1)
    # two requests of 2 and 3 devices from 4: no allocation exists, found only by trying them all
    two_requests = claim("gpu-1")
    two_requests["spec"]["devices"]["requests"] = [
        {"name": "a", "exactly": {"deviceClassName": "gpu", "count": 2}},
        {"name": "b", "exactly": {"deviceClassName": "gpu", "count": 3}}]
    objects = [device_class(), two_requests, resource_slice("node-a", [gpu(f"gpu-{i}") for i in range(4)])]
    pod = make_pod("p").resource_claim("gpu", claim="gpu-1")
    cluster = Cluster.from_objects([make_node("node-a").obj()] + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = dra.new({}, SimpleNamespace(snapshot=snap, cluster=cluster), by_name(version))
    state = CycleState()
    pl.pre_filter(state, cluster.pod("default/p"), snap.list())
    s = pl.filter(state, cluster.pod("default/p"), snap.get("node-a"))
    if version == "v1.35":
        assert (s.code, s.message()) == (Code.UnschedulableAndUnresolvable, "timed out trying to allocate devices")
    else:
        assert (s.code, s.message()) == (Code.Error, "node node-a: timed out trying to allocate devices")


def _filter_on(version: Any, device: dict[str, Any], request: dict[str, Any] | None = None) -> Any:
    objects = [device_class(), claim("gpu-1", request=request), resource_slice("node-a", [device])]
    pod = make_pod("p").resource_claim("gpu", claim="gpu-1")
    cluster = Cluster.from_objects([make_node("node-a").obj()] + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = dra.new({}, SimpleNamespace(snapshot=snap, cluster=cluster), version)
    state = CycleState()
    pl.pre_filter(state, cluster.pod("default/p"), snap.list())
    s = pl.filter(state, cluster.pod("default/p"), snap.get("node-a"))
    return "ok" if s.is_success() else (s.code, s.message())


def test_a_device_taint_must_be_tolerated_once_dra_device_taints_is_on() -> None:
    # structured allocator isSelectable: `if alloc.features.DeviceTaints && !allTaintsTolerated(...)`;
    # DRADeviceTaints is beta and on in v1.36, off in v1.35 (the taint is ignored)
    from kubectl_preempt.framework.versions import V1_35_6
    tainted = {**gpu("gpu-0"), "taints": [{"key": "maintenance", "value": "soon", "effect": "NoSchedule"}]}
    assert _filter_on(V1_35_6, tainted) == "ok"
    assert _filter_on(V1_36_2, tainted) == (Code.UnschedulableAndUnresolvable, dra.ERR_CANNOT_ALLOCATE)
    tolerating = {"name": "gpu", "exactly": {"deviceClassName": "gpu", "tolerations": [
        {"key": "maintenance", "operator": "Equal", "value": "soon", "effect": "NoSchedule"}]}}
    assert _filter_on(V1_36_2, tainted, tolerating) == "ok"
    exists = {"name": "gpu", "exactly": {"deviceClassName": "gpu", "tolerations": [{"operator": "Exists"}]}}
    assert _filter_on(V1_36_2, tainted, exists) == "ok"


def test_devices_behind_a_gate_that_is_off_are_never_selected() -> None:
    # isSelectable: a device with binding conditions (DRADeviceBindingConditions off) or one that
    # consumes counters (DRAPartitionableDevices off) is not selectable; v1.36 turns both on, and
    # counters are not evaluated here: an error, not a guess
    from kubectl_preempt.framework.versions import V1_35_6
    binding = {**gpu("gpu-0"), "bindingConditions": ["attached"], "bindingFailureConditions": ["failed"]}
    counters = {**gpu("gpu-0"), "consumesCounters": [{"counterSet": "gpu-0-set", "counters": {"mem": {"value": "4Gi"}}}]}
    assert _filter_on(V1_35_6, binding) == (Code.UnschedulableAndUnresolvable, dra.ERR_CANNOT_ALLOCATE)
    assert _filter_on(V1_36_2, binding) == "ok"
    assert _filter_on(V1_35_6, counters) == (Code.UnschedulableAndUnresolvable, dra.ERR_CANNOT_ALLOCATE)
    code, message = _filter_on(V1_36_2, counters)
    assert code == Code.Error and "consume counters" in message
