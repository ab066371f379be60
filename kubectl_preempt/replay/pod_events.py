"""The recording applied to the replay: the trace's events through the one event handler
(replay/eventhandlers.py), and what simulate mode does with a pod's events: a new pod queued
for the replayed scheduler (or placed as recorded when another scheduler owns it), a deletion,
completion or change applied, and the recorded scheduler's own bindings, nominations and
deletions left out. A mixin of Simulation (replay/simulate.py): its state lives there.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..model.objects import Pod
from ..model.who_preempted import EVENT_REASON_PREEMPTED, preempted_by
from .batch import BATCH_KINDS, BatchScheduler
from .controllers import OWNER_KINDS, WorkloadControllers
from .engine import Engine
from .eventhandlers import EventHandler
from .state import ReplayState, finished, grace_period, preempted_by_scheduler
from .timeline import TraceEvent
from .whatif import PriorityPolicy


class PodEvents:
    """Simulation's handling of the recording (its fields are Simulation's)."""

    engine: Engine
    state: ReplayState
    handler: EventHandler
    controllers: WorkloadControllers
    policy: PriorityPolicy
    batch: BatchScheduler | None
    enqueued_at: dict[str, float]
    scheduled: dict[str, dict[str, Any]]
    recorded_bind: dict[str, float]
    runtime: dict[str, float]
    completed_in_recording: set[str]
    gone: set[str]
    victims_at_start: set[str]
    recorded_victims: set[str]
    _completion_events: dict[str, Any]

    # ------------------------------------------------------------------ applying the recording
    def apply(self, ev: TraceEvent) -> None:
        self.handler.apply(ev)

    @property
    def events_applied(self) -> int:
        return self.handler.applied

    @property
    def events_ignored(self) -> int:
        return self.handler.ignored

    def _batch_claims(self, ev: TraceEvent) -> bool:
        return ev.kind in BATCH_KINDS and self.batch is not None and self.batch.observe(ev)

    def _node_deleted(self, name: str) -> None:
        # the pod garbage collector deletes what the replay had placed there
        for p in [p for p in self.state.cluster.pods.values() if p.node_name == name]:
            self._remove(p, "node deleted")

    def _object_changed(self, kind: str, obj: Mapping[str, Any], deleted: bool) -> None:
        if kind in OWNER_KINDS:
            self.controllers.owner_event(kind, obj, deleted=deleted)

    def _new_pod(self, raw: Mapping[str, Any]) -> Pod:
        pod = Pod(raw)
        self.policy.resolve(pod, self.state.cluster.priority_classes, existing=False)
        return pod

    def _add_new_pod(self, raw: Mapping[str, Any]) -> None:
        pod = self._new_pod(raw)
        owned = self.state.owned(pod)
        if owned or (self.batch is not None and self.batch.owns(pod)):
            # the replayed scheduler places it, whatever the recording says (kube-batch's pods at
            # its next session)
            pod.node_name = ""
            pod.nominated_node_name = ""
            self.enqueued_at.setdefault(pod.uid, self.engine.now)
            self.handler.add_pod(pod)  # queued when one of this scheduler's profiles owns it
        elif pod.node_name:
            self.handler.add_pod(pod)
        else:
            return
        self.controllers.added(pod)

    def _delete_by_controller(self, pod: Pod) -> None:
        """A controller deletes one of its pods (a scale-down): it terminates as a deleted pod does."""
        if pod.node_name:
            self.state.mark_terminating(pod, self.engine.now, preempted=False)
            self._delete_at(pod, self.engine.now + grace_period(pod), "scaled down")
        else:
            self._remove(pod, "scaled down")

    def _pod_event(self, ev: TraceEvent) -> None:
        raw = ev.obj
        uid = ev.uid
        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        node_name = spec.get("nodeName") or ""
        now = self.engine.now
        if node_name and uid not in self.recorded_bind:
            self.recorded_bind[uid] = now
        self.controllers.recorded_pod(ev.type, raw)
        cur = self.state.pods_by_uid.get(uid)
        if ev.type == "DELETED":
            if cur is None:
                return
            if uid in self.completed_in_recording and uid in self._completion_events:
                return  # it completes in the replay when its replayed run ends
            if self._deleted_by_recorded_scheduler(uid, raw):
                self.handler.ignored += 1
                return  # the recorded scheduler's deletion: the replay makes its own
            self._remove(cur, "deleted")
            return
        if cur is None:
            if uid in self.gone or finished(raw):
                return
            if not self.controllers.admit(raw):
                # its controller made it to replace a pod the replay kept (or replaced already)
                self.gone.add(uid)
                self.handler.ignored += 1
                return
            prev = self.state.cluster.pods.get(ev.key)
            if prev is not None:
                # a new pod of the same name (a StatefulSet's): the old one is gone by now
                self._remove(prev, "replaced")
            self._add_new_pod(raw)
            return
        # MODIFIED (or ADDED again) of a pod the replay holds
        if finished(raw) and (md.get("deletionTimestamp") or cur.deletion_timestamp
                              or self._deleted_by_recorded_scheduler(uid, raw)):
            # A terminal status that ends a graceful deletion is not the workload completing: the
            # kubelet kills the containers when the grace period ends and writes the terminal
            # phase (kubelet.go SyncTerminatingPod -> generateAPIPodStatus: Failed, exit code 137),
            # and the scheduler's informer drops a terminal pod from then on. When the deletion
            # was the recorded scheduler's, the replay did not make it: the pod keeps running there
            # (its own preemption, if it made one, ends through its own timer). Any other deletion
            # the replay applied as recorded: the pod leaves now.
            if self._deleted_by_recorded_scheduler(uid, raw):
                self.handler.ignored += 1
                return
            self._remove(cur, "deleted")
            return
        if finished(raw):
            self.completed_in_recording.add(uid)
            ran = now - self.recorded_bind.get(uid, now)
            if cur.node_name:
                bound_at = self.scheduled.get(uid, {}).get("time", self.recorded_bind.get(uid, now))
                self._complete_at(cur, bound_at + ran)
            else:
                self.runtime[uid] = ran
            return
        owned = self.state.owned(cur)
        if not owned and not (self.batch is not None and self.batch.owns(cur)):
            if node_name and not cur.node_name:
                self.handler.bind_pod(cur, node_name, now)
                return
        if md.get("deletionTimestamp") and not cur.deletion_timestamp:
            if self._deleted_by_recorded_scheduler(uid, raw):
                self.handler.ignored += 1
                return
            if cur.node_name:
                self.state.mark_terminating(cur, now, preempted=False)
                self.controllers.recorded_deletion(cur)
            else:
                self._remove(cur, "deleted")
            return
        if _labels_or_spec_changed(cur, raw):
            new = Pod(raw)
            new.node_name = cur.node_name
            new.nominated_node_name = cur.nominated_node_name
            new.priority, new.preemption_policy, new.has_priority = cur.priority, cur.preemption_policy, True
            new.status = cur.status
            new.phase = cur.phase
            if cur.deletion_timestamp:
                new.metadata = {**new.metadata, "deletionTimestamp": cur.deletion_timestamp}
                new.deletion_timestamp = cur.deletion_timestamp
            self.handler.update_pod(cur, new)
        else:
            # nothing the scheduler reads changed, but the cache still removes and re-adds a bound pod
            self.handler.touch_pod(cur)
            self.handler.ignored += 1


    def _deleted_by_recorded_scheduler(self, uid: str, raw: Mapping[str, Any]) -> bool:
        """A deletion (or its end) the recorded scheduler made during the trace: simulate mode
        leaves it out. One made before the trace (a victim terminating at its start) stands."""
        if uid in self.victims_at_start:
            return False
        return uid in self.recorded_victims or preempted_by_scheduler(raw)


def recorded_scheduler_victims(events: list[TraceEvent]) -> set[str]:
    """Uids of the pods a `Preempted` Event of the trace names (kube-scheduler's
    PreemptPod records one per victim it deletes: "Preempted by pod <uid> on node <node>")."""
    out: set[str] = set()
    for ev in events:
        if ev.kind != "Event" or ev.type == "BOOKMARK":
            continue
        o = ev.obj
        if o.get("reason") != EVENT_REASON_PREEMPTED or preempted_by(o) is None:
            continue
        inv = o.get("involvedObject") or o.get("regarding") or {}
        if inv.get("kind", "Pod") != "Pod":
            continue
        if inv.get("uid"):
            out.add(inv["uid"])
        elif inv.get("name"):
            out.add(f"{inv.get('namespace') or 'default'}/{inv['name']}")
    return out


def _labels_or_spec_changed(cur: Pod, raw: Mapping[str, Any]) -> bool:
    md = raw.get("metadata") or {}
    if (md.get("labels") or {}) != dict(cur.labels):
        return True
    spec = raw.get("spec") or {}
    if spec is cur.spec:
        return False
    a = {k: v for k, v in spec.items() if k != "nodeName"}
    b = {k: v for k, v in cur.spec.items() if k != "nodeName"}
    return a != b
