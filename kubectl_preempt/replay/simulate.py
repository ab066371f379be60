"""Simulate mode: the offline scheduler owns every pending pod over the trace's stretch of time.

The state at the trace's start is taken as recorded. After it, what users, controllers and
kubelets did is applied at its time (pods created and deleted, nodes added, changed and removed,
PDBs and classes changed, pods completing), while what the recorded scheduler did (bindings,
nominations, preemptions and the deletions they caused, to the terminal status that ends them) is
left out: the replayed scheduler makes its own, with kube-scheduler v1.34.1's queue, and the victims
it preempts leave as long after their deletion as the trace's deleted pods of their workload took
(controllers.LeaveTimes; at most, and without a measure, their grace period).

A pod that completes in the recording runs as long in the replay: from its replayed binding for
the time it ran between its recorded binding and its completion.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..framework.config import SchedulerConfig
from ..framework.randomness import RandomSource
from ..model.bulk import long_run
from ..model.objects import Pod
from ..model.who_preempted import EVENT_REASON_PREEMPTED, preempted_by
from ..preemption.decision import PreemptionRecord
from ..scheduler.schedule_one import PREEMPTED, SCHEDULED, CycleResult
from ..plugins import names
from ..scheduler.backend.api_dispatcher import (DEFAULT_API_LATENCY, FEATURE_GATE, Call, api_calls_async, plan_calls,
                                                plan_sync_calls)
from ..scheduler.backend.cache import PodOrder, status_delay_of
from .batch import BATCH_KINDS, KUBE_SCHEDULER_ACTION, BatchOptions, BatchScheduler, schedules_any
from .controllers import (DISRUPTION_CONTROLLER_DELAY, OWNER_KINDS, LeaveTimes, WorkloadControllers,
                          replica_set_index)
from .engine import PRIORITY_INTERNAL, PRIORITY_QUEUE, PRIORITY_SCHEDULE, PRIORITY_TRACE, Engine
from .eventhandlers import EventHandler
from ..scheduler.backend.queue import UNSCHEDULABLE_FLUSH_PERIOD, SchedulingQueue
from .state import (ReplayState, build_cluster, finished, format_time, grace_period,
                    preempted_by_scheduler)
from .timeline import Timeline, TraceEvent
from .whatif import PriorityPolicy

Progress = Callable[[float, float, int], None]


class Listener:
    """What the replayed scheduler and kubelets do, for whoever wants to watch (trace generation,
    tests). Every method is optional."""

    def bound(self, t: float, pod: Pod, node: str) -> None: ...
    def nominated(self, t: float, pod: Pod, node: str) -> None: ...
    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None: ...
    # a preemption decision, when it is made: `victims` are the pods it evicts (not those already
    # terminating or being evicted by an earlier decision), whose `preempted` comes with their
    # delete calls, possibly after the trace's end
    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None: ...
    def deleted(self, t: float, pod: Pod, reason: str) -> None: ...
    # `fields`: the FitError behind `message` as data (CycleResult.fit_error_fields), when it was one
    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None: ...


def initial_objects(events: list[TraceEvent]) -> list[Mapping[str, Any]]:
    """The objects the events at the trace's start leave: later events replace earlier ones."""
    store: dict[tuple, Mapping[str, Any]] = {}
    for ev in events:
        if ev.type == "BOOKMARK":
            continue
        k = (ev.kind, ev.namespace if ev.kind not in ("Node", "PriorityClass") else "", ev.name)
        if ev.type == "DELETED":
            store.pop(k, None)
        else:
            store.pop(k, None)
            store[k] = ev.obj
    return list(store.values())


