"""InterPodAffinity: PreFilter counts, Filter verdicts and codes, AddPod/RemovePod, scoring."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins.interpodaffinity import (ERR_REASON_AFFINITY_RULES_NOT_MATCH,
                                                      ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
                                                      ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
                                                      PRE_FILTER_STATE_KEY, new)
from tests.builders import make_node, make_pod
from tests.plugins.runs import score_all, update_clone

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"

AFF = (Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = (Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING = (Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
OK = None


def term(key: str = ZONE, namespaces: list[str] | None = None, ns_selector: Any = "unset",
         **match: str) -> dict[str, Any]:
    t: dict[str, Any] = {"labelSelector": {"matchLabels": match}, "topologyKey": key}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector != "unset":
        t["namespaceSelector"] = ns_selector
    return t


def affinity(*terms: dict) -> dict:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def anti_affinity(*terms: dict) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def preferred(affinity_terms: list[tuple[int, dict]] = (), anti_terms: list[tuple[int, dict]] = ()) -> dict:
    out: dict[str, Any] = {}
    if affinity_terms:
        out["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "podAffinityTerm": t} for w, t in affinity_terms]}
    if anti_terms:
        out["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "podAffinityTerm": t} for w, t in anti_terms]}
    return out


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def three_nodes() -> list[dict]:
    """n1 and n2 in zone a, n3 in zone b, n4 without a zone label."""
    return [make_node("n1").zone("a").obj(), make_node("n2").zone("a").obj(),
            make_node("n3").zone("b").obj(), make_node("n4").obj()]


def setup(objects: list[dict], pod: str = "p", args: dict | None = None):
    cluster = Cluster.from_objects(objects)
    snap = Snapshot.from_cluster(cluster)
    handle = SimpleNamespace(snapshot=snap, cluster=cluster)
    pl = new({"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False, **(args or {})}, handle)
    return pl, next(p for p in cluster.pods.values() if p.name == pod), snap


def verdicts(pl, state: CycleState, pod: Pod, snap: Snapshot) -> dict[str, Any]:
    out = {}
    for ni in snap.list():
        s = pl.filter(state, pod, ni)
        out[ni.name] = None if s.is_success() else (s.code, s.message())
    return out


FILTER_CASES = [
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        [], {"n1": OK, "n2": OK, "n3": AFF, "n4": AFF},
        id="affinity is satisfied in the zone of a matching pod and nodes without the zone label fail"),
    pytest.param(
        make_pod("p").label("app", "web").affinity(affinity(term(app="web"))).obj(),
        [],
        [], {"n1": OK, "n2": OK, "n3": OK, "n4": AFF},
        id="the first pod of a self-affine group passes wherever the topology label exists"),
    pytest.param(
        make_pod("p").label("app", "web").affinity(affinity(term(app="web"))).obj(),
        [make_pod("w").label("app", "web").on("n3").obj()],
        [], {"n1": AFF, "n2": AFF, "n3": OK, "n4": AFF},
        id="a self-affine pod must join its group once any member exists"),
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"))).obj(),
        [],
        [], {"n1": AFF, "n2": AFF, "n3": AFF, "n4": AFF},
        id="affinity to pods that exist nowhere is unresolvable on every node"),
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"), term(HOST, app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n2").obj()],
        [], {"n1": AFF, "n2": OK, "n3": AFF, "n4": AFF},
        id="every affinity term must be satisfied on the node"),
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").ns("other").on("n1").obj()],
        [], {"n1": AFF, "n2": AFF, "n3": AFF, "n4": AFF},
        id="a term without namespaces matches only pods of the pod's own namespace"),
    pytest.param(
        make_pod("p").affinity(affinity(term(namespaces=["other"], app="db"))).obj(),
        [make_pod("db").label("app", "db").ns("other").on("n3").obj()],
        [], {"n1": AFF, "n2": AFF, "n3": OK, "n4": AFF},
        id="a term listing namespaces matches pods in those namespaces"),
    pytest.param(
        make_pod("p").affinity(affinity(term(ns_selector={"matchLabels": {"team": "x"}}, app="db"))).obj(),
        [make_pod("db").label("app", "db").ns("tx").on("n3").obj(),
         make_pod("db2").label("app", "db").ns("ty").on("n1").obj()],
        [namespace("tx", team="x"), namespace("ty", team="y"), namespace("default")],
        {"n1": AFF, "n2": AFF, "n3": OK, "n4": AFF},
        id="a namespace selector is unrolled into the namespaces whose labels it matches"),
    pytest.param(
        make_pod("p").affinity(affinity(term(ns_selector={}, app="db"))).obj(),
        [make_pod("db").label("app", "db").ns("anywhere").on("n1").obj()],
        [], {"n1": OK, "n2": OK, "n3": AFF, "n4": AFF},
        id="an empty namespace selector matches pods of every namespace"),
    pytest.param(
        make_pod("p").affinity(affinity(term(ns_selector={"matchExpressions": [
            {"key": "team", "operator": "NotIn", "values": ["x"]}]}, app="db"))).obj(),
        [make_pod("db").label("app", "db").ns("tx").on("n3").obj()],
        [namespace("tx", team="x")], {"n1": AFF, "n2": AFF, "n3": OK, "n4": AFF},
        id="a namespace selector that matches empty labels matches every namespace as upstream's kept selector does"),
    pytest.param(
        make_pod("p").label("app", "api").affinity(affinity({
            "labelSelector": {"matchLabels": {"app": "api"}}, "topologyKey": ZONE,
            "matchLabelKeys": ["hash"]})).label("hash", "h2").obj(),
        [make_pod("api").labels(app="api", hash="h1").on("n3").obj()],
        [], {"n1": AFF, "n2": AFF, "n3": OK, "n4": AFF},
        id="matchLabelKeys are the apiserver's to merge and the scheduler ignores them"),
    pytest.param(
        make_pod("p").affinity(anti_affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        [], {"n1": ANTI, "n2": ANTI, "n3": OK, "n4": OK},
        id="anti-affinity keeps the pod out of the zone of a matching pod and nodes without the label pass"),
    pytest.param(
        make_pod("p").affinity(anti_affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").terminating().obj()],
        [], {"n1": ANTI, "n2": ANTI, "n3": OK, "n4": OK},
        id="a terminating pod still counts for anti-affinity"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(anti_affinity(term(HOST, app="web"))).on("n3").obj()],
        [], {"n1": OK, "n2": OK, "n3": EXISTING, "n4": OK},
        id="an existing pod's anti-affinity rejects the pod from its topology domain"),
    pytest.param(
        make_pod("p").label("app", "web").ns("tx").obj(),
        [make_pod("e").affinity(anti_affinity(term(ns_selector={"matchLabels": {"team": "x"}}, app="web"))).on("n1").obj()],
        [namespace("tx", team="x")], {"n1": EXISTING, "n2": EXISTING, "n3": OK, "n4": OK},
        id="an existing pod's namespace selector is matched against the incoming pod's namespace labels"),
    pytest.param(
        make_pod("p").label("app", "web").ns("tx").obj(),
        [make_pod("e").affinity(anti_affinity(term(ns_selector={"matchLabels": {"team": "x"}}, app="web"))).on("n1").obj()],
        [], {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
        id="without the Namespace object an existing pod's namespace selector matches nothing"),
    pytest.param(
        make_pod("p").label("app", "web").affinity(affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj(),
         make_pod("e").affinity(anti_affinity(term(app="web"))).on("n2").obj()],
        [], {"n1": EXISTING, "n2": EXISTING, "n3": AFF, "n4": AFF},
        id="affinity is checked before existing pods' anti-affinity"),
]


@pytest.mark.parametrize("pod,existing,extra,expected", FILTER_CASES)
def test_filter(pod, existing, extra, expected):
    pl, p, snap = setup(three_nodes() + existing + extra + [pod])
    state = CycleState()
    _, s = pl.pre_filter(state, p, snap.list())
    if s.code == Code.Skip:
        # the framework does not run a skipped plugin's Filter: every node passes it
        assert all(v is OK for v in expected.values())
        return
    assert s.is_success(), s
    assert verdicts(pl, state, p, snap) == expected


def test_prefilter_skips_a_pod_without_terms_when_no_existing_anti_affinity_matches():
    pl, p, snap = setup(three_nodes() + [
        make_pod("e").affinity(anti_affinity(term(app="other"))).on("n1").obj(), make_pod("p").obj()])
    _, s = pl.pre_filter(CycleState(), p, snap.list())
    assert s.code == Code.Skip


def test_prefilter_rejects_a_pod_whose_selector_does_not_parse():
    bad = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, "topologyKey": ZONE}]}}
    pl, p, snap = setup(three_nodes() + [make_pod("p").affinity(bad).obj()])
    _, s = pl.pre_filter(CycleState(), p, snap.list())
    assert s.code == Code.UnschedulableAndUnresolvable
    assert s.message().startswith("parsing pod: requiredAffinityTerms")


# --- AddPod / RemovePod: nominated pods and preemption dry runs -------------------------------

def _pod(raw: dict) -> Pod:
    return Pod(raw)


EXTENSION_CASES = [
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(anti_affinity(term(HOST, app="web"))).on("n1").obj()],
        "remove", "default/e", "n1", EXISTING, OK,
        id="removing the existing pod whose anti-affinity blocks the node frees it"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("x").on("n2").obj(), make_pod("e").affinity(anti_affinity(term(app="web"))).on("n1").obj()],
        "add", make_pod("nom").affinity(anti_affinity(term(HOST, app="web"))).on("n3").obj(), "n3", OK, EXISTING,
        id="adding a nominated pod with anti-affinity to the pod blocks its node"),
    pytest.param(
        make_pod("p").affinity(anti_affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        "remove", "default/db", "n2", ANTI, OK,
        id="removing the only pod the incoming pod avoids frees its whole zone"),
    pytest.param(
        make_pod("p").affinity(anti_affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        "add", make_pod("db2").label("app", "db").on("n3").obj(), "n3", OK, ANTI,
        id="adding a pod the incoming pod avoids closes that pod's zone"),
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        "remove", "default/db", "n2", OK, AFF,
        id="removing the only pod the incoming pod needs breaks its affinity"),
    pytest.param(
        make_pod("p").label("app", "web").affinity(affinity(term(app="web"))).obj(),
        [make_pod("w").label("app", "web").on("n1").obj()],
        "remove", "default/w", "n3", AFF, OK,
        id="removing the last other member of a self-affine group lets the pod start anywhere again"),
    pytest.param(
        make_pod("p").affinity(affinity(term(app="db"))).obj(),
        [make_pod("db").label("app", "db").on("n1").obj()],
        "add", make_pod("db2").label("app", "db").on("n3").obj(), "n3", AFF, OK,
        id="adding a pod the incoming pod needs opens that pod's zone"),
]


@pytest.mark.parametrize("pod,existing,op,other,node,before,after", EXTENSION_CASES)
def test_add_and_remove_pod_update_a_clone(pod, existing, op, other, node, before, after):
    pl, p, snap = setup(three_nodes() + existing + [pod])
    state = CycleState()
    _, s = pl.pre_filter(state, p, snap.list())
    assert s.is_success(), s
    ni = snap.get(node)

    def verdict(st, info):
        r = pl.filter(st, p, info)
        return None if r.is_success() else (r.code, r.message())

    assert verdict(state, ni) == before
    dry, info = update_clone(pl, state, p, snap, op, other if op == "remove" else _pod(other))
    target = info if info.name == node else ni
    assert verdict(dry, target) == after
    # the original state is untouched
    assert verdict(state, ni) == before


def test_add_pod_without_prefilter_state_is_an_error():
    pl, p, snap = setup(three_nodes() + [make_pod("p").obj()])
    s = pl.add_pod(CycleState(), p, p, snap.get("n1"))
    assert s.code == Code.Error
    assert PRE_FILTER_STATE_KEY in s.message()


# --- scoring ----------------------------------------------------------------------------------

SCORE_CASES = [
    pytest.param(
        make_pod("p").affinity(preferred([(10, term(app="db"))])).obj(),
        [make_pod("db").label("app", "db").on("n3").obj()], {},
        {"n1": 0, "n2": 0, "n3": 100, "n4": 0},
        id="preferred affinity scores the zone of matching pods highest"),
    pytest.param(
        make_pod("p").affinity(preferred([(3, term(app="db"))], [(1, term(HOST, app="cache"))])).obj(),
        [make_pod("db").label("app", "db").on("n1").obj(), make_pod("c").label("app", "cache").on("n2").obj()], {},
        {"n1": 100, "n2": 66, "n3": 0, "n4": 0},
        id="preferred anti-affinity subtracts its weight and min-max scaling truncates"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(affinity(term(app="web"))).on("n3").obj()], {"hardPodAffinityWeight": 7},
        {"n1": 0, "n2": 0, "n3": 100, "n4": 0},
        id="an existing pod's required affinity to the pod counts with hardPodAffinityWeight"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(affinity(term(app="web"))).on("n3").obj()], {"hardPodAffinityWeight": 0},
        Code.Skip,
        id="a zero hardPodAffinityWeight ignores existing pods' required affinity"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(preferred(anti_terms=[(50, term(app="web"))])).on("n1").obj()], {},
        {"n1": 0, "n2": 0, "n3": 100, "n4": 100},
        id="an existing pod's preferred anti-affinity to the pod lowers its zone"),
    pytest.param(
        make_pod("p").label("app", "web").obj(),
        [make_pod("e").affinity(preferred(anti_terms=[(50, term(app="web"))])).on("n1").obj()],
        {"ignorePreferredTermsOfExistingPods": True},
        Code.Skip,
        id="ignorePreferredTermsOfExistingPods skips a pod without preferred terms"),
    pytest.param(
        make_pod("p").affinity(preferred([(10, term(app="nothing"))])).obj(),
        [make_pod("db").label("app", "db").on("n3").obj()], {},
        Code.Skip,
        id="PreScore skips when no term matches anywhere"),
    pytest.param(
        make_pod("p").affinity(preferred([(10, term(app="db")), (10, term(app="db"))], [(20, term(app="db"))])).obj(),
        [make_pod("db").label("app", "db").on("n3").obj()], {},
        {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
        id="terms that cancel out still score and normalize to zero"),
]


@pytest.mark.parametrize("pod,existing,args,expected", SCORE_CASES)
def test_score(pod, existing, args, expected):
    pl, p, snap = setup(three_nodes() + existing + [pod], args=args)
    assert score_all(pl, p, snap) == expected


def test_prescore_counts_pods_on_every_node_not_only_the_feasible_ones():
    pl, p, snap = setup(three_nodes() + [make_pod("db").label("app", "db").on("n3").obj(),
                                         make_pod("p").affinity(preferred([(10, term(app="db"))])).obj()])
    # n3 is not feasible, but its pod still draws the pod to nothing else in zone b: only n1, n2 scored
    assert score_all(pl, p, snap, ["n1", "n2"]) == {"n1": 0, "n2": 0}
    pl, p, snap = setup([make_node("n1").zone("a").obj(), make_node("n2").zone("b").obj(),
                         make_node("n3").zone("b").obj(), make_pod("db").label("app", "db").on("n3").obj(),
                         make_pod("p").affinity(preferred([(10, term(app="db"))])).obj()])
    assert score_all(pl, p, snap, ["n1", "n2"]) == {"n1": 0, "n2": 100}
