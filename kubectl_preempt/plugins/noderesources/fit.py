"""NodeResourcesFit (mirrors noderesources/fit.go).

Filter: the pod's requests must fit in what the node has left. A shortfall is Unschedulable
(evicting pods may free enough) unless the pod asks for more than the node's whole allocatable
of some resource: then no eviction can help and the status is UnschedulableAndUnresolvable.
"Too many pods" is always resolvable.

Score: LeastAllocated, MostAllocated or RequestedToCapacityRatio over the configured resources.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from ...errors import InputError
from ...framework import events as ev
from ...framework.cycle_state import CycleState
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits, PreFilterResult
from ...framework.status import SUCCESS, Status, Unschedulable, UnschedulableAndUnresolvable, refusal
from ...framework.types import NodeInfo
from ...framework.podinfo import UNSET, pod_info
from ...model.objects import Node, Pod
from ...model.resources import (CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resource, is_extended_resource_name,
                                is_scalar_resource_name, pod_level_requests_set, pod_requests)
from .. import names
from ..feature import QueueingHintFeatures, for_release
from .least_allocated import least_resource_scorer
from .most_allocated import most_resource_scorer
from .requested_to_capacity_ratio import parse_shape, requested_to_capacity_ratio_scorer
from .resource_allocation import MODE_FIT_SCORE, ResourceAllocationScorer, parse_resource_specs
from ...framework.versions import DEFAULT, KubernetesVersion
from ...framework import batch as signers

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_TOO_MANY_PODS = "Too many pods"
ERR_REASON_INSUFFICIENT = "Insufficient %s"
ERR_REASON_INSUFFICIENT_CPU = ERR_REASON_INSUFFICIENT % CPU
ERR_REASON_INSUFFICIENT_MEMORY = ERR_REASON_INSUFFICIENT % MEMORY
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE = ERR_REASON_INSUFFICIENT % EPHEMERAL_STORAGE

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


class PodRequest:
    """The pod's request as Filter compares it (preFilterState: a framework.Resource).

    `scalar` keeps the order in which the pod's requests name each resource; upstream iterates a
    Go map there, so the order of several "Insufficient <scalar>" reasons is random in
    kube-scheduler; the pod's own order is what a small Go map yields most of the time.
    """

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "scalar")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, ephemeral_storage: int = 0,
                 scalar: dict[str, int] | None = None) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalar = scalar if scalar is not None else {}

    def is_empty(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalar)


def _ceil(q: Fraction, scale: int = 1) -> int:
    """ceil(q * scale), on q's numerator and denominator (no Fraction arithmetic: this runs for
    every pod a replay schedules)."""
    return -(-(q.numerator * scale) // q.denominator)


def compute_pod_resource_request(pod: Pod, pod_level: bool = True) -> PodRequest:
    """mirrors computePodResourceRequest: resource.PodRequests with pod-level resources (on by
    default in v1.34; `pod_level` False: PodLevelResources off) and without status resources,
    folded in with Resource.SetMaxResource."""
    if not pod_level and pod_level_requests_set(pod.spec):
        # PodLevelResources off: the pod-level requests are not read (computed each time, not kept:
        # the PodInfo slot holds the default's answer)
        return pod_resource_request({k: v for k, v in pod.spec.items() if k != "resources"})
    pi = pod.info or pod_info(pod)
    got = pi.fit_request
    if got is UNSET:
        got = pi.fit_request = pod_resource_request(pod.spec)
    return got


def pod_resource_request(spec: Mapping[str, Any]) -> PodRequest:
    """computePodResourceRequest of a pod with this spec (PodInfo.fit_request)."""
    r = PodRequest()
    for name, q in pod_requests(spec, {}).items():
        if name == MEMORY:
            r.memory = max(r.memory, _ceil(q))
        elif name == CPU:
            r.milli_cpu = max(r.milli_cpu, _ceil(q, 1000))
        elif name == EPHEMERAL_STORAGE:
            r.ephemeral_storage = max(r.ephemeral_storage, _ceil(q))
        elif is_scalar_resource_name(name):
            r.scalar[name] = max(r.scalar.get(name, 0), _ceil(q))
    return r


@dataclass
class InsufficientResource:
    """mirrors InsufficientResource: what is short on a node, for the explanation too."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def fits_request(pod_request: PodRequest, node_info: NodeInfo, ignored_extended_resources: frozenset[str] = frozenset(),
                 ignored_resource_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """mirrors fitsRequest; reasons in upstream's order: pods, cpu, memory, ephemeral-storage,
    then scalar resources."""
    out: list[InsufficientResource] = []
    alloc = node_info.allocatable
    used = node_info.requested
    num_pods = len(node_info.pods)
    if num_pods + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource(PODS, ERR_REASON_TOO_MANY_PODS, 1, num_pods, alloc.allowed_pod_number))
    if pod_request.is_empty():
        return out
    req = pod_request.milli_cpu
    if req > 0 and req > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource(CPU, ERR_REASON_INSUFFICIENT_CPU, req, used.milli_cpu, alloc.milli_cpu,
                                        req > alloc.milli_cpu))
    req = pod_request.memory
    if req > 0 and req > alloc.memory - used.memory:
        out.append(InsufficientResource(MEMORY, ERR_REASON_INSUFFICIENT_MEMORY, req, used.memory, alloc.memory,
                                        req > alloc.memory))
    req = pod_request.ephemeral_storage
    if req > 0 and req > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(InsufficientResource(EPHEMERAL_STORAGE, ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE, req,
                                        used.ephemeral_storage, alloc.ephemeral_storage,
                                        req > alloc.ephemeral_storage))
    for name, req in pod_request.scalar.items():
        if req == 0:
            continue
        if is_extended_resource_name(name):
            group = name.split("/")[0] if ignored_resource_groups else ""
            if name in ignored_extended_resources or group in ignored_resource_groups:
                continue
        cap = alloc.scalar.get(name, 0)
        u = used.scalar.get(name, 0)
        if req > cap - u:
            out.append(InsufficientResource(name, ERR_REASON_INSUFFICIENT % name, req, u, cap, req > cap))
    return out


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """mirrors Fits: the shortfalls of the pod on the node, ignoring nothing."""
    return fits_request(compute_pod_resource_request(pod), node_info)


