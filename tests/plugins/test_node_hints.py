"""NodeUnschedulable's and NodeAffinity's hints on a node event, as upstream's plugins give them
(nodeunschedulable/node_unschedulable.go and nodeaffinity/node_affinity.go
isSchedulableAfterNodeChange, v1.34.1 and v1.36.2 alike): True is Queue."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import names
from kubectl_preempt.plugins.nodeunschedulable import is_schedulable_after_node_change as unschedulable_hint
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _node(b: Any) -> Node | None:
    return Node(b.obj()) if b is not None else None


@pytest.mark.parametrize("old, new, queue", [
    (None, make_node("n"), True),
    (None, make_node("n").unschedulable(), False),
    (make_node("n").unschedulable(), make_node("n"), True),
    (make_node("n").unschedulable(), make_node("n").unschedulable().label("a", "b"), False),
    (make_node("n"), make_node("n").label("a", "b"), False),
], ids=["added schedulable", "added cordoned", "uncordoned", "still cordoned", "never cordoned"])
def test_node_unschedulable_requeues_on_a_schedulable_node_added_or_uncordoned(old: Any, new: Any, queue: bool) -> None:
    # the pod's tolerations are not asked: even one that tolerates the unschedulable taint is not
    # requeued by a cordoned node
    pod = Pod(make_pod("p").toleration("node.kubernetes.io/unschedulable", effect="NoSchedule",
                                       operator="Exists").obj())
    assert unschedulable_hint(pod, _node(old), _node(new)) is queue


def _affinity_plugin(added: bool) -> Any:
    profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if added:
        profile["pluginConfig"] = [{"name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}}}}]
    sched = Scheduler(Cluster(), parse_config({"profiles": [profile]}))
    return sched.framework_for_profile("default-scheduler").plugins[names.NODE_AFFINITY]


@pytest.mark.parametrize("added, pool, queue", [(True, "a", True), (True, "b", False), (False, "b", True)],
                         ids=["matches addedAffinity", "misses addedAffinity", "no addedAffinity"])
def test_node_affinity_skips_a_node_the_profiles_added_affinity_excludes(added: bool, pool: str, queue: bool) -> None:
    pod = Pod(make_pod("p").node_selector(disk="ssd").obj())
    node = Node(make_node("n").label("pool", pool).label("disk", "ssd").obj())
    assert _affinity_plugin(added).is_schedulable_after_node_change(pod, None, node) is queue


def test_node_affinity_requeues_an_update_only_when_the_node_starts_to_match() -> None:
    pl = _affinity_plugin(False)
    pod = Pod(make_pod("p").node_selector(disk="ssd").obj())
    before, after = Node(make_node("n").obj()), Node(make_node("n").label("disk", "ssd").obj())
    assert pl.is_schedulable_after_node_change(pod, before, after) is True
    assert pl.is_schedulable_after_node_change(pod, after, Node(make_node("n").label("disk", "ssd").label("x", "y").obj())) is False


def _ports_plugin(version: Any) -> Any:
    sched = Scheduler(Cluster(), parse_config(None, version=version))
    return sched.framework_for_profile("default-scheduler").plugins[names.NODE_PORTS]


@pytest.mark.parametrize("deleted, queue", [
    (make_pod("d").on("n1").host_port(8080), True),
    (make_pod("d").nominated("n1").host_port(8080), True),
    (make_pod("d").host_port(8080), False),
    (make_pod("d").on("n1").host_port(9090), False),
    (make_pod("d").on("n1").host_port(8080, host_ip="10.0.0.1"), True),
    (make_pod("d").on("n1"), False),
], ids=["bound, same port", "nominated, same port", "neither bound nor nominated", "another port",
        "the port on one address", "no host port"])
def test_node_ports_requeues_on_a_deleted_pod_holding_one_of_its_ports(deleted: Any, queue: bool) -> None:
    # nodeports.go isSchedulableAfterPodDeleted: the pod wants 8080 on every address
    from kubectl_preempt.framework.versions import V1_34_1
    pod = Pod(make_pod("p").host_port(8080).obj())
    assert _ports_plugin(V1_34_1).is_schedulable_after_pod_deleted(pod, Pod(deleted.obj()), None) is queue


@pytest.mark.parametrize("version, queue", [("v1.33", False), ("v1.34", True), ("v1.36", True)])
def test_node_ports_reads_a_deleted_sidecars_ports_from_v1_34(version: str, queue: bool) -> None:
    # node_ports.go isSchedulableAfterPodDeleted and Fits: v1.33 reads the containers' ports alone
    # (getContainerPorts); v1.34.1 on, schedutil.GetHostPorts: the sidecars' too
    from kubectl_preempt.framework.versions import by_name
    sidecar = make_pod("d").on("n1").set("spec.initContainers", [
        {"name": "proxy", "image": "p", "restartPolicy": "Always", "ports": [{"containerPort": 80, "hostPort": 8080}]}])
    pod = Pod(make_pod("p").host_port(8080).obj())
    assert _ports_plugin(by_name(version)).is_schedulable_after_pod_deleted(pod, Pod(sidecar.obj()), None) is queue
