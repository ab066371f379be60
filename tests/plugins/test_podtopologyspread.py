"""PodTopologySpread: constraints and defaults, Filter verdicts and codes, AddPod/RemovePod, scoring."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins.helper.spread import default_selector
from kubectl_preempt.plugins.podtopologyspread import (ERR_REASON_CONSTRAINTS_NOT_MATCH,
                                                       ERR_REASON_NODE_LABEL_NOT_MATCH, PRE_FILTER_STATE_KEY, new)
from kubectl_preempt.plugins.podtopologyspread.filtering import CriticalPaths
from tests.builders import make_node, make_pod
from tests.plugins.runs import score_all, update_clone

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"

SKEW = (Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)
NO_LABEL = (Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
OK = None


def spread(key: str = ZONE, max_skew: int = 1, when: str = "DoNotSchedule", selector: Any = "app=web",
           **extra: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector == "app=web":
        c["labelSelector"] = {"matchLabels": {"app": "web"}}
    elif selector is not None:
        c["labelSelector"] = selector
    c.update(extra)
    return c


def web(name: str, node: str, ns: str = "default") -> dict:
    return make_pod(name).label("app", "web").ns(ns).on(node).obj()


def service(name: str, selector: dict | None, ns: str = "default") -> dict:
    spec: dict[str, Any] = {"ports": [{"port": 80}]}
    if selector is not None:
        spec["selector"] = selector
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}


def workload(kind: str, name: str, selector: Any, ns: str = "default") -> dict:
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": selector}}


def owned(builder, kind: str, name: str, api: str = "apps/v1", controller: bool = True):
    return builder.set("metadata.ownerReferences", [
        {"apiVersion": api, "kind": kind, "name": name, "uid": f"uid-{name}", "controller": controller}])


def four_nodes() -> list[dict]:
    """n1 and n2 in zone a, n3 in zone b, n4 without a zone label."""
    return [make_node("n1").zone("a").obj(), make_node("n2").zone("a").obj(),
            make_node("n3").zone("b").obj(), make_node("n4").obj()]


def setup(objects: list[dict], pod: str = "p", args: dict | None = None):
    cluster = Cluster.from_objects(objects)
    snap = Snapshot.from_cluster(cluster)
    handle = SimpleNamespace(snapshot=snap, cluster=cluster)
    pl = new(args or {"defaultingType": "System"}, handle)
    return pl, next(p for p in cluster.pods.values() if p.name == pod), snap


def verdict(pl, state: CycleState, pod: Pod, ni) -> Any:
    s = pl.filter(state, pod, ni)
    return None if s.is_success() else (s.code, s.message())


FILTER_CASES = [
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1"), web("a2", "n2")], None,
        {"n1": SKEW, "n2": SKEW, "n3": OK, "n4": NO_LABEL},
        id="a zone with more matching pods than the emptiest plus maxSkew is rejected"),
    pytest.param(
        make_pod("p").spread([spread()]).obj(),
        [web("a1", "n1")], None,
        {"n1": OK, "n2": OK, "n3": OK, "n4": NO_LABEL},
        id="a pod that does not match its own selector does not count itself"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(max_skew=2)]).obj(),
        [web("a1", "n1"), web("a2", "n2")], None,
        {"n1": SKEW, "n2": SKEW, "n3": OK, "n4": NO_LABEL},
        id="maxSkew two still rejects a zone two ahead once the pod is counted"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(minDomains=3)]).obj(),
        [web("a1", "n1"), web("b1", "n3")], None,
        {"n1": SKEW, "n2": SKEW, "n3": SKEW, "n4": NO_LABEL},
        id="with fewer domains than minDomains the global minimum is zero"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(minDomains=2)]).obj(),
        [web("a1", "n1"), web("b1", "n3")], None,
        {"n1": OK, "n2": OK, "n3": OK, "n4": NO_LABEL},
        id="with as many domains as minDomains the real minimum counts"),
    pytest.param(
        make_pod("p").label("app", "web").node_selector(tier="x").spread([spread()]).obj(),
        [web("a1", "n1")], [make_node("n1").zone("a").label("tier", "x").obj(),
                            make_node("n2").zone("a").label("tier", "x").obj(), make_node("n3").zone("b").obj()],
        {"n1": OK, "n2": OK, "n3": OK},
        id="nodeAffinityPolicy Honor leaves zones of non-matching nodes out of the minimum"),
    pytest.param(
        make_pod("p").label("app", "web").node_selector(tier="x").spread([spread(nodeAffinityPolicy="Ignore")]).obj(),
        [web("a1", "n1")], [make_node("n1").zone("a").label("tier", "x").obj(),
                            make_node("n2").zone("a").label("tier", "x").obj(), make_node("n3").zone("b").obj()],
        {"n1": SKEW, "n2": SKEW, "n3": OK},
        id="nodeAffinityPolicy Ignore counts every zone"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1")], [make_node("n1").zone("a").obj(), make_node("n3").zone("b").taint("dedicated", "x").obj()],
        {"n1": SKEW, "n3": OK},
        id="nodeTaintsPolicy Ignore counts the zone of a tainted node"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(nodeTaintsPolicy="Honor")]).obj(),
        [web("a1", "n1")], [make_node("n1").zone("a").obj(), make_node("n3").zone("b").taint("dedicated", "x").obj()],
        {"n1": OK, "n3": OK},
        id="nodeTaintsPolicy Honor leaves out the zone of a node with an untolerated taint"),
    pytest.param(
        make_pod("p").label("app", "web").toleration("dedicated", "x", "NoSchedule")
        .spread([spread(nodeTaintsPolicy="Honor")]).obj(),
        [web("a1", "n1")], [make_node("n1").zone("a").obj(), make_node("n3").zone("b").taint("dedicated", "x").obj()],
        {"n1": SKEW, "n3": OK},
        id="nodeTaintsPolicy Honor keeps the zone of a node whose taint the pod tolerates"),
    pytest.param(
        make_pod("p").labels(app="web", rev="2").spread([spread(matchLabelKeys=["rev"])]).obj(),
        [make_pod("a1").labels(app="web", rev="1").on("n1").obj(),
         make_pod("b1").labels(app="web", rev="2").on("n3").obj()], None,
        {"n1": OK, "n2": OK, "n3": SKEW, "n4": NO_LABEL},
        id="matchLabelKeys narrow the selector to the pod's own revision"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [make_pod("a1").label("app", "web").on("n1").terminating().obj(), web("a2", "n1", ns="other")], None,
        {"n1": OK, "n2": OK, "n3": OK, "n4": NO_LABEL},
        id="terminating pods and pods of other namespaces are not counted"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(selector={})]).obj(),
        [web("a1", "n1"), web("a2", "n2")], None,
        {"n1": OK, "n2": OK, "n3": OK, "n4": NO_LABEL},
        id="an empty selector counts no existing pod"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(), spread(HOST, max_skew=1)]).obj(),
        [web("a1", "n1"), web("b1", "n3")], None,
        {"n1": SKEW, "n2": OK, "n3": SKEW, "n4": NO_LABEL},
        id="every constraint must hold"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(HOST), spread(max_skew=3)]).obj(),
        [web("a1", "n1"), web("a2", "n1")], None,
        {"n1": SKEW, "n2": OK, "n3": OK, "n4": NO_LABEL},
        id="a node missing any constraint's key is unresolvable"),
]


@pytest.mark.parametrize("pod,existing,nodes,expected", FILTER_CASES)
def test_filter(pod, existing, nodes, expected):
    pl, p, snap = setup((nodes or four_nodes()) + existing + [pod])
    state = CycleState()
    _, s = pl.pre_filter(state, p, snap.list())
    assert s.is_success(), s
    assert {ni.name: verdict(pl, state, p, ni) for ni in snap.list()} == expected


@pytest.mark.parametrize("pod,objects,args", [
    pytest.param(make_pod("p").label("app", "web").spread([spread(when="ScheduleAnyway")]).obj(), [], None,
                 id="a pod with only ScheduleAnyway constraints skips Filter"),
    pytest.param(make_pod("p").label("app", "web").obj(), [service("web", {"app": "web"})], None,
                 id="system default constraints are ScheduleAnyway and never filter"),
    pytest.param(make_pod("p").label("app", "web").obj(), [],
                 {"defaultingType": "List", "defaultConstraints": [spread(selector=None)]},
                 id="default constraints need a selector from the pod's services or workloads"),
])
def test_prefilter_skips(pod, objects, args):
    pl, p, snap = setup(four_nodes() + objects + [pod], args=args)
    _, s = pl.pre_filter(CycleState(), p, snap.list())
    assert s.code == Code.Skip


def test_list_default_constraints_filter_with_the_service_selector():
    args = {"defaultingType": "List", "defaultConstraints": [spread(selector=None)]}
    pl, p, snap = setup(four_nodes() + [service("web", {"app": "web"}), web("a1", "n1"), web("a2", "n2"),
                                        make_pod("p").label("app", "web").obj()], args=args)
    state = CycleState()
    _, s = pl.pre_filter(state, p, snap.list())
    assert s.is_success()
    assert {ni.name: verdict(pl, state, p, ni) for ni in snap.list()} == {
        "n1": SKEW, "n2": SKEW, "n3": OK, "n4": NO_LABEL}


def test_critical_paths_keep_the_minimum_first():
    cp = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2), ("b", 4)]:
        cp.update(value, num)
    assert cp.nums[0] == 2 and cp.values[0] == "c"
    assert cp.nums[0] <= cp.nums[1]


# --- AddPod / RemovePod: nominated pods and preemption dry runs -------------------------------

EXTENSION_CASES = [
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1"), web("a2", "n2"), web("b1", "n3")],
        "remove", "default/a2", "n1", SKEW, OK,
        id="removing a matching victim in the crowded zone lets the pod in"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [],
        "add", web("nom", "n3"), "n3", OK, SKEW,
        id="a nominated matching pod counts in its zone"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1")],
        "add", web("nom", "n3", ns="other"), "n3", OK, OK,
        id="a pod of another namespace changes nothing"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1"), web("a2", "n1")],
        "add", make_pod("nom").label("app", "db").on("n3").obj(), "n1", SKEW, SKEW,
        id="a pod that does not match the selector changes nothing"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1"), web("b1", "n3"), make_pod("t").label("app", "web").on("n1").terminating().obj()],
        "remove", "default/t", "n3", OK, SKEW,
        id="removing a terminating pod, which was never counted, still decrements the count"),
]


@pytest.mark.parametrize("pod,existing,op,other,node,before,after", EXTENSION_CASES)
def test_add_and_remove_pod_update_a_clone(pod, existing, op, other, node, before, after):
    pl, p, snap = setup(four_nodes() + existing + [pod])
    state = CycleState()
    _, s = pl.pre_filter(state, p, snap.list())
    assert s.is_success(), s
    assert verdict(pl, state, p, snap.get(node)) == before
    dry, _ = update_clone(pl, state, p, snap, op, other if op == "remove" else Pod(other))
    assert verdict(pl, dry, p, snap.get(node)) == after
    assert verdict(pl, state, p, snap.get(node)) == before


def test_removing_the_only_pod_of_a_domain_keeps_the_domain():
    pl, p, snap = setup([make_node("n1").zone("a").obj(), make_node("n3").zone("b").obj(), web("a1", "n1"),
                         web("a2", "n1"), web("b1", "n3"), make_pod("p").label("app", "web").spread([
                             spread(max_skew=1, minDomains=2)]).obj()])
    state = CycleState()
    pl.pre_filter(state, p, snap.list())
    dry = state.clone()
    victim = next(x.pod for x in snap.get("n3").pods if x.pod.name == "b1")
    assert pl.remove_pod(dry, p, victim, snap.get("n3")).is_success()
    s = dry.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num[0] == {"a": 2, "b": 0}
    assert verdict(pl, dry, p, snap.get("n1")) == SKEW


def test_clones_share_counts_until_one_of_them_writes():
    pl, p, snap = setup(four_nodes() + [web("a1", "n1"), web("a2", "n2"),
                                        make_pod("p").label("app", "web").spread([spread(HOST)]).obj()])
    state = CycleState()
    pl.pre_filter(state, p, snap.list())
    first, second = state.clone(), state.clone()
    a1 = next(x.pod for x in snap.get("n1").pods if x.pod.name == "a1")
    assert pl.remove_pod(first, p, a1, snap.get("n1")).is_success()
    assert pl.add_pod(state, p, Pod(web("nom", "n3")), snap.get("n3")).is_success()
    counts = [st.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num[0] for st in (state, first, second)]
    assert counts == [{"n1": 1, "n2": 1, "n3": 1, "n4": 0}, {"n1": 0, "n2": 1, "n3": 0, "n4": 0},
                      {"n1": 1, "n2": 1, "n3": 0, "n4": 0}]


def test_remove_pod_without_prefilter_state_is_an_error():
    pl, p, snap = setup(four_nodes() + [make_pod("p").obj()])
    s = pl.remove_pod(CycleState(), p, p, snap.get("n1"))
    assert s.code == Code.Error
    assert PRE_FILTER_STATE_KEY in s.message()


# --- scoring ----------------------------------------------------------------------------------

SCORE_CASES = [
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(when="ScheduleAnyway")]).obj(),
        [web("a1", "n1"), web("a2", "n2"), web("b1", "n3")], [], None,
        # log(2 zones + 2) weights: a 2*1.386 -> 3, b 1.386 -> 1; n4 lacks the zone and is ignored
        {"n1": 33, "n2": 33, "n3": 100, "n4": 0},
        id="the pod's own soft constraint prefers the emptier zone and ignores nodes without the key"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [web("a1", "n1"), web("b1", "n3"), web("b2", "n3")], [service("web", {"app": "web"})], None,
        # hostname log(6), zone log(5) over values a, b and "" (n4); n4 keeps hostname spreading
        {"n1": 46, "n2": 53, "n3": 15, "n4": 100},
        id="system default spreading scores hostname and zone and keeps nodes without a zone"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [web("a1", "n1"), web("b1", "n3"), web("b2", "n3")], [service("web", {"app": "web"})],
        {"defaultingType": "List", "defaultConstraints": [
            spread(HOST, max_skew=3, when="ScheduleAnyway", selector=None),
            spread(ZONE, max_skew=5, when="ScheduleAnyway", selector=None)]},
        # n4 is ignored; hostname log(3 + 2), zone log(2 + 2): n1 9, n2 7, n3 12
        {"n1": 83, "n2": 100, "n3": 58, "n4": 0},
        id="the same defaults given as a List require every topology key"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [web("a1", "n1")], [], None,
        Code.Skip,
        id="a pod with no service or workload has no default spreading"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread()]).obj(),
        [web("a1", "n1")], [service("web", {"app": "web"})], None,
        Code.Skip,
        id="a pod with only DoNotSchedule constraints gets no default soft ones"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [web("a1", "n1")], [service("web", {"app": "web"})], {"defaultingType": "List"},
        Code.Skip,
        id="List defaulting without constraints disables default spreading"),
    pytest.param(
        make_pod("p").label("app", "web").spread([spread(HOST, max_skew=2, when="ScheduleAnyway")]).obj(),
        [web("a1", "n1"), web("a2", "n1"), web("b1", "n3")], [], None,
        # log(4 + 2) per pod plus maxSkew-1: n1 4.58 -> 5, n2 and n4 1, n3 2.79 -> 3
        {"n1": 20, "n2": 100, "n3": 60, "n4": 100},
        id="hostname constraints count each node's own pods"),
]


@pytest.mark.parametrize("pod,existing,objects,args,expected", SCORE_CASES)
def test_score(pod, existing, objects, args, expected):
    pl, p, snap = setup(four_nodes() + objects + existing + [pod], args=args)
    assert score_all(pl, p, snap) == expected


def test_prescore_counts_pods_of_every_node_in_the_candidates_zones():
    pl, p, snap = setup(four_nodes() + [web("a1", "n1"), web("a2", "n1"), web("b1", "n3"),
                                        make_pod("p").label("app", "web").spread([spread(when="ScheduleAnyway")]).obj()])
    # n1 is not a candidate but its pods count for zone a: n2 2*log(4) -> 3, n3 log(4) -> 1
    assert score_all(pl, p, snap, ["n2", "n3"]) == {"n2": 33, "n3": 100}


# --- DefaultSelector ---------------------------------------------------------------------------

SELECTOR_CASES = [
    pytest.param(owned(make_pod("p").label("app", "web"), "ReplicaSet", "web-1"),
                 [service("web", {"app": "web"}), workload("ReplicaSet", "web-1",
                                                           {"matchLabels": {"app": "web", "tier": "fe"}})],
                 {"app": "web", "tier": "fe"}, {"app": "web"},
                 id="services and the controlling ReplicaSet are ANDed"),
    pytest.param(owned(make_pod("p").label("app", "web"), "ReplicaSet", "web-1", api="extensions/v1beta1"),
                 [workload("ReplicaSet", "web-1", {"matchLabels": {"app": "web"}})],
                 None, None,
                 id="an owner reference with another apiVersion is not followed"),
    pytest.param(owned(make_pod("p").label("app", "web"), "ReplicationController", "rc", api="v1"),
                 [workload("ReplicationController", "rc", {"app": "web", "v": "1"})],
                 {"app": "web", "v": "1"}, {"app": "web"},
                 id="a ReplicationController's selector map is merged in"),
    pytest.param(owned(make_pod("p").label("app", "web"), "StatefulSet", "db", controller=False),
                 [workload("StatefulSet", "db", {"matchLabels": {"app": "web"}})],
                 None, None,
                 id="an owner that is not the controller is not followed"),
    pytest.param(make_pod("p").label("app", "web"),
                 [service("web", {"app": "web"}, ns="other"), service("none", None), service("all", {})],
                 None, None,
                 id="services of other namespaces and with a nil or empty selector add nothing"),
    pytest.param(owned(make_pod("p").label("app", "web"), "StatefulSet", "db"),
                 [workload("StatefulSet", "db", {"matchExpressions": [
                     {"key": "app", "operator": "In", "values": ["web", "api"]}]})],
                 {"app": "api"}, {"app": "db"},
                 id="a StatefulSet's match expressions are kept"),
]


@pytest.mark.parametrize("builder,objects,matching,not_matching", SELECTOR_CASES)
def test_default_selector(builder, objects, matching, not_matching):
    cluster = Cluster.from_objects(objects)
    sel = default_selector(Pod(builder.obj()), cluster.extra)
    if matching is None:
        assert sel.empty
    else:
        assert not sel.empty
        assert sel.matches(matching)
        assert not sel.matches(not_matching)
