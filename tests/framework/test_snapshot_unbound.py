"""A snapshot built from every pod of a cluster keeps the pods it found bound to no node, and the
scheduler finds the nominated ones there (one pass over explain's 150,000 pods, not two): as long
as the cluster took in nothing since, and with the same nominations as a pass over every pod."""
from __future__ import annotations

from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _objects() -> list[dict]:
    nominated = make_pod("waiting").req(cpu="1").priority(10).obj()
    nominated["status"]["nominatedNodeName"] = "n1"
    return [make_node("n1").alloc(cpu="2").obj(), make_node("n2").alloc(cpu="2").obj(),
            make_pod("bound").on("n1").req(cpu="1").obj(), nominated,
            make_pod("pending").req(cpu="1").obj()]


def test_the_snapshot_lists_the_pods_bound_to_no_node_while_the_cluster_is_unchanged() -> None:
    cluster = Cluster.from_objects(_objects())
    snap = Snapshot.build(cluster)
    assert sorted(p.name for p in snap.unbound_pods(cluster)) == ["pending", "waiting"]
    assert snap.unbound_pods(Cluster.from_objects(_objects())) is None  # another cluster
    cluster.add_object(make_pod("late").req(cpu="1").obj())
    assert snap.unbound_pods(cluster) is None  # it took in a pod since


def test_the_scheduler_nominates_alike_from_the_snapshots_list_or_from_every_pod() -> None:
    cluster = Cluster.from_objects(_objects())
    from_snapshot = Scheduler(cluster, snapshot=Snapshot.build(cluster))
    stale = Snapshot.build(cluster)
    late = make_pod("late").req(cpu="1").obj()
    late["status"]["nominatedNodeName"] = "n2"
    cluster.add_object(late)
    from_every_pod = Scheduler(cluster, snapshot=stale)
    assert {n: [p.name for p in ps] for n, ps in from_snapshot.nominator.by_node.items()} == {"n1": ["waiting"]}
    assert {n: sorted(p.name for p in ps) for n, ps in from_every_pod.nominator.by_node.items()} == {
        "n1": ["waiting"], "n2": ["late"]}


def test_a_pod_explained_beside_the_cluster_is_nominated_where_it_says() -> None:
    from kubectl_preempt.explain.request import explain_pods

    # n1's free CPU is the nominated pod's, n2's the extra pod's: the pending pod fits nowhere
    # once the extra pod's nomination counts (the snapshot was built before it was taken in)
    extra = make_pod("extra").req(cpu="2").priority(100).obj()
    extra["status"]["nominatedNodeName"] = "n2"
    cluster = Cluster.from_objects(_objects())
    snap = Snapshot.build(cluster)
    docs = explain_pods(cluster, ["default/pending"], extra_pods=[extra], snapshot=snap)
    assert docs[0]["outcome"] != "Scheduled"
