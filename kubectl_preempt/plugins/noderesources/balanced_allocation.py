"""NodeResourcesBalancedAllocation: favour nodes whose resources would be used in even
proportions (mirrors noderesources/balanced_allocation.go).

v1.34.1 scores the balance with the pod added. Since kubernetes/kubernetes#135573 (v1.35) the score
is how much the pod improves the balance: 50 + (50 + with - without) / 2, so a node the pod would
unbalance scores lower than one whose balance it keeps, even if that node ends more balanced."""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from ...errors import InputError
from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from ..helper.gomath import go_div
from .. import names
from .resource_allocation import MODE_BALANCED, ResourceAllocationScorer, parse_resource_specs
from ...framework import batch as signers
from .fit import set_signing, sign_resources

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
_MAX_SCORE = float(MAX_NODE_SCORE)


def balanced_resource_scorer(requested: list[int], allocatable: list[int]) -> int:
    """mirrors balancedResourceScorer (v1.34.1) and balancedResourceScore (v1.35+): 100 x (1 -
    standard deviation of the used fractions), in float64 as upstream, truncated."""
    if len(allocatable) == 2 and allocatable[0] and allocatable[1]:
        # the default cpu and memory, on the hot scoring path: the same float64 steps, inline
        f0, f1 = float(requested[0]) / float(allocatable[0]), float(requested[1]) / float(allocatable[1])
        return int((1 - abs(((1.0 if f0 > 1 else f0) - (1.0 if f1 > 1 else f1)) / 2)) * _MAX_SCORE)
    fractions: list[float] = []
    total = 0.0
    for i, alloc in enumerate(allocatable):
        if alloc == 0:
            continue
        fraction = float(requested[i]) / float(alloc)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / float(len(fractions))
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_scorer_with_and_without(requested: list[int], allocated: list[int],
                                              allocatable: list[int]) -> int:
    """mirrors balancedResourceScorer since v1.35: the balance with the pod against the balance
    without it, brought back to [50, 100] (both lie in [50, 100], their difference in [-50, 50])."""
    if len(allocatable) == 2 and allocatable[0] and allocatable[1]:
        # the default cpu and memory, on the hot scoring path: the same float64 steps, inline
        a0, a1 = float(allocatable[0]), float(allocatable[1])
        f0, f1 = float(requested[0]) / a0, float(requested[1]) / a1
        g0, g1 = float(allocated[0]) / a0, float(allocated[1]) / a1
        with_pod = int((1 - abs(((1.0 if f0 > 1 else f0) - (1.0 if f1 > 1 else f1)) / 2)) * _MAX_SCORE)
        without_pod = int((1 - abs(((1.0 if g0 > 1 else g0) - (1.0 if g1 > 1 else g1)) / 2)) * _MAX_SCORE)
    else:
        with_pod = balanced_resource_scorer(requested, allocatable)
        without_pod = balanced_resource_scorer(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return half + go_div(half + with_pod - without_pod, 2)


def scores_improvement(version: KubernetesVersion) -> bool:
    """Whether the release scores the improvement of the balance (kubernetes/kubernetes#135573, v1.36:
    balanced_allocation.go balancedResourceScorer takes the node's score with and without the pod;
    v1.35.6's still scores the node with the pod only)."""
    return version.at_least(36)


class _PreScoreState:
    __slots__ = ("pod_requests",)

    def __init__(self, pod_requests_list: list[int]) -> None:
        self.pod_requests = pod_requests_list


class BalancedAllocation:
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors BalancedAllocation.SignPod (v1.35+): the pod's request, as NodeResourcesFit signs it."""
        return sign_resources(self, pod)

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"score"})

    def __init__(self, scorer: ResourceAllocationScorer, skip_best_effort: bool = True) -> None:
        self.scorer = scorer
        # since v1.33 PreScore skips a best-effort pod (kubernetes/kubernetes#130260,
        # BalancedAllocation.PreScore's isBestEffortPod); before, it scores every pod
        self.skip_best_effort = skip_best_effort

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        reqs = self.scorer.pod_request_list(pod)
        if self.skip_best_effort and self.scorer.is_best_effort_pod(reqs):
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(reqs))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            reqs = self.scorer.pod_request_list(pod)
            if self.skip_best_effort and self.scorer.is_best_effort_pod(reqs):
                return 0, SUCCESS
        else:
            reqs = s.pod_requests
        return self.scorer.score(node_info, reqs)

    def score_extensions(self) -> None:
        return None


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> BalancedAllocation:
    """mirrors NewBalancedAllocation with ValidateNodeResourcesBalancedAllocationArgs"""
    where = "pluginConfig[NodeResourcesBalancedAllocation].args.resources"
    resources = parse_resource_specs((args or {}).get("resources"), where)
    seen: set[str] = set()
    for i, r in enumerate(resources):
        if r.name in seen:
            raise InputError(f'Duplicate value: "{r.name}"', field=f"{where}[{i}].name")
        seen.add(r.name)
        if r.weight != 1:
            raise InputError(f"{r.weight}: must be 1", field=f"{where}[{i}].weight")
    if scores_improvement(version):
        scorer = ResourceAllocationScorer(NAME, balanced_resource_scorer_with_and_without, resources,
                                          use_requested=True, mode=MODE_BALANCED, with_allocated=True)
    else:
        scorer = ResourceAllocationScorer(NAME, balanced_resource_scorer, resources, use_requested=True,
                                          mode=MODE_BALANCED)
    # the incoming pod's requests with the release's PodLevelResources / InPlacePodVerticalScaling
    # (calculatePodResourceRequest's PodResourcesOptions)
    scorer.options = version.scoring_resource_options
    plugin = BalancedAllocation(scorer, skip_best_effort=version.at_least(33))
    set_signing(plugin, handle, version)
    return plugin
