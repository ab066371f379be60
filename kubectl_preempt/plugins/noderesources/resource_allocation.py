"""The scoring machinery both resource plugins share (mirrors noderesources/resource_allocation.go).

A scorer looks at a list of resources; for each it takes the node's allocatable and what the
node would have requested with the pod added, and a strategy turns those two lists into a score.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from ...errors import InputError, quote
from ...framework.status import SUCCESS, Status
from ...framework.types import NodeInfo
from ...framework.podinfo import UNSET, pod_info
from ...model.objects import Pod
from ...model.resources import (CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, EPHEMERAL_STORAGE,
                                MEMORY, PodResourcesOptions, is_scalar_resource_name, pod_requests)
from ..helper.gomath import go_div

ERR_RESOURCES_NOT_FOUND = "resources not found"

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest, given to containers that request
# nothing when scoring, so that a node full of request-less pods does not look empty
NON_MISSING_CONTAINER_REQUESTS: dict[str, Fraction] = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}


class ResourceSpec(NamedTuple):
    name: str
    weight: int


DEFAULT_RESOURCES = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))


def parse_resource_specs(raw: Any, where: str) -> list[ResourceSpec]:
    """[{name, weight}] with the v1 defaults: none given means cpu and memory, weight 0 means 1."""
    if not raw:
        return list(DEFAULT_RESOURCES)
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise InputError("expected a list of {name, weight}", field=where)
    out = []
    for i, r in enumerate(raw):
        if not isinstance(r, Mapping) or not isinstance(r.get("name"), str):
            raise InputError("resource needs a name", field=f"{where}[{i}].name")
        w = r.get("weight") or 0
        if not isinstance(w, int) or isinstance(w, bool):
            raise InputError(f"weight {quote(w)} is not an integer", field=f"{where}[{i}].weight")
        out.append(ResourceSpec(r["name"], w or 1))
    return out


def weighted_average_scorer(resources: Sequence[ResourceSpec],
                            resource_score: Callable[[int, int], int]) -> Callable[[list[int], list[int]], int]:
    """The weighted mean (truncated) of resource_score over the resources the node has any of, as
    leastResourceScorer and mostResourceScorer both average."""
    weights = [r.weight for r in resources]

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            node_score += resource_score(requested[i], alloc) * weights[i]
            weight_sum += weights[i]
        return go_div(node_score, weight_sum) if weight_sum else 0

    return score


def quantity_in_scheduler_units(name: str, q: Fraction | None) -> int:
    """Quantity.MilliValue() for cpu, Value() for the rest: rounded up."""
    if q is None:
        return 0
    # ceil(q) or ceil(1000 q), on the exact numerator and denominator (no Fraction arithmetic)
    n, d = q.numerator, q.denominator
    if name == CPU:
        n *= 1000
    return -(-n // d)


# which PodResourcesOptions a request list is computed with (see pod_request_list)
MODE_FIT_SCORE = "fit-score"          # NodeResourcesFit scoring: spec only, no pod-level, defaults
MODE_BALANCED = "balanced"            # BalancedAllocation: status resources, pod-level, no defaults


def _requests(pod: Pod, mode: str, options: PodResourcesOptions | None = None) -> dict[str, Fraction]:
    pi = pod.info or pod_info(pod)
    per_mode = pi.score_requests
    if per_mode is UNSET:
        # PodInfo.score_requests: filled in per mode here and per resource list in pod_request_list
        per_mode = pi.score_requests = {}
    key: Any = mode if options is None else (mode, options)
    cached = per_mode.get(key)
    if cached is None:
        if options is not None:
            # a release whose scorers read the gates (v1.32 and older read the process's gates in
            # calculatePodResourceRequest; v1.33's BalancedAllocation its feature.Features)
            cached = pod_requests(pod.spec, pod.status, non_missing=NON_MISSING_CONTAINER_REQUESTS
                                  if mode == MODE_FIT_SCORE else None, options=options)
        elif mode == MODE_FIT_SCORE:
            # Fit builds its scorer without the feature flags, so scoring reads neither the
            # containers' status resources nor pod-level resources (NewFit)
            spec = {k: v for k, v in pod.spec.items() if k != "resources"}
            cached = pod_requests(spec, {}, non_missing=NON_MISSING_CONTAINER_REQUESTS)
        else:
            cached = pod_requests(pod.spec, pod.status)
        per_mode[key] = cached
    return cached


class ResourceAllocationScorer:
    """mirrors resourceAllocationScorer"""

    def __init__(self, name: str, scorer: Callable[..., int],
                 resources: Sequence[ResourceSpec], use_requested: bool, mode: str,
                 with_allocated: bool = False) -> None:
        self.name = name
        # scorer(requested, allocatable), or with `with_allocated` scorer(requested, allocated,
        # allocatable) as since v1.35, where `allocated` is the node's requests without the pod
        self.scorer = scorer
        self.resources = list(resources)
        self.use_requested = use_requested
        self.mode = mode
        self.with_allocated = with_allocated
        self._names = tuple(r.name for r in self.resources)
        # the PodResourcesOptions of a release whose scoring honours other gates than v1.34's
        # (set by the plugin's new(); None: v1.34's)
        self.options: PodResourcesOptions | None = None
        # the default resources (cpu, memory), read straight from the NodeInfo on the hot path
        self._cpu_memory = self._names == (CPU, MEMORY)

    def pod_request_list(self, pod: Pod) -> list[int]:
        """mirrors calculatePodResourceRequestList (kept in the pod's PodInfo per mode and resource
        names: a scorer never changes the list it is given)"""
        reqs = _requests(pod, self.mode, self.options)
        per_mode = (pod.info or pod_info(pod)).score_requests
        key = (self.mode, self._names) if self.options is None else (self.mode, self._names, self.options)
        got = per_mode.get(key)
        if got is None:
            got = per_mode[key] = [quantity_in_scheduler_units(r.name, reqs.get(r.name)) for r in self.resources]
        return got

    def score(self, node_info: NodeInfo, pod_requests_list: Sequence[int]) -> tuple[int, Status]:
        if self._cpu_memory:
            # what the loop below computes for cpu and memory (allocatable_and_request)
            requested = node_info.requested if self.use_requested else node_info.non_zero_requested
            alloc = node_info.allocatable
            a_cpu, a_mem = alloc.milli_cpu, alloc.memory
            if self.with_allocated:
                # the node's requests without the pod beside those with it (v1.36's balance)
                used_cpu = requested.milli_cpu if a_cpu else 0
                used_mem = requested.memory if a_mem else 0
                return self.scorer([used_cpu + pod_requests_list[0] if a_cpu else 0,
                                    used_mem + pod_requests_list[1] if a_mem else 0],
                                   [used_cpu, used_mem], [a_cpu, a_mem]), SUCCESS
            return self.scorer([requested.milli_cpu + pod_requests_list[0] if a_cpu else 0,
                                requested.memory + pod_requests_list[1] if a_mem else 0], [a_cpu, a_mem]), SUCCESS
        if not self.resources:
            return 0, Status.as_error(ERR_RESOURCES_NOT_FOUND)
        n = len(self.resources)
        requested = [0] * n
        allocatable = [0] * n
        # mirrors calculateNodeAllocatableRequest (v1.35+): requested = allocated + the pod's
        allocated = [0] * n if self.with_allocated else None
        for i, r in enumerate(self.resources):
            alloc, req = self.allocatable_and_request(node_info, r.name, pod_requests_list[i])
            if alloc == 0:
                continue
            allocatable[i] = alloc
            requested[i] = req
            if allocated is not None:
                allocated[i] = req - pod_requests_list[i]
        if allocated is not None:
            return self.scorer(requested, allocated, allocatable), SUCCESS
        return self.scorer(requested, allocatable), SUCCESS

    def allocatable_and_request(self, node_info: NodeInfo, resource: str, pod_request: int) -> tuple[int, int]:
        """mirrors calculateResourceAllocatableRequest: cpu and memory count non-zero requests
        unless use_requested; other resources count what pods request."""
        requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        if pod_request == 0 and is_scalar_resource_name(resource):
            return 0, 0
        alloc = node_info.allocatable
        if resource == CPU:
            return alloc.milli_cpu, requested.milli_cpu + pod_request
        if resource == MEMORY:
            return alloc.memory, requested.memory + pod_request
        if resource == EPHEMERAL_STORAGE:
            return alloc.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
        if resource in alloc.scalar:
            return alloc.scalar[resource], node_info.requested.scalar.get(resource, 0) + pod_request
        return 0, 0

    @staticmethod
    def is_best_effort_pod(pod_requests_list: Sequence[int]) -> bool:
        return all(r == 0 for r in pod_requests_list)
