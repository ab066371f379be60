"""What each imitated release does differently, on small inputs built for each difference
(../shared/conformance/v1.3X/README.md names the upstream change behind each)."""
from __future__ import annotations

from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.framework.versions import V1_30_1, V1_31_1, V1_32_2, V1_33_0, V1_34_1, V1_36_2
from tests.builders import make_node, make_pod, make_pv, make_pvc

PC = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}


def _explain(objects: list[dict[str, Any]], pod: str, version: str, **kw: Any) -> dict[str, Any]:
    return kubectl_preempt.explain(objects, pod, kubernetes_version=version, **kw)


def _multi_point(version: Any) -> list[tuple[str, int]]:
    return [(p.name, p.weight) for p in default_config(version).profiles[0].multi_point.enabled]


# --- the default profile -----------------------------------------------------------------------
@pytest.mark.parametrize("version", [V1_30_1, V1_31_1, V1_32_2, V1_33_0])
def test_before_v1_34_the_default_profile_has_no_dynamic_resources(version: Any) -> None:
    # default_plugins.go applyFeatureGates: DynamicResources only with DynamicResourceAllocation
    got = _multi_point(version)
    assert got == [(n, w) for n, w in _multi_point(V1_34_1) if n != "DynamicResources"]
    on = version.with_gates((("DynamicResourceAllocation", True),))
    assert _multi_point(on) == _multi_point(V1_34_1)


def test_the_failed_preemption_message_has_no_dynamic_resources_part_before_v1_34() -> None:
    objects = [make_node("n1").taint("dedicated", "gpu").obj(), make_pod("p").req(cpu="1").obj()]
    v134 = _explain(objects, "default/p", "v1.34")
    v133 = _explain(objects, "default/p", "v1.33")
    assert "no new claims to deallocate, preemption:" in v134["message"]
    assert v133["message"] == v134["message"].replace("no new claims to deallocate, ", "")


# --- NodeResourcesFit: a request larger than the node (kubernetes/kubernetes#131345) -----------------
def test_a_request_larger_than_the_node_is_resolvable_by_preemption_before_v1_34() -> None:
    objects = [PC, make_node("small").alloc(cpu="2").obj(),
               make_pod("p").req(cpu="4").priority_class("high").priority(1000).obj(),
               make_pod("low").req(cpu="1").on("small").obj()]
    v134 = _explain(objects, "default/p", "v1.34")
    v133 = _explain(objects, "default/p", "v1.33")
    assert v134["nodeStatuses"]["small"]["code"] == "UnschedulableAndUnresolvable"
    assert v133["nodeStatuses"]["small"]["code"] == "Unschedulable"
    # v1.34 does not even try the node; v1.33 dry-runs it and finds evicting does not help
    assert v134["message"].endswith("preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    assert v133["message"].endswith("preemption: 0/1 nodes are available: 1 Insufficient cpu.")


# --- PodLevelResources (KEP-2837): off before v1.34 --------------------------------------------------
def _pod_level_cluster() -> list[dict[str, Any]]:
    # the bound pod asks 3 cpu at the pod level, 1 in its container; the incoming pod wants 2 of 4
    bound = make_pod("big").container(cpu="1").on("n1").set("spec.resources", {"requests": {"cpu": "3"}}).obj()
    return [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), bound, make_pod("p").req(cpu="2").obj()]


@pytest.mark.parametrize("version,outcome", [("v1.34", "Unschedulable"), ("v1.36", "Unschedulable"),
                                             ("v1.33", "Scheduled"), ("v1.32", "Scheduled"), ("v1.30", "Scheduled")])
def test_pod_level_requests_count_from_v1_34(version: str, outcome: str) -> None:
    assert _explain(_pod_level_cluster(), "default/p", version)["outcome"] == outcome


def test_the_incoming_pods_pod_level_requests_are_ignored_before_v1_34() -> None:
    pod = make_pod("p").container(cpu="1").set("spec.resources", {"requests": {"cpu": "3"}}).obj()
    objects = [make_node("n1").alloc(cpu="2", memory="8Gi").obj(), pod]
    assert _explain(objects, "default/p", "v1.34")["outcome"] == "Unschedulable"
    assert _explain(objects, "default/p", "v1.33")["outcome"] == "Scheduled"


def test_one_loaded_snapshot_explained_as_two_releases_adds_requests_as_each() -> None:
    # the Pod objects (and their cached requests) are shared; each release's NodeInfos count its way
    c = Cluster.from_objects(_pod_level_cluster())
    assert kubectl_preempt.explain(c, "default/p", kubernetes_version="v1.33")["outcome"] == "Scheduled"
    assert kubectl_preempt.explain(c, "default/p", kubernetes_version="v1.34")["outcome"] == "Unschedulable"
    assert kubectl_preempt.explain(c, "default/p", kubernetes_version="v1.33")["outcome"] == "Scheduled"


