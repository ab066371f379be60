"""Identical pods reuse a node's filter and score answers only while the node is unchanged."""
from __future__ import annotations

from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _sched(*objs):
    c = Cluster.from_objects([o.obj() for o in objs])
    return c, Scheduler(c)


def _pod(name, cpu="2"):
    return Pod(make_pod(name).priority(0).req(cpu=cpu).obj())


def test_a_node_filled_between_two_identical_pods_is_filtered_again() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="4", memory="8Gi"), make_node("n2").alloc(cpu="2", memory="8Gi"))
    first = s.schedule(_pod("a"))
    assert sorted(first.feasible_nodes) == ["n1", "n2"]
    filler = Pod(make_pod("filler").req(cpu="3").on("n1").obj())
    s.snapshot.add_pod(filler)
    second = s.schedule(_pod("b"))
    assert second.feasible_nodes == ["n2"]
    assert second.diagnosis.node_to_status.get("n1").reasons == ["Insufficient cpu"]


def test_scores_follow_the_node_state_not_the_cache() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="8", memory="8Gi"), make_node("n2").alloc(cpu="8", memory="8Gi"))
    r1 = s.schedule(_pod("a", cpu="1"))
    before = {n.name: n.total_score for n in r1.node_scores}
    assert before["n1"] == before["n2"]
    s.snapshot.add_pod(Pod(make_pod("busy").req(cpu="4").on("n1").obj()))
    r2 = s.schedule(_pod("b", cpu="1"))
    after = {n.name: n.total_score for n in r2.node_scores}
    assert after["n1"] < after["n2"]
    assert r2.suggested_host == "n2"


def test_a_node_with_a_nominated_pod_is_always_filtered_with_it() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="4", memory="8Gi"), make_node("n2").alloc(cpu="1", memory="8Gi"))
    assert s.schedule(_pod("a")).feasible_nodes == ["n1"]
    s.nominator.add(Pod(make_pod("big").priority(100).req(cpu="3").nominated("n1").obj()), "n1")
    r = s.schedule(_pod("b"))
    assert r.feasible_nodes == []
    assert r.diagnosis.node_to_status.get("n1").reasons == ["Insufficient cpu"]
