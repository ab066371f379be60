"""The trace's events applied to the replayed scheduler's cache and queue (eventhandlers.go).

A trace is the stream kube-scheduler's informers would deliver. EventHandler applies it for both
replay modes, each through its own handler (simulate: replay/pod_events.py SimulateHandler): objects go into the cache (ReplayState: objects, snapshot, nominator, the
cache's pod order), and, when the replay has a scheduling queue (simulate mode), each change is
told to the queue as upstream's handlers tell it (addPodToSchedulingQueue, updatePodInCache, the
MoveAllToActiveOrBackoffQueue calls with the event's objects for the plugins' queueing hints).

What the modes let the recording say about pods differs, and stays with them: simulate leaves out
what the recorded scheduler did (its bindings, nominations and preemptions; the replayed scheduler
makes its own) and runs the workload controllers; follow has no queue and applies the recorded
bindings and nominations as they happened. Both hand their pod changes to the handler's pod
methods, so the cache and the queue see them the same way.
"""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Callable, Mapping

from ..framework import events as ev
from ..framework.podinfo import container_host_ports, pod_info
from ..framework.types import NodeInfo
from ..model.objects import Node, Pod, PriorityClass
from ..model.workload import group_name_of
from ..plugins import names
from ..plugins.helper.nodeaffinity import required_node_affinity
from ..plugins.helper.taint import TAINT_EFFECT_NO_SCHEDULE, find_matching_untolerated_taint
from ..plugins.nodename import fits as node_name_fits
from ..plugins.noderesources.fit import compute_pod_resource_request, fits_request
from ..plugins.nodeports import fits_ports
from ..scheduler.backend.queue import SchedulingQueue
from .state import ReplayState, parse_time
from .timeline import TraceEvent
from .whatif import PriorityPolicy


def apply_priority_class_event(state: ReplayState, policy: PriorityPolicy,
                               recorded: dict[str, PriorityClass], event: TraceEvent) -> None:
    """A recorded PriorityClass change: kept in `recorded`, then merged with the proposed classes."""
    name = event.name
    if name in policy.overrides:
        return  # the proposal replaces this class for the whole replay
    if event.type == "DELETED":
        state.delete_priority_class(event.obj)
        recorded.pop(name, None)
    else:
        state.set_priority_class(event.obj)
        recorded[name] = state.cluster.priority_classes[name]
    state.cluster.priority_classes = policy.merged(recorded)


_ACTIONS = {"ADDED": ev.ADD, "MODIFIED": ev.UPDATE, "DELETED": ev.DELETE}


