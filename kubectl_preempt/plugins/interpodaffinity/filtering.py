"""InterPodAffinity's PreFilter state and the counting behind it (interpodaffinity/filtering.go)."""
from __future__ import annotations

from typing import Iterable, Mapping

from ...framework.interface import PodsOf, node_pods
from ...framework.types import NodeInfo
from ...model.objects import Node, Pod
from .terms import AffinityTerm, pod_matches_all_terms, pod_terms, terms_of

# (topology key, topology value) -> number of matching pods or terms
TopologyCounts = dict[tuple[str, str], int]


def _update(counts: TopologyCounts, node: Node, key: str, value: int) -> None:
    # mirrors topologyToMatchedTermCount.update: an entry that drops to zero goes away
    tv = node.labels.get(key)
    if tv is None:
        return
    pair = (key, tv)
    n = counts.get(pair, 0) + value
    if n == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = n


class PreFilterState:
    """preFilterState: the three count maps, the incoming pod's merged terms, its namespace labels."""

    __slots__ = ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts",
                 "pod", "affinity_terms", "anti_affinity_terms", "namespace_labels", "self_match")

    def __init__(self, pod: Pod, affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm],
                 namespace_labels: Mapping[str, str] | None) -> None:
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.existing_anti_affinity_counts: TopologyCounts = {}
        self.affinity_counts: TopologyCounts = {}
        self.anti_affinity_counts: TopologyCounts = {}
        # the pod matches all its own affinity terms (the first pod of a self-affine group)
        self.self_match = pod_matches_all_terms(affinity_terms, pod)

    def clone(self) -> "PreFilterState":
        c = PreFilterState.__new__(PreFilterState)
        c.pod = self.pod
        c.affinity_terms = self.affinity_terms
        c.anti_affinity_terms = self.anti_affinity_terms
        c.namespace_labels = self.namespace_labels
        c.self_match = self.self_match
        c.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        c.affinity_counts = dict(self.affinity_counts)
        c.anti_affinity_counts = dict(self.anti_affinity_counts)
        return c

    def counts_none_of(self, others: Iterable[Pod]) -> bool:
        """Whether update_with_pod would change no count for any of `others`, on any node."""
        pod, ns_labels, affinity_terms = self.pod, self.namespace_labels, self.affinity_terms
        others = others if isinstance(others, list) else list(others)
        # each question over all of them in turn (a pure answer: the order asked changes nothing)
        for other in others:
            for t in pod_terms(other).required_anti_affinity:
                if t.matches(pod, ns_labels):
                    return False
        if affinity_terms and any(pod_matches_all_terms(affinity_terms, other) for other in others):
            return False
        for t in self.anti_affinity_terms:
            if any(map(t.matches_nil_ns, others)):
                return False
        return True

    def counts_none_on(self, node_info: NodeInfo, pods_of: PodsOf = node_pods) -> bool:
        """counts_none_of(every pod of `node_info`), asking each question of the pods that may
        answer it: those with required anti-affinity terms (the NodeInfo's list, as upstream keeps
        it), and those `pods_of` gives for a term's selector (a superset of those it matches, each
        tested in full; a pod matching all the affinity terms matches the first)."""
        pod, ns_labels, affinity_terms = self.pod, self.namespace_labels, self.affinity_terms
        for pi in node_info.pods_with_required_anti_affinity:
            for t in terms_of(pi).required_anti_affinity:
                if t.matches(pod, ns_labels):
                    return False
        if affinity_terms:
            for pi in pods_of(node_info, affinity_terms[0].selector):
                if pod_matches_all_terms(affinity_terms, pi.pod):
                    return False
        for t in self.anti_affinity_terms:
            for pi in pods_of(node_info, t.selector):
                if t.matches_nil_ns(pi.pod):
                    return False
        return True

    def update_with_pod(self, other: Pod, node: Node | None, multiplier: int) -> None:
        """mirrors preFilterState.updateWithPod (AddPod / RemovePod)."""
        if node is None:
            return
        for t in pod_terms(other).required_anti_affinity:
            if t.matches(self.pod, self.namespace_labels):
                _update(self.existing_anti_affinity_counts, node, t.topology_key, multiplier)
        if pod_matches_all_terms(self.affinity_terms, other):
            for t in self.affinity_terms:
                _update(self.affinity_counts, node, t.topology_key, multiplier)
        for t in self.anti_affinity_terms:
            if t.matches_nil_ns(other):
                _update(self.anti_affinity_counts, node, t.topology_key, multiplier)


