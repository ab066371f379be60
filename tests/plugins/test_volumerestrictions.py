"""VolumeRestrictions: in-tree disks that cannot be shared, and ReadWriteOncePod claims in use."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import volumerestrictions as vr
from tests.builders import make_node, make_pod, make_pvc
from tests.plugins.runs import filter_all

NODES = [make_node("node-a").obj(), make_node("node-b").obj()]
RWOP = make_pvc("solo", volume="pv-solo", modes=("ReadWriteOncePod",))


def setup(objects: list[dict[str, Any]], pod: Any):
    cluster = Cluster.from_objects(NODES + objects + [pod.obj()])
    snap = Snapshot.from_cluster(cluster)
    pl = vr.new({}, SimpleNamespace(snapshot=snap, cluster=cluster))
    return pl, cluster, snap, cluster.pod("default/p")


def run(objects: list[dict[str, Any]], pod: Any) -> dict[str, Any]:
    pl, _, snap, p = setup(objects, pod)
    return filter_all(pl, p, snap)


def gce(pd: str, read_only: bool = False) -> dict[str, Any]:
    return {"name": pd, "gcePersistentDisk": {"pdName": pd, "readOnly": read_only}}


def test_a_pod_without_disks_or_claims_is_skipped() -> None:
    assert run([], make_pod("p")) == {"prefilter": (Code.Skip, "")}


def test_missing_claim_is_reported_as_not_found() -> None:
    assert run([], make_pod("p").pvc("nope")) == {
        "prefilter": (Code.UnschedulableAndUnresolvable, 'persistentvolumeclaim "nope" not found')}


def test_rwop_claim_unused_is_skipped() -> None:
    assert run([RWOP], make_pod("p").pvc("solo")) == {"prefilter": (Code.Skip, "")}


def test_rwop_claim_in_use_makes_every_node_unschedulable_not_unresolvable() -> None:
    got = run([RWOP, make_pod("holder").pvc("solo").on("node-a").obj()], make_pod("p").pvc("solo"))
    reason = (Code.Unschedulable, (vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))
    assert got == {"node-a": reason, "node-b": reason}


def test_rwo_claim_in_use_is_not_restricted() -> None:
    got = run([make_pvc("shared", volume="pv-1"), make_pod("holder").pvc("shared").on("node-a").obj()],
              make_pod("p").pvc("shared"))
    assert got == {"prefilter": (Code.Skip, "")}


def test_same_claim_name_in_another_namespace_does_not_count_in_prefilter() -> None:
    other = make_pvc("solo", namespace="other", volume="pv-x", modes=("ReadWriteOncePod",))
    got = run([RWOP, other, make_pod("holder").ns("other").pvc("solo").on("node-a").obj()], make_pod("p").pvc("solo"))
    assert got == {"prefilter": (Code.Skip, "")}


def test_an_ephemeral_claim_of_the_same_key_is_not_a_user_of_the_claim() -> None:
    # holder's ephemeral volume "x" has claim "holder-x"; the incoming pod names that claim directly
    claim = make_pvc("holder-x", volume="pv-e", modes=("ReadWriteOncePod",))
    got = run([claim, make_pod("holder").ephemeral("x").on("node-a").obj()], make_pod("p").pvc("holder-x"))
    assert got == {"prefilter": (Code.Skip, "")}


@pytest.mark.parametrize("incoming,existing,expect", [
    (gce("disk-1"), gce("disk-1"), (Code.Unschedulable, (vr.ERR_REASON_DISK_CONFLICT,))),
    (gce("disk-1", True), gce("disk-1", True), "ok"),
    (gce("disk-1"), gce("disk-2"), "ok"),
    ({"name": "v", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}},
     {"name": "v", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}},
     (Code.Unschedulable, (vr.ERR_REASON_DISK_CONFLICT,))),
    ({"name": "v", "iscsi": {"iqn": "iqn.1", "targetPortal": "t", "lun": 0}},
     {"name": "v", "iscsi": {"iqn": "iqn.1", "targetPortal": "t", "lun": 0}},
     (Code.Unschedulable, (vr.ERR_REASON_DISK_CONFLICT,))),
    ({"name": "v", "rbd": {"monitors": ["m1", "m2"], "image": "img"}},
     {"name": "v", "rbd": {"monitors": ["m2"], "pool": "rbd", "image": "img"}},
     (Code.Unschedulable, (vr.ERR_REASON_DISK_CONFLICT,))),
    ({"name": "v", "rbd": {"monitors": ["m1"], "image": "img"}},
     {"name": "v", "rbd": {"monitors": ["m2"], "image": "img"}}, "ok"),
], ids=["the same GCE disk read-write conflicts", "the same GCE disk read-only twice is fine",
        "another GCE disk is fine", "the same EBS volume conflicts even read-only",
        "the same iSCSI IQN conflicts", "an RBD image on overlapping monitors conflicts (default pool)",
        "an RBD image on other monitors is fine"])
def test_disk_conflicts(incoming: dict, existing: dict, expect: Any) -> None:
    got = run([make_pod("e").volume(existing).on("node-a").obj()], make_pod("p").volume(incoming))
    assert got == {"node-a": expect, "node-b": "ok"}


def test_preemption_dry_run_removing_the_holder_frees_the_claim() -> None:
    pl, _, snap, p = setup([RWOP, make_pod("holder").pvc("solo").on("node-a").obj()], make_pod("p").pvc("solo"))
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.list())
    assert st.is_success()
    node_a = snap.get("node-a")
    holder = node_a.pods[0].pod
    dry = state.clone()
    trial = node_a.snapshot()
    trial.remove_pod(holder)
    assert pl.pre_filter_extensions().remove_pod(dry, p, holder, trial).is_success()
    assert pl.filter(dry, p, trial).is_success()
    # the original state is untouched by the dry run
    assert pl.filter(state, p, node_a).code == Code.Unschedulable
    # a nominated pod using the claim, added back, makes it conflict again
    assert pl.pre_filter_extensions().add_pod(dry, p, holder, trial).is_success()
    assert pl.filter(dry, p, trial).reasons == [vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT]
