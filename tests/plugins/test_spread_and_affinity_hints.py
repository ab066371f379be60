"""The queueing hints of PodTopologySpread and InterPodAffinity, as upstream's plugins give them
(podtopologyspread/plugin.go isSchedulableAfterPodChange, isSchedulableAfterNodeChange,
involvedInTopologySpreading; interpodaffinity/plugin.go isSchedulableAfterPodChange,
isSchedulableAfterNodeChange, filtering.go podMatchesAllAffinityTerms), v1.34 and v1.36: which
change sends a pod the plugin rejected back to the queue (True: Queue) and which does not."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import names
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def plugin(name: str, version: Any = V1_34_1) -> Any:
    sched = Scheduler(Cluster(), parse_config(None, version=version))
    return sched.framework_for_profile("default-scheduler").plugins[name]


def pod(b: Any) -> Pod:
    return Pod(b.obj())


def spread_pod(honor_taints: bool = False) -> Pod:
    c: dict[str, Any] = {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                         "labelSelector": {"matchLabels": {"app": "web"}}}
    if honor_taints:
        c["nodeTaintsPolicy"] = "Honor"
    return pod(make_pod("p").uid("p").labels(app="web").spread([c]))


# --- PodTopologySpread ------------------------------------------------------------------------------

@pytest.mark.parametrize("other, queue", [
    (make_pod("a").labels(app="web").on("n1"), True),
    (make_pod("a").labels(app="db").on("n1"), False),
    (make_pod("a").ns("other").labels(app="web").on("n1"), False),
    (make_pod("a").labels(app="web"), False),
], ids=["a matching pod of the namespace", "one the selector does not match", "another namespace",
        "an unscheduled pod"])
def test_spread_an_added_or_deleted_pod_requeues_when_it_counts_in_a_constraint(other: Any, queue: bool) -> None:
    pl = plugin(names.POD_TOPOLOGY_SPREAD)
    p = spread_pod()
    assert pl.is_schedulable_after_pod_change(p, None, pod(other)) is queue
    assert pl.is_schedulable_after_pod_change(p, pod(other), None) is queue


@pytest.mark.parametrize("before, after, queue", [
    ({"app": "db"}, {"app": "web"}, True),
    ({"app": "web", "x": "1"}, {"app": "web", "x": "2"}, False),
    ({"app": "web"}, {"app": "web"}, False),
], ids=["relabelled into the selector", "a label the selector does not read", "labels unchanged"])
def test_spread_a_relabelled_pod_requeues_only_when_its_match_changes(before: dict, after: dict, queue: bool) -> None:
    pl = plugin(names.POD_TOPOLOGY_SPREAD)
    old = pod(make_pod("a").labels(**before).on("n1"))
    new = pod(make_pod("a").labels(**after).on("n1"))
    assert pl.is_schedulable_after_pod_change(spread_pod(), old, new) is queue


@pytest.mark.parametrize("honor", [True, False])
def test_spread_the_pods_own_new_toleration_requeues_it_under_node_taints_policy_honor(honor: bool) -> None:
    pl = plugin(names.POD_TOPOLOGY_SPREAD)
    old = spread_pod(honor)
    new = Pod(dict(old.raw, spec=dict(old.spec, tolerations=[{"key": "dedicated", "operator": "Exists"}])))
    assert pl.is_schedulable_after_pod_change(old, old, new) is honor


@pytest.mark.parametrize("version, queue", [(V1_34_1, False), (V1_36_2, True)], ids=["v1.34", "v1.36"])
def test_spread_a_nominated_pod_counts_from_v1_36(version: Any, queue: bool) -> None:
    # involvedInTopologySpreading: v1.36 also counts a pod nominated to a node
    pl = plugin(names.POD_TOPOLOGY_SPREAD, version)
    nominated = pod(make_pod("a").labels(app="web").nominated("n1"))
    assert pl.is_schedulable_after_pod_change(spread_pod(), None, nominated) is queue


@pytest.mark.parametrize("old, new, queue", [
    (None, make_node("n9").zone("z1"), True),
    (None, make_node("n9"), False),
    (make_node("n9").zone("z1"), None, True),
    (make_node("n9").zone("z1"), make_node("n9").zone("z2"), True),
    (make_node("n9").zone("z1"), make_node("n9").zone("z1").label("team", "a"), False),
    (make_node("n9").zone("z1"), make_node("n9").zone("z1").taint("dedicated", "x"), True),
    (make_node("n9"), make_node("n9").taint("dedicated", "x"), False),
    (make_node("n9"), make_node("n9").zone("z1"), True),
], ids=["added with the key", "added without it", "deleted with it", "moved to another zone",
        "an unrelated label", "a new taint on a node with the key", "a new taint on one without",
        "given the key"])
def test_spread_a_node_change_requeues_when_it_touches_the_constraints_topology(old: Any, new: Any,
                                                                                queue: bool) -> None:
    pl = plugin(names.POD_TOPOLOGY_SPREAD)
    o = Node(old.obj()) if old is not None else None
    n = Node(new.obj()) if new is not None else None
    assert pl.is_schedulable_after_node_change(spread_pod(), o, n) is queue


# --- InterPodAffinity -------------------------------------------------------------------------------

def affinity_pod(kind: str, app: str = "cache", key: str = HOST) -> Pod:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}
    return pod(make_pod("p").uid("p").labels(app="web").affinity(
        {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}))


@pytest.mark.parametrize("app, queue", [("cache", True), ("web", False)])
def test_affinity_an_added_pod_requeues_when_it_matches_every_affinity_term(app: str, queue: bool) -> None:
    pl = plugin(names.INTER_POD_AFFINITY)
    added = pod(make_pod("a").labels(app=app).on("n1"))
    assert pl.is_schedulable_after_pod_change(affinity_pod("podAffinity"), None, added) is queue


@pytest.mark.parametrize("version, vice_versa", [(V1_34_1, False), (V1_36_2, True)], ids=["v1.34", "v1.36"])
def test_affinity_a_deleted_pod_requeues_when_it_matched_the_pods_anti_affinity_or_from_v1_36_vice_versa(
        version: Any, vice_versa: bool) -> None:
    pl = plugin(names.INTER_POD_AFFINITY, version)
    hated = pod(make_pod("a").labels(app="cache").on("n1"))
    assert pl.is_schedulable_after_pod_change(affinity_pod("podAntiAffinity"), hated, None) is True
    # a deleted pod whose own anti-affinity kept the pod away: before v1.36 only the pod's own
    # anti-affinity terms are asked (none here: podMatchesAllAffinityTerms answers false); v1.36
    # also asks whether the pod matches every required anti-affinity term of the deleted one
    hater = pod(make_pod("a").labels(app="cache").on("n1").affinity({"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}))
    assert pl.is_schedulable_after_pod_change(affinity_pod("podAffinity"), hater, None) is vice_versa
    other = pod(make_pod("a").labels(app="cache").on("n1").affinity({"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOST}]}}))
    assert pl.is_schedulable_after_pod_change(affinity_pod("podAffinity"), other, None) is False


@pytest.mark.parametrize("kind, before, after, queue", [
    ("podAffinity", "web", "cache", True),
    ("podAffinity", "cache", "web", False),
    ("podAntiAffinity", "cache", "web", True),
    ("podAntiAffinity", "web", "cache", False),
], ids=["into the affinity", "out of the affinity", "out of the anti-affinity", "into the anti-affinity"])
def test_affinity_a_relabelled_pod_requeues_when_it_helps(kind: str, before: str, after: str, queue: bool) -> None:
    pl = plugin(names.INTER_POD_AFFINITY)
    old = pod(make_pod("a").labels(app=before).on("n1"))
    new = pod(make_pod("a").labels(app=after).on("n1"))
    assert pl.is_schedulable_after_pod_change(affinity_pod(kind), old, new) is queue


@pytest.mark.parametrize("version, queue", [(V1_34_1, False), (V1_36_2, True)], ids=["v1.34", "v1.36"])
def test_affinity_the_pods_own_relabelling_requeues_it_from_v1_36(version: Any, queue: bool) -> None:
    pl = plugin(names.INTER_POD_AFFINITY, version)
    old = affinity_pod("podAffinity")
    new = Pod(dict(old.raw, metadata=dict(old.metadata, labels={"app": "web", "v": "2"})))
    assert pl.is_schedulable_after_pod_change(old, old, new) is queue


@pytest.mark.parametrize("kind, old, new, queue", [
    ("podAffinity", None, make_node("n9").zone("z1"), True),
    ("podAffinity", None, make_node("n9"), False),
    ("podAffinity", make_node("n9"), make_node("n9").zone("z1"), True),
    ("podAffinity", make_node("n9").zone("z1"), make_node("n9"), False),
    ("podAntiAffinity", None, make_node("n9"), True),
    ("podAntiAffinity", make_node("n9"), make_node("n9").zone("z1"), False),
    ("podAntiAffinity", make_node("n9").zone("z1"), make_node("n9"), True),
    ("podAntiAffinity", make_node("n9").zone("z1"), make_node("n9").zone("z2"), True),
], ids=["affinity: added with the key", "affinity: added without", "affinity: given the key",
        "affinity: losing it", "anti: any node added", "anti: given the key", "anti: losing it",
        "anti: another domain"])
def test_affinity_a_node_change_requeues_as_the_terms_topology_keys_say(kind: str, old: Any, new: Any,
                                                                        queue: bool) -> None:
    pl = plugin(names.INTER_POD_AFFINITY)
    o = Node(old.obj()) if old is not None else None
    assert pl.is_schedulable_after_node_change(affinity_pod(kind, key=ZONE), o, Node(new.obj())) is queue
