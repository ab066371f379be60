"""VolumeZone: bound volumes' zone and region labels must match the node's."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import volumezone as vz
from tests.builders import make_node, make_pod, make_pv, make_pvc, make_storage_class
from tests.plugins.runs import filter_all

UU = Code.UnschedulableAndUnresolvable
NODES = [make_node("ga-a").zone("zone-a").obj(),
         make_node("beta-b").label("failure-domain.beta.kubernetes.io/zone", "zone-b").obj(),
         make_node("bare").obj()]


def run(objects: list[dict[str, Any]], pod: Any) -> dict[str, Any]:
    cluster = Cluster.from_objects(NODES + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = vz.new({}, SimpleNamespace(snapshot=snap, cluster=cluster))
    p = cluster.pod("default/p")
    return filter_all(pl, p, snap)


def pv_labelled(key: str, value: str) -> dict[str, Any]:
    return make_pv("pv-1", claim=("default", "data"), labels={key: value})


CONFLICT = (UU, (vz.ERR_REASON_CONFLICT,))


@pytest.mark.parametrize("objects,expect", [
    ([make_pvc("data", volume="pv-1"), pv_labelled("topology.kubernetes.io/zone", "zone-a")],
     {"ga-a": "ok", "beta-b": CONFLICT, "bare": "ok"}),
    ([make_pvc("data", volume="pv-1"), pv_labelled("failure-domain.beta.kubernetes.io/zone", "zone-a")],
     {"ga-a": "ok", "beta-b": CONFLICT, "bare": "ok"}),
    ([make_pvc("data", volume="pv-1"), pv_labelled("topology.kubernetes.io/zone", "zone-a__zone-b")],
     {"ga-a": "ok", "beta-b": CONFLICT, "bare": "ok"}),
    ([make_pvc("data", volume="pv-1"), pv_labelled("failure-domain.beta.kubernetes.io/zone", "zone-a__zone-b")],
     {"ga-a": "ok", "beta-b": "ok", "bare": "ok"}),
    ([make_pvc("data", volume="pv-1"), pv_labelled("topology.kubernetes.io/zone", "zone-a____zone-b")],
     {"prefilter": (Code.Skip, "")}),
], ids=["a GA zone label matches only that zone; a node without zone labels accepts it",
        "a beta PV label matches the node's GA label",
        "a multi-zone GA label lists zones separated by __ (the beta node label is not translated)",
        "a multi-zone beta label matches either node",
        "a label with an empty zone is ignored"])
def test_zone_labels(objects: list, expect: dict) -> None:
    assert run(objects, make_pod("p").pvc("data")) == expect


@pytest.mark.parametrize("objects,message", [
    ([], 'persistentvolumeclaim "data" not found'),
    ([make_pvc("data", volume="pv-gone")], 'persistentvolume "pv-gone" not found'),
    ([make_pvc("data")], vz.ERR_PVC_NO_PV_NO_CLASS),
    ([make_pvc("data", storage_class="gone")], 'storageclass.storage.k8s.io "gone" not found'),
    ([make_pvc("data", storage_class="imm"), make_storage_class("imm", "csi.example.com", "Immediate")],
     vz.ERR_PV_NO_NAME),
    ([make_pvc("data", storage_class="nomode"), make_storage_class("nomode", mode=None)],
     'VolumeBindingMode not set for StorageClass "nomode"'),
], ids=["a missing claim", "a missing volume", "an unbound claim without a class",
        "an unbound claim whose class is missing", "an unbound Immediate claim",
        "a class without volumeBindingMode"])
def test_pre_filter_rejections_are_unresolvable(objects: list, message: str) -> None:
    assert run(objects, make_pod("p").pvc("data")) == {"prefilter": (UU, message)}


def test_wait_for_first_consumer_claim_is_left_to_volume_binding() -> None:
    objects = [make_pvc("data", storage_class="wffc"), make_storage_class("wffc", "csi.example.com")]
    assert run(objects, make_pod("p").pvc("data")) == {"prefilter": (Code.Skip, "")}