@dataclass(eq=False)
class EventHandler:
    """Applies trace events to `state` and, when given, `queue`: the part both modes share.

    Each mode's handler is a subclass (simulate: replay/pod_events.py SimulateHandler; follow:
    replay/follow.py FollowHandler) that reads a Pod event its own way (`pod_event`) and calls the
    pod methods below; it may also take an event for another scheduler beside this one (`claims`),
    act on a deleted node's pods before the queue hears of it (`node_deleted`) and watch other
    kinds (`object_changed`).
    `pdb_status_from_trace`: take a PodDisruptionBudget's status as recorded (follow), or keep the
    replay's own until the disruption controller's next sync (simulate)."""

    state: ReplayState
    policy: PriorityPolicy
    recorded_classes: dict[str, PriorityClass]
    _: KW_ONLY
    queue: SchedulingQueue | None = None
    pdb_status_from_trace: bool = True
    declared_features: bool = False
    applied: int = field(default=0, init=False)  # events of a kind the scheduler watches
    ignored: int = field(default=0, init=False)  # events of other kinds

    # ------------------------------------------------------------------ what a mode decides
    def pod_event(self, event: TraceEvent) -> None:
        """The mode's reading of a Pod event."""
        raise NotImplementedError("a mode's handler reads Pod events")

    def claims(self, event: TraceEvent) -> bool:
        """True when another scheduler beside this one takes the event for itself."""
        return False

    def node_deleted(self, name: str) -> None:
        """A node left the cache; its pods are still there (the queue hears of it after this)."""

    def object_changed(self, kind: str, obj: Mapping[str, Any], deleted: bool) -> None:
        """An object of another kind the cluster keeps changed."""

    # ------------------------------------------------------------------ one event of the trace
    def apply(self, event: TraceEvent) -> None:
        kind = event.kind
        if event.type == "BOOKMARK":
            return
        self.applied += 1
        if self.claims(event):
            return
        if kind == "Pod":
            self.pod_event(event)
        elif kind == "Node":
            if event.type == "DELETED":
                self.delete_node(event.name)
            else:
                self.add_or_update_node(event.obj)
        elif kind == "PodDisruptionBudget":
            if event.type == "DELETED":
                self.state.delete_pdb(event.obj)
            else:
                self.set_pdb(event.obj, event.time)
        elif kind == "PriorityClass":
            apply_priority_class_event(self.state, self.policy, self.recorded_classes, event)
        elif kind in self.state.cluster.extra:
            self.set_object(kind, event)
        else:
            self.ignored += 1
            self.applied -= 1

    # ------------------------------------------------------------------ nodes
    def add_or_update_node(self, raw: Mapping[str, Any]) -> None:
        """mirrors addNodeToCache / updateNodeInCache."""
        old, new = self.state.set_node(raw)
        if self.queue is None:
            return
        if old is None:
            self.queue.move_all_to_active_or_backoff(ev.EVENT_NODE_ADD, None, new, self._pre_check_for_node(new))
        else:
            e = ev.node_scheduling_properties_change(old, new, declared_features=self.declared_features)
            if e is not None:
                self.queue.move_all_to_active_or_backoff(e, old, new, self._pre_check_for_node(new))

    def _pre_check_for_node(self, node: Node) -> Callable[[Pod], bool] | None:
        """mirrors preCheckForNode: v1.30 and v1.31 move a pod on a node event only if it would be
        admitted to the node as the kubelet admits it (AdmissionCheck) and tolerates its NoSchedule
        taints; from v1.32 there is no pre-check while SchedulerQueueingHints is on (always, here)."""
        version = self.state.config.version
        if version.minor >= 32 and version.features.enable_scheduling_queue_hint:
            return None
        ni = NodeInfo(node)
        ni.counting = self.state.snapshot.counting
        ni.add_pods(self.state.order.pods_on(node.name, self.state.pods_by_uid))
        pod_level = version.features.enable_pod_level_resources
        return lambda pod: not admission_check(pod, ni, pod_level) and not _untolerated_no_schedule(pod, node)

    def delete_node(self, name: str) -> Node | None:
        """mirrors deleteNodeFromCache."""
        old = self.state.delete_node(name)
        if old is not None:
            self.node_deleted(name)
            if self.queue is not None:
                self.queue.move_all_to_active_or_backoff(ev.EVENT_NODE_DELETE, old, None)
        return old

    # ------------------------------------------------------------------ pods
    def add_pod(self, pod: Pod) -> None:
        """A pod appears: mirrors addPodToCache for a bound pod (then AssignedPodAdd), and
        addPodToSchedulingQueue for a pending one of this scheduler's profiles."""
        self.state.add_pod(pod)
        if self.queue is None:
            return
        if pod.node_name:
            self._assigned_pod_added(pod)
        elif self.state.owned(pod):
            self.queue.add(pod)
            if self.state.config.version.features.enable_gang_scheduling:
                # addPodToSchedulingQueue with GangScheduling: the new pod may complete a gang whose
                # other members wait at PreEnqueue (only the pods of its group are asked here)
                group = group_name_of(pod.spec, self.state.config.version.minor)
                if group:
                    self.queue.move_all_to_active_or_backoff(
                        ev.EVENT_UNSCHEDULED_POD_ADD, None, pod,
                        lambda q: q.namespace == pod.namespace and group_name_of(q.spec, self.state.config.version.minor) == group)

    def bind_pod(self, pod: Pod, node_name: str, now: float, *, requeue: bool = True) -> None:
        """A pending pod is bound to `node_name` (by the replayed scheduler, or by another one):
        it joins its node in the cache, then the queue hears AssignedPodAdd (`requeue=False`: the
        caller calls pod_bound itself, after what the binding sets off)."""
        # a pod of another scheduler was never in this one's unscheduled-pod informer
        nominated = pod.nominated_node_name if self.state.owned(pod) else ""
        self.state.bind(pod, node_name, now)
        if requeue:
            self.pod_bound(pod, nominated)

    def pod_bound(self, pod: Pod, nominated: str = "") -> None:
        """The queue hears that `pod` was bound (AssignedPodAdd); `nominated`: the node the pod of
        this scheduler was nominated to as it was bound. In v1.33 and v1.34 a binding is also the
        unscheduled-pod informer's delete of the pod as it was (FilteringResourceEventHandler:
        OnDelete), and deletePodFromSchedulingQueue requeues the pods of lower or equal priority
        its nomination held room from; v1.35 skips that for a binding (inBinding)."""
        if self.queue is not None:
            self._assigned_pod_added(pod)
            if nominated and 33 <= self.state.config.version.minor <= 34:
                prio = pod.priority
                self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, _as_pending(pod, nominated),
                                                         None, lambda q: q.priority <= prio)

    def _hints_on(self) -> bool:
        """SchedulerQueueingHints as the release has it (off in v1.30 and v1.31)."""
        return self.state.config.version.features.enable_scheduling_queue_hint

    def _assigned_pod_added(self, pod: Pod) -> None:
        """addPodToCache's requeue: with SchedulerQueueingHints (v1.31 on), every pod the plugins'
        hints say the new pod may help; without, AssignedPodAdded: only the pods whose required
        pod affinity it matches (v1.31: or that PodTopologySpread rejected, in its namespace)."""
        assert self.queue is not None
        if self._hints_on() and self.state.config.version.minor >= 31:
            self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_ADD, None, pod)
        else:
            self.queue.move_pods(self._cross_topology_pods(pod), ev.EVENT_ASSIGNED_POD_ADD, None, pod)

    def _cross_topology_pods(self, pod: Pod) -> list[Any]:
        """mirrors getUnschedulablePodsWithCrossTopologyTerm (v1.30: getUnschedulablePodsWith-
        MatchingAffinityTerm, without the PodTopologySpread part): the waiting pods an assigned
        pod's arrival or change may help without a hint."""
        assert self.queue is not None
        spread = self.state.config.version.minor >= 31
        ns = (self.state.cluster.namespaces.get(pod.namespace) or {}).get("metadata") or {}
        ns_labels = ns.get("labels") or {}
        out = []
        for p in self.queue.unschedulable.values():
            if spread and names.POD_TOPOLOGY_SPREAD in p.unschedulable_plugins and pod.namespace == p.pod.namespace:
                out.append(p)
                continue
            terms = (p.pod.info or pod_info(p.pod)).affinity_terms
            if any(t.matches(pod, ns_labels) for t in terms.required_affinity):
                out.append(p)
        return out

    def update_pod(self, old: Pod, new: Pod) -> None:
        """A new view of a pod: mirrors updatePodInCache for a bound pod (the kinds of change as
        AssignedPodUpdate) and updatePodInSchedulingQueue for a pending one."""
        self.state.replace_pod(old, new)
        if self.queue is None:
            return
        if new.node_name:
            self._assigned_pod_updated(old, new)
        elif self.state.owned(old):
            self.queue.update(old, new)

    def _assigned_pod_updated(self, old: Pod, new: Pod) -> None:
        """updatePodInCache's requeue: with SchedulerQueueingHints, every pod the hints say the
        change may help; without (v1.31), AssignedPodUpdated per kind of change: a scale-down moves
        every pod, another change the pods _cross_topology_pods names; v1.30 calls
        AssignedPodUpdated on every update, as one Pod/Update."""
        assert self.queue is not None
        version = self.state.config.version
        if version.minor < 31:
            if _resized_down(new, version.features.enable_in_place_pod_vertical_scaling):
                self.queue.move_all_to_active_or_backoff(_ASSIGNED_POD_UPDATE, old, new)
            else:
                self.queue.move_pods(self._cross_topology_pods(new), _ASSIGNED_POD_UPDATE, old, new)
            return
        e = ev.assigned_pod_update_event(old, new)
        if e is None:
            return
        if self._hints_on() or e.action & ev.UPDATE_POD_SCALE_DOWN:
            self.queue.move_all_to_active_or_backoff(e, old, new)
        else:
            self.queue.move_pods(self._cross_topology_pods(new), e, old, new)

    def touch_pod(self, pod: Pod) -> None:
        """An update that changes nothing the scheduler reads: the cache still re-adds the pod
        (and v1.30's updatePodInCache still calls AssignedPodUpdated)."""
        old = self.state.pods_by_uid.get(pod.uid)
        self.state.touch(pod)
        if self.queue is not None and pod.node_name and self.state.config.version.minor < 31:
            self._assigned_pod_updated(old if old is not None else pod, pod)

    def nominate_pod(self, pod: Pod, node_name: str, *, requeue: bool = True) -> str:
        """The pod's nominated node set (or cleared with "") in the scheduler's nominator; returns
        the previous one. `requeue`: the queue hears of the change at once (nomination_changed);
        a caller whose change reaches the queue later, through the API, calls that itself."""
        prev = self.state.nominate(pod, node_name)
        if requeue:
            self.nomination_changed(pod, prev, node_name)
        return prev

    def nomination_changed(self, pod: Pod, prev: str, node_name: str) -> None:
        """The informer delivers a pending pod whose nominated node changed from `prev`: leaving a
        nominated node frees room there for pods of lower or equal priority (mirrors
        updatePodInSchedulingQueue's hasNominatedNodeNameChanged requeue; a first nomination,
        from none, moves no one)."""
        if self.queue is not None and prev and prev != node_name:
            prio = pod.priority
            self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, _as_nominated(pod, prev), None,
                                                     lambda q: q.priority <= prio)

    def delete_pod(self, pod: Pod, on_removed: Callable[[], None] | None = None) -> None:
        """A pod is gone: mirrors deletePodFromCache for a bound pod (then AssignedPodDelete) and
        deletePodFromSchedulingQueue for a pending one (a nominated one frees its node's room for
        pods of lower or equal priority). `on_removed` runs once it is out of the cache, before
        the queue hears of it."""
        was_bound = bool(pod.node_name)
        nominated = pod.nominated_node_name
        self.state.remove_pod(pod)
        if on_removed is not None:
            on_removed()
        if self.queue is None:
            return
        if was_bound:
            self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, pod, None)
        else:
            self.queue.delete(pod)
            # deletePodFromSchedulingQueue: v1.33 on (before, only a pod rejected at Permit
            # requeues anything)
            if nominated and self.state.config.version.minor >= 33:
                prio = pod.priority
                self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, pod, None,
                                                         lambda q: q.priority <= prio)

    # ------------------------------------------------------------------ other kinds
    def set_pdb(self, raw: Mapping[str, Any], at: float = 0.0) -> None:
        if self.pdb_status_from_trace:
            self.state.set_pdb(raw)
            return
        old = {p.key: p for p in self.state.cluster.pdbs}
        new = self.state.set_pdb(raw)
        prev = old.get(new.key)
        if prev is None:
            return  # a new PDB: its recorded status until the controller's first sync of it
        # its status is the replay's own, not the recording's: kept until the next sync...
        new.disruptions_allowed = prev.disruptions_allowed
        new.disrupted_pods = prev.disrupted_pods
        # ...but for the evictions the recording made: the API server's eviction handler wrote
        # each into the budget itself (EvictionREST.checkAndDecrement: the pod entered in
        # status.disruptedPods), and the replay applies them to its own
        before = (prev.raw.get("status") or {}).get("disruptedPods") or {}
        now_recorded = (raw.get("status") or {}).get("disruptedPods") or {}
        for name, when in sorted(now_recorded.items()):
            if before.get(name) != when:
                t = parse_time(when)
                self.state.evict(new.key, name, t if t is not None else at)

    def set_object(self, kind: str, event: TraceEvent) -> None:
        """An object of another kind the cluster keeps (a claim, a volume, a ReplicaSet...); the
        queue hears of it as an event of that resource."""
        deleted = event.type == "DELETED"
        self.state.set_extra(event.obj, deleted=deleted)
        self.object_changed(kind, event.obj, deleted)
        if self.queue is not None:
            self.queue.move_all_to_active_or_backoff(
                ev.ClusterEvent(kind, _ACTIONS[event.type], f"{kind}{event.type.title()}"), None, event.obj)


