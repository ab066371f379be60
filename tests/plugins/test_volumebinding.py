"""VolumeBinding: claims must exist and be bound, or bindable or provisionable on the node."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code, Status
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import volumebinding as vb
from tests.builders import (make_csi_driver, make_csi_node, make_node, make_pod, make_pv, make_pvc,
                            make_storage_capacity, make_storage_class)

NODES = [make_node("node-a").zone("zone-a").obj(), make_node("node-b").zone("zone-b").obj()]


def run(objects: list[dict[str, Any]], pod: Any, nodes: list[dict[str, Any]] | None = None
        ) -> tuple[Status, dict[str, Status]]:
    """PreFilter, then Filter on every node when PreFilter lets the pod through."""
    cluster = Cluster.from_objects((nodes or NODES) + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = vb.new({"bindTimeoutSeconds": 600}, SimpleNamespace(snapshot=snap, cluster=cluster))
    p = cluster.pod("default/p")
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.list())
    if not st.is_success():
        return st, {}
    return st, {ni.name: pl.filter(state, p, ni) for ni in snap.list()}


def verdicts(filtered: dict[str, Status]) -> dict[str, Any]:
    return {n: "ok" if s.is_success() else (s.code, tuple(s.reasons)) for n, s in filtered.items()}


UU = Code.UnschedulableAndUnresolvable


@pytest.mark.parametrize("objects,pod,code,message", [
    ([], make_pod("p"), Code.Skip, ""),
    ([], make_pod("p").pvc("missing"), UU, 'persistentvolumeclaim "missing" not found'),
    ([], make_pod("p").ephemeral("scratch"), UU,
     'waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"'),
    ([make_pvc("p-scratch", owner_uid="someone-else", storage_class="local")], make_pod("p").ephemeral("scratch"), UU,
     "PVC default/p-scratch was not created for pod default/p (pod is not owner)"),
    ([make_pvc("data", volume="pv-1", phase="Lost")], make_pod("p").pvc("data"), UU,
     'persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-1"'),
    ([make_pvc("data", volume="pv-1", deleting=True)], make_pod("p").pvc("data"), UU,
     'persistentvolumeclaim "data" is being deleted'),
    ([make_pvc("data", storage_class="fast"), make_storage_class("fast", "csi.example.com", "Immediate")],
     make_pod("p").pvc("data"), UU, vb.ERR_UNBOUND_IMMEDIATE),
    ([make_pvc("data")], make_pod("p").pvc("data"), UU, vb.ERR_UNBOUND_IMMEDIATE),
    ([make_pvc("data", storage_class="gone")], make_pod("p").pvc("data"), UU, vb.ERR_UNBOUND_IMMEDIATE),
    ([make_pvc("data", storage_class="wffc", volume="pv-1", bound=False), make_storage_class("wffc")],
     make_pod("p").pvc("data"), UU, vb.ERR_UNBOUND_IMMEDIATE),
    ([make_pvc("data", storage_class="nomode"), make_storage_class("nomode", mode=None)],
     make_pod("p").pvc("data"), Code.Error, 'VolumeBindingMode not set for StorageClass "nomode"'),
    ([make_pvc("data", storage_class="wffc"), make_storage_class("wffc")], make_pod("p").pvc("data"), Code.Success, ""),
], ids=["a pod without claims is skipped",
        "a missing claim is reported as the lister's not-found error",
        "a missing ephemeral claim waits for the ephemeral volume controller",
        "an ephemeral claim owned by another pod is refused",
        "a lost claim names its missing volume",
        "a claim being deleted is refused",
        "an unbound claim of an Immediate class must be bound first",
        "an unbound claim without a class is Immediate",
        "an unbound claim whose class is missing is Immediate",
        "a claim pre-bound to a volume but not yet bound counts as Immediate",
        "a class without volumeBindingMode is an error",
        "an unbound WaitForFirstConsumer claim passes PreFilter"])
def test_pre_filter(objects: list, pod: Any, code: Code, message: str) -> None:
    st, _ = run(objects, pod)
    assert st.code == code
    assert st.message() == message


def test_bound_volume_must_match_node_affinity() -> None:
    _, filtered = run([make_pvc("data", volume="pv-1"), make_pv("pv-1", zone="zone-a", claim=("default", "data"))],
                      make_pod("p").pvc("data"))
    assert verdicts(filtered) == {"node-a": "ok", "node-b": (UU, (vb.ERR_REASON_NODE_CONFLICT,))}


def test_bound_claim_whose_volume_is_missing() -> None:
    _, filtered = run([make_pvc("data", volume="pv-gone")], make_pod("p").pvc("data"))
    assert verdicts(filtered) == {n: (UU, (vb.ERR_REASON_PV_NOT_EXIST,)) for n in ("node-a", "node-b")}


def test_match_fields_only_term_matches_every_node_as_check_node_affinity_has_no_node_name() -> None:
    aff = {"required": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}
    _, filtered = run([make_pvc("data", volume="pv-1"), make_pv("pv-1", affinity=aff, claim=("default", "data"))],
                      make_pod("p").pvc("data"))
    assert verdicts(filtered) == {"node-a": "ok", "node-b": "ok"}


def test_in_tree_volume_is_translated_when_the_node_migrated_its_plugin() -> None:
    # a GCE PD with the GA zone label: after translation the affinity is on topology.gke.io/zone
    pv = make_pv("pv-1", zone="zone-a", claim=("default", "data"))
    del pv["spec"]["local"]
    pv["spec"]["gcePersistentDisk"] = {"pdName": "disk-1"}
    objects = [make_pvc("data", volume="pv-1"), pv,
               make_csi_node("node-a", {"pd.csi.storage.gke.io": None}, migrated="kubernetes.io/gce-pd")]
    _, filtered = run(objects, make_pod("p").pvc("data"))
    # node-a migrated: translated key absent from its labels; node-b not migrated: zone mismatch
    assert verdicts(filtered) == {"node-a": (UU, (vb.ERR_REASON_NODE_CONFLICT,)),
                                  "node-b": (UU, (vb.ERR_REASON_NODE_CONFLICT,))}
    gke_nodes = [make_node("node-a").zone("zone-a").label("topology.gke.io/zone", "zone-a").obj(), NODES[1]]
    _, filtered = run(objects, make_pod("p").pvc("data"), gke_nodes)
    assert verdicts(filtered)["node-a"] == "ok"


LOCAL = make_storage_class("local")


@pytest.mark.parametrize("pvs,claim,expect", [
    ([make_pv("pv-a", storage_class="local", hostname="node-a")], make_pvc("data", storage_class="local"),
     {"node-a": "ok", "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-a", storage_class="local", hostname="node-a", size="5Gi")], make_pvc("data", storage_class="local"),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-a", storage_class="local", hostname="node-a", phase="Released")], make_pvc("data", storage_class="local"),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-a", storage_class="local", hostname="node-a", modes=("ReadOnlyMany",))],
     make_pvc("data", storage_class="local"),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-a", storage_class="local", hostname="node-a", labels={"tier": "gold"})],
     make_pvc("data", storage_class="local", selector={"matchLabels": {"tier": "silver"}}),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-a", storage_class="local", hostname="node-a", claim=("default", "other"))],
     make_pvc("data", storage_class="local"),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_pv("pv-b", storage_class="local", hostname="node-b", claim=("default", "data")),
      make_pv("pv-a", storage_class="local", hostname="node-a")],
     make_pvc("data", storage_class="local"),
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": "ok"}),
], ids=["an available volume with matching affinity binds on its node only",
        "a volume smaller than the request does not match",
        "a volume that is not Available does not match",
        "a volume without the claim's access modes does not match",
        "a volume outside the claim's selector does not match",
        "a volume reserved for another claim does not match",
        "a volume pre-bound to the claim is the only match"])
def test_wait_for_first_consumer_claims_find_volumes(pvs: list, claim: dict, expect: dict) -> None:
    _, filtered = run([LOCAL, claim] + pvs, make_pod("p").pvc("data"))
    assert verdicts(filtered) == expect


def test_two_claims_cannot_share_one_volume() -> None:
    objects = [LOCAL, make_pvc("a", storage_class="local"), make_pvc("b", storage_class="local"),
               make_pv("pv-1", storage_class="local", hostname="node-a")]
    _, filtered = run(objects, make_pod("p").pvc("a").pvc("b"))
    assert verdicts(filtered)["node-a"] == (UU, (vb.ERR_REASON_BIND_CONFLICT,))


def test_claim_provisioning_started_for_another_node_fails_fast() -> None:
    objects = [make_storage_class("csi", "csi.example.com"),
               make_pvc("data", storage_class="csi", annotations={"volume.kubernetes.io/selected-node": "node-b"})]
    _, filtered = run(objects, make_pod("p").pvc("data"))
    assert verdicts(filtered) == {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": "ok"}


@pytest.mark.parametrize("objects,expect", [
    ([make_storage_class("csi", "csi.example.com")], {"node-a": "ok", "node-b": "ok"}),
    ([make_storage_class("csi", "csi.example.com", allowed_topologies=[
        {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-b"]}]}])],
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": "ok"}),
    ([make_storage_class("csi", "kubernetes.io/no-provisioner")],
     {"node-a": (UU, (vb.ERR_REASON_BIND_CONFLICT,)), "node-b": (UU, (vb.ERR_REASON_BIND_CONFLICT,))}),
    ([make_storage_class("csi", "csi.example.com"), make_csi_driver("csi.example.com", storage_capacity=True),
      make_storage_capacity("cap-a", "csi", "100Gi", node_labels={"topology.kubernetes.io/zone": "zone-a"}),
      make_storage_capacity("cap-b", "csi", "5Gi", node_labels={"topology.kubernetes.io/zone": "zone-b"})],
     {"node-a": "ok", "node-b": (UU, (vb.ERR_REASON_NOT_ENOUGH_SPACE,))}),
    ([make_storage_class("csi", "csi.example.com"), make_csi_driver("csi.example.com", storage_capacity=True),
      make_storage_capacity("cap-a", "csi", "100Gi", maximum="5Gi",
                            node_labels={"topology.kubernetes.io/zone": "zone-a"})],
     {"node-a": (UU, (vb.ERR_REASON_NOT_ENOUGH_SPACE,)), "node-b": (UU, (vb.ERR_REASON_NOT_ENOUGH_SPACE,))}),
    ([make_storage_class("csi", "csi.example.com"), make_csi_driver("csi.example.com", storage_capacity=False),
      make_storage_capacity("cap-b", "csi", "5Gi", node_labels={"topology.kubernetes.io/zone": "zone-b"})],
     {"node-a": "ok", "node-b": "ok"}),
], ids=["a provisioner without capacity tracking can provision anywhere",
        "the class's allowed topologies limit where it provisions",
        "a class that cannot provision leaves the claim unbindable",
        "published capacity must hold the request on the node",
        "maximumVolumeSize wins over capacity",
        "a driver that does not publish capacity is not checked"])
def test_dynamic_provisioning(objects: list, expect: dict) -> None:
    _, filtered = run(objects + [make_pvc("data", storage_class="csi")], make_pod("p").pvc("data"))
    assert verdicts(filtered) == expect


def test_reasons_accumulate_in_upstream_order() -> None:
    objects = [LOCAL, make_pvc("bound", volume="pv-1"), make_pv("pv-1", zone="zone-a", claim=("default", "bound")),
               make_pvc("free", storage_class="local")]
    _, filtered = run(objects, make_pod("p").pvc("bound").pvc("free"))
    assert verdicts(filtered)["node-b"] == (UU, (vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT))


def test_pre_score_always_skips_as_capacity_scoring_is_off() -> None:
    assert vb.new({}, None).pre_score(CycleState(), None, []).code == Code.Skip