class _PreScoreState:
    __slots__ = ("pod_requests",)

    def __init__(self, pod_requests_list: list[int]) -> None:
        self.pod_requests = pod_requests_list


class Fit(MemoTraits, QueueingHintFeatures):
    name = NAME
    # InPlacePodVerticalScaling (fts.EnableInPlacePodVerticalScaling)
    in_place_pod_vertical_scaling = True

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors Fit.SignPod (v1.35+): the pod's request, as PreFilter computes it."""
        return sign_resources(self, pod)

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter", "score"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors Fit.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): a pod scaled
            # down frees room only with InPlacePodVerticalScaling, any node change may help
            pod_action = ev.DELETE
            if self.in_place_pod_vertical_scaling:
                pod_action |= ev.UPDATE if self.minor < 31 else ev.UPDATE_POD_SCALE_DOWN
            return [ClusterEventWithHint(ClusterEvent(ev.POD, pod_action)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors Fit.EventsToRegister with SchedulerQueueingHints (GA in v1.34: no preCheck, so no
        # UpdateNodeTaint/UpdateNodeLabel) and InPlacePodVerticalScaling (on by default since v1.33:
        # a pod scaled down may free room)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE | ev.UPDATE_POD_SCALE_DOWN),
                                     is_schedulable_after_pod_event),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_ALLOCATABLE),
                                     is_schedulable_after_node_change)]

    def __init__(self, ignored_resources: frozenset[str], ignored_resource_groups: frozenset[str],
                 scorer: ResourceAllocationScorer) -> None:
        self.ignored_resources = ignored_resources
        self.pod_level_resources = True
        # since v1.34 (kubernetes/kubernetes#131345, Fit.Filter with InsufficientResource.Unresolvable)
        # a request larger than the node's allocatable is UnschedulableAndUnresolvable, so
        # preemption skips the node; before, every shortfall is Unschedulable (new())
        self.unresolvable_when_larger_than_node = True
        self.ignored_resource_groups = ignored_resource_groups
        self.scorer = scorer

    # --- PreFilter / Filter ---------------------------------------------------------------
    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter reads nothing of the pod but its spec and namespace (scheduler/schedule_one.py
        skips PreFilter for a remembered failure only when no plugin reads more)."""
        return False

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        state.write(PRE_FILTER_STATE_KEY, compute_pod_resource_request(pod, self.pod_level_resources))
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = fits_request(s, node_info, self.ignored_resources, self.ignored_resource_groups)
        if not insufficient:
            return SUCCESS
        code = Unschedulable
        if self.unresolvable_when_larger_than_node:
            for r in insufficient:
                if r.unresolvable:
                    code = UnschedulableAndUnresolvable
        # named for this plugin as runFilterPlugins names it (SetPlugin), so that the framework's
        # with_plugin hands it on as it is instead of copying it: a cycle over a cluster of full
        # nodes refuses each of them here (bench_explain: 5,000)
        return refusal(code, tuple([r.reason for r in insufficient]), self.name)

    # --- PreScore / Score -----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(self.scorer.pod_request_list(pod)))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        s = state.get(PRE_SCORE_STATE_KEY)
        reqs = s.pod_requests if s is not None else self.scorer.pod_request_list(pod)
        return self.scorer.score(node_info, reqs)

    def score_extensions(self) -> None:
        return None


def _strategy_scorer(args: Mapping[str, Any], version: KubernetesVersion = DEFAULT) -> ResourceAllocationScorer:
    where = "pluginConfig[NodeResourcesFit].args.scoringStrategy"
    ss = args.get("scoringStrategy")
    if ss is None:
        ss = {"type": LEAST_ALLOCATED}
    if not isinstance(ss, Mapping):
        raise InputError("expected an object", field=where)
    strategy = ss.get("type") or ""
    if strategy not in SCORING_STRATEGY_TYPES:
        raise InputError(f'Unsupported value: "{strategy}": supported values: '
                         + ", ".join(f'"{t}"' for t in SCORING_STRATEGY_TYPES), field=f"{where}.type")
    resources = parse_resource_specs(ss.get("resources"), f"{where}.resources")
    for i, r in enumerate(resources):
        if not 0 < r.weight <= 100:
            raise InputError(f"{r.weight}: resource weight of {r.name} not in valid range (0, 100]",
                             field=f"{where}.resources[{i}].weight")
    rtcr = ss.get("requestedToCapacityRatio")
    if strategy != REQUESTED_TO_CAPACITY_RATIO and rtcr is not None:
        # ValidateNodeResourcesFitArgs: v1.36 forbids the shape with another type; before, it is
        # validated (validateFunctionShape, at scoringStrategy.shape) and left unused
        if version.at_least(36):
            raise InputError("Forbidden: must be nil when type is not RequestedToCapacityRatio",
                             field=f"{where}.requestedToCapacityRatio")
        parse_shape(rtcr.get("shape") if isinstance(rtcr, Mapping) else None, f"{where}.shape")
    if strategy == LEAST_ALLOCATED:
        fn = least_resource_scorer(resources)
    elif strategy == MOST_ALLOCATED:
        fn = most_resource_scorer(resources)
    else:
        if not isinstance(rtcr, Mapping):
            raise InputError("RequestedToCapacityRatio needs requestedToCapacityRatio.shape",
                             field=f"{where}.requestedToCapacityRatio")
        # the shape's errors are at scoringStrategy.requestedToCapacityRatio.shape from v1.36
        shape_path = f"{where}.requestedToCapacityRatio.shape" if version.at_least(36) else f"{where}.shape"
        shape = parse_shape(rtcr.get("shape"), shape_path)
        fn = requested_to_capacity_ratio_scorer(resources, shape)
    return ResourceAllocationScorer(strategy, fn, resources, use_requested=False, mode=MODE_FIT_SCORE)



# --- queueing hints ---------------------------------------------------------------------------

def _fits_allocatable(pod: Pod, node: Node) -> bool:
    # mirrors isFit: the pod's requests against the node's allocatable, ignoring other pods
    req = pod.resource.resource
    a = node.allocatable
    if req.milli_cpu > a.milli_cpu or req.memory > a.memory or req.ephemeral_storage > a.ephemeral_storage:
        return False
    for k, v in req.scalar.items():
        if v > a.scalar.get(k, 0):
            return False
    return True


def _any_request_increased(pod: Pod, old: Node, new: Node) -> bool:
    o, n = old.allocatable, new.allocatable
    return n.allowed_pod_number > o.allowed_pod_number or _asked_and_grew(pod.resource.resource, o, n)


def _asked_and_grew(want: Resource, before: Resource, after: Resource) -> bool:
    """A resource `want` asks for (a non-zero request) is larger in `after` than in `before`."""
    if want.milli_cpu and after.milli_cpu > before.milli_cpu:
        return True
    if want.memory and after.memory > before.memory:
        return True
    if want.ephemeral_storage and after.ephemeral_storage > before.ephemeral_storage:
        return True
    return any(v and after.scalar.get(k, 0) > before.scalar.get(k, 0) for k, v in want.scalar.items())


def is_schedulable_after_pod_event(pod: Pod, old: Pod | None, new: Pod | None) -> bool:
    """mirrors isSchedulableAfterPodEvent: a deleted pod frees resources if it was bound or
    nominated; a scaled-down pod if it is the pod itself, or a bound pod whose requests of a
    resource the pod asks for went down (isSchedulableAfterPodScaleDown)."""
    if new is None:
        return old is not None and bool(old.node_name or old.nominated_node_name)
    if old is None:
        return False
    if new.uid == pod.uid:
        return True
    if not new.node_name:
        return False
    # scaled down: what the pod asks for was larger before (in `old`) than after
    return _asked_and_grew(pod.resource.resource, new.resource.resource, old.resource.resource)


def is_schedulable_after_node_change(pod: Pod, old: Node | None, new: Node | None) -> bool:
    """mirrors isSchedulableAfterNodeChange: the pod fits the node's allocatable now, and (for an
    update) an allocatable the pod requests grew."""
    if new is None or not _fits_allocatable(pod, new):
        return False
    if old is None:
        return True
    return _any_request_increased(pod, old, new)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> Fit:
    args = args or {}
    ignored = args.get("ignoredResources") or []
    groups = args.get("ignoredResourceGroups") or []
    for i, g in enumerate(groups):
        if "/" in g:
            raise InputError(f"{g}: resource group name can't contain '/'",
                             field=f"pluginConfig[NodeResourcesFit].args.ignoredResourceGroups[{i}]")
    plugin = Fit(frozenset(ignored), frozenset(groups), _strategy_scorer(args, version))
    plugin.unresolvable_when_larger_than_node = version.at_least(34)
    # computePodResourceRequest honours PodLevelResources (fts.EnablePodLevelResources)
    plugin.pod_level_resources = version.features.enable_pod_level_resources
    if not version.at_least(33):
        # before v1.33 the scorer's calculatePodResourceRequest reads the process's gates
        # (utilfeature.DefaultFeatureGate); since v1.33 NewFit builds it without them
        plugin.scorer.options = version.scoring_resource_options
    set_signing(plugin, handle, version)
    for_release(plugin, version)
    plugin.in_place_pod_vertical_scaling = version.features.enable_in_place_pod_vertical_scaling
    return plugin


# --- SignPod (v1.35+, OpportunisticBatching: framework/batch.py) -------------------------------------
IMPLICIT_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"


def set_signing(plugin: Any, handle: Any, version: KubernetesVersion) -> None:
    """What Fit's and BalancedAllocation's SignPod read: the pod-level resources gate, the
    DRAExtendedResource gate, and the handle whose DeviceClasses serve extended resources."""
    plugin.pod_level_resources = version.features.enable_pod_level_resources
    plugin.dra_extended_resource = version.features.enable_dra_extended_resource
    # v1.35.6 signs no pod at all with the gate on; v1.36.2 only those asking for a resource a
    # DeviceClass serves (fit.go SignPod with shouldDelegateResourceToDRA)
    plugin.dra_extended_any = version.minor == 35
    plugin.handle = handle


def _served_by_device_class(handle: Any, name: str) -> bool:
    """shouldDelegateResourceToDRA without a node: a DeviceClass maps the extended resource
    (spec.extendedResourceName, or the implicit deviceclass.resource.kubernetes.io/<class>)."""
    cluster = getattr(handle, "cluster", None)
    for dc in (cluster.extra.get("DeviceClass") or ()) if cluster is not None else ():
        md, spec = dc.get("metadata") or {}, dc.get("spec") or {}
        if spec.get("extendedResourceName") == name or name == IMPLICIT_EXTENDED_RESOURCE_PREFIX + str(md.get("name")):
            return True
    return False


def sign_resources(plugin: Any, pod: Pod) -> tuple[signers.Fragments, Status]:
    """Fit.SignPod and BalancedAllocation.SignPod: the pod's request as computePodResourceRequest
    makes it; not signable when DRA may serve one of its extended resources."""
    request = compute_pod_resource_request(pod, plugin.pod_level_resources)
    if plugin.dra_extended_resource:
        if plugin.dra_extended_any:
            return signers.not_signable("signature disabled when dra extended resources enabled")
        if any(q and _served_by_device_class(plugin.handle, name) for name, q in request.scalar.items()):
            return signers.not_signable("signature disabled when dra extended resources are used in the cluster")
    value = {"MilliCPU": request.milli_cpu, "Memory": request.memory, "EphemeralStorage": request.ephemeral_storage,
             "ScalarResources": dict(request.scalar)}
    return [(signers.RESOURCES_SIGNER, value)], SUCCESS
