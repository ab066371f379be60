"""The Cluster is a plain model object: the snapshot belongs to the scheduler (or to the caller that
built it), and the indexes the volume plugins keep across cycles belong to the framework's listers."""
from __future__ import annotations

from kubectl_preempt.api import explain
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins.volumeutil.index import StorageIndex
from kubectl_preempt.replay.state import ReplayState, build_cluster
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod, make_pvc


def _objects() -> list[dict]:
    return [make_node("n1").alloc(cpu="2", pods="10").obj(),
            make_pod("low").req(cpu="2").priority(1).on("n1").obj(),
            make_pod("high").req(cpu="2").priority(100).pvc("data").obj(),
            make_pvc("data")]


def test_explaining_and_replaying_stash_nothing_on_the_cluster() -> None:
    fresh = set(vars(Cluster()))
    cluster = Cluster.from_objects(_objects())
    doc = explain(cluster, "default/high")
    assert doc["outcome"] and set(vars(cluster)) == fresh
    st = ReplayState(build_cluster(_objects()), default_config())
    st.scheduler.schedule(st.cluster.pods["default/high"])
    assert set(vars(st.cluster)) == fresh


def test_a_snapshot_handed_to_explain_is_the_one_used_and_gives_the_same_answer() -> None:
    cluster = Cluster.from_objects(_objects())
    snap = Snapshot.build(cluster)
    assert explain(cluster, "default/high", snapshot=snap) == explain(cluster, "default/high")
    assert Scheduler(cluster, snapshot=snap).snapshot is snap
    assert Scheduler(cluster).snapshot is not snap


def test_the_framework_listers_keep_an_index_while_its_list_is_the_same_list() -> None:
    st = ReplayState(build_cluster(_objects()), default_config())
    fwk = st.scheduler.framework_for_profile("default-scheduler")
    assert fwk is not None
    first = StorageIndex(st.cluster, fwk.listers)
    assert first.pvc("default", "data")["spec"].get("volumeName") is None
    kept = fwk.listers.kept(("PersistentVolumeClaim",), "PersistentVolumeClaim", dict)
    assert kept and kept is fwk.listers.kept(("PersistentVolumeClaim",), "PersistentVolumeClaim", dict)
    st.set_extra(make_pvc("data", volume="pv-1"))  # the replay swaps in a new list of claims
    assert StorageIndex(st.cluster, fwk.listers).pvc("default", "data")["spec"]["volumeName"] == "pv-1"
