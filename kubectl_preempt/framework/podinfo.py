"""PodInfo: a pod and what the scheduler derives from it, as kube-scheduler's framework.PodInfo.

Upstream wraps each *v1.Pod in a PodInfo (NewPodInfo / PodInfo.Update) that holds what every cycle
would otherwise re-parse: the pod (anti-)affinity terms, parsed when the PodInfo is made (here too,
framework/affinity.py). We hold more of the same kind in one typed,
slotted object: each plugin's per-pod derived data (requests, node affinity, tolerations, spread
constraints, volumes, images, ...), the equivalence cache's pod shape and the PDBs that count the pod.

One PodInfo belongs to one Pod object. A recorded update of a pod (a trace event) builds a new Pod,
which gets a new PodInfo on first use, so nothing derived from an old version of a pod survives
into its new one. The replay's own writes to a pod it keeps (binding it: node name, phase, start
time; the DisruptionTarget condition; the deletion timestamp) change that Pod's status and metadata
in place: no field here derives from those (they derive from the spec, the namespace and the
labels, which those writes keep).

The fields a plugin derives are declared here (DERIVED, and the class body below: name, type,
what it caches and the one function of its owner that computes it) and hold UNSET until first
read. The owner's accessor is one call, which reads the slot and, on UNSET, calls that function
and stores its value:

    return derived(pod, "images", normalized_images)

so what is computed stays in the owner's module (framework/ imports no plugin), a field no cycle
asks for costs one store at construction, and a field already computed costs one call, one
attribute read and one identity test (no exception). An accessor whose slot holds more than the
function's value (a dict filled per option, an answer that depends on a gate), or that is read on
every node of a cycle (ImageLocality's Score), reads `pod.info or pod_info(pod)` and the slot itself.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, TypeVar

from ..model.objects import Pod
from .affinity import NO_TERMS, PodTerms, parse_terms

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
# shared by every pod without host ports or claims: read, never changed in place
_NO_PORTS: list[tuple[str, str, int]] = []
_NO_PVCS: list[str] = []


class _Unset:
    """The value of a derived slot not computed yet (None is a value some slots hold)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


# typed Any: it stands in every derived slot, whatever the slot's type, until it is computed
UNSET: Any = _Unset()

# The derived slots, in the order of the declarations in PodInfo's body (tests/framework/
# test_podinfo.py holds the two to each other and to the constructor).
DERIVED: tuple[str, ...] = (
    "cycle_shape", "node_shape",
    "required_node_affinity", "preferred_node_affinity",
    "fit_request", "score_requests",
    "prefer_no_schedule_tolerations",
    "spread_constraints",
    "volume_claims",
    "claim_names", "restricted_disks",
    "required_features",
    "images",
    "pdb_matches",
    "batch_shape", "batch_nonzero_request", "batch_host_ports",
    "start_text", "start_nanos",
)
_ALL_UNSET = (UNSET,) * len(DERIVED)


