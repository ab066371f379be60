"""The nodeorder plugin (pkg/scheduler/plugins/nodeorder): kube-scheduler v1.16's priorities, each
0..10, times its weight (arguments `leastrequested.weight`, `mostrequested.weight`,
`nodeaffinity.weight`, `podaffinity.weight`, `balancedresource.weight`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ...model.memory import remembered
from ...model.quantity import milli_value, value
from ..api.pod_info import nonzero_request
from ...plugins.helper.nodeaffinity import PreferredSchedulingTerms
from ..api.job_info import TaskInfo
from ..api.node_info import NodeInfo
from ..framework.arguments import get_int
from .util import pod_matches_term, same_topology
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "nodeorder"
LEAST_REQUESTED_WEIGHT = "leastrequested.weight"
MOST_REQUESTED_WEIGHT = "mostrequested.weight"
NODE_AFFINITY_WEIGHT = "nodeaffinity.weight"
POD_AFFINITY_WEIGHT = "podaffinity.weight"
BALANCED_RESOURCE_WEIGHT = "balancedresource.weight"

MAX_PRIORITY = 10  # schedulerapi.MaxPriority in v1.16
HARD_POD_AFFINITY_SYMMETRIC_WEIGHT = 1


@dataclass
class PriorityConfig:
    name: str
    # scores of the nodes, in the order given
    function: Callable[[TaskInfo, list[NodeInfo]], list[int]]
    weight: int
    # the score of one node, for priorities that read that node alone
    node_function: Callable[[TaskInfo, NodeInfo], int] | None = None
    # 0 on every node when neither the pod nor any pod in the cluster has affinity
    zero_without_affinity: bool = False


def _allocatable(node: NodeInfo) -> tuple[int, int]:
    alloc = node.node.status.get("allocatable") or {}
    return _allocatable_values(alloc.get("cpu"), alloc.get("memory"))


@remembered("batch.plugins.nodeorder allocatable values", 256)
def _allocatable_values(cpu: Any, memory: Any) -> tuple[int, int]:
    """CPU in millicores and memory in bytes of status.allocatable (0 when absent); nodes of one
    type share their quantity strings, so each is parsed once."""
    return (milli_value(cpu) if cpu is not None else 0, value(memory) if memory is not None else 0)


def _requested(task: TaskInfo, node: NodeInfo) -> tuple[tuple[int, int], tuple[int, int]]:
    cpu, mem = nonzero_request(task.pod)
    return (node.non0_cpu + cpu, node.non0_mem + mem), _allocatable(node)


def _least(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return ((capacity - requested) * MAX_PRIORITY) // capacity


def _most(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (requested * MAX_PRIORITY) // capacity


def least_requested_node(task: TaskInfo, n: NodeInfo) -> int:
    (cpu, mem), (acpu, amem) = _requested(task, n)
    return (_least(cpu, acpu) + _least(mem, amem)) // 2


def most_requested_node(task: TaskInfo, n: NodeInfo) -> int:
    (cpu, mem), (acpu, amem) = _requested(task, n)
    return (_most(cpu, acpu) + _most(mem, amem)) // 2


def balanced_resource_allocation_node(task: TaskInfo, n: NodeInfo) -> int:
    (cpu, mem), (acpu, amem) = _requested(task, n)
    cf = cpu / acpu if acpu else 1.0
    mf = mem / amem if amem else 1.0
    if cf >= 1 or mf >= 1:
        return 0
    return int((1 - abs(cf - mf)) * MAX_PRIORITY)


def least_requested(task: TaskInfo, nodes: list[NodeInfo]) -> list[int]:
    return [least_requested_node(task, n) for n in nodes]


def most_requested(task: TaskInfo, nodes: list[NodeInfo]) -> list[int]:
    return [most_requested_node(task, n) for n in nodes]


def balanced_resource_allocation(task: TaskInfo, nodes: list[NodeInfo]) -> list[int]:
    return [balanced_resource_allocation_node(task, n) for n in nodes]


def node_affinity(task: TaskInfo, nodes: list[NodeInfo]) -> list[int]:
    """CalculateNodeAffinityPriorityMap, then NormalizeReduce(MaxPriority, false)."""
    na = (task.pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    terms = PreferredSchedulingTerms.parse(na.get("preferredDuringSchedulingIgnoredDuringExecution") or ())
    scores = [terms.score(n.node) if terms is not None else 0 for n in nodes]
    top = max(scores, default=0)
    if top == 0:
        return scores
    return [MAX_PRIORITY * s // top for s in scores]


def _weighted_terms(pod: Any, kind: str) -> list[tuple[dict, int]]:
    aff = (pod.spec.get("affinity") or {}).get(kind) or {}
    return [((t.get("podAffinityTerm") or {}), int(t.get("weight") or 0))
            for t in aff.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]


class InterPodAffinity:
    """CalculateInterPodAffinityPriority (v1.16) over the nodes that passed the predicates."""

    def __init__(self, ssn: "Session") -> None:
        self.ssn = ssn

    def _node_of(self, pod: Any) -> Any:
        # mirrors nodeorder's cachedNodeInfo.GetNodeInfo: a pod not yet bound names no node, and
        # kube-batch answers with the first node holding such a pod
        name = pod.node_name
        ni = self.ssn.nodes.get(name)
        if ni is not None:
            return ni.node
        for cand in self.ssn.nodes.values():
            if any(not p.node_name for p in cand.pods()):
                return cand.node
        return None

    def __call__(self, task: TaskInfo, nodes: list[NodeInfo]) -> list[int]:
        pod = task.pod
        aff = pod.spec.get("affinity") or {}
        has_aff = bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))
        counts = {n.name: 0 for n in nodes}

        def process_term(term: dict, owner: Any, to_check: Any, fixed: Any, weight: int) -> None:
            if fixed is None or not pod_matches_term(to_check, owner, term):
                return
            for n in nodes:
                if same_topology(n.node, fixed, term.get("topologyKey") or ""):
                    counts[n.name] += weight

        for ni in nodes:
            for existing in ni.pods():
                eaff = existing.spec.get("affinity") or {}
                if not has_aff and not (eaff.get("podAffinity") or eaff.get("podAntiAffinity")):
                    continue
                enode = self._node_of(existing)
                if has_aff:
                    for term, w in _weighted_terms(pod, "podAffinity"):
                        process_term(term, pod, existing, enode, w)
                    for term, w in _weighted_terms(pod, "podAntiAffinity"):
                        process_term(term, pod, existing, enode, -w)
                for term in ((eaff.get("podAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or ()):
                    process_term(term, existing, pod, enode, HARD_POD_AFFINITY_SYMMETRIC_WEIGHT)
                for term, w in _weighted_terms(existing, "podAffinity"):
                    process_term(term, existing, pod, enode, w)
                for term, w in _weighted_terms(existing, "podAntiAffinity"):
                    process_term(term, existing, pod, enode, -w)
        hi = max([0, *counts.values()])
        lo = min([0, *counts.values()])
        out = []
        for n in nodes:
            out.append(int(MAX_PRIORITY * ((counts[n.name] - lo) / (hi - lo))) if hi - lo > 0 else 0)
        return out


class NodeOrderPlugin(Plugin):
    name = PLUGIN_NAME

    def on_session_open(self, ssn: "Session") -> None:
        a = self.arguments
        ssn.add_node_prioritizers(self.name, [
            PriorityConfig("LeastRequestedPriority", least_requested, get_int(a, LEAST_REQUESTED_WEIGHT, 1),
                           least_requested_node),
            PriorityConfig("MostRequestedPriority", most_requested, get_int(a, MOST_REQUESTED_WEIGHT, 0),
                           most_requested_node),
            PriorityConfig("NodeAffinityPriority", node_affinity, get_int(a, NODE_AFFINITY_WEIGHT, 1),
                           zero_without_affinity=True),
            PriorityConfig("InterPodAffinityPriority", InterPodAffinity(ssn), get_int(a, POD_AFFINITY_WEIGHT, 1),
                           zero_without_affinity=True),
            PriorityConfig("BalancedResourceAllocation", balanced_resource_allocation,
                           get_int(a, BALANCED_RESOURCE_WEIGHT, 1), balanced_resource_allocation_node),
        ])
