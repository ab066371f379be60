"""InterPodAffinity's PreScore state and score arithmetic (interpodaffinity/scoring.go)."""
from __future__ import annotations

from typing import Mapping

from ...framework.interface import MAX_NODE_SCORE, NodeScore
from ...framework.podinfo import PodInfo
from ...framework.types import NodeInfo
from ...model.objects import Node, Pod
from .terms import NO_TERMS, AffinityTerm, PodTerms, pod_terms, terms_of

# topology key -> topology value -> summed weight
ScoreMap = dict[str, dict[str, int]]


class PreScoreState:
    """preScoreState; never changed after PreScore, so a clone is the same object."""

    __slots__ = ("topology_score", "pod", "preferred_affinity", "preferred_anti_affinity", "namespace_labels")

    def __init__(self, pod: Pod, preferred_affinity: list[AffinityTerm], preferred_anti_affinity: list[AffinityTerm],
                 namespace_labels: Mapping[str, str] | None) -> None:
        self.topology_score: ScoreMap = {}
        self.pod = pod
        self.preferred_affinity = preferred_affinity
        self.preferred_anti_affinity = preferred_anti_affinity
        self.namespace_labels = namespace_labels

    def clone(self) -> "PreScoreState":
        return self


def _add(score_map: ScoreMap, node: Node, key: str, value: int) -> None:
    # mirrors the tail of scoreMap.processTerm
    tv = node.labels.get(key)
    if tv is not None:
        inner = score_map.get(key)
        if inner is None:
            inner = score_map[key] = {}
        inner[tv] = inner.get(tv, 0) + value


def process_existing_pod(state: PreScoreState, existing: Pod, node: Node, incoming: Pod,
                         hard_pod_affinity_weight: int, score_map: ScoreMap) -> None:
    """mirrors processExistingPod."""
    if not node.labels:
        return
    # the incoming pod's preferred terms against the existing pod (merged namespaces: nil labels)
    for t in state.preferred_affinity:
        if t.matches_nil_ns(existing):
            _add(score_map, node, t.topology_key, t.weight)
    for t in state.preferred_anti_affinity:
        if t.matches_nil_ns(existing):
            _add(score_map, node, t.topology_key, -t.weight)
    et = pod_terms(existing)
    if et is not NO_TERMS:
        _process_existing_terms(et, node, incoming, state.namespace_labels, hard_pod_affinity_weight, score_map)


def _process_existing_terms(et: PodTerms, node: Node, incoming: Pod, ns_labels: Mapping[str, str] | None,
                            hard_pod_affinity_weight: int, score_map: ScoreMap) -> None:
    # the existing pod's terms against the incoming pod, with its namespace's labels
    if hard_pod_affinity_weight > 0:
        for t in et.required_affinity:
            if t.matches(incoming, ns_labels):
                _add(score_map, node, t.topology_key, hard_pod_affinity_weight)
    for t in et.preferred_affinity:
        if t.matches(incoming, ns_labels):
            _add(score_map, node, t.topology_key, t.weight)
    for t in et.preferred_anti_affinity:
        if t.matches(incoming, ns_labels):
            _add(score_map, node, t.topology_key, -t.weight)


def _incoming_terms_on_node(terms: list[AffinityTerm], pods: list[PodInfo], labels: Mapping[str, str],
                            sign: int, score_map: ScoreMap) -> None:
    # the incoming pod's preferred terms against every pod of one node, in bulk
    for t in terms:
        tv = labels.get(t.topology_key)
        if tv is None:
            continue
        sel = t.selector.matches
        any_ns, namespaces = t.ns_nil_match, t.namespaces
        n = 0
        for pi in pods:
            p = pi.pod
            if (any_ns or p.namespace in namespaces) and sel(p.labels):
                n += 1
        if n:
            inner = score_map.get(t.topology_key)
            if inner is None:
                inner = score_map[t.topology_key] = {}
            inner[tv] = inner.get(tv, 0) + sign * n * t.weight


def build_topology_score(state: PreScoreState, incoming: Pod, nodes: list[NodeInfo], all_pods: bool,
                         hard_pod_affinity_weight: int) -> bool:
    """Fill state.topology_score; False when no node contributed anything (PreScore then skips)."""
    contributed = False
    total = state.topology_score
    ns_labels = state.namespace_labels
    for ni in nodes:
        pods = ni.pods if all_pods else ni.pods_with_affinity
        node = ni.node
        if not pods or not node.labels:
            continue
        local: ScoreMap = {}
        # processExistingPod per pod, regrouped: sums of integers do not depend on the order
        if all_pods:
            _incoming_terms_on_node(state.preferred_affinity, pods, node.labels, 1, local)
            _incoming_terms_on_node(state.preferred_anti_affinity, pods, node.labels, -1, local)
        for existing in (ni.pods_with_affinity if all_pods else pods):
            if not all_pods:
                process_existing_pod(state, existing.pod, node, incoming, hard_pod_affinity_weight, local)
            else:
                et = terms_of(existing)
                if et is not NO_TERMS:
                    _process_existing_terms(et, node, incoming, ns_labels, hard_pod_affinity_weight, local)
        if local:
            contributed = True
            for key, values in local.items():
                inner = total.get(key)
                if inner is None:
                    total[key] = values
                else:
                    for tv, v in values.items():
                        inner[tv] = inner.get(tv, 0) + v
    return contributed


def score_node(state: PreScoreState, node: Node) -> int:
    """mirrors Score: the sum of the values of the node's topology pairs."""
    score = 0
    labels = node.labels
    for key, values in state.topology_score.items():
        tv = labels.get(key)
        if tv is not None:
            score += values.get(tv, 0)
    return score


def normalize(state: PreScoreState, scores: list[NodeScore]) -> None:
    """mirrors NormalizeScore: min-max scaling to [0, 100], truncating the float product."""
    if not state.topology_score or not scores:
        return
    min_count = min(s.score for s in scores)
    max_count = max(s.score for s in scores)
    diff = max_count - min_count
    for s in scores:
        f = 0.0
        if diff > 0:
            f = float(MAX_NODE_SCORE) * (float(s.score - min_count) / float(diff))
        s.score = int(f)
