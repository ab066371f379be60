"""MemoTraits.filter_ignores_pods asked of every pod of one node (scheduler/fast/preemption.py
NodePods, the fast core's dry runs): PodTopologySpread and InterPodAffinity then walk the pods that
may matter through the node's lists and label index (their PreFilter states' counts_none_on) and
answer as they do testing each pod (counts_none_of), with the fast cores' label index and without."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import interpodaffinity, podtopologyspread
from kubectl_preempt.scheduler.fast import FAST_CORES
from kubectl_preempt.scheduler.fast.preemption import NodePods

from tests.builders import make_node, make_pod
from tests.plugins.test_interpodaffinity import affinity, anti_affinity, term

HOST = "kubernetes.io/hostname"
SPREAD_WEB = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"app": "web"}}}


def _answers(plugin: str, incoming: dict, on_node: list[dict], fast: bool) -> tuple[bool, bool]:
    """(asked of the node's pods as NodePods, asked of them as a plain list)."""
    objects = [make_node("n1").zone("a").obj(), make_node("n2").zone("b").obj(), incoming,
               make_pod("elsewhere").label("app", "web").on("n2").obj()]
    objects += [dict(o, spec=dict(o["spec"], nodeName="n1")) for o in on_node]
    cluster = Cluster.from_objects(objects)
    snap = Snapshot.from_cluster(cluster)
    handle = SimpleNamespace(snapshot=snap, cluster=cluster, fast=FAST_CORES if fast else None)
    if plugin == "InterPodAffinity":
        pl = interpodaffinity.new({"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}, handle)
    else:
        pl = podtopologyspread.new({"defaultingType": "List"}, handle)
    pod = cluster.pods["default/incoming"]
    state = CycleState()
    _, s = pl.pre_filter(state, pod, snap.list())
    assert s.is_success(), s
    ni = snap.get("n1")
    pods = [pi.pod for pi in ni.pods]
    return pl.filter_ignores_pods(state, pod, NodePods(pods, ni)), pl.filter_ignores_pods(state, pod, pods)


def _incoming(**kw: object) -> dict:
    b = make_pod("incoming").label("app", "web")
    if "affinity" in kw:
        b = b.affinity(kw["affinity"])
    if "spread" in kw:
        b = b.spread(kw["spread"])
    return b.obj()


# plugin, incoming pod, the pods of the node asked about, whether the plugin ignores them
CASES = {
    "a pod whose required anti-affinity matches the incoming pod is not ignored":
        ("InterPodAffinity", _incoming(affinity=anti_affinity(term(HOST, app="none"))),
         [make_pod("e").label("app", "db").affinity(anti_affinity(term(HOST, app="web"))).obj()], False),
    "a pod whose required anti-affinity matches other pods is ignored":
        ("InterPodAffinity", _incoming(affinity=anti_affinity(term(HOST, app="none"))),
         [make_pod("e").label("app", "db").affinity(anti_affinity(term(HOST, app="db"))).obj()], True),
    "a pod the incoming pod's affinity needs is not ignored":
        ("InterPodAffinity", _incoming(affinity=affinity(term(HOST, app="db"))),
         [make_pod("d").label("app", "db").obj(), make_pod("x").label("app", "x").obj()], False),
    "pods of other labels than the incoming pod's affinity needs are ignored":
        ("InterPodAffinity", _incoming(affinity=affinity(term(HOST, app="db"), term(HOST, tier="back"))),
         [make_pod("d").label("app", "db").obj(), make_pod("x").label("tier", "back").obj()], True),
    "a pod the incoming pod's anti-affinity refuses is not ignored":
        ("InterPodAffinity", _incoming(affinity=anti_affinity(term(HOST, app="db"))),
         [make_pod("x").label("app", "x").obj(), make_pod("d").label("app", "db").obj()], False),
    "a pod of another namespace with the labels the anti-affinity refuses is ignored":
        ("InterPodAffinity", _incoming(affinity=anti_affinity(term(HOST, app="db"))),
         [make_pod("d").ns("other").label("app", "db").obj()], True),
    "a pod the incoming pod's spread constraint counts is not ignored":
        ("PodTopologySpread", _incoming(spread=[SPREAD_WEB]),
         [make_pod("x").label("app", "x").obj(), make_pod("w").label("app", "web").obj()], False),
    "a pod of another namespace with the labels the spread constraint counts is ignored":
        ("PodTopologySpread", _incoming(spread=[SPREAD_WEB]),
         [make_pod("w").ns("other").label("app", "web").obj()], True),
    "pods of other labels than the spread constraint counts are ignored":
        ("PodTopologySpread", _incoming(spread=[SPREAD_WEB]), [make_pod("x").label("app", "x").obj()], True),
}


@pytest.mark.parametrize("fast", [True, False], ids=["with the label index", "walking every pod"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_pod_of_a_node_is_ignored_alike_asked_through_the_node_or_pod_by_pod(case: str, fast: bool) -> None:
    plugin, incoming, on_node, want = CASES[case]
    assert _answers(plugin, incoming, on_node, fast) == (want, want)
