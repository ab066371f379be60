"""Simulate mode's event handler: the trace's events through the cache and queue methods both
modes share (replay/eventhandlers.py), and what simulate mode does with a pod's events: a new pod
queued for the replayed scheduler (or placed as recorded when another scheduler owns it), a
deletion, completion or change applied, and the recorded scheduler's own bindings, nominations and
deletions left out. The facts of the recording it needs beyond the event at hand (which pods the
recorded scheduler preempted) come from the trace's calibration (replay/calibration.py).
"""
from __future__ import annotations

from typing import Any, Mapping

from ..model.objects import Pod
from ..scheduler.backend.queue import metadata_updated
from .batch import BATCH_KINDS
from .controllers import OWNER_KINDS
from .eventhandlers import EventHandler
from .state import disruption_target, finished, grace_period, preempted_by_scheduler, with_disruption_target
from .timeline import TraceEvent


# the pod conditions the kubelet writes (status_manager.go, kubelet_pods.go generateAPIPodStatus)
KUBELET_CONDITIONS = frozenset(("Ready", "ContainersReady", "Initialized", "PodReadyToStartContainers"))


class SimulateHandler(EventHandler):
    """The recording applied to a simulate-mode replay. What it keeps of the recording (when pods
    were bound, how long they ran, which completed or are gone) lives here; the clock, the
    controllers, kube-batch and the deletions are the Simulation's."""

    # `sim`: the Simulation (replay/simulate.py) this handler serves; not imported, simulate imports this
    def __init__(self, sim: Any, recorded_victims: frozenset[str], **kwargs: Any) -> None:
        super().__init__(sim.state, sim.policy, sim.recorded_classes, queue=sim.queue,
                         pdb_status_from_trace=False, **kwargs)
        self.sim = sim
        # pods the recorded scheduler preempted: their DisruptionTarget condition says so, or a
        # Preempted Event names them (the condition may be missing from a pod's last versions)
        self.recorded_victims = recorded_victims
        cluster = sim.state.cluster
        # the recorded scheduler's preemptions made before the trace: victims terminating at its
        # start, and victims its preemption had marked (the DisruptionTarget condition, the first
        # call of prepareCandidateAsync) but not deleted yet: their recorded deletions stand
        self.victims_at_start = {p.uid for p in cluster.pods.values() if p.terminating or preempted_by_scheduler(p.raw)}
        self.recorded_bind: dict[str, float] = {}
        self.runtime: dict[str, float] = {}       # uid -> how long it ran in the recording
        self.completed_in_recording: set[str] = set()
        for pod in cluster.pods.values():
            if pod.node_name:
                # seconds to the microsecond, as the datetime this was read from before (and year
                # 0, which a datetime cannot hold)
                st = pod.start_nanos
                self.recorded_bind[pod.uid] = (st // 1000) / 1_000_000 if st is not None else sim.timeline.start

    # ------------------------------------------------------------------ what simulate decides
    def claims(self, ev: TraceEvent) -> bool:
        batch = self.sim.batch
        return ev.kind in BATCH_KINDS and batch is not None and batch.observe(ev)

    def node_deleted(self, name: str) -> None:
        # the pod garbage collector deletes what the replay had placed there
        for p in [p for p in self.state.cluster.pods.values() if p.node_name == name]:
            self.sim._remove(p, "node deleted")

    def object_changed(self, kind: str, obj: Mapping[str, Any], deleted: bool) -> None:
        if kind in OWNER_KINDS:
            self.sim.controllers.owner_event(kind, obj, deleted=deleted)

    def new_pod(self, raw: Mapping[str, Any]) -> Pod:
        pod = Pod(raw)
        self.policy.resolve(pod, self.state.cluster.priority_classes, existing=False)
        return pod

    def add_new_pod(self, raw: Mapping[str, Any]) -> None:
        pod = self.new_pod(raw)
        owned = self.state.owned(pod)
        if owned or (self.sim.batch is not None and self.sim.batch.owns(pod)):
            # the replayed scheduler places it, whatever the recording says (kube-batch's pods at
            # its next session)
            pod.node_name = ""
            pod.nominated_node_name = ""
            self.sim.enqueued_at.setdefault(pod.uid, self.sim.engine.now)
            self.add_pod(pod)  # queued when one of this scheduler's profiles owns it
        else:
            # another scheduler's pod, bound or pending: the informer holds it all the same (v1.35's
            # workload manager counts a pending one in its gang: eventhandlers.go addPod)
            self.add_pod(pod)
        self.sim.controllers.added(pod)

    def delete_by_controller(self, pod: Pod) -> None:
        """A controller deletes one of its pods (a scale-down): it terminates as a deleted pod does."""
        if pod.node_name:
            self.state.mark_terminating(pod, self.sim.engine.now, preempted=False)
            self.sim._delete_at(pod, self.sim.engine.now + grace_period(pod), "scaled down")
        else:
            self.sim._remove(pod, "scaled down")

    def _delete_kept_in_place(self, uid: str, raw: Mapping[str, Any], now: float, *, graceful: bool) -> None:
        """The recording deletes a replacement the replay left out (its original kept): the pod
        kept in its place goes instead (controllers kept_in_place_of), gracefully when the
        recording's deletion is (a deletionTimestamp first), else at once. Only a plain delete of a
        pod still running, as a ReplicaSet's scale-down (or a person) makes it: not a pod that
        finished (its end is its own), and not one with a DisruptionTarget condition, whose cause
        is its node or the recorded scheduler's preemption (an eviction, the taint manager, the pod
        GC: the kept pod is elsewhere; preemptions the replay makes its own). A replacement the
        recording then makes of the deleted pod is the replay's replacement of the kept one."""
        if finished(raw) or self.deleted_by_recorded_scheduler(uid, raw) or disruption_target(raw) is not None:
            return
        kept_uid = self.sim.controllers.kept_in_place_of(uid)
        kept = self.state.pods_by_uid.get(kept_uid) if kept_uid is not None else None
        if kept is None:
            return
        self.sim.controllers.deleted_in_place_of(uid)
        if graceful and kept.node_name:
            if not kept.deletion_timestamp:
                self.state.mark_terminating(kept, now, preempted=False)
                self.sim.controllers.recorded_deletion(kept)
            return
        self.sim._remove(kept, "deleted")

    def pod_event(self, ev: TraceEvent) -> None:
        raw = ev.obj
        uid = ev.uid
        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        node_name = spec.get("nodeName") or ""
        now = self.sim.engine.now
        if node_name and uid not in self.recorded_bind:
            self.recorded_bind[uid] = now
        self.sim.controllers.recorded_pod(ev.type, raw)
        cur = self.state.pods_by_uid.get(uid)
        if ev.type == "DELETED":
            if cur is None:
                self._delete_kept_in_place(uid, raw, now, graceful=False)
                return
            if uid in self.completed_in_recording and uid in self.sim._completion_events:
                return  # it completes in the replay when its replayed run ends
            if self.deleted_by_recorded_scheduler(uid, raw):
                self.ignored += 1
                return  # the recorded scheduler's deletion: the replay makes its own
            self.sim._remove(cur, "deleted")
            return
        if cur is None:
            if uid in self.sim.gone or finished(raw):
                if md.get("deletionTimestamp"):
                    self._delete_kept_in_place(uid, raw, now, graceful=True)
                return
            if not self.sim.controllers.admit(raw):
                # its controller made it to replace a pod the replay kept (or replaced already)
                self.sim.gone.add(uid)
                self.ignored += 1
                return
            prev = self.state.cluster.pods.get(ev.key)
            if prev is not None:
                # a new pod of the same name (a StatefulSet's): the old one is gone by now
                self.sim._remove(prev, "replaced")
            self.add_new_pod(raw)
            return
        # MODIFIED (or ADDED again) of a pod the replay holds
        if finished(raw) and (md.get("deletionTimestamp") or cur.deletion_timestamp
                              or self.deleted_by_recorded_scheduler(uid, raw)):
            # A terminal status that ends a graceful deletion is not the workload completing: the
            # kubelet kills the containers when the grace period ends and writes the terminal
            # phase (kubelet.go SyncTerminatingPod -> generateAPIPodStatus: Failed, exit code 137),
            # and the scheduler's informer drops a terminal pod from then on. When the deletion
            # was the recorded scheduler's, the replay did not make it: the pod keeps running there
            # (its own preemption, if it made one, ends through its own timer). Any other deletion
            # the replay applied as recorded: the pod leaves now.
            if self.deleted_by_recorded_scheduler(uid, raw):
                self.ignored += 1
                return
            self.sim._remove(cur, "deleted")
            return
        if finished(raw):
            self.completed_in_recording.add(uid)
            ran = now - self.recorded_bind.get(uid, now)
            if cur.node_name:
                bound_at = self.sim.scheduled.get(uid, {}).get("time", self.recorded_bind.get(uid, now))
                self.sim._complete_at(cur, bound_at + ran)
            else:
                self.runtime[uid] = ran
            return
        owned = self.state.owned(cur)
        if not owned and not (self.sim.batch is not None and self.sim.batch.owns(cur)):
            if node_name and not cur.node_name:
                self.bind_pod(cur, node_name, now)
                return
        if md.get("deletionTimestamp") and not cur.deletion_timestamp:
            if self.deleted_by_recorded_scheduler(uid, raw):
                self.ignored += 1
                return
            if cur.node_name:
                self.state.mark_terminating(cur, now, preempted=False)
                mark = disruption_target(raw)
                if mark is not None and preempted_by_scheduler(raw) and \
                        not preempted_by_scheduler({"status": cur.status}):
                    # a deletion the recorded scheduler made before the trace keeps its recorded
                    # mark: what PodEligibleToPreemptOthers looks for on a nominated node
                    # (podTerminatingByPreemption)
                    cur.status = with_disruption_target(cur.status, mark)
                self.sim.controllers.recorded_deletion(cur)
            else:
                self.sim._remove(cur, "deleted")
            return
        kubelet = self._kubelet_status(cur, raw, node_name)
        # a start is what the scheduler's cache takes as an update (victims are ordered by it);
        # readiness and phase only the disruption controller reads
        started = kubelet is not None and kubelet.get("startTime") != cur.status.get("startTime")
        if started or _labels_or_spec_changed(cur, raw) or (
                not cur.node_name and not self.state.config.version.features.enable_scheduling_queue_hint
                and metadata_updated(cur.metadata, raw.get("metadata") or {})):
            # (without SchedulerQueueingHints, v1.30 and v1.31, a pending pod's queue hears of any
            # change but its status': scheduling_queue.go Update, isPodUpdated)
            new = Pod(raw)
            new.node_name = cur.node_name
            new.nominated_node_name = cur.nominated_node_name
            new.priority, new.preemption_policy, new.has_priority = cur.priority, cur.preemption_policy, True
            new.status = cur.status
            new.phase = cur.phase
            if kubelet is not None:
                new.status = kubelet
                new.phase = kubelet.get("phase")
            if cur.deletion_timestamp:
                new.metadata = {**new.metadata, "deletionTimestamp": cur.deletion_timestamp}
                new.deletion_timestamp = cur.deletion_timestamp
            self.update_pod(cur, new)
        else:
            # nothing the scheduler reads changed, but the cache still removes and re-adds a bound pod
            if kubelet is not None:
                cur.status = kubelet
                cur.phase = kubelet.get("phase")
            else:
                self.ignored += 1
            self.touch_pod(cur)


    def _kubelet_status(self, cur: Pod, raw: Mapping[str, Any], node_name: str) -> dict[str, Any] | None:
        """The pod's status with what its kubelet wrote in this recorded update, for a pod whose
        binding is the recording's (bound when the trace began, not by the replay); None when
        that changes nothing, or the binding is the replay's (ReplayState.bind starts it and makes
        it Ready on the replay's own clock). The kubelet writes the phase, the start time (once,
        when it starts the pod) and the readiness conditions (status_manager.go); the scheduler
        orders victims by the start time (util.GetPodStartTime: without one a pod counts as started
        now, after every pod that has) and the disruption controller counts the Ready pods
        (disruption.go countHealthyPods). The recorded scheduler's own parts (nomination,
        PodScheduled, DisruptionTarget) are not the kubelet's and stay as the replay has them."""
        if not cur.node_name or cur.node_name != node_name or cur.uid in self.sim.scheduled:
            return None
        recorded = raw.get("status") or {}
        status = dict(cur.status)
        started = recorded.get("startTime")
        if isinstance(started, str) and started and not status.get("startTime"):
            status["startTime"] = started
        phase = recorded.get("phase")
        if isinstance(phase, str) and phase:
            status["phase"] = phase
        def kubelets(c: Any) -> bool:
            return isinstance(c, Mapping) and c.get("type") in KUBELET_CONDITIONS

        mine = [c for c in recorded.get("conditions") or () if kubelets(c)]
        kept = [c for c in status.get("conditions") or () if not kubelets(c)]
        if mine or len(kept) != len(status.get("conditions") or ()):
            status["conditions"] = kept + mine
        return status if status != cur.status else None

    def deleted_by_recorded_scheduler(self, uid: str, raw: Mapping[str, Any]) -> bool:
        """A deletion (or its end) the recorded scheduler made during the trace: simulate mode
        leaves it out. One made before the trace (a victim terminating at its start) stands."""
        if uid in self.victims_at_start:
            return False
        return uid in self.recorded_victims or preempted_by_scheduler(raw)


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