# --- VolumeRestrictions' ReadWriteOncePod reason (kubernetes/kubernetes#129145) ----------------------
@pytest.mark.parametrize("version,reason", [
    ("v1.34", "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
              "in-use by another pod"),
    ("v1.33", "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"),
    ("v1.30", "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"),
])
def test_read_write_once_pod_reason_per_release(version: str, reason: str) -> None:
    objects = [make_node("n1").obj(), make_pvc("solo", volume="pv-solo", modes=("ReadWriteOncePod",)),
               make_pv("pv-solo", modes=("ReadWriteOncePod",), claim=("default", "solo")),
               make_pod("holder").pvc("solo").on("n1").obj(), make_pod("p").pvc("solo").obj()]
    doc = _explain(objects, "default/p", version)
    assert doc["nodeStatuses"]["n1"]["reasons"] == [reason]


# --- InPlacePodVerticalScaling (KEP-1287): off before v1.33 --------------------------------------------
def _resized_cluster(status_extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    # the bound pod's spec asks 1 cpu; the kubelet reports 3 (a resize up in progress)
    bound = make_pod("resized").req(cpu="1").on("n1").obj()
    name = bound["spec"]["containers"][0]["name"]
    bound["status"]["containerStatuses"] = [{"name": name, "resources": {"requests": {"cpu": "3"}},
                                             "allocatedResources": {"cpu": "3"}}]
    bound["status"].update(status_extra or {})
    return [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), bound, make_pod("p").req(cpu="2").obj()]


@pytest.mark.parametrize("version,outcome", [("v1.34", "Unschedulable"), ("v1.33", "Unschedulable"),
                                             ("v1.32", "Scheduled"), ("v1.31", "Scheduled"), ("v1.30", "Scheduled")])
def test_status_resources_count_from_v1_33(version: str, outcome: str) -> None:
    assert _explain(_resized_cluster(), "default/p", version)["outcome"] == outcome


def test_an_infeasible_resize_reads_the_field_of_its_release() -> None:
    # v1.33+ read the PodResizePending condition, v1.32 the status.resize field; infeasible: the
    # status resources alone (3 cpu), not the spec's (1)
    spec_larger = _resized_cluster({"resize": "Infeasible"})
    spec_larger[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3500m"
    spec_larger[1]["status"]["containerStatuses"][0]["resources"]["requests"]["cpu"] = "1"
    spec_larger[1]["status"]["containerStatuses"][0]["allocatedResources"]["cpu"] = "1"
    v132 = V1_32_2.with_gates((("InPlacePodVerticalScaling", True),))
    # v1.32 with the gate reads the field: 1 cpu counted, the pod fits; v1.33 ignores the field: max(3.5, 1)
    assert kubectl_preempt.explain(spec_larger, "default/p", kubernetes_version=v132)["outcome"] == "Scheduled"
    assert _explain(spec_larger, "default/p", "v1.33")["outcome"] == "Unschedulable"


# --- VolumeBinding's node affinity conflict wording (kubernetes/kubernetes#129887) --------------------
@pytest.mark.parametrize("version,reason", [("v1.33", "node(s) didn't match PersistentVolume's node affinity"),
                                            ("v1.32", "node(s) had volume node affinity conflict")])
def test_volume_node_affinity_reason_per_release(version: str, reason: str) -> None:
    objects = [make_node("n1").obj(), make_pvc("data", volume="pv-data"),
               make_pv("pv-data", hostname="n2", claim=("default", "data")), make_pod("p").pvc("data").obj()]
    doc = _explain(objects, "default/p", version)
    assert doc["nodeStatuses"]["n1"]["reasons"] == [reason]


# --- BalancedAllocation on a best-effort pod (kubernetes/kubernetes#130260) --------------------------
def test_balanced_allocation_scores_a_best_effort_pod_before_v1_33() -> None:
    objects = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_node("n2").alloc(cpu="4", memory="8Gi").obj(),
               make_pod("busy").req(cpu="3", memory="1Gi").on("n1").obj(), make_pod("p").obj()]
    v133 = _explain(objects, "default/p", "v1.33")
    v132 = _explain(objects, "default/p", "v1.32")
    assert all("NodeResourcesBalancedAllocation" not in s for s in v133["pluginScores"].values())
    # requested cpu 3 of 4, memory 1Gi of 8Gi on n1: unbalanced; nothing on n2: balanced
    assert v132["pluginScores"]["n2"]["NodeResourcesBalancedAllocation"] == 100
    assert v132["pluginScores"]["n1"]["NodeResourcesBalancedAllocation"] < 100