def existing_anti_affinity_counts(pod: Pod, ns_labels: Mapping[str, str] | None,
                                  nodes: Iterable[NodeInfo]) -> TopologyCounts:
    """mirrors getExistingAntiAffinityCounts: existing pods whose required anti-affinity matches the pod."""
    counts: TopologyCounts = {}
    for ni in nodes:
        labels = ni.node.labels
        for existing in ni.pods_with_required_anti_affinity:
            for t in terms_of(existing).required_anti_affinity:
                if t.matches(pod, ns_labels):
                    tv = labels.get(t.topology_key)
                    if tv is not None:
                        pair = (t.topology_key, tv)
                        counts[pair] = counts.get(pair, 0) + 1
    return counts


def incoming_counts(affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm],
                    nodes: Iterable[NodeInfo], pods_of: PodsOf = node_pods) -> tuple[TopologyCounts, TopologyCounts]:
    """mirrors getIncomingAffinityAntiAffinityCounts: existing pods matching the pod's required
    terms (each node's pods as `pods_of` gives them for a term's selector; every term of a pod
    matching all of them is the first's)."""
    affinity: TopologyCounts = {}
    anti: TopologyCounts = {}
    if not affinity_terms and not anti_affinity_terms:
        return affinity, anti
    # (any namespace?, namespaces, selector) per term: matches_nil_ns, unrolled for 150,000 pods
    aff = [(t.ns_nil_match, t.namespaces, t.selector.matches) for t in affinity_terms]
    first_selector = affinity_terms[0].selector if affinity_terms else None
    anti_terms = [(t.topology_key, t.ns_nil_match, t.namespaces, t.selector.matches, t.selector.single_label(),
                   t.selector) for t in anti_affinity_terms]
    for ni in nodes:
        if not ni.pods:
            continue
        labels = ni.node.labels
        if aff:
            # a pod matching all terms adds one to each term's topology pair on this node
            n = 0
            for pi in pods_of(ni, first_selector):  # type: ignore[arg-type]
                p = pi.pod
                ns, pl = p.namespace, p.labels
                for any_ns, namespaces, matches in aff:
                    if not ((any_ns or ns in namespaces) and matches(pl)):
                        break
                else:
                    n += 1
            if n:
                for t in affinity_terms:
                    tv = labels.get(t.topology_key)
                    if tv is not None:
                        pair = (t.topology_key, tv)
                        affinity[pair] = affinity.get(pair, 0) + n
        for key, any_ns, namespaces, matches, one, selector in anti_terms:
            tv = labels.get(key)
            if tv is None:
                continue
            pods = pods_of(ni, selector)
            n = 0
            if one is not None:
                # the selector's one pair tested inline
                k, v = one
                for pi in pods:
                    p = pi.pod
                    if (any_ns or p.namespace in namespaces) and p.labels.get(k) == v:
                        n += 1
            else:
                for pi in pods:
                    p = pi.pod
                    if (any_ns or p.namespace in namespaces) and matches(p.labels):
                        n += 1
            if n:
                pair = (key, tv)
                anti[pair] = anti.get(pair, 0) + n
    return affinity, anti


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """mirrors satisfyExistingPodsAntiAffinity."""
    counts = state.existing_anti_affinity_counts
    if counts:
        for pair in node.labels.items():
            if counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """mirrors satisfyPodAntiAffinity."""
    counts = state.anti_affinity_counts
    if counts:
        labels = node.labels
        for t in state.anti_affinity_terms:
            tv = labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(state: PreFilterState, node: Node) -> bool:
    """mirrors satisfyPodAffinity, with its special case for the first pod of a self-affine group."""
    pods_exist = True
    labels = node.labels
    counts = state.affinity_counts
    for t in state.affinity_terms:
        tv = labels.get(t.topology_key)
        if tv is None:
            # all topology labels must exist on the node
            return False
        if counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # no pod anywhere matches, and the pod matches its own terms: let it in
        return not counts and state.self_match
    return True
