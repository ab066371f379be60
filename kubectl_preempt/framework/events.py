"""Cluster events and queueing hints (kube-scheduler/framework/types.go's ActionType, ClusterEvent,
ClusterEventWithHint and QueueingHintFn; framework/events.go's event values and
NodeSchedulingPropertiesChange / PodSchedulingPropertiesChange).

A plugin that can reject a pod declares, next to its Filter, the events that may make that pod
schedulable again (`events_to_register()`, upstream's EnqueueExtensions.EventsToRegister), each
with a hint that looks at the event's objects and says whether the pod is worth another try. The
scheduler gathers them per profile into a QueueingHintMap (framework/runtime.py build_queueing_hint_map) and
the scheduling queue asks it when an event happens (isPodWorthRequeuing).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..model.objects import Node, Pod

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
# an update of an unscheduled pod none of the specific kinds describes (upstream sends the general
# Update for it, which only a registration of the general Update matches)
UPDATE_POD_OTHER = 1 << 12
# v1.35+: status.declaredFeatures of a node changed (no v1.34.1 plugin registers it)
UPDATE_NODE_DECLARED_FEATURE = 1 << 13
UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
          | UPDATE_NODE_ANNOTATION | UPDATE_NODE_DECLARED_FEATURE | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN
          | UPDATE_POD_TOLERATION | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM
          | UPDATE_POD_OTHER)
ALL = ADD | DELETE | UPDATE

# fwk.EventResource: the kinds as a trace names them
POD = "Pod"
NODE = "Node"
PERSISTENT_VOLUME = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
CSI_NODE = "CSINode"
CSI_DRIVER = "CSIDriver"
VOLUME_ATTACHMENT = "VolumeAttachment"
CSI_STORAGE_CAPACITY = "CSIStorageCapacity"
STORAGE_CLASS = "StorageClass"
RESOURCE_CLAIM = "ResourceClaim"
RESOURCE_SLICE = "ResourceSlice"
DEVICE_CLASS = "DeviceClass"
WILDCARD = "*"


@dataclass(frozen=True)
class ClusterEvent:
    resource: str
    action: int
    label: str = ""

    @property
    def wildcard(self) -> bool:
        return self.resource == WILDCARD


# QueueingHintFn: (pod rejected before, old object, new object) -> Queue (True) or QueueSkip (False).
# The old object is None for an add, the new one None for a delete.
QueueingHintFn = Callable[[Pod, Any, Any], bool]


@dataclass(frozen=True)
class ClusterEventWithHint:
    """An event a plugin registers for; without a hint, the event always requeues (Queue)."""

    event: ClusterEvent
    hint: QueueingHintFn | None = None


# framework/events.go's special events and labels
EVENT_ASSIGNED_POD_ADD = ClusterEvent(POD, ADD, "AssignedPodAdd")
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(POD, DELETE, "AssignedPodDelete")
EVENT_NODE_ADD = ClusterEvent(NODE, ADD, "NodeAdd")
# an unscheduled pod added (addPodToSchedulingQueue tells the queue with GangScheduling on)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(POD, ADD, "UnscheduledPodAdd")
EVENT_NODE_DELETE = ClusterEvent(NODE, DELETE, "NodeDelete")
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ALL, "UnschedulableTimeout")
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ALL, "ForceActivate")
UNSCHEDULED_POD_ADD = "UnscheduledPodAdd"
UNSCHEDULED_POD_UPDATE = "UnscheduledPodUpdate"
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"


def unroll_wildcard_resource() -> list[ClusterEventWithHint]:
    """mirrors UnrollWildCardResource: what a plugin without EventsToRegister is registered for."""
    return [ClusterEventWithHint(ClusterEvent(r, ALL)) for r in (
        POD, NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, CSI_NODE, CSI_DRIVER, CSI_STORAGE_CAPACITY,
        STORAGE_CLASS, RESOURCE_CLAIM, DEVICE_CLASS)]


# the queueing strategies isPodWorthRequeuing decides between
QUEUE_SKIP = 0           # stay in the unschedulable pool
QUEUE_AFTER_BACKOFF = 1  # to backoffQ while the pod backs off, else activeQ
QUEUE_IMMEDIATELY = 2    # to activeQ at once (a Pending plugin's wait may be over)


class QueueingHintMap:
    """One profile's registrations: per event resource, (actions, plugin, hint) in the order the
    plugins registered them (upstream's QueueingHintMap, keyed by resource for the lookup)."""

    __slots__ = ("by_resource", "plugins")

    def __init__(self) -> None:
        self.by_resource: dict[str, list[tuple[int, str, QueueingHintFn | None]]] = {}
        self.plugins: set[str] = set()  # plugins with at least one registration

    def register(self, plugin: str, event: ClusterEvent, hint: QueueingHintFn | None) -> None:
        self.by_resource.setdefault(event.resource, []).append((event.action, plugin, hint))
        self.plugins.add(plugin)

    def registered(self, plugin: str, event: ClusterEvent) -> bool:
        """Whether `plugin` registered for an event that matches `event` (hints aside)."""
        if plugin not in self.plugins:
            return False
        return any(p == plugin and a & event.action for a, p, _ in self._matching(event))

    def _matching(self, event: ClusterEvent) -> list[tuple[int, str, QueueingHintFn | None]]:
        own = self.by_resource.get(event.resource, [])
        anything = self.by_resource.get(WILDCARD)
        return own + anything if anything else own

    def worth_requeuing(self, pod: Pod, unschedulable: Iterable[str], pending: Iterable[str], event: ClusterEvent,
                        old: Any, new: Any) -> int:
        """mirrors isPodWorthRequeuing: QUEUE_SKIP, QUEUE_AFTER_BACKOFF, or QUEUE_IMMEDIATELY when
        a plugin that left the pod Pending says Queue. The hint of each rejecting plugin registered
        for the event is asked."""
        pending = set(pending)
        rejectors = set(unschedulable) | pending
        if not rejectors or event.wildcard:
            return QUEUE_AFTER_BACKOFF
        strategy = QUEUE_SKIP
        for actions, plugin, hint in self._matching(event):
            if plugin not in rejectors or not actions & event.action:
                continue
            if hint is not None and not hint(pod, old, new):
                continue
            if plugin in pending:
                return QUEUE_IMMEDIATELY
            if not pending:
                return QUEUE_AFTER_BACKOFF
            strategy = QUEUE_AFTER_BACKOFF
        return strategy


# --- which kind of update an object went through ------------------------------------------------

def _res_tuple(n: Node) -> tuple:
    a = n.allocatable
    return (a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number, tuple(sorted(a.scalar.items())))


def node_scheduling_properties_change(old: Node, new: Node, *, declared_features: bool = False) -> ClusterEvent | None:
    """mirrors NodeSchedulingPropertiesChange: the update kinds a plugin may care about, as one
    event carrying every kind that changed (None when none did). `declared_features`: the release
    knows status.declaredFeatures (v1.35+)."""
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
    if declared_features and (old.status.get("declaredFeatures") or []) != (new.status.get("declaredFeatures") or []):
        action |= UPDATE_NODE_DECLARED_FEATURE
    if not action:
        return None
    return ClusterEvent(NODE, action, "NodeUpdate")


def _scaled_down(old: Pod, new: Pod) -> bool:
    # mirrors extractPodScaleDown: a request of the pod went down (or away)
    o, n = old.resource.resource, new.resource.resource
    return (n.milli_cpu < o.milli_cpu or n.memory < o.memory or n.ephemeral_storage < o.ephemeral_storage
            or any(n.scalar.get(k, 0) < v for k, v in o.scalar.items()))


def assigned_pod_update_event(old: Pod, new: Pod) -> ClusterEvent | None:
    """mirrors PodSchedulingPropertiesChange for a bound pod (labels, scale-down, tolerations)."""
    action = 0
    if dict(old.labels) != dict(new.labels):
        action |= UPDATE_POD_LABEL
    if _scaled_down(old, new):
        action |= UPDATE_POD_SCALE_DOWN
    if old.tolerations != new.tolerations:
        action |= UPDATE_POD_TOLERATION
    if not action:
        return None
    return ClusterEvent(POD, action, "AssignedPodUpdate")


def unscheduled_pod_update_events(old: Pod, new: Pod) -> list[ClusterEvent]:
    """mirrors PodSchedulingPropertiesChange for a pod that is not bound: one event per kind."""
    action = 0
    if dict(old.labels) != dict(new.labels):
        action |= UPDATE_POD_LABEL
    if _scaled_down(old, new):
        action |= UPDATE_POD_SCALE_DOWN
    if (old.spec.get("schedulingGates") or []) and not (new.spec.get("schedulingGates") or []):
        action |= UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    if old.tolerations != new.tolerations:
        action |= UPDATE_POD_TOLERATION
    events = []
    for bit in (UPDATE_POD_LABEL, UPDATE_POD_SCALE_DOWN, UPDATE_POD_SCHEDULING_GATES_ELIMINATED, UPDATE_POD_TOLERATION):
        if action & bit:
            events.append(ClusterEvent(POD, bit, UNSCHEDULED_POD_UPDATE))
    return events or [ClusterEvent(POD, UPDATE_POD_OTHER, UNSCHEDULED_POD_UPDATE)]


def never(pod: Pod, old: Any, new: Any) -> bool:
    """A hint that always says QueueSkip."""
    return False
