"""Constraints as PodTopologySpread reads them (podtopologyspread/common.go)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ...errors import InputError
from ...framework.podinfo import PodInfo
from ...model.objects import Node, Pod
from ...model.selectors import LabelSelector
from ..helper.nodeaffinity import RequiredNodeAffinity
from ..helper.taint import do_not_schedule_taints_filter, find_matching_untolerated_taint

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
NODE_INCLUSION_POLICY_HONOR = "Honor"
NODE_INCLUSION_POLICY_IGNORE = "Ignore"

# systemDefaultConstraints, in upstream's order (the score sums them in this order)
SYSTEM_DEFAULT_CONSTRAINTS: list[dict[str, Any]] = [
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
]


class Constraint:
    """topologySpreadConstraint: a v1.TopologySpreadConstraint with its selector parsed."""

    __slots__ = ("max_skew", "topology_key", "selector", "min_domains", "node_affinity_policy",
                 "node_taints_policy")

    def __init__(self, max_skew: int, topology_key: str, selector: LabelSelector, min_domains: int,
                 node_affinity_policy: str, node_taints_policy: str) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy

    def with_selector(self, selector: LabelSelector) -> "Constraint":
        return Constraint(self.max_skew, self.topology_key, selector, self.min_domains,
                          self.node_affinity_policy, self.node_taints_policy)

    def match_node_inclusion_policies(self, pod: Pod, node: Node, required: RequiredNodeAffinity) -> bool:
        """mirrors topologySpreadConstraint.matchNodeInclusionPolicies."""
        if self.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and not required.matches(node):
            return False
        if self.node_taints_policy == NODE_INCLUSION_POLICY_HONOR:
            if find_matching_untolerated_taint(node.taints, pod.tolerations, do_not_schedule_taints_filter) is not None:
                return False
        return True

    def __repr__(self) -> str:
        return (f"Constraint({self.topology_key!r}, maxSkew={self.max_skew}, minDomains={self.min_domains}, "
                f"nodeAffinityPolicy={self.node_affinity_policy}, nodeTaintsPolicy={self.node_taints_policy})")


def _merge_label_set_with_selector(match_labels: dict[str, str], s: LabelSelector) -> LabelSelector:
    """mirrors mergeLabelSetWithSelector: a Nothing() selector stays Nothing()."""
    if s.nothing:
        return s
    return s.with_requirements([(k, "In", frozenset((v,))) for k, v in match_labels.items()])


def filter_constraints(constraints: Iterable[Mapping[str, Any]], pod_labels: Mapping[str, str],
                       action: str) -> list[Constraint]:
    """mirrors filterTopologySpreadConstraints: the constraints with this whenUnsatisfiable,
    matchLabelKeys merged into the selector. Raises InputError for a selector that does not parse."""
    out = []
    for c in constraints:
        if (c.get("whenUnsatisfiable") or "") != action:
            continue
        raw_sel = c.get("labelSelector")
        if raw_sel is not None and not isinstance(raw_sel, dict):
            raise InputError("labelSelector must be an object")
        selector = LabelSelector(raw_sel)
        keys = c.get("matchLabelKeys") or ()
        if keys:
            match_labels = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match_labels:
                selector = _merge_label_set_with_selector(match_labels, selector)
        min_domains = c.get("minDomains")
        out.append(Constraint(
            int(c.get("maxSkew") or 0), c.get("topologyKey") or "", selector,
            1 if min_domains is None else int(min_domains),
            c.get("nodeAffinityPolicy") or NODE_INCLUSION_POLICY_HONOR,
            c.get("nodeTaintsPolicy") or NODE_INCLUSION_POLICY_IGNORE))
    return out


def node_labels_match_spread_constraints(labels: Mapping[str, str], constraints: list[Constraint]) -> bool:
    """mirrors nodeLabelsMatchSpreadConstraints: every topology key is on the node."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


def count_pods_match_selector(pods: Iterable[PodInfo], selector: LabelSelector, namespace: str) -> int:
    """mirrors countPodsMatchSelector: an empty selector counts nothing; terminating pods and
    other namespaces' pods are not counted."""
    # no pods to count (with the fast cores' label index, most nodes' pods for the selector's
    # pair): nothing to ask of the selector
    if not pods or selector.empty:
        return 0
    n = 0
    one = selector.single_label()
    if one is not None:
        # the selector's one pair tested inline: PreFilter counts every pod of the snapshot
        key, value = one
        for pi in pods:
            p = pi.pod
            if p.namespace == namespace and not p.deletion_timestamp and p.labels.get(key) == value:
                n += 1
        return n
    matches = selector.matches
    for pi in pods:
        p = pi.pod
        if p.namespace == namespace and not p.deletion_timestamp and matches(p.labels):
            n += 1
    return n
