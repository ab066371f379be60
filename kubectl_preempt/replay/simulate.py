"""Simulate mode: the offline scheduler owns every pending pod over the trace's stretch of time.

The state at the trace's start is taken as recorded. After it, what users, controllers and
kubelets did is applied at its time (pods created and deleted, nodes added, changed and removed,
PDBs and classes changed, pods completing), while what the recorded scheduler did (bindings,
nominations, preemptions and the deletions they caused, to the terminal status that ends them) is
left out: the replayed scheduler makes its own, with kube-scheduler v1.34.1's queue, and the victims
it preempts leave as long after their deletion as the trace's deleted pods of their workload took
(controllers.LeaveTimes, measured by calibration.py; at most, and without a measure, their grace period).

A pod that completes in the recording runs as long in the replay: from its replayed binding for
the time it ran between its recorded binding and its completion.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from ..framework.config import SchedulerConfig
from ..framework.randomness import RandomSource
from ..model.objects import Pod
from ..scheduler.schedule_one import PREEMPTED, SCHEDULED
from ..model.cluster import Cluster
from ..scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY, FEATURE_GATE
from ..scheduler.backend.cache import PodOrder
from .batch import BatchOptions, BatchScheduler
from .calibration import calibrate
from .controller_host import ControllerHost
from .controllers import DISRUPTION_CONTROLLER_DELAY, LeaveTimes, WorkloadControllers
from .deletions import Deletions
from .engine import PRIORITY_QUEUE, Engine
from .permit_waits import PermitWaits, WaitingPod
from .pod_events import SimulateHandler
from .podgroups import PodGroupLoop
from .preemption_calls import PreemptionCalls
from ..scheduler.backend.queue import UNSCHEDULABLE_FLUSH_PERIOD, SchedulingQueue, gated_events
from .scheduling_loop import SchedulingLoop
from .state import ReplayState, build_cluster, preempted_by_scheduler
from .timeline import Timeline, TraceEvent
from .whatif import PriorityPolicy

Progress = Callable[[float, float, int], None]
_NO_METADATA: Mapping[str, Any] = {}


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
        typ = ev.type
        if typ == "BOOKMARK":
            continue
        # TraceEvent's namespace and name, the metadata read once
        kind, md = ev.kind, ev.obj.get("metadata") or _NO_METADATA
        k = (kind, md.get("namespace") or "default" if kind not in ("Node", "PriorityClass") else "",
             md.get("name") or "")
        if typ == "DELETED":
            store.pop(k, None)
        else:
            store.pop(k, None)
            store[k] = ev.obj
    return list(store.values())


# how long after the trace's start a preemption in flight then is taken as done when the recording
# never shows its victims going (Simulation._hold_preemptions_in_flight): its calls take a few
# API round trips
IN_FLIGHT_RELEASE_AFTER = 1.0


class Simulation(SchedulingLoop, PodGroupLoop, PermitWaits, PreemptionCalls, Deletions):
    """One simulate-mode replay, wired: the engine and its clock, the replay's state and scheduler,
    the scheduling queue, the workload controllers, kube-batch beside it, and what the replay
    found. What it does lives in its parts, each a module of replay/: the scheduling loop
    (scheduling_loop.py), a preemption and its API calls (preemption_calls.py), deletions and
    completions (deletions.py), the recording's events (pod_events.py, its handler); the
    controllers reach it through controller_host.py. What the trace says about the cluster that
    recorded it is read once, before anything starts (calibration.py)."""

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
        self.calibration = calibrate(timeline)
        cluster = build_cluster(initial_objects(timeline.initial))
        self.recorded_classes = self.policy.apply_initial(cluster)
        self._set_up_state(cluster)
        self._set_up_workloads(cluster, workloads)
        self._set_up_queue()
        self._set_up_findings()
        # the trace's events reach the cache and the queue through simulate mode's handler
        self.handler = SimulateHandler(self, self.calibration.recorded_victims,
                                       declared_features=config.version.features.enable_node_declared_features)
        # kube-batch beside kube-scheduler, when the trace has pods of its (replay/batch.py); its
        # random draws come from a stream of its own
        self.batch: BatchScheduler | None = None
        if batch is not None and self.calibration.schedules_any(batch.scheduler_name):
            self.batch = BatchScheduler(self, batch, self.random_source.derive())
        self.api_latency_draw = self._api_latency_draw()
        self._hold_preemptions_in_flight(cluster)
        for pod in list(cluster.pods.values()):
            if not pod.node_name and not pod.terminating and self.state.owned(pod):
                self._enqueue(pod)
            elif not pod.node_name and self.batch is not None and self.batch.owns(pod):
                self.enqueued_at.setdefault(pod.uid, timeline.start)

    def _set_up_state(self, cluster: Cluster) -> None:
        """The replay's state, its cache order rebuilt from the pods' history, and the scheduler's
        API calls as long as the trace measured them."""
        cal, config = self.calibration, self.config
        self.state = ReplayState(cluster, config, random_source=self.random_source, recompute_pdbs=True,
                                 order=PodOrder.from_history(cluster.pods.values(), status_delay=cal.status_delay))
        # the pods the replay binds start when the trace's kubelets took to write their status:
        # a pod the trace saw start, after its own delay (its kubelet's load then), else the median
        self.state.status_delay = cal.status_delay
        self.state.status_delays = cal.status_delays
        self.state.clock = lambda: self.engine.now
        # how long one API call of the scheduler takes: --api-latency, else what the trace
        # measured (calibration._ApiLatency), else DEFAULT_API_LATENCY
        measured = cal.api_latency if config.api_latency is None else None
        self.api_latency = config.api_latency if config.api_latency is not None else \
            measured if measured is not None else DEFAULT_API_LATENCY
        # which figure that is, for the report
        self.api_latency_from = "--api-latency" if config.api_latency is not None else \
            "trace" if measured is not None else "default"

    def _api_latency_draw(self) -> Callable[[], float] | None:
        """How long each API call of a preemption takes, drawn (scheduler/backend/api_dispatcher.py
        plan_calls `draw`), or None: every call takes `api_latency`. Run k >= 2 of `replay --runs`
        (a run with a generator) draws each call from the calls the trace measured
        (calibration._ApiLatency): the API server that recorded it answered each call in its own
        time, which sets the order in which a preemption's victims leave and when its preemptor
        may be tried again. Run 1 and a single replay keep the median, --api-latency its figure.
        The draws come from a generator of their own, seeded once from the run's: the
        scheduler's own draws keep their order."""
        rng = self.random_source.rng
        samples = self.calibration.api_latencies if self.config.api_latency is None else ()
        if rng is None or not samples:
            return None
        own = random.Random(rng.getrandbits(64))
        return lambda: own.choice(samples)

    def _set_up_workloads(self, cluster: Cluster, workloads: bool) -> None:
        """The workload controllers re-create what the replay evicts (replay/controllers.py), and
        the disruption controller updates PDB status a moment after the pods change: decisions
        made meanwhile see the status before the change, as the real scheduler's informer does.
        `workloads=False` leaves both out (a world that models them itself: traces/generate.py)."""
        cal = self.calibration
        self.controllers = WorkloadControllers(ControllerHost(self), cluster.pods.values(),
                                               cluster.extra if workloads else {},
                                               cal.replacements if workloads else (),
                                               cal.owners_in_trace if workloads else (),
                                               enabled=workloads, api_latency=self.api_latency)
        self.created_by_replay = self.controllers.created
        # how long the trace's deleted pods took to leave, for the replay's own deletions
        self._replica_sets = cal.replica_sets
        self.leave_times = LeaveTimes(cal.leave)
        self._disruption_sync_armed = False
        self._pdb_rechecks: set[float] = set()
        if workloads:
            self.state.expected_scale = self.controllers.expected_scale
            self.state.pdb_lag = DISRUPTION_CONTROLLER_DELAY

    def _set_up_queue(self) -> None:
        """kube-scheduler v1.34.1's scheduling queue over the replay's clock, and pod groups.
        SchedulerPopFromBackoffQ (Beta and on since v1.33, pkg/features/kube_features.go) as the
        release has it: before v1.33, Pop takes activeQ's head alone, and a pod backing off waits
        for flushBackoffQCompleted however idle the scheduler is."""
        config = self.config
        self.queue = SchedulingQueue(lambda: self.engine.now, pre_enqueue=self._pre_enqueue,
                                     initial_backoff=float(config.pod_initial_backoff_seconds),
                                     max_backoff=float(config.pod_max_backoff_seconds),
                                     pop_from_backoff=config.enabled("SchedulerPopFromBackoffQ"),
                                     hints_enabled=config.enabled("SchedulerQueueingHints"),
                                     backoff_by_attempts=config.version.minor < 34,
                                     activate_skips_pre_enqueue=config.version.minor >= 35,
                                     gated_events=gated_events(config.version.minor),
                                     queueing_hints=self.state.scheduler.queueing_hints(),
                                     less=self.state.scheduler.queue_sort_less())
        self.queue.on_backoff_change = self._arm_backoff_flush
        self._pod_group_setup()

    def _set_up_findings(self) -> None:
        """What the replay found, for the report, and its bookkeeping of preemptions in flight."""
        self.decisions = 0
        self.outcomes = {SCHEDULED: 0, PREEMPTED: 0, "Unschedulable": 0}
        self.preemptions: list[dict[str, Any]] = []
        self.enqueued_at: dict[str, float] = {}
        self.scheduled: dict[str, dict[str, Any]] = {}
        self.last_failure: dict[str, str] = {}
        self.last_failure_fields: dict[str, dict[str, Any]] = {}  # the same FitError as data
        self.evicted: dict[str, dict[str, Any]] = {}
        # v1.35's gang members assumed on their node and held at Permit (replay/permit_waits.py)
        self.waiting_on_permit: dict[str, WaitingPod] = {}
        self.rejected_by_preemption: set[tuple[str, str]] = set()
        self.gone: set[str] = set()               # uids the replay has deleted
        # asynchronous preemption: preemptors whose victims' API calls are still running
        self.async_preemption = self.config.enabled(FEATURE_GATE)
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

    # ------------------------------------------------------------------ the recording
    def apply(self, ev: TraceEvent) -> None:
        self.handler.apply(ev)
        if self._in_flight:
            self._release_preemptions_done()

    def _hold_preemptions_in_flight(self, cluster: Cluster) -> None:
        """A preemption the recorded scheduler was making when the trace began: victims its
        preemption marked (the DisruptionTarget condition, prepareCandidate's first call) and not
        deleted yet, on the node a pending pod is nominated to. Their deletions stand (the
        decision was made: SimulateHandler.victims_at_start), and the pods nominated there of
        higher priority are held as the replay holds its own preemptors while their calls run
        (DefaultPreemption.PreEnqueue: IsPodRunningPreemption), until every such victim is going or
        gone, or IN_FLIGHT_RELEASE_AFTER has passed without the recording showing it; then they
        are activated and tried again, and find the victims terminating. Without the hold the
        replay decided them at once, before the recorded deletions, and preempted a second time.

        This is v1.35's executor's rule (held to the last victim's delete) and a synchronous
        preemption's (its cycle makes every call before the pod is back in the queue). v1.33 and
        v1.34 let the preemptor go just before its last victim's calls; from then it is retried
        after its backoff, which the trace began too late to show. Holding it here too is the
        nearer of the two readings: the shared traces cut mid-stream, with the hold for every
        release, put reality inside p5..p95 in 257 of 271 checks, and in 247 with v1.33 and v1.34
        trying the preemptor at once."""
        self._in_flight: dict[str, list[str]] = {}
        marked: dict[str, list[Pod]] = {}
        for p in cluster.pods.values():
            if p.node_name and not p.terminating and preempted_by_scheduler(p.raw):
                marked.setdefault(p.node_name, []).append(p)
        if not marked:
            return
        for p in cluster.pods.values():
            victims = marked.get(p.nominated_node_name) if not p.node_name else None
            if victims and self.state.owned(p):
                mine = [v.uid for v in victims if v.priority < p.priority]
                if mine:
                    self._in_flight[p.uid] = mine
                    self.preempting.add(p.uid)
        if not self._in_flight:
            return
        # the same decisions' calls go on after the start: a victim on a node whose preemption is
        # in flight, marked within the calls' time, is theirs (prepareCandidateAsync patches and
        # deletes the victims one after the other), and its deletion stands as well
        held = [self.state.pods_by_uid[u] for u in self._in_flight]
        end = self.timeline.start + IN_FLIGHT_RELEASE_AFTER
        for ev in self.timeline.events:
            if ev.time > end:
                break
            if ev.kind != "Pod" or ev.type == "DELETED" or not preempted_by_scheduler(ev.obj):
                continue
            victim = self.state.pods_by_uid.get(ev.uid)
            if victim is None or not victim.node_name or victim.uid in self.handler.victims_at_start:
                continue
            for p in held:
                if p.nominated_node_name == victim.node_name and victim.priority < p.priority:
                    self.handler.victims_at_start.add(victim.uid)
                    self._in_flight[p.uid].append(victim.uid)
        if self._in_flight:
            self.engine.schedule(self.timeline.start + IN_FLIGHT_RELEASE_AFTER, self._release_all_in_flight,
                                 priority=PRIORITY_QUEUE, name="preemptions in flight at the start")

    def _release_preemptions_done(self) -> None:
        pods = self.state.pods_by_uid
        for uid, victims in list(self._in_flight.items()):
            if all(v is None or v.terminating for v in map(pods.get, victims)):
                self._release_in_flight(uid)

    def _release_all_in_flight(self) -> None:
        for uid in list(self._in_flight):
            self._release_in_flight(uid)

    def _release_in_flight(self, uid: str) -> None:
        if self._in_flight.pop(uid, None) is None:
            return
        self.preempting.discard(uid)
        pod = self.state.pods_by_uid.get(uid)
        if pod is not None and not pod.node_name:
            self.queue.activate([pod])
        self._kick()

    @property
    def events_applied(self) -> int:
        return self.handler.applied

    @property
    def events_ignored(self) -> int:
        return self.handler.ignored

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
        eng.run(until=self.timeline.end)
        return self

    config_raw: Mapping[str, Any] | None = None