class PodInfo:
    """mirrors framework.PodInfo (and the per-pod part of QueuedPodInfo)."""

    __slots__ = ("pod", "labels", "has_affinity", "has_required_anti_affinity", "affinity_terms", "pvc_keys",
                 "host_ports") + DERIVED

    # set by the constructor, as NewPodInfo does: what NodeInfo.add_pod counts of every pod
    pod: Pod
    # the pod's labels, beside it: the fast cores' label index walks every pod of a node for one
    # label (scheduler/fast/labels.py) and reads them here without a visit to the Pod object. A
    # Pod's labels never change in place (a relabelled pod is a new Pod, with a new PodInfo)
    labels: Mapping[str, str]
    has_affinity: bool
    has_required_anti_affinity: bool
    # the parsed (anti-)affinity terms (PodInfo.Update: getAffinityTerms and
    # getWeightedAffinityTerms; framework/affinity.py parse_terms), errors kept with them
    affinity_terms: PodTerms
    pvc_keys: list[str]  # "namespace/claim" of each PVC volume (updatePVCRefCounts)
    host_ports: list[tuple[str, str, int]]  # (hostIP, protocol, hostPort): schedutil.GetHostPorts

    # Derived on first read, UNSET until then. Each declaration: its name and type, a line saying
    # what it caches, and a line `<- module function` naming the one module that stores the slot
    # and the function there that computes it (tests/framework/test_podinfo.py holds both). Types
    # named from plugins/ are written as text: framework/ does not import them.
    # what of the pod decides a whole cycle's answer (the failed-cycle memo's key)
    # <- scheduler/memo/equivalence.py pod_shape, from model/podshape.py cycle_shape
    cycle_shape: bytes | None
    # what of the pod decides a node-local plugin's answer (the equivalence cache's key)
    # <- scheduler/memo/equivalence.py node_shape, from model/podshape.py node_shape
    node_shape: bytes | None
    # the compiled required node affinity (GetRequiredNodeAffinity)
    # <- plugins/helper/nodeaffinity.py RequiredNodeAffinity
    required_node_affinity: "RequiredNodeAffinity"
    # getPodPreferredNodeAffinity: None without preferred terms, a marker when one does not parse
    # <- plugins/nodeaffinity parse_preferred_node_affinity
    preferred_node_affinity: Any
    # computePodResourceRequest with pod-level resources on (the default)
    # <- plugins/noderesources/fit.py pod_resource_request
    fit_request: "PodRequest"
    # the scorers' requests per mode and options, and their lists per resource names
    # <- plugins/noderesources/resource_allocation.py _requests (an empty dict, filled in there)
    score_requests: "dict[Any, Any]"
    # getAllTolerationPreferNoSchedule
    # <- plugins/tainttoleration prefer_no_schedule_tolerations_of
    prefer_no_schedule_tolerations: "list[dict]"
    # the pod's own spread constraints per whenUnsatisfiable action
    # <- plugins/podtopologyspread/plugin.py filter_constraints (per action, into an empty dict)
    spread_constraints: "dict[str, list[Constraint]]"
    # (claim name, is ephemeral) of each claim-backed volume
    # <- plugins/volumebinding pvc_volumes_of
    volume_claims: list[tuple[str, bool]]
    # the claim names of the PVC volumes
    # <- plugins/volumerestrictions claim_names_of
    claim_names: list[str]
    # the volumes needsRestrictionsCheck selects
    # <- plugins/volumerestrictions restricted_disks_of
    restricted_disks: list[Any]
    # the node features the pod needs (InferForPodScheduling)
    # <- plugins/nodedeclaredfeatures infer_required_features
    required_features: frozenset[str]
    # the normalized image names of the init containers and containers
    # <- plugins/imagelocality normalized_images
    images: tuple[str, ...]
    # (PDB list generation, indexes of the PDBs that count the pod), again when the list moves on
    # <- plugins/defaultpreemption _matching_pdbs
    pdb_matches: tuple[int, list[int]]
    # what kube-batch's v1.16 predicates and per-node priorities read (its node answers' key)
    # <- batch/util/scheduler_helper.py shape_key, from model/podshape.py batch_shape
    batch_shape: str
    # the v1.16 non-zero requests (GetNonzeroRequests summed over the containers)
    # <- batch/api/pod_info.py nonzero_request_of
    batch_nonzero_request: tuple[int, int]
    # the containers' host ports, as the v1.16 predicates read them
    # <- batch/plugins/predicates.py _host_ports, from framework/podinfo.py container_host_ports
    batch_host_ports: list[tuple[str, str, int]]
    # status.startTime as read when start_nanos was parsed from it (a replay's binding writes the
    # start time in place: a kept time is of this string alone). Two slots, not a pair: no pair
    # to allocate for each of an explain's 15,000 potential victims
    # <- preemption/decision.py pods_start_nanos
    start_text: Any
    # GetPodStartTime's time of start_text, in nanoseconds: parsed once per value, as upstream's
    # pod object holds its start time parsed (victim ordering asks it of every pod of every
    # candidate node, the document again of each victim)
    # <- preemption/decision.py pods_start_nanos
    start_nanos: int

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.labels = pod.labels
        # every derived slot starts UNSET (one unpacking: a snapshot builds 150,000 of these)
        (self.cycle_shape, self.node_shape, self.required_node_affinity,
         self.preferred_node_affinity, self.fit_request, self.score_requests,
         self.prefer_no_schedule_tolerations, self.spread_constraints, self.volume_claims, self.claim_names,
         self.restricted_disks, self.required_features, self.images, self.pdb_matches, self.batch_shape,
         self.batch_nonzero_request, self.batch_host_ports, self.start_text, self.start_nanos) = _ALL_UNSET
        spec = pod.spec
        affinity = spec.get("affinity")
        if affinity:
            anti = affinity.get("podAntiAffinity")
            self.has_affinity = bool(affinity.get("podAffinity") or anti)
            self.has_required_anti_affinity = bool(anti and anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
            # parsed once, here, as upstream's NewPodInfo does (InterPodAffinity reads the terms
            # of every pod with affinity on every cycle)
            self.affinity_terms = parse_terms(pod) if self.has_affinity else NO_TERMS
        else:
            self.has_affinity = self.has_required_anti_affinity = False
            self.affinity_terms = NO_TERMS
        volumes = spec.get("volumes")
        # mirrors updatePVCRefCounts: PVC volumes only; generic ephemeral volumes are not counted
        self.pvc_keys: list[str] = [
            f"{pod.namespace}/{v['persistentVolumeClaim'].get('claimName')}"
            for v in volumes if v.get("persistentVolumeClaim") is not None] if volumes else _NO_PVCS
        if spec.get("initContainers"):
            self.host_ports = _host_ports(spec)
        else:
            # most pods declare no ports: a plain loop here, no call (every pod of a snapshot
            # passes)
            for c in spec.get("containers") or ():
                if "ports" in c:
                    self.host_ports = _host_ports(spec)
                    break
            else:
                self.host_ports = _NO_PORTS

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


def _host_ports(spec: Any) -> list[tuple[str, str, int]]:
    """mirrors schedutil.GetHostPorts: (hostIP, protocol, hostPort) of sidecars, then containers."""
    out: list[tuple[str, str, int]] = []
    containers = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
    containers += list(spec.get("containers") or ())
    for c in containers:
        for p in c.get("ports") or ():
            hp = p.get("hostPort") or 0
            if hp > 0:
                out.append((p.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP, p.get("protocol") or "TCP", hp))
    return out


def container_host_ports(spec: Any) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of the containers alone, as v1.33 and older read a pod's
    ports (NodePorts getContainerPorts, NodeInfo.updateUsedPorts): sidecars' ports are not seen."""
    out: list[tuple[str, str, int]] = []
    for c in spec.get("containers") or ():
        for p in c.get("ports") or ():
            hp = p.get("hostPort") or 0
            if hp > 0:
                out.append((p.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP, p.get("protocol") or "TCP", hp))
    return out


def release(pod: Pod) -> None:
    """The caller no longer tracks this pod object (a replay dropped or replaced it): forget its
    PodInfo. A Pod and its PodInfo refer to each other; a pod loaded in bulk is frozen out of the
    garbage collector (model/bulk.py), so that pair would never be freed: without the link back,
    reference counting frees both once nothing else holds the pod. A later pod_info() of the
    object simply derives again."""
    pod.info = None


T = TypeVar("T")


def derived(pod: Pod, slot: str, compute: Callable[[Pod], T]) -> T:
    """The pod's derived `slot` (one of DERIVED), computed by its owner's `compute` on first read
    and kept in the pod's PodInfo."""
    pi = pod.info or pod_info(pod)
    got = getattr(pi, slot)
    if got is UNSET:
        got = compute(pod)
        setattr(pi, slot, got)
    return got


def pod_info(pod: Pod) -> PodInfo:
    """The PodInfo of this Pod object, made on first use (NewPodInfo)."""
    pi: Any = pod.info
    if pi is None:
        pi = pod.info = PodInfo(pod)
    return pi
