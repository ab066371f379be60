"""The replay's scheduling loop: what the engine's clock drives between trace events.

The simulation's (replay/simulate.py) queue ticks (flushUnschedulablePodsLeftover, the backoff
flushes), the disruption controller's syncs, the trace's events at their times, and one
scheduling cycle at a time (mirrors scheduleOne: pop, schedulingCycle, then bind, preempt or
handleSchedulingFailure). A mixin of Simulation: its state lives there.
"""
from __future__ import annotations

from typing import Any, Callable

from ..model.objects import Pod
from ..plugins import names
from ..scheduler.backend.queue import SchedulingQueue
from ..scheduler.schedule_one import PREEMPTED, SCHEDULED
from .dra_claims import bind_claims
from .volume_binds import bind_volumes
from .engine import PRIORITY_INTERNAL, PRIORITY_QUEUE, PRIORITY_SCHEDULE, PRIORITY_TRACE, Engine
from .pod_events import SimulateHandler
from .podgroups import group_of
from .state import ReplayState
from .timeline import Timeline


class SchedulingLoop:
    """Simulation's queue, clock and scheduling cycles (its fields are Simulation's)."""

    engine: Engine
    state: ReplayState
    queue: SchedulingQueue
    handler: SimulateHandler
    timeline: Timeline
    progress: Callable[[float, float, int], None] | None
    listener: Any
    decisions: int
    outcomes: dict[str, int]
    enqueued_at: dict[str, float]
    scheduled: dict[str, dict[str, Any]]
    last_failure: dict[str, str]
    last_failure_fields: dict[str, dict[str, Any]]
    preempting: set[str]

    def _kick(self) -> None:
        if self.pod_group_spin.aside:  # type: ignore[attr-defined]
            # pod groups whose last cycle would only repeat itself: back once anything changed
            self.pod_group_spin.release(self.queue)  # type: ignore[attr-defined]
        if self.state.pdb_dirty and not self._disruption_sync_armed and self.state.pdb_lag:
            self._disruption_sync_armed = True
            self.engine.schedule(self.engine.now + self.state.pdb_lag, self._disruption_sync,
                                 priority=PRIORITY_INTERNAL, name="disruption controller sync")
        if not self._schedule_armed and self.queue.has_poppable():
            self._schedule_armed = True
            # a pod-group cycle's status patches keep the scheduler busy (replay/podgroups.py)
            at = max(self.engine.now, self.scheduler_busy_until)  # type: ignore[attr-defined]
            self.engine.schedule(at, self._schedule_one, priority=PRIORITY_SCHEDULE, name="scheduleOne")

    def _pod_ready(self, pod: Pod) -> None:
        if self.state.pods_by_uid.get(pod.uid) is pod:
            self.state.pdbs_of(pod)
            self._kick()

    def _disruption_sync(self) -> None:
        self._disruption_sync_armed = False
        recheck = self.state.recompute_pdb_status(self.engine.now, only_changed=True)
        if recheck is not None and recheck not in self._pdb_rechecks:
            # mirrors enqueuePdbForRecheck: synced again when a disruptedPods entry expires
            self._pdb_rechecks.add(recheck)
            self.engine.schedule(recheck + 1e-6, lambda: self._pdb_recheck(recheck), priority=PRIORITY_INTERNAL,
                                 name="disruption controller recheck")
        self._kick()

    def _pdb_recheck(self, at: float) -> None:
        self._pdb_rechecks.discard(at)
        pdbs = self.state.cluster.pdbs
        self.state.dirty_pdbs.update(p.key for p in pdbs if p.disrupted_pods)
        self.state.pdb_dirty = bool(self.state.dirty_pdbs)
        self._kick()

    def _arm_next_trace_event(self) -> None:
        evs = self.timeline.events
        if self._cursor < len(evs):
            self.engine.schedule(evs[self._cursor].time, self._next_trace_event, priority=PRIORITY_TRACE)

    def _next_trace_event(self) -> None:
        evs = self.timeline.events
        ev = evs[self._cursor]
        self._cursor += 1
        # every event at this instant is applied before the scheduler looks again
        self.apply(ev)
        while self._cursor < len(evs) and evs[self._cursor].time <= ev.time:
            self.apply(evs[self._cursor])
            self._cursor += 1
        if self.progress is not None:
            self.progress(self.engine.now, self.timeline.end, self.decisions)
        self._arm_next_trace_event()
        self._kick()

    def _arm_backoff_flush(self, at: float) -> None:
        if at in self._backoff_flush_at:
            return
        self._backoff_flush_at.add(at)

        def flush() -> None:
            self._backoff_flush_at.discard(at)
            self.queue.flush_backoff_completed()
            self._kick()

        self.engine.schedule(at, flush, priority=PRIORITY_QUEUE, name="flushBackoffQCompleted")

    def _flush_leftover(self) -> None:
        if self.queue.flush_unschedulable_leftover():
            self._kick()

    def _pre_enqueue(self, pod: Pod) -> tuple[bool, str]:
        if pod.uid in self.preempting or self._group_held(pod):  # type: ignore[attr-defined]
            # mirrors DefaultPreemption.PreEnqueue: held while its (group's) preemption's calls run
            return False, names.DEFAULT_PREEMPTION
        fwk = self.state.scheduler.framework_for(pod)
        if fwk is None:
            return False, ""
        for pl in fwk.points["preEnqueue"]:
            s = pl.pre_enqueue(pod)
            if not s.is_success():
                return False, pl.name
        return True, ""

    def _enqueue(self, pod: Pod) -> None:
        self.enqueued_at.setdefault(pod.uid, self.engine.now)
        self.queue.add(pod)

    # ------------------------------------------------------------------ one scheduling cycle
    def _schedule_one(self) -> None:
        self._schedule_armed = False
        p = self.queue.pop()
        if p is None:
            return
        pod = p.pod
        state = self.state
        state.prepare()
        if group_of(state, pod):
            # ScheduleOne: a pod of a pod group is scheduled in its group's cycle (replay/podgroups.py)
            self._schedule_pod_group(p)  # type: ignore[attr-defined]
            self._kick()
            return
        # the queue's scheduling cycle and the clock: OpportunisticBatching reuses the cycle before
        res = state.scheduler.schedule(pod, (self.queue.scheduling_cycle, self.engine.now))
        self.decisions += 1
        now = self.engine.now
        if res.outcome == SCHEDULED and res.suggested_host:
            self.outcomes[SCHEDULED] += 1
            if self._has_permit_stage(pod):  # type: ignore[attr-defined]
                # Reserve and Permit before binding: a v1.35 gang member may wait (replay/permit_waits.py)
                self._reserve_and_permit(p, res.suggested_host)  # type: ignore[attr-defined]
            else:
                self.queue.done(pod)
                self._bind(pod, res.suggested_host, p.attempts)
        else:
            details = res.preempted
            if details is not None:
                self.outcomes[PREEMPTED] += 1
                self._preempt(pod, res, details, p.attempts)
            else:
                self.outcomes["Unschedulable"] += 1
                self.last_failure[pod.uid] = res.message
                fields = self.last_failure_fields[pod.uid] = res.fit_error_fields()
                if pod.nominated_node_name and res.failure_nominating_info(self.config.version.at_least(35)) == "":
                    self._set_nomination(pod, "")
                if self.listener is not None:
                    self.listener.unschedulable(now, pod, res.message, fields)
            plugins = res.diagnosis.unschedulable_plugins if res.error is None else set()
            self.queue.add_unschedulable_if_not_present(p, plugins, res.diagnosis.pending_plugins)
        self._kick()

    def _bind(self, pod: Pod, node: str, attempts: int) -> None:
        now = self.engine.now
        nominated = pod.nominated_node_name
        if nominated:
            self._set_nomination(pod, "", event=False)
        # DynamicResources' and VolumeBinding's PreBind write the pod's claims before the binding
        # (replay/dra_claims.py, replay/volume_binds.py)
        bind_claims(self.handler, pod, node, now)
        bind_volumes(self.handler, pod, node, now)
        self.handler.bind_pod(pod, node, now, requeue=False)
        ready = self.state.ready_at.get(pod.uid)
        if ready is not None and ready > now and self.state.cluster.pdbs:
            # its kubelet's status write turns it Ready: the disruption controller syncs the PDBs
            # covering it (updatePod), and counts it healthy from then on
            self.engine.schedule(ready, lambda: self._pod_ready(pod), priority=PRIORITY_INTERNAL,
                                 name=f"Ready {pod.key}")
        enq = self.enqueued_at.get(pod.uid, now)
        self.scheduled[pod.uid] = {"pod": pod.key, "node": node, "time": now, "waited": now - enq,
                                   "attempts": attempts, "created": enq > self.timeline.start}
        self.last_failure.pop(pod.uid, None)
        self.last_failure_fields.pop(pod.uid, None)
        if self.listener is not None:
            self.listener.bound(now, pod, node)
        run = self.handler.runtime.get(pod.uid)
        if run is not None:
            self._complete_at(pod, now + run)
        self.handler.pod_bound(pod, nominated)