# v1.30's AssignedPodUpdate: one Pod/Update, whatever changed
_ASSIGNED_POD_UPDATE = ev.ClusterEvent(ev.POD, ev.UPDATE, "AssignedPodUpdate")


def admission_check(pod: Pod, node_info: NodeInfo, pod_level_resources: bool) -> str:
    """mirrors AdmissionCheck with includeAllFailures false: the first of the pod's resources
    (noderesources.Fits), required node affinity, node name and host ports that the node fails,
    or "" when it passes them all."""
    if fits_request(compute_pod_resource_request(pod, pod_level_resources), node_info):
        return names.NODE_RESOURCES_FIT
    if not required_node_affinity(pod).matches(node_info.node):
        return names.NODE_AFFINITY
    if not node_name_fits(pod, node_info):
        return names.NODE_NAME
    if not fits_ports(container_host_ports(pod.spec), node_info):
        # (v1.30 and v1.31's Fits: the containers' ports, getContainerPorts)
        return names.NODE_PORTS
    return ""


def _untolerated_no_schedule(pod: Pod, node: Node) -> bool:
    """preCheckForNode's taint test: a NoSchedule taint (NoExecute aside) the pod does not tolerate."""
    return find_matching_untolerated_taint(node.taints, pod.tolerations,
                                           lambda t: t.get("effect") == TAINT_EFFECT_NO_SCHEDULE) is not None


def _resized_down(pod: Pod, in_place_pod_vertical_scaling: bool) -> bool:
    """mirrors isPodResourcesResizedDown (v1.30): a resize the kubelet reports as InProgress."""
    return in_place_pod_vertical_scaling and (pod.status.get("resize") == "InProgress")


def _as_pending(pod: Pod, nominated: str) -> Pod:
    """The pod as the informer held it before its binding: no node, nominated to `nominated`."""
    p = _as_nominated(pod, nominated)
    p.node_name = ""
    return p


def _as_nominated(pod: Pod, node: str) -> Pod:
    p = Pod(pod.raw)
    p.priority = pod.priority
    p.nominated_node_name = node
    return p
