"""What each imitated release does differently, on small inputs built for each difference
(tests/corpus/conformance/v1.3X/README.md names the upstream change behind each)."""
from __future__ import annotations

import hashlib
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.framework.versions import V1_30_1, V1_31_1, V1_32_2, V1_33_0, V1_34_1
from tests.builders import make_csi_node, make_node, make_pdb, make_pod, make_pv, make_pvc, make_volume_attachment

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


# --- v1.31 and older: the sidecar's non-zero requests (kubernetes/kubernetes#127878) -----------------
def test_before_v1_32_a_bound_sidecar_counts_only_as_an_init_container_in_scoring() -> None:
    from kubectl_preempt.model.resources import calculate_resource
    # a container with no requests (100m by default) and a sidecar asking 500m
    pod = make_pod("s").init_container(sidecar=True, cpu="500m", memory="1Gi").obj()
    v134 = calculate_resource(pod["spec"], {})
    v131 = calculate_resource(pod["spec"], {}, options=V1_31_1.resource_options)
    # v1.32+: PodRequests with the defaults: container 100m + sidecar 500m
    assert (v134.non0_cpu, v134.non0_mem) == (600, 200 * 1024**2 + 1024**3)
    # v1.31: max(containers' 100m, the largest init container's 500m); memory max(200Mi, 1Gi)
    assert (v131.non0_cpu, v131.non0_mem) == (500, 1024**3)
    # the requests themselves do not change
    assert v131.resource.milli_cpu == v134.resource.milli_cpu == 500


# --- v1.31 and older: a PreFilter rejection is every node's status (kubernetes/kubernetes#126022) ------
def _unbound_immediate() -> list[dict[str, Any]]:
    pvc = make_pvc("data", storage_class="fast")
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
          "provisioner": "example.com/csi", "volumeBindingMode": "Immediate"}
    return [make_node("n1").obj(), make_node("n2").obj(), pvc, sc, make_pod("p").pvc("data").obj()]


