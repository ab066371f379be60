"""PodTopologySpread's PreFilter state (podtopologyspread/filtering.go)."""
from __future__ import annotations

from typing import Iterable

from ...framework.interface import PodsOf, node_pods
from ...framework.types import NodeInfo
from ...model.objects import Node, Pod
from ..helper.nodeaffinity import RequiredNodeAffinity
from .common import Constraint, count_pods_match_selector, node_labels_match_spread_constraints

MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """criticalPaths: two (topology value, match number) paths; [0] always holds the minimum.

    Two suffice because preemption only removes pods from one node, on its own copy of the state.
    """

    __slots__ = ("values", "nums")

    def __init__(self) -> None:
        self.values = ["", ""]
        self.nums = [MAX_INT32, MAX_INT32]

    def copy(self) -> "CriticalPaths":
        c = CriticalPaths.__new__(CriticalPaths)
        c.values = list(self.values)
        c.nums = list(self.nums)
        return c

    def update(self, tp_val: str, num: int) -> None:
        """mirrors criticalPaths.update."""
        values, nums = self.values, self.nums
        i = 0 if tp_val == values[0] else 1 if tp_val == values[1] else -1
        if i >= 0:
            nums[i] = num
            if nums[0] > nums[1]:
                values[0], values[1] = values[1], values[0]
                nums[0], nums[1] = nums[1], nums[0]
        elif num < nums[0]:
            values[1], nums[1] = values[0], nums[0]
            values[0], nums[0] = tp_val, num
        elif num < nums[1]:
            values[1], nums[1] = tp_val, num

    def __repr__(self) -> str:
        return f"CriticalPaths({self.values[0]!r}:{self.nums[0]}, {self.values[1]!r}:{self.nums[1]})"


class PreFilterState:
    """preFilterState: per constraint, the matching pods per topology value and the critical paths."""

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num", "required", "_owned")

    def __init__(self, constraints: list[Constraint], required: RequiredNodeAffinity | None = None) -> None:
        self.constraints = constraints
        self.critical_paths: list[CriticalPaths] = [CriticalPaths() for _ in constraints]
        self.tp_value_to_match_num: list[dict[str, int]] = [{} for _ in constraints]
        # the incoming pod's required node affinity, for updates by AddPod/RemovePod
        self.required = required
        # which count maps this state may change in place; clones share them until one writes
        # (a hostname constraint's map has an entry per node, and preemption clones per node)
        self._owned = [True] * len(constraints)

    def min_match_num(self, i: int, min_domains: int) -> int:
        """mirrors preFilterState.minMatchNum: 0 while fewer domains than minDomains exist."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].nums[0]

    def clone(self) -> "PreFilterState":
        c = PreFilterState.__new__(PreFilterState)
        c.constraints = self.constraints
        c.required = self.required
        c.critical_paths = [p.copy() for p in self.critical_paths]
        c.tp_value_to_match_num = list(self.tp_value_to_match_num)
        c._owned = [False] * len(self.constraints)
        self._owned = [False] * len(self.constraints)
        return c

    def counts_none_of(self, others: Iterable[Pod], preemptor: Pod) -> bool:
        """Whether update_with_pod would change no count for any of `others`, on any node: each is
        in another namespace or matches no constraint's selector."""
        ns = preemptor.namespace
        same = [other.labels for other in others if other.namespace == ns]
        if not same:
            return True
        # default constraints share one selector: each distinct one asked once per pod
        for sel in {id(c.selector): c.selector for c in self.constraints}.values():
            if any(map(sel.matches, same)):
                return False
        return True

    def counts_none_on(self, node_info: NodeInfo, preemptor: Pod, pods_of: PodsOf = node_pods) -> bool:
        """counts_none_of(every pod of `node_info`), each constraint's selector asked of the pods
        `pods_of` gives for it (a superset of those it matches, each tested in full)."""
        ns = preemptor.namespace
        for sel in {id(c.selector): c.selector for c in self.constraints}.values():
            for pi in pods_of(node_info, sel):
                if pi.pod.namespace == ns and sel.matches(pi.labels):
                    return False
        return True

    def update_with_pod(self, updated: Pod, preemptor: Pod, node: Node | None, delta: int) -> None:
        """mirrors PodTopologySpread.updateWithPod (node inclusion policies on, as in v1.34)."""
        if updated.namespace != preemptor.namespace or node is None:
            return
        labels = node.labels
        if not node_labels_match_spread_constraints(labels, self.constraints):
            return
        pod_labels = updated.labels
        for i, c in enumerate(self.constraints):
            if not c.selector.matches(pod_labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node, self.required):
                continue
            v = labels[c.topology_key]
            m = self.tp_value_to_match_num[i]
            if not self._owned[i]:
                m = self.tp_value_to_match_num[i] = dict(m)
                self._owned[i] = True
            m[v] = m.get(v, 0) + delta
            self.critical_paths[i].update(v, m[v])


def compute_counts(s: PreFilterState, pod: Pod, nodes: list, pods_of: PodsOf = node_pods) -> None:
    """mirrors the counting of calPreFilterState, over every node of the snapshot (each node's
    pods as `pods_of` gives them: framework/interface.py pods_of)."""
    constraints = s.constraints
    required = s.required
    ns = pod.namespace
    maps = s.tp_value_to_match_num
    # per constraint, what the loop reads of it, found once (not once per node of 5,000); default
    # constraints share one selector: a node's pods are counted once for all of them (`first`:
    # the position of the first constraint of that selector)
    first: dict[int, int] = {}
    per = [(c, c.topology_key, c.selector, maps[i], first.setdefault(id(c.selector), i))
           for i, c in enumerate(constraints)]
    shared = len(first) < len(constraints)
    for ni in nodes:
        node = ni.node
        labels = node.labels
        if not node_labels_match_spread_constraints(labels, constraints):
            continue
        counted: dict[int, int] | None = {} if shared else None
        for c, key, selector, m, i in per:
            if not c.match_node_inclusion_policies(pod, node, required):
                continue
            value = labels[key]
            count = counted.get(i) if counted is not None else None
            if count is None:
                count = count_pods_match_selector(pods_of(ni, selector), selector, ns)
                if counted is not None:
                    counted[i] = count
            m[value] = m.get(value, 0) + count
    for i in range(len(constraints)):
        paths = s.critical_paths[i]
        for value, num in maps[i].items():
            paths.update(value, num)


def fits(s: PreFilterState, pod: Pod, node: Node) -> tuple[bool, bool]:
    """mirrors Filter's loop: (ok, missing_label) for this node."""
    labels = node.labels
    pod_labels = pod.labels
    for i, c in enumerate(s.constraints):
        tp_val = labels.get(c.topology_key)
        if tp_val is None:
            return False, True
        min_match = s.min_match_num(i, c.min_domains)
        self_match = 1 if c.selector.matches(pod_labels) else 0
        match_num = s.tp_value_to_match_num[i].get(tp_val, 0)
        if match_num + self_match - min_match > c.max_skew:
            return False, False
    return True, False