class Simulation:
    mode = "simulate"
    # the clock and heap a run uses: `plan` (kubectl_preempt/plan/) runs this very replay on an
    # Engine subclass that also stops once nothing changes any more
    engine_type: type[Engine] = Engine

    def __init__(self, timeline: Timeline, config: SchedulerConfig, *, policy: PriorityPolicy | None = None,
                 on_decision: Callable[[dict[str, Any]], None] | None = None,
                 progress: Progress | None = None, listener: Listener | None = None,
                 random_source: RandomSource | None = None, workloads: bool = True,
                 batch: BatchOptions | None = None) -> None:
        self.timeline = timeline
        self.config = config
        self.policy = policy or PriorityPolicy()
        self.on_decision = on_decision
        self.progress = progress
        self.listener = listener
        self.engine = self.engine_type(timeline.start)
        # the run's one source of random choices (framework/randomness.py, replay/runs.py
        # run_random_source), handed to the scheduler; none: every choice fixed
        self.random_source = random_source if random_source is not None else RandomSource.for_replay()

        cluster = build_cluster(initial_objects(timeline.initial))
        self.recorded_classes = self.policy.apply_initial(cluster)
        self.state = ReplayState(cluster, config, random_source=self.random_source, recompute_pdbs=True,
                                 order=PodOrder.from_history(cluster.pods.values(),
                                                             status_delay=status_delay_of(timeline.events)))
        # the workload controllers re-create what the replay evicts (replay/controllers.py)
        # the workload controllers re-create what the replay evicts (replay/controllers.py), and
        # the disruption controller updates PDB status a moment after the pods change: decisions
        # made meanwhile see the status before the change, as the real scheduler's informer does.
        # `workloads=False` leaves both out (a world that models them itself: traces/generate.py).
        self.controllers = WorkloadControllers(_ControllerHost(self), cluster.pods.values(),
                                               cluster.extra if workloads else {},
                                               timeline.initial + timeline.events if workloads else (),
                                               timeline.start, enabled=workloads,
                                               api_latency=DEFAULT_API_LATENCY if config.api_latency is None
                                               else config.api_latency)
        self.created_by_replay = self.controllers.created
        # how long the trace's deleted pods took to leave, for the replay's own deletions
        rs = list(cluster.extra.get("ReplicaSet") or ())
        rs += [e.obj for e in timeline.events if e.kind == "ReplicaSet" and e.type != "BOOKMARK"]
        self._replica_sets = replica_set_index(rs)
        self.leave_times = LeaveTimes(timeline.events, self._replica_sets)
        self._disruption_sync_armed = False
        self._pdb_rechecks: set[float] = set()
        if workloads:
            self.state.expected_scale = self.controllers.expected_scale
            self.state.pdb_lag = DISRUPTION_CONTROLLER_DELAY
        # the recorded PDB status stands until the PDB or a pod it covers changes (the disruption
        # controller syncs a PDB on those events only: DisruptionController.trySync)
        self.queue = SchedulingQueue(lambda: self.engine.now, pre_enqueue=self._pre_enqueue,
                                     initial_backoff=float(config.pod_initial_backoff_seconds),
                                     max_backoff=float(config.pod_max_backoff_seconds),
                                     queueing_hints=self.state.scheduler.queueing_hints(),
                                     less=self.state.scheduler.queue_sort_less())
        self.queue.on_backoff_change = self._arm_backoff_flush
        # the trace's events reach the cache and the queue through the one handler follow uses too
        self.handler = EventHandler(
            self.state, self.policy, self.recorded_classes, self._pod_event, queue=self.queue,
            pdb_status_from_trace=False, declared_features=config.version.features.enable_node_declared_features,
            on_node_deleted=self._node_deleted, on_object=self._object_changed, claim=self._batch_claims)

        # what the replay found, for the report
        self.decisions = 0
        self.outcomes = {SCHEDULED: 0, PREEMPTED: 0, "Unschedulable": 0}
        self.preemptions: list[dict[str, Any]] = []
        self.enqueued_at: dict[str, float] = {}
        self.scheduled: dict[str, dict[str, Any]] = {}
        self.last_failure: dict[str, str] = {}
        self.last_failure_fields: dict[str, dict[str, Any]] = {}  # the same FitError as data
        self.evicted: dict[str, dict[str, Any]] = {}

        # what the recording says about pods, for the parts of it the replay keeps
        self.recorded_bind: dict[str, float] = {}
        self.runtime: dict[str, float] = {}       # uid -> how long it ran in the recording
        self.completed_in_recording: set[str] = set()
        self.gone: set[str] = set()               # uids the replay has deleted
        self.victims_at_start = {p.uid for p in cluster.pods.values() if p.terminating}
        # pods the recorded scheduler preempted: their DisruptionTarget condition says so, or a
        # Preempted Event names them (the condition may be missing from a pod's last versions)
        self.recorded_victims = recorded_scheduler_victims(timeline.events)

        # asynchronous preemption: preemptors whose victims' API calls are still running
        self.async_preemption = config.enabled(FEATURE_GATE)
        self.api_latency = DEFAULT_API_LATENCY if config.api_latency is None else config.api_latency
        self.preempting: set[str] = set()
        # preemptor uid -> its victims' delete calls not made yet; a decision of a preemptor still
        # listed is the race asynchronous preemption allows (see async_preemption), counted
        self._deletes_pending: dict[str, int] = {}
        self.decided_before_deletes: int = 0
        self._deleted_by_call: dict[str, dict[str, Any] | None] = {}  # victim uid -> its victimDetails entry
        self._leave_after: dict[str, float] = {}  # victim uid -> seconds from its delete call to leaving

        self._cursor = 0
        self._schedule_armed = False
        self._backoff_flush_at: set[float] = set()
        self._completion_events: dict[str, Any] = {}

        for pod in cluster.pods.values():
            if pod.node_name:
                # seconds to the microsecond, as the datetime this was read from before (and year
                # 0, which a datetime cannot hold)
                st = pod.start_nanos
                self.recorded_bind[pod.uid] = (st // 1000) / 1_000_000 if st is not None else timeline.start
        # kube-batch beside kube-scheduler, when the trace has pods of its (replay/batch.py); its
        # random draws come from a stream of its own
        self.batch: BatchScheduler | None = None
        if batch is not None and schedules_any(timeline.initial + timeline.events, batch.scheduler_name):
            self.batch = BatchScheduler(self, batch, self.random_source.derive())
        for pod in list(cluster.pods.values()):
            if not pod.node_name and not pod.terminating and self.state.owned(pod):
                self._enqueue(pod)
            elif not pod.node_name and self.batch is not None and self.batch.owns(pod):
                self.enqueued_at.setdefault(pod.uid, timeline.start)

    # ------------------------------------------------------------------ running
    def run(self) -> "Simulation":
        eng = self.engine
        self._arm_next_trace_event()
        if self.batch is not None:
            self.batch.start()
        t = self.timeline.start + UNSCHEDULABLE_FLUSH_PERIOD
        # flushUnschedulablePodsLeftover ticks every 30 s over the trace
        while t <= self.timeline.end:
            eng.schedule(t, self._flush_leftover, priority=PRIORITY_QUEUE, name="flushUnschedulablePodsLeftover")
            t += UNSCHEDULABLE_FLUSH_PERIOD
        self._kick()
        with long_run(len(self.state.cluster.pods) + len(self.state.cluster.nodes)):
            eng.run(until=self.timeline.end)
        return self

    def _kick(self) -> None:
        if self.state.pdb_dirty and not self._disruption_sync_armed and self.state.pdb_lag:
            self._disruption_sync_armed = True
            self.engine.schedule(self.engine.now + self.state.pdb_lag, self._disruption_sync,
                                 priority=PRIORITY_INTERNAL, name="disruption controller sync")
        if not self._schedule_armed and self.queue.has_poppable():
            self._schedule_armed = True
            self.engine.schedule(self.engine.now, self._schedule_one, priority=PRIORITY_SCHEDULE, name="scheduleOne")

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
        if pod.uid in self.preempting:
            # mirrors DefaultPreemption.PreEnqueue: held while its preemption's calls run
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
        res = state.scheduler.schedule(pod)
        self.decisions += 1
        now = self.engine.now
        if res.outcome == SCHEDULED and res.suggested_host:
            self.outcomes[SCHEDULED] += 1
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
                pfr = res.post_filter_result
                if pfr is not None and pfr.mode != "Noop" and not pfr.nominated_node_name and pod.nominated_node_name:
                    self._set_nomination(pod, "")
                if self.listener is not None:
                    self.listener.unschedulable(now, pod, res.message, fields)
            plugins = res.diagnosis.unschedulable_plugins if res.error is None else set()
            self.queue.add_unschedulable_if_not_present(p, plugins, res.diagnosis.pending_plugins)
        self._kick()

    def _bind(self, pod: Pod, node: str, attempts: int) -> None:
        now = self.engine.now
        if pod.nominated_node_name:
            self._set_nomination(pod, "", event=False)
        self.handler.bind_pod(pod, node, now, requeue=False)
        enq = self.enqueued_at.get(pod.uid, now)
        self.scheduled[pod.uid] = {"pod": pod.key, "node": node, "time": now, "waited": now - enq,
                                   "attempts": attempts, "created": enq > self.timeline.start}
        self.last_failure.pop(pod.uid, None)
        self.last_failure_fields.pop(pod.uid, None)
        if self.listener is not None:
            self.listener.bound(now, pod, node)
        run = self.runtime.get(pod.uid)
        if run is not None:
            self._complete_at(pod, now + run)
        self.handler.pod_bound(pod)

    def _set_nomination(self, pod: Pod, node: str, *, event: bool = True) -> None:
        """The scheduler sets (or clears) the pod's nominated node: in its nominator at once, and
        through the API (handleSchedulingFailure's status patch). The other pending pods hear of
        it only when that patch comes back through the watch (updatePodInSchedulingQueue), one
        API call later: until then a nomination moved off a node requeues no one. `event` False:
        no requeue at all (the pod is being bound)."""
        prev = self.handler.nominate_pod(pod, node, requeue=False)
        if not event or not prev or prev == node:
            return
        if self.api_latency <= 0:
            self.handler.nomination_changed(pod, prev, node)
            return
        self.engine.schedule(self.engine.now + self.api_latency,
                             lambda: self._nomination_delivered(pod, prev, node),
                             priority=PRIORITY_INTERNAL, name=f"nominatedNodeName {pod.key}")

    def _nomination_delivered(self, pod: Pod, prev: str, node: str) -> None:
        self.handler.nomination_changed(pod, prev, node)
        self._kick()

    def _preempt(self, pod: Pod, res: CycleResult, details: PreemptionRecord, attempts: int) -> None:
        now = self.engine.now
        sel = details.selected
        assert sel is not None
        node = sel.name
        if self._deletes_pending.get(pod.uid):
            self.decided_before_deletes += 1
        if self.on_decision is not None:
            self.on_decision(self._decision_case(pod, res, details))
        record = self._preemption_record(pod, res, details, attempts)
        self.preemptions.append(record)
        details_of = {d["pod"]: d for d in record["victimDetails"]}
        evicting: list[Pod] = []
        for victim in sel.victims:
            if victim.terminating:
                continue  # already going: no delete call
            if victim.uid in self.evicted:
                # an earlier decision's delete call for it is still in flight (asynchronous
                # preemption released the preemptor before it): this decision evicts no one new
                details_of[victim.key]["alreadyEvicting"] = True
                continue
            self.evicted[victim.uid] = {"pod": victim.key, "by": pod.key, "time": now, "node": node}
            detail = details_of.get(victim.key)
            self._deleted_by_call[victim.uid] = detail
            if detail is not None:
                after, level, whose = self.leave_times.after(victim, grace_period(victim), self._replica_sets)
                self._leave_after[victim.uid] = after
                # which figure says when it leaves (see controllers.LeaveTimes)
                detail["leavesAfterSeconds"] = round(after, 3)
                detail["leaveFigure"] = f"{level} {whose}" if whose else level
            evicting.append(victim)
        if self.listener is not None:
            self.listener.preempting(now, pod, node, evicting)
        cleared = [p for p in details.cleared_nominations if p.nominated_node_name == node]
        if self.async_preemption:
            calls = plan_calls(pod, sel.victims, cleared, now, self.api_latency,
                               clears_wait=not api_calls_async(self.config))
            if calls:
                self.preempting.add(pod.uid)
        else:
            calls = plan_sync_calls(pod, sel.victims, cleared, now)
        deletes = sum(1 for c in calls if c.what == "delete")
        if deletes and self.async_preemption:
            self._deletes_pending[pod.uid] = self._deletes_pending.get(pod.uid, 0) + deletes
        for call in calls:
            if call.at <= now and not self.async_preemption:
                self._api_call(call, pod, node, kick=False)
            else:
                self.engine.schedule(call.at, lambda c=call: self._api_call(c, pod, node), priority=PRIORITY_INTERNAL,
                                     name=f"{call.what} {call.pod.key}")
        if pod.nominated_node_name != node:
            self._set_nomination(pod, node)
        if self.listener is not None:
            self.listener.nominated(now, pod, node)

    def _api_call(self, call: Call, preemptor: Pod, node: str, kick: bool = True) -> None:
        """One API call of a preemption reaches the cluster (see async_preemption)."""
        now = self.engine.now
        if call.what == "release":
            self.preempting.discard(call.pod.uid)
            return
        if call.what == "delete" and preemptor.uid in self._deletes_pending:
            left = self._deletes_pending[preemptor.uid] - 1
            if left > 0:
                self._deletes_pending[preemptor.uid] = left
            else:
                del self._deletes_pending[preemptor.uid]
        cur = self.state.pods_by_uid.get(call.pod.uid)
        if cur is None:
            return  # gone already: the call meets NotFound
        if call.what == "clearNomination":
            if cur.nominated_node_name == node:
                self._set_nomination(cur, "")
        elif call.what == "patch":
            self.state.mark_disruption_target(cur, now)
        elif call.what == "delete" and not cur.terminating:
            self.state.mark_terminating(cur, now, preempted=False)
            self.controllers.terminating(cur)
            detail = self._deleted_by_call.pop(cur.uid, None)
            if detail is not None:
                # when the delete call was made: the victim is gone its grace period later
                detail["deletionTimestamp"] = format_time(now)
            if self.listener is not None:
                self.listener.preempted(now, cur, preemptor, node)
            after = self._leave_after.pop(cur.uid, None)
            self._delete_at(cur, now + (grace_period(cur) if after is None else after), "preempted")
        if kick:
            self._kick()

    def _preemption_record(self, pod: Pod, res: CycleResult, details: PreemptionRecord, attempts: int) -> dict[str, Any]:
        now = self.engine.now
        rec = preemption_summary(pod, res, details, now)
        if self.batch is not None:
            # beside kube-batch's evictions: which scheduler, which of its parts
            rec = {"time": rec.pop("time"), "scheduler": pod.scheduler_name, "action": KUBE_SCHEDULER_ACTION, **rec}
        rec["attempt"] = attempts
        rec["waitedSeconds"] = round(now - self.enqueued_at.get(pod.uid, now), 3)
        return rec

    def _decision_case(self, pod: Pod, res: CycleResult, details: PreemptionRecord) -> dict[str, Any]:
        return decision_case(self.state, self.config_raw, pod, res, details, len(self.preemptions) + 1,
                             self.engine.now)

    config_raw: Mapping[str, Any] | None = None

    # ------------------------------------------------------------------ deletions and completions
    def _delete_at(self, pod: Pod, at: float, reason: str) -> None:
        def gone() -> None:
            cur = self.state.pods_by_uid.get(pod.uid)
            if cur is not None:
                self._remove(cur, reason)
                self._kick()

        self.engine.schedule(at, gone, priority=PRIORITY_INTERNAL, name=f"delete {pod.key}")

    def _complete_at(self, pod: Pod, at: float) -> None:
        if at <= self.engine.now:
            self._remove(pod, "completed")
            return
        self._completion_events[pod.uid] = self.engine.schedule(
            at, lambda: self._completed(pod.uid), priority=PRIORITY_INTERNAL, name=f"complete {pod.key}")

    def _completed(self, uid: str) -> None:
        self._completion_events.pop(uid, None)
        cur = self.state.pods_by_uid.get(uid)
        if cur is not None:
            self._remove(cur, "completed")
            self._kick()

    def _remove(self, pod: Pod, reason: str) -> None:
        """A pod is gone: out of the queue, off its node, its nomination dropped."""
        def removed() -> None:
            self.gone.add(pod.uid)
            self.controllers.gone(pod, reason)
            if self.listener is not None:
                self.listener.deleted(self.engine.now, pod, reason)

        self.handler.delete_pod(pod, removed)

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


class _ControllerHost:
    """The simulation as the workload controllers see it (controllers.Host)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim

    def now(self) -> float:
        return self.sim.engine.now

    def at(self, t: float, fn: Callable[[], None], name: str) -> None:
        def run() -> None:
            fn()
            self.sim._kick()

        self.sim.engine.schedule(t, run, priority=PRIORITY_INTERNAL, name=name)

    def pod_by_uid(self, uid: str) -> Pod | None:
        return self.sim.state.pods_by_uid.get(uid)

    def pod_by_key(self, key: str) -> Pod | None:
        return self.sim.state.cluster.pods.get(key)

    def create_pod(self, raw: Mapping[str, Any]) -> None:
        # a recorded pod the replay had left out may be made now (a recorded replacement)
        self.sim.gone.discard((raw.get("metadata") or {}).get("uid") or "")
        self.sim._add_new_pod(raw)

    def delete_pod(self, pod: Pod) -> None:
        self.sim._delete_by_controller(pod)


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


def preemption_why(pod: Pod, res: CycleResult, details: PreemptionRecord) -> dict[str, Any]:
    """Why this node and these victims, in a few fields a timeline can show."""
    sel = details.selected
    assert sel is not None
    req = pod.resource.resource
    return {
        "message": res.message,
        **res.fit_error_fields(),
        "requests": {"milliCPU": req.milli_cpu, "memory": req.memory,
                     **{k: v for k, v in sorted(req.scalar.items()) if v}},
        "candidates": len(details.candidates),
        "pdbViolations": sel.num_pdb_violations,
        "decidedBy": details.decided_by,
        "runnerUp": details.runner_up,
        "tiedNodes": details.tied_nodes,
        "clearedNominations": sorted(p.key for p in details.cleared_nominations),
        "freedMilliCPU": sum(v.resource.resource.milli_cpu for v in sel.victims),
        "freedMemory": sum(v.resource.resource.memory for v in sel.victims),
    }


def preemption_summary(pod: Pod, res: CycleResult, details: PreemptionRecord, now: float) -> dict[str, Any]:
    """One entry of the preemption timeline."""
    sel = details.selected
    assert sel is not None
    return {
        "time": format_time(now),
        "preemptor": pod.key,
        "priority": pod.priority,
        "priorityClassName": pod.priority_class_name,
        "node": sel.name,
        "victims": [v.key for v in sel.victims],
        "victimDetails": [{"pod": v.key, "priority": v.priority, "priorityClassName": v.priority_class_name,
                           "alreadyTerminating": v.terminating, "gracePeriodSeconds": grace_period(v),
                           "pdbViolation": v.key in sel.pdb_violating} for v in sel.victims],
        "why": preemption_why(pod, res, details),
    }


def decision_case(state: ReplayState, config_raw: Mapping[str, Any] | None, pod: Pod, res: CycleResult,
                  details: PreemptionRecord, n: int, now: float) -> dict[str, Any]:
    """A preemption decision as a conformance case: the cluster at that instant (before the
    decision's effects), the preemptor, and what the replay decided in the corpus's `expect`."""
    sel = details.selected
    assert sel is not None
    tied = details.tied_nodes
    expect: dict[str, Any] = {
        "outcome": PREEMPTED,
        "nominatedNodes": tied,
        # only the chosen node's victims are known for sure; a tied node's are its candidate's
        "victims": {c.name: sorted(v.key for v in c.victims) for c in details.candidates if c.name in tied},
        "message": res.message,
        "postFilterMessage": "",
        "postFilterCode": res.post_filter_status.code.name if res.post_filter_status is not None else "",
        "nodeStatuses": {name: st.to_dict() for name, st in res.diagnosis.node_to_status.statuses.items()},
    }
    pfs = res.post_filter_status
    if pfs is not None and not pfs.is_success():
        expect["postFilterMessage"] = pfs.message()
    cleared = sorted(p.key for p in details.cleared_nominations)
    if cleared:
        expect["clearedNominations"] = {sel.name: cleared}
    case: dict[str, Any] = {
        "name": f"{n:04d}-replay",
        "description": f"replayed preemption at {format_time(now)}: {pod.key} on {sel.name}",
        "kubernetesVersion": "v1.34.1",
        "pod": pod.key,
    }
    if config_raw is not None:
        case["config"] = dict(config_raw)
    case["objects"] = state.objects()
    case["expect"] = expect
    return case