@pytest.mark.parametrize("version,listed", [("v1.32", []), ("v1.31", ["n1", "n2"]), ("v1.30", ["n1", "n2"])])
def test_a_pre_filter_rejection_is_listed_for_every_node_before_v1_32(version: str, listed: list[str]) -> None:
    doc = _explain(_unbound_immediate(), "default/p", version)
    assert doc["message"].startswith("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
    assert sorted(doc["nodeStatuses"]) == listed
    for name in listed:
        assert doc["nodeStatuses"][name] == {**doc["nodeStatuses"][name], "code": "UnschedulableAndUnresolvable",
                                             "plugin": "VolumeBinding",
                                             "reasons": ["pod has unbound immediate PersistentVolumeClaims"]}


# --- VolumeBinding's PreFilter result for a bound local PV (v1.31 and older) -------------------------
def _local_pv_cluster() -> list[dict[str, Any]]:
    # the pod's claim is bound to a PV on n2; n2 is full, n1 and n3 have room but not the volume
    return [make_node("n1").obj(), make_node("n2").alloc(cpu="1").obj(), make_node("n3").obj(),
            make_pvc("data", volume="pv-data"), make_pv("pv-data", hostname="n2", claim=("default", "data")),
            make_pod("p").req(cpu="2").pvc("data").obj()]


def test_a_bound_local_pv_narrows_the_nodes_before_v1_32() -> None:
    v132 = _explain(_local_pv_cluster(), "default/p", "v1.32")
    v131 = _explain(_local_pv_cluster(), "default/p", "v1.31")
    v130 = _explain(_local_pv_cluster(), "default/p", "v1.30")
    assert v132["message"].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had volume node affinity conflict.")
    # v1.31: the PreFilter result leaves n1 and n3 out, with no status
    assert v131["message"].startswith("0/3 nodes are available: 1 Insufficient cpu.")
    assert sorted(v131["nodeStatuses"]) == ["n2"]
    # v1.30.1: each node left out has its own status, with no plugin
    assert v130["message"].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node is filtered out by the prefilter result.")
    assert v130["nodeStatuses"]["n1"] == {**v130["nodeStatuses"]["n1"], "code": "UnschedulableAndUnresolvable",
                                          "plugin": "", "reasons": ["node is filtered out by the prefilter result"]}


# --- NodeVolumeLimits and VolumeAttachments (v1.32) -----------------------------------------------
def _attach_limited() -> list[dict[str, Any]]:
    # one CSI attach slot on n1, taken by a VolumeAttachment no pod on the node uses
    csi_node = make_csi_node("n1", {"ebs.csi.example.com": 1})
    va = make_volume_attachment("va-1", "n1", "pv-other", "ebs.csi.example.com")
    pv = make_pv("pv-data", csi=("ebs.csi.example.com", "vol-1"), claim=("default", "data"))
    other = make_pv("pv-other", csi=("ebs.csi.example.com", "vol-2"))
    return [make_node("n1").obj(), csi_node, va, pv, other, make_pvc("data", volume="pv-data"),
            make_pod("p").pvc("data").obj()]


@pytest.mark.parametrize("version,outcome", [("v1.32", "Unschedulable"), ("v1.31", "Scheduled")])
def test_volume_attachments_count_against_the_limit_from_v1_32(version: str, outcome: str) -> None:
    doc = _explain(_attach_limited(), "default/p", version)
    assert doc["outcome"] == outcome
    if outcome == "Unschedulable":
        assert doc["nodeStatuses"]["n1"]["reasons"] == ["node(s) exceed max volume count"]


def test_before_v1_32_a_node_allocatable_attach_limit_counts() -> None:
    from kubectl_preempt.plugins.nodevolumelimits import csi_attach_limit_key
    # no CSINode count; the Node's allocatable says one attachable volume of the driver
    objects = [o for o in _attach_limited() if o.get("kind") not in ("CSINode", "VolumeAttachment")]
    node = make_node("n1").obj()
    node["status"]["allocatable"][csi_attach_limit_key("ebs.csi.example.com")] = "0"
    objects[0] = node
    assert _explain(objects, "default/p", "v1.31")["outcome"] == "Unschedulable"
    assert _explain(objects, "default/p", "v1.32")["outcome"] == "Scheduled"
    # a long driver name: its first 23 characters and 16 hex digits of its SHA-1 (GetCSIAttachLimitKey)
    assert csi_attach_limit_key("x" * 50) == ("attachable-volumes-csi-" + "x" * 23
                                              + hashlib.sha1(b"x" * 50).hexdigest()[:16])
    assert csi_attach_limit_key("ebs.csi.example.com") == "attachable-volumes-csi-ebs.csi.example.com"


# --- v1.31's minHighestPriority pick (kubernetes/kubernetes#128307, upstream's own test) --------------
def _min_highest_priority() -> list[dict[str, Any]]:
    # upstream's "pod can be made schedulable on minHighestPriority node": one pod fits per node
    return [make_node("node1").alloc(pods="1").obj(), make_node("node2").alloc(pods="1").obj(),
            make_pdb("violating-pdb", {"matchLabels": {"pdb": "violating"}}, 0),
            make_pdb("non-violating-pdb", {"matchLabels": {"pdb": "non-violating"}}, 2147483647),
            make_pod("p1").label("pdb", "non-violating").priority(300).on("node1").obj(),
            make_pod("p2").label("pdb", "violating").priority(100).on("node1").obj(),
            make_pod("p3").label("pdb", "violating").priority(200).on("node2").obj(),
            make_pod("p").priority(400).obj()]


@pytest.mark.parametrize("version,node,victims", [
    ("v1.32", "node2", ["default/p3"]), ("v1.33", "node2", ["default/p3"]),
    # the violating low-priority victim comes first on node1, so its "highest" victim reads low
    ("v1.31", "node1", ["default/p1", "default/p2"]), ("v1.30", "node1", ["default/p1", "default/p2"]),
])
def test_min_highest_priority_reads_the_first_victim(version: str, node: str, victims: list[str]) -> None:
    doc = _explain(_min_highest_priority(), "default/p", version)
    assert (doc["outcome"], doc["nominatedNode"], sorted(doc["victims"])) == ("Preempted", node, victims)


# --- sidecars' host ports (schedutil.GetHostPorts, v1.34) ------------------------------------------
def _sidecar_port(pod: Any, port: int) -> Any:
    obj = pod.init_container(sidecar=True).obj()
    obj["spec"]["initContainers"][-1]["ports"] = [{"containerPort": port, "hostPort": port}]
    return obj


@pytest.mark.parametrize("version,outcome", [("v1.34", "Unschedulable"), ("v1.36", "Unschedulable"),
                                             ("v1.33", "Scheduled"), ("v1.30", "Scheduled")])
def test_a_bound_sidecar_s_host_port_is_taken_from_v1_34(version: str, outcome: str) -> None:
    objects = [make_node("n1").obj(), _sidecar_port(make_pod("proxy").on("n1"), 8080),
               make_pod("p").host_port(8080).obj()]
    assert _explain(objects, "default/p", version)["outcome"] == outcome


@pytest.mark.parametrize("version,outcome", [("v1.34", "Unschedulable"), ("v1.33", "Scheduled")])
def test_an_incoming_sidecar_s_host_port_is_asked_for_from_v1_34(version: str, outcome: str) -> None:
    objects = [make_node("n1").obj(), make_pod("web").host_port(9090).on("n1").obj(),
               _sidecar_port(make_pod("p"), 9090)]
    assert _explain(objects, "default/p", version)["outcome"] == outcome


# --- DynamicResources turned on before v1.34 (--feature-gates DynamicResourceAllocation=true) ---------
@pytest.mark.parametrize("version,part", [("v1.34", "no new claims to deallocate, "), ("v1.33", ""),
                                          ("v1.32", "no new claims to deallocate, ")])
def test_dynamic_resources_post_filter_for_a_pod_without_claims(version: str, part: str) -> None:
    # v1.33's PostFilter returns before reading its state, with no reason; v1.32 and v1.34 read it
    objects = [make_node("n1").taint("dedicated", "gpu").obj(), make_pod("p").req(cpu="1").obj()]
    doc = kubectl_preempt.explain(objects, "default/p", kubernetes_version=version,
                                  feature_gates="DynamicResourceAllocation=true" if version != "v1.34" else None)
    assert doc["message"] == ("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. "
                              f"{part}preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                              "scheduling.")
