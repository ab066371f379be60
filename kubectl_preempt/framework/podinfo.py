"""PodInfo: a pod and what the scheduler derives from it, as kube-scheduler's framework.PodInfo.

Upstream wraps each *v1.Pod in a PodInfo (NewPodInfo / PodInfo.Update) that holds what every cycle
would otherwise re-parse: the pod (anti-)affinity terms. We hold more of the same kind in one typed,
slotted object: each plugin's per-pod derived data (requests, node affinity, tolerations, spread
constraints, volumes, images, ...), the equivalence cache's pod shape and the PDBs that count the pod.

One PodInfo belongs to one Pod object. A recorded update of a pod (a trace event) builds a new Pod,
which gets a new PodInfo on first use, so nothing derived from an old version of a pod survives
into its new one. The replay's own writes to a pod it keeps (binding it: node name, phase, start
time; the DisruptionTarget condition; the deletion timestamp) change that Pod's status and metadata
in place: no field here derives from those (they derive from the spec, the namespace and the
labels, which those writes keep).

Each field is computed on first use by the module that owns it (named in the comment beside it) and
kept in the slot; an unset slot reads as AttributeError, which the owner's accessor catches to
compute the value, so a field no cycle asks for costs nothing. Accessors read
`pod.info or pod_info(pod)`: on the hot paths (every node of every cycle) a PodInfo that exists
costs no call.
"""
from __future__ import annotations

from typing import Any

from ..model.objects import Pod

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
# shared by every pod without host ports or claims: read, never changed in place
_NO_PORTS: list[tuple[str, str, int]] = []
_NO_PVCS: list[str] = []


class PodInfo:
    """mirrors framework.PodInfo (and the per-pod part of QueuedPodInfo)."""

    __slots__ = (
        "pod",
        # set by the constructor, as NewPodInfo does: what NodeInfo.add_pod counts of every pod
        "has_affinity", "has_required_anti_affinity", "pvc_keys", "host_ports",
        # scheduler/memo/equivalence.py: what a cycle reads of the pod (pod_shape), what node-local
        # plugins read of it (node_shape)
        "shape", "node_shape",
        # plugins/interpodaffinity/terms.py: the parsed (anti-)affinity terms (PodInfo.Update)
        "affinity_terms",
        # plugins/interpodaffinity/plugin.py: the terms' label selectors, for the queueing hints
        "affinity_selectors",
        # plugins/helper/nodeaffinity.py and plugins/nodeaffinity: the compiled node affinity
        "required_node_affinity", "preferred_node_affinity",
        # plugins/noderesources: computePodResourceRequest, and the scorers' request lists per mode
        "fit_request", "score_requests",
        # plugins/tainttoleration: getAllTolerationPreferNoSchedule
        "prefer_no_schedule_tolerations",
        # plugins/podtopologyspread: the pod's own constraints per whenUnsatisfiable action
        "spread_constraints",
        # plugins/volumebinding: (claim name, is ephemeral) per claim-backed volume
        "volume_claims",
        # plugins/volumerestrictions: claim names, and the volumes needsRestrictionsCheck selects
        "claim_names", "restricted_disks",
        # plugins/nodedeclaredfeatures: the node features the pod needs
        "required_features",
        # plugins/imagelocality: normalized image names of init and app containers
        "images",
        # plugins/defaultpreemption: (PDB generation, indexes of the PDBs that count the pod)
        "pdb_matches",
        # batch/: the predicate equivalence key (util/scheduler_helper.py), the v1.16 non-zero
        # requests (api/pod_info.py) and the host ports its predicates read (plugins/predicates.py)
        "batch_shape", "batch_nonzero_request", "batch_host_ports",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        spec = pod.spec
        affinity = spec.get("affinity")
        if affinity:
            anti = affinity.get("podAntiAffinity")
            self.has_affinity = bool(affinity.get("podAffinity") or anti)
            self.has_required_anti_affinity = bool(anti and anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
        else:
            self.has_affinity = self.has_required_anti_affinity = False
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


def pod_info(pod: Pod) -> PodInfo:
    """The PodInfo of this Pod object, made on first use (NewPodInfo)."""
    pi: Any = pod.info
    if pi is None:
        pi = pod.info = PodInfo(pod)
    return pi
