"""PodTopologySpread's PreScore state and score arithmetic (podtopologyspread/scoring.go)."""
from __future__ import annotations

import math

from ...framework.interface import MAX_NODE_SCORE, NodeScore
from ...framework.types import NodeInfo
from ...model.objects import Pod
from ..helper.gomath import go_div, go_round
from ..helper.nodeaffinity import RequiredNodeAffinity
from ...framework.interface import PodsOf, node_pods
from .common import LABEL_HOSTNAME, Constraint, count_pods_match_selector, node_labels_match_spread_constraints

INVALID_SCORE = -1
MAX_INT64 = 2**63 - 1


class PreScoreState:
    """preScoreState; never changed after PreScore, so a clone is the same object."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts", "topology_normalizing_weight")

    def __init__(self, constraints: list[Constraint]) -> None:
        self.constraints = constraints
        # nodes missing some constraint's topology key: scored 0
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = [{} for _ in constraints]
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> "PreScoreState":
        return self


def topology_normalizing_weight(size: int) -> float:
    """mirrors topologyNormalizingWeight: log(size + 2), so small topologies are not watered down."""
    return math.log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """mirrors scoreForCount: maxSkew-1 is added to tolerate skews."""
    return float(cnt) * tp_weight + float(max_skew - 1)


def init_state(s: PreScoreState, filtered_nodes: list[NodeInfo], require_all_topologies: bool) -> None:
    """mirrors initPreScoreState after the constraints are known."""
    constraints = s.constraints
    topo_size = [0] * len(constraints)
    for ni in filtered_nodes:
        labels = ni.node.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
            s.ignored_nodes.add(ni.name)
            continue
        for i, c in enumerate(constraints):
            # per-node counts are calculated during Score
            if c.topology_key == LABEL_HOSTNAME:
                continue
            # a missing label reads as "" (only possible with system-default spreading)
            value = labels.get(c.topology_key, "")
            m = s.topology_value_to_pod_counts[i]
            if value not in m:
                m[value] = 0
                topo_size[i] += 1
    weights = []
    for i, c in enumerate(constraints):
        sz = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            sz = len(filtered_nodes) - len(s.ignored_nodes)
        weights.append(topology_normalizing_weight(sz))
    s.topology_normalizing_weight = weights


def count_all_nodes(s: PreScoreState, pod: Pod, all_nodes: list[NodeInfo], require_all_topologies: bool,
                    required: RequiredNodeAffinity, pods_of: PodsOf = node_pods) -> None:
    """mirrors processAllNode: pods per topology value of the candidate nodes, over every node
    (each node's pods as `pods_of` gives them: framework/interface.py pods_of)."""
    constraints = s.constraints
    ns = pod.namespace
    counts = s.topology_value_to_pod_counts
    # the hostname constraint is counted in Score; nothing to do here when it is the only one
    if all(c.topology_key == LABEL_HOSTNAME for c in constraints):
        return
    for ni in all_nodes:
        node = ni.node
        labels = node.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
            continue
        counted: dict[int, int] = {}
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(pod, node, required):
                continue
            value = labels.get(c.topology_key, "")
            m = counts[i]
            if value not in m:
                continue
            n = counted.get(id(c.selector))
            if n is None:
                n = counted[id(c.selector)] = count_pods_match_selector(pods_of(ni, c.selector), c.selector, ns)
            m[value] += n


def score_node(s: PreScoreState, pod: Pod, ni: NodeInfo, pods_of: PodsOf = node_pods) -> int:
    """mirrors Score: the weighted matching pods of the node's domains, rounded half away from zero
    (the node's pods as `pods_of` gives them: framework/interface.py pods_of)."""
    if ni.name in s.ignored_nodes:
        return 0
    labels = ni.node.labels
    score = 0.0
    for i, c in enumerate(s.constraints):
        tp_val = labels.get(c.topology_key)
        if tp_val is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = count_pods_match_selector(pods_of(ni, c.selector), c.selector, pod.namespace)
        else:
            cnt = s.topology_value_to_pod_counts[i].get(tp_val, 0)
        score += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
    return go_round(score)


def normalize(s: PreScoreState, scores: list[NodeScore]) -> None:
    """mirrors NormalizeScore: fewer matching pods score higher; ignored nodes score 0."""
    min_score = MAX_INT64
    max_score = 0
    for ns in scores:
        if ns.name in s.ignored_nodes:
            ns.score = INVALID_SCORE
            continue
        if ns.score < min_score:
            min_score = ns.score
        if ns.score > max_score:
            max_score = ns.score
    for ns in scores:
        if ns.score == INVALID_SCORE:
            ns.score = 0
            continue
        if max_score == 0:
            ns.score = MAX_NODE_SCORE
            continue
        ns.score = go_div(MAX_NODE_SCORE * (max_score + min_score - ns.score), max_score)
