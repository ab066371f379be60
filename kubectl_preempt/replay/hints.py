"""Cluster events and queueing hints: which events may make a pod that a plugin rejected
schedulable again (each plugin's EventsToRegister in v1.34.1, with SchedulerQueueingHints on).

The hints are a coarse but faithful approximation of upstream's QueueingHintFns: where a hint is
cheap to decide (resources against a node's allocatable, taints, node affinity, host ports,
label selectors) it is decided as upstream does; elsewhere an event the plugin registered for
always requeues the pod, which can only make a retry earlier, never skip one upstream makes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..model.objects import Node, Pod
from ..model.selectors import LabelSelector
from ..plugins import names
from ..plugins.helper.nodeaffinity import required_node_affinity
from ..plugins.helper.taint import (TAINT_NODE_UNSCHEDULABLE, do_not_schedule_taints_filter,
                                    find_matching_untolerated_taint, tolerations_tolerate_taint)

# fwk.ActionType bits
ADD = 1 << 0
DELETE = 1 << 1
UPDATE_NODE_ALLOCATABLE = 1 << 2
UPDATE_NODE_LABEL = 1 << 3
UPDATE_NODE_TAINT = 1 << 4
UPDATE_NODE_CONDITION = 1 << 5
UPDATE_NODE_ANNOTATION = 1 << 6
UPDATE_POD_LABEL = 1 << 7
UPDATE_POD_SCALE_DOWN = 1 << 8
UPDATE_POD_TOLERATION = 1 << 9
UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
UPDATE_POD_OTHER = 1 << 12
UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
          | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATION
          | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM | UPDATE_POD_OTHER)
ALL = ADD | DELETE | UPDATE

POD = "Pod"
NODE = "Node"
WILDCARD = "*"


@dataclass(frozen=True)
class ClusterEvent:
    resource: str
    action: int
    label: str

    @property
    def wildcard(self) -> bool:
        return self.resource == WILDCARD


EVENT_ASSIGNED_POD_ADD = ClusterEvent(POD, ADD, "AssignedPodAdd")
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(POD, DELETE, "AssignedPodDelete")
EVENT_NODE_ADD = ClusterEvent(NODE, ADD, "NodeAdd")
EVENT_NODE_DELETE = ClusterEvent(NODE, DELETE, "NodeDelete")
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ALL, "UnschedulableTimeout")
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ALL, "ForceActivate")
# queue-internal event labels
UNSCHEDULED_POD_ADD = "UnscheduledPodAdd"
UNSCHEDULED_POD_UPDATE = "UnscheduledPodUpdate"
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"


def node_update_event(old: Node, new: Node) -> ClusterEvent | None:
    """mirrors NodeSchedulingPropertiesChange: the update kinds a plugin may care about."""
    action = 0
    if _res_tuple(old) != _res_tuple(new):
        action |= UPDATE_NODE_ALLOCATABLE
    if dict(old.labels) != dict(new.labels):
        action |= UPDATE_NODE_LABEL
    if old.taints != new.taints or old.unschedulable != new.unschedulable:
        action |= UPDATE_NODE_TAINT
    if (old.status.get("conditions") or []) != (new.status.get("conditions") or []):
        action |= UPDATE_NODE_CONDITION
    if (old.metadata.get("annotations") or {}) != (new.metadata.get("annotations") or {}):
        action |= UPDATE_NODE_ANNOTATION
    if not action:
        return None
    return ClusterEvent(NODE, action, "NodeUpdate")


def _res_tuple(n: Node) -> tuple:
    a = n.allocatable
    return (a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number, tuple(sorted(a.scalar.items())))


def assigned_pod_update_event(old: Pod, new: Pod) -> ClusterEvent | None:
    """mirrors PodSchedulingPropertiesChange for a bound pod (labels, tolerations)."""
    action = 0
    if dict(old.labels) != dict(new.labels):
        action |= UPDATE_POD_LABEL
    if old.tolerations != new.tolerations:
        action |= UPDATE_POD_TOLERATION
    if not action:
        return None
    return ClusterEvent(POD, action, "AssignedPodUpdate")


# --- hint functions: (pending pod, old object, new object) -> requeue? ------------------------------

Hint = Callable[[Pod, Any, Any], bool]


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
    req = pod.resource.resource
    o, n = old.allocatable, new.allocatable
    if req.milli_cpu and n.milli_cpu > o.milli_cpu:
        return True
    if req.memory and n.memory > o.memory:
        return True
    if req.ephemeral_storage and n.ephemeral_storage > o.ephemeral_storage:
        return True
    if n.allowed_pod_number > o.allowed_pod_number:
        return True
    return any(v and n.scalar.get(k, 0) > o.scalar.get(k, 0) for k, v in req.scalar.items())


def fit_after_pod_event(pod: Pod, old: Pod | None, new: Pod | None) -> bool:
    if new is None and old is not None:
        # mirrors isSchedulableAfterPodEvent: a deleted pod frees resources if it was bound or nominated
        return bool(old.node_name or old.nominated_node_name)
    return False


def fit_after_node_change(pod: Pod, old: Node | None, new: Node | None) -> bool:
    if new is None or not _fits_allocatable(pod, new):
        return False
    if old is None:
        return True
    return _any_request_increased(pod, old, new)


def _untolerated(pod: Pod, node: Node) -> bool:
    return find_matching_untolerated_taint(node.taints, pod.tolerations, do_not_schedule_taints_filter) is not None


def taint_after_node_change(pod: Pod, old: Node | None, new: Node | None) -> bool:
    if new is None:
        return False
    was = old is None or _untolerated(pod, old)
    return was and not _untolerated(pod, new)


def _unschedulable_blocks(pod: Pod, node: Node) -> bool:
    if not node.unschedulable:
        return False
    return not tolerations_tolerate_taint(pod.tolerations, {"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"})


def unschedulable_after_node_change(pod: Pod, old: Node | None, new: Node | None) -> bool:
    if new is None:
        return False
    was = old is None or _unschedulable_blocks(pod, old)
    return was and not _unschedulable_blocks(pod, new)


def affinity_after_node_change(pod: Pod, old: Node | None, new: Node | None) -> bool:
    if new is None:
        return False
    req = required_node_affinity(pod)
    if not req.matches(new):
        return False
    return old is None or not req.matches(old)


def _host_ports(pod: Pod) -> set[tuple[str, int]]:
    out = set()
    for c in list(pod.spec.get("initContainers") or ()) + list(pod.spec.get("containers") or ()):
        for p in c.get("ports") or ():
            if p.get("hostPort"):
                out.add((p.get("protocol") or "TCP", int(p["hostPort"])))
    return out


def ports_after_pod_deleted(pod: Pod, old: Pod | None, new: Pod | None) -> bool:
    # mirrors NodePorts.isSchedulableAfterPodDeleted: only a bound pod holding one of our ports helps
    if old is None or new is not None or not old.node_name:
        return False
    mine = _host_ports(pod)
    return bool(mine) and bool(mine & _host_ports(old))


def _selectors(pod: Pod) -> list[LabelSelector]:
    sels = pod.cache.get("replay.hint.selectors")
    if sels is None:
        sels = []
        aff = pod.spec.get("affinity") or {}
        for kind in ("podAffinity", "podAntiAffinity"):
            a = aff.get(kind) or {}
            terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or ())
            terms += [w.get("podAffinityTerm") or {} for w in a.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]
            for t in terms:
                try:
                    sels.append(LabelSelector(t.get("labelSelector")))
                except Exception:  # noqa: BLE001 - a bad selector is the plugin's error to report
                    continue
        pod.cache["replay.hint.selectors"] = sels
    return sels


def interpod_after_pod_change(pod: Pod, old: Pod | None, new: Pod | None) -> bool:
    other = new if new is not None else old
    if other is None:
        return False
    if new is None and old is not None:
        # a deleted pod's own anti-affinity may have kept this pod away
        anti = ((old.spec.get("affinity") or {}).get("podAntiAffinity") or {})
        if anti.get("requiredDuringSchedulingIgnoredDuringExecution"):
            return True
    return any(s.matches(other.labels) for s in _selectors(pod))


def spread_after_pod_change(pod: Pod, old: Pod | None, new: Pod | None) -> bool:
    other = new if new is not None else old
    if other is None or other.namespace != pod.namespace:
        return False
    constraints = pod.spec.get("topologySpreadConstraints") or ()
    if not constraints:
        # system default constraints select by the pod's own services and controllers: stay coarse
        return True
    for c in constraints:
        try:
            if LabelSelector(c.get("labelSelector")).matches(other.labels):
                return True
        except Exception:  # noqa: BLE001
            return True
    return False


def always(pod: Pod, old: Any, new: Any) -> bool:
    return True


def never(pod: Pod, old: Any, new: Any) -> bool:
    return False


# plugin -> [(resource, actions, hint)]: EventsToRegister of v1.34.1 with queueing hints enabled
EXTRA_KINDS_VOLUME = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                      "CSIStorageCapacity", "VolumeAttachment")
REGISTRATIONS: Mapping[str, list[tuple[str, int, Hint]]] = {
    names.NODE_RESOURCES_FIT: [(POD, DELETE, fit_after_pod_event),
                               (NODE, ADD | UPDATE_NODE_ALLOCATABLE, fit_after_node_change)],
    names.TAINT_TOLERATION: [(NODE, ADD | UPDATE_NODE_TAINT, taint_after_node_change)],
    names.NODE_AFFINITY: [(NODE, ADD | UPDATE_NODE_LABEL, affinity_after_node_change)],
    names.NODE_PORTS: [(POD, DELETE, ports_after_pod_deleted), (NODE, ADD, always)],
    names.NODE_NAME: [(NODE, ADD, always)],
    names.NODE_UNSCHEDULABLE: [(NODE, ADD | UPDATE_NODE_TAINT, unschedulable_after_node_change)],
    names.INTER_POD_AFFINITY: [(POD, ADD | UPDATE_POD_LABEL | DELETE, interpod_after_pod_change),
                               (NODE, ADD | UPDATE_NODE_LABEL, always)],
    names.POD_TOPOLOGY_SPREAD: [(POD, ADD | UPDATE_POD_LABEL | UPDATE_POD_TOLERATION | DELETE, spread_after_pod_change),
                                (NODE, ADD | DELETE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT, always)],
    names.VOLUME_RESTRICTIONS: [(POD, DELETE, always), (NODE, ADD, always), ("PersistentVolumeClaim", ADD, always)],
    names.NODE_VOLUME_LIMITS: [("CSINode", ADD | UPDATE, always), (POD, DELETE, always),
                               ("PersistentVolumeClaim", ADD, always), ("VolumeAttachment", DELETE, always)],
    names.VOLUME_BINDING: [("StorageClass", ADD | UPDATE, always), ("PersistentVolumeClaim", ADD | UPDATE, always),
                           ("PersistentVolume", ADD | UPDATE, always), (NODE, ADD | UPDATE_NODE_LABEL, always),
                           ("CSINode", ADD | UPDATE, always), ("CSIDriver", UPDATE, always),
                           ("CSIStorageCapacity", ADD | UPDATE, always)],
    names.VOLUME_ZONE: [("StorageClass", ADD, always), (NODE, ADD | UPDATE_NODE_LABEL, always),
                        ("PersistentVolumeClaim", ADD | UPDATE, always), ("PersistentVolume", ADD | UPDATE, always)],
    names.DYNAMIC_RESOURCES: [(NODE, ADD | UPDATE_NODE_LABEL | UPDATE_NODE_ALLOCATABLE, always),
                              ("ResourceClaim", ADD | UPDATE, always), ("DeviceClass", ADD | UPDATE, always),
                              ("ResourceSlice", ADD | UPDATE, always),
                              (POD, UPDATE_POD_GENERATED_RESOURCE_CLAIM, always)],
    names.SCHEDULING_GATES: [(POD, UPDATE_POD_SCHEDULING_GATES_ELIMINATED, always)],
    # async preemption gates a preemptor only while its API calls run; they are instant here
    names.DEFAULT_PREEMPTION: [(POD, DELETE, never)],
}


def plugin_cares(plugin: str, event: ClusterEvent) -> bool:
    regs = REGISTRATIONS.get(plugin)
    if regs is None:
        return True  # an out-of-tree plugin: assume it registered for everything
    return any(r == event.resource and a & event.action for r, a, _ in regs)


def worth_requeuing(pod: Pod, rejectors: set[str], event: ClusterEvent, old: Any, new: Any) -> bool:
    """mirrors isPodWorthRequeuing for a pod without pending plugins: Queue (True) or Skip."""
    if not rejectors or event.wildcard:
        return True
    for plugin in rejectors:
        regs = REGISTRATIONS.get(plugin)
        if regs is None:
            return True
        for resource, actions, hint in regs:
            if resource != event.resource or not (actions & event.action):
                continue
            if hint(pod, old, new):
                return True
    return False
