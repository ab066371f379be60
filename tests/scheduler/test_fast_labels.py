"""The label index the fast core keeps of a NodeInfo (scheduler/fast/labels.py pods_with_label) and the
core that reads it (pods_maybe_matching) give the counts of the upstream-shaped walks
over every pod (framework/interface.py node_pods): PodTopologySpread's countPodsMatchSelector and
InterPodAffinity's incoming counts, for selectors of matchLabels, matchExpressions of each operator,
empty and missing ones, pods of several namespaces and terminating ones, and nodes whose pods came and
went (added, removed, copied for a dry run and changed there)."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.affinity import AffinityTerm
from kubectl_preempt.framework.interface import node_pods
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.model.selectors import LabelSelector
from kubectl_preempt.plugins.interpodaffinity.filtering import incoming_counts
from kubectl_preempt.plugins.podtopologyspread.common import count_pods_match_selector
from kubectl_preempt.scheduler.fast import FAST_CORES
from kubectl_preempt.scheduler.fast.labels import pods_maybe_matching, pods_with_label, pods_with_label_value

from tests.builders import make_node, make_pod

fast = FAST_CORES.pods_maybe_matching


def _pods() -> list[Pod]:
    out = []
    shapes = [("default", {"app": "web", "tier": "front"}), ("default", {"app": "web"}),
              ("default", {"app": "db", "tier": "back"}), ("other", {"app": "web", "tier": "front"}),
              ("other", {"app": "cache"}), ("default", {}), ("default", {"tier": "front"}),
              ("other", {"app": "db"})]
    for i, (ns, labels) in enumerate(shapes):
        b = make_pod(f"p{i}").ns(ns).on("n1").req(cpu="100m")
        for k, v in labels.items():
            b = b.label(k, v)
        if i == 1:
            b = b.terminating()
        out.append(Pod(b.obj()))
    return out


def _node_info(indexed: bool) -> NodeInfo:
    ni = NodeInfo(Node(make_node("n1").zone("z1").obj()), _pods())
    if indexed:
        # the keys indexed before the pods move: the index of that generation must not be given after
        pods_with_label(ni, "app")
        pods_with_label(ni, "tier")
    return ni


SELECTORS = {
    "one matchLabels pair": {"matchLabels": {"app": "web"}},
    "two matchLabels pairs": {"matchLabels": {"app": "web", "tier": "front"}},
    "a matchLabels pair no pod carries": {"matchLabels": {"app": "none"}},
    "matchLabels with a NotIn expression": {"matchLabels": {"app": "web"},
                                            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["back"]}]},
    "an In expression of one value": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]},
    "an In expression of two values": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db", "web"]}]},
    "a NotIn expression alone": {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]},
    "an Exists expression": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
    "a DoesNotExist expression": {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]},
    "an Exists and an In expression": {"matchExpressions": [{"key": "tier", "operator": "Exists"},
                                                            {"key": "app", "operator": "In", "values": ["web", "cache"]}]},
    "an empty selector (every pod)": {},
    "a missing selector (no pod)": None,
}


def _changed_node_infos() -> dict[str, NodeInfo]:
    """The node as built, and after each way its pods move, with its label keys indexed before
    (the index of the old generation must be dropped) and not (the index is built from the pods there are)."""
    out = {}
    for indexed in (True, False):
        pods = _pods()
        built = _node_info(indexed)
        removed = _node_info(indexed)
        removed.remove_pod(pods[0])
        removed.remove_pod(pods[4])
        readded = _node_info(indexed)
        readded.remove_pods([pods[0], pods[3]])
        readded.add_pod(pods[3])
        one_by_one = NodeInfo(Node(make_node("n1").zone("z1").obj()))
        if indexed:
            pods_with_label(one_by_one, "app")
        for p in pods[::-1]:
            one_by_one.add_pod(p)
        in_bulk = NodeInfo(Node(make_node("n1").zone("z1").obj()))
        if indexed:
            pods_with_label(in_bulk, "tier")
        in_bulk.add_pods(pods[:4])
        in_bulk.add_pods(pods[4:])
        # a dry run's copy changed while the original stays as it was (the copy shares the index)
        original = _node_info(indexed)
        copy = original.snapshot()
        copy.remove_pods(pods[:3])
        copy.add_pod(pods[1])
        # and the original changed after a copy was made of it
        changed_original = _node_info(indexed)
        kept_copy = changed_original.snapshot()
        changed_original.remove_pod(pods[2])
        how = "indexed before" if indexed else "indexed when asked"
        out.update({f"built with its pods, {how}": built, f"after two pods were removed, {how}": removed,
                    f"after pods were removed and one added back, {how}": readded,
                    f"with its pods added one by one, {how}": one_by_one,
                    f"with its pods added in two bulks, {how}": in_bulk,
                    f"a dry run's copy with victims removed and one reprieved, {how}": copy,
                    f"the original of that copy, {how}": original,
                    f"an original changed after it was copied, {how}": changed_original,
                    f"the copy made before that change, {how}": kept_copy, f"emptied for a dry run, {how}": built.emptied()})
    return out


@pytest.mark.parametrize("which", list(_changed_node_infos()))
@pytest.mark.parametrize("name", list(SELECTORS))
def test_the_index_gives_every_pod_a_selector_matches_and_the_same_spread_count(name: str, which: str) -> None:
    ni = _changed_node_infos()[which]
    selector = LabelSelector(SELECTORS[name])
    given = fast(ni, selector)
    ids = {id(pi) for pi in given}
    assert all(id(pi) in {id(q) for q in ni.pods} for pi in given)
    assert len(ids) == len(given)  # no pod twice
    for pi in ni.pods:
        if selector.matches(pi.pod.labels):
            assert id(pi) in ids, pi.pod.name
    for ns in ("default", "other", "absent"):
        assert (count_pods_match_selector(given, selector, ns)
                == count_pods_match_selector(node_pods(ni, selector), selector, ns))


def test_the_index_holds_exactly_the_pods_of_the_node_by_each_label_value() -> None:
    for which, ni in _changed_node_infos().items():
        for key in ("app", "tier", "absent"):
            want: dict[str, set[int]] = {}
            for pi in ni.pods:
                if key in pi.pod.labels:
                    want.setdefault(pi.pod.labels[key], set()).add(id(pi))
            got = {v: {id(pi) for pi in b} for v, b in pods_with_label(ni, key).items()}
            assert got == want, (which, key)
            assert all(len(b) == len(set(map(id, b))) for b in pods_with_label(ni, key).values()), (which, key)


def _changes() -> dict[str, object]:
    pods = _pods()
    extra = Pod(make_pod("extra").on("n1").label("app", "web").req(cpu="100m").obj())
    return {"a pod added": lambda ni: ni.add_pod(extra), "pods added in bulk": lambda ni: ni.add_pods([extra]),
            "a pod removed": lambda ni: ni.remove_pod(pods[0]), "pods removed in bulk": lambda ni: ni.remove_pods(pods[:2])}


@pytest.mark.parametrize("change", list(_changes()))
def test_the_index_is_kept_while_the_generation_holds_and_built_again_after_a_change(change: str) -> None:
    ni = _node_info(False)
    first = pods_with_label(ni, "app")
    assert pods_with_label(ni, "app") is first  # the same generation: the index is read, not built again
    before = {v: len(b) for v, b in first.items()}
    _changes()[change](ni)
    again = pods_with_label(ni, "app")
    assert again is not first
    assert {v: len(b) for v, b in first.items()} == before  # the old generation's buckets are left as they were
    want: dict[str, int] = {}
    for pi in ni.pods:
        if "app" in pi.pod.labels:
            want[pi.pod.labels["app"]] = want.get(pi.pod.labels["app"], 0) + 1
    assert {v: len(b) for v, b in again.items()} == want


@pytest.mark.parametrize("which", list(_changed_node_infos()))
def test_values_asked_one_after_another_give_the_pods_carrying_each_pair(which: str) -> None:
    # the first value of a key is a walk kept as a pair; the next values index the key whole
    ni = _changed_node_infos()[which]
    for key, value in [("app", "web"), ("app", "web"), ("tier", "front"), ("app", "db"), ("app", "none"),
                       ("app", "web"), ("absent", "x"), ("tier", "back")]:
        got = pods_with_label_value(ni, key, value)
        assert sorted(map(id, got)) == sorted(id(pi) for pi in ni.pods if pi.pod.labels.get(key) == value), (key, value)


@pytest.mark.parametrize("change", list(_changes()))
def test_a_pair_kept_is_not_given_after_the_pods_change(change: str) -> None:
    ni = _node_info(False)
    first = pods_with_label_value(ni, "app", "web")
    assert pods_with_label_value(ni, "app", "web") is first
    _changes()[change](ni)
    again = pods_with_label_value(ni, "app", "web")
    assert sorted(map(id, again)) == sorted(id(pi) for pi in ni.pods if pi.pod.labels.get("app") == "web")


def test_a_copy_shares_the_index_until_it_changes_and_its_change_leaves_the_original_index_alone() -> None:
    ni = _node_info(False)
    original = pods_with_label(ni, "app")
    copy = ni.snapshot()
    assert pods_with_label(copy, "app") is original
    copy.remove_pod(_pods()[0])
    assert len(pods_with_label(copy, "app")["web"]) == len(original["web"]) - 1
    assert pods_with_label(ni, "app") is original
    assert len(original["web"]) == 3


def test_node_info_keeps_no_label_index_of_its_own() -> None:
    # NodeInfo.add_pod / remove_pod read as upstream's AddPodInfo / RemovePod: the index is the fast
    # core's, built when asked; a NodeInfo no core asked has none
    ni = _node_info(False)
    ni.add_pod(Pod(make_pod("extra").on("n1").label("app", "web").obj()))
    ni.remove_pod(_pods()[2])
    assert ni.label_index is None


def test_the_core_is_the_module_function() -> None:
    ni = _node_info(False)
    sel = LabelSelector({"matchLabels": {"app": "web"}})
    assert list(fast(ni, sel)) == list(pods_maybe_matching(ni, sel))


def _term(selector: dict | None, namespaces: frozenset[str], ns_selector: dict | None = None,
          key: str = "topology.kubernetes.io/zone") -> AffinityTerm:
    return AffinityTerm(namespaces, LabelSelector(selector), key, LabelSelector(ns_selector))


# (required affinity terms, required anti-affinity terms) of an incoming pod, merged
TERMS = {
    "an anti-affinity term of one pair in its own namespace": ([], [_term({"matchLabels": {"app": "web"}}, frozenset({"default"}))]),
    "an anti-affinity term of any namespace (an empty namespaceSelector)":
        ([], [_term({"matchLabels": {"app": "web"}}, frozenset(), {})]),
    "an anti-affinity term of matchExpressions in two namespaces":
        ([], [_term({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]},
                    frozenset({"default", "other"}))]),
    "two affinity terms a pod must both match":
        ([_term({"matchLabels": {"app": "web"}}, frozenset({"default", "other"})),
          _term({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]}, frozenset({"default"}),
                key="kubernetes.io/hostname")], []),
    "an affinity term with an empty selector and an anti-affinity term with a missing one":
        ([_term({}, frozenset({"other"}))], [_term(None, frozenset({"default"}))]),
}


@pytest.mark.parametrize("which", list(_changed_node_infos()))
@pytest.mark.parametrize("name", list(TERMS))
def test_incoming_counts_are_the_same_over_the_index(name: str, which: str) -> None:
    ni = _changed_node_infos()[which]
    ni.node.labels["kubernetes.io/hostname"] = "n1"
    affinity, anti = TERMS[name]
    assert incoming_counts(affinity, anti, [ni], fast) == incoming_counts(affinity, anti, [ni], node_pods)
