"""NodeVolumeLimits: CSI attach limits from CSINode allocatable counts and VolumeAttachments."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import nodevolumelimits as nvl
from tests.builders import (make_csi_node, make_node, make_pod, make_pv, make_pvc, make_storage_class,
                            make_volume_attachment)

DRIVER = "disk.csi.example.com"
EXCEEDED = (Code.Unschedulable, (nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))


def csi_claim(name: str, handle: str | None = None) -> list[dict[str, Any]]:
    """A bound claim and its CSI volume."""
    return [make_pvc(name, volume=f"pv-{name}"),
            make_pv(f"pv-{name}", claim=("default", name), csi=(DRIVER, handle or f"vol-{name}"))]


def run(objects: list[dict[str, Any]], pod: Any, limit: int | None = 1) -> Any:
    cluster = Cluster.from_objects([make_node("n1").obj(), make_csi_node("n1", {DRIVER: limit})] + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = nvl.new({}, SimpleNamespace(snapshot=snap, cluster=cluster))
    p = cluster.pod("default/p")
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.list())
    if not st.is_success():
        return ("prefilter", st.code)
    s = pl.filter(state, p, snap.get("n1"))
    return "ok" if s.is_success() else (s.code, tuple(s.reasons))


def test_a_pod_without_claims_or_migratable_volumes_is_skipped() -> None:
    assert run([], make_pod("p").volume({"name": "cfg", "configMap": {"name": "c"}})) == ("prefilter", Code.Skip)


@pytest.mark.parametrize("objects,pod,limit,expect", [
    (csi_claim("a"), make_pod("p").pvc("a"), 1, "ok"),
    (csi_claim("a") + csi_claim("b") + [make_pod("e").pvc("b").on("n1").obj()], make_pod("p").pvc("a"), 1, EXCEEDED),
    (csi_claim("a") + [make_pod("e").pvc("a").on("n1").obj()], make_pod("p").pvc("a"), 1, "ok"),
    (csi_claim("a") + csi_claim("b") + [make_pod("e").pvc("b").on("n1").obj()], make_pod("p").pvc("a"), 2, "ok"),
    (csi_claim("a") + csi_claim("b") + [make_volume_attachment("va", "n1", "pv-b", DRIVER)],
     make_pod("p").pvc("a"), 1, EXCEEDED),
    (csi_claim("a") + csi_claim("b") + [make_volume_attachment("va", "n2", "pv-b", DRIVER)],
     make_pod("p").pvc("a"), 1, "ok"),
    (csi_claim("a") + csi_claim("b") + [make_pod("e").pvc("b").on("n1").obj(),
                                        make_volume_attachment("va", "n1", "pv-b", DRIVER)],
     make_pod("p").pvc("a"), 2, "ok"),
    (csi_claim("a") + csi_claim("b") + [make_pod("e").pvc("b").on("n1").obj()], make_pod("p").pvc("a"), None, "ok"),
    ([make_pvc("a", storage_class="csi"), make_storage_class("csi", DRIVER)] + csi_claim("b")
     + [make_pod("e").pvc("b").on("n1").obj()], make_pod("p").pvc("a"), 1, EXCEEDED),
    ([make_pvc("a", storage_class="csi"), make_storage_class("csi", "other.csi.example.com")] + csi_claim("b")
     + [make_pod("e").pvc("b").on("n1").obj()], make_pod("p").pvc("a"), 1, "ok"),
    (csi_claim("a") + [make_pod("e").pvc("gone").on("n1").obj()], make_pod("p").pvc("a"), 1, "ok"),
], ids=["one new volume within the limit",
        "a pod's volume uses the only slot",
        "a volume already attached through another pod is not new",
        "a higher limit leaves room",
        "a VolumeAttachment uses the slot even with no pod on the node",
        "another node's VolumeAttachment does not count",
        "a volume attached through a pod and a VolumeAttachment counts once",
        "a driver without an allocatable count is not limited",
        "an unbound claim counts against its class's provisioner",
        "an unbound claim of another driver does not",
        "an existing pod's missing claim is ignored"])
def test_filter(objects: list, pod: Any, limit: int | None, expect: Any) -> None:
    assert run(objects, pod, limit) == expect


def test_missing_claim_of_the_incoming_pod_is_unresolvable() -> None:
    assert run([], make_pod("p").pvc("gone")) == (
        Code.UnschedulableAndUnresolvable, ('looking up PVC default/gone: persistentvolumeclaim "gone" not found',))


def test_inline_ebs_volumes_count_under_the_ebs_csi_driver_when_the_node_has_a_csinode() -> None:
    cluster = Cluster.from_objects([
        make_node("n1").obj(), make_csi_node("n1", {"ebs.csi.aws.com": 1}),
        make_pod("e").volume({"name": "v", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-1"}}).on("n1").obj(),
        make_pod("p").volume({"name": "v", "awsElasticBlockStore": {"volumeID": "vol-2"}}).obj(),
        make_pod("q").volume({"name": "v", "awsElasticBlockStore": {"volumeID": "vol-1"}}).obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = nvl.new({}, SimpleNamespace(snapshot=snap, cluster=cluster))
    st = pl.filter(CycleState(), cluster.pod("default/p"), snap.get("n1"))
    assert (st.code, st.reasons) == (Code.Unschedulable, [nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED])
    # aws://zone/vol-1 and vol-1 are the same EBS volume
    assert pl.filter(CycleState(), cluster.pod("default/q"), snap.get("n1")).is_success()


@pytest.mark.parametrize("version, migrated, exceeds", [
    ("v1.35", "", False), ("v1.35", "kubernetes.io/portworx-volume", True), ("v1.36", "", True)],
    ids=["v1.35: no migrated-plugins annotation, not counted", "v1.35: the annotation names it",
         "v1.36: migrated without the annotation"])
def test_inline_portworx_volumes_count_once_migration_is_on(version: str, migrated: str, exceeds: bool) -> None:
    # nodevolumelimits/utils.go isCSIMigrationOn: Portworx needs the CSINode's
    # storage.alpha.kubernetes.io/migrated-plugins annotation through v1.35; v1.36 returns true
    from kubectl_preempt.framework.versions import by_name
    cluster = Cluster.from_objects([
        make_node("n1").obj(), make_csi_node("n1", {"pxd.portworx.com": 1}, migrated=migrated),
        make_pod("a").volume({"name": "v", "portworxVolume": {"volumeID": "vol-1"}}).on("n1").obj(),
        make_pod("p").volume({"name": "v", "portworxVolume": {"volumeID": "vol-2"}}).obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = nvl.new({}, SimpleNamespace(snapshot=snap, cluster=cluster), by_name(version))
    st = pl.filter(CycleState(), cluster.pod("default/p"), snap.get("n1"))
    assert (not st.is_success()) is exceeds, st
