"""kube-scheduler v1.34.1's scheduling queue (backend/queue/scheduling_queue.go) on a virtual clock.

Three places a pending pod can wait:

- activeQ: ordered by the profiles' QueueSort plugin's Less (the default PrioritySort: higher
  priority first, then the pod queued earlier); the scheduler pops its head.
- backoffQ: pods that failed and wait out a backoff of 1 s doubling per failed attempt up to
  10 s, aligned to whole seconds. SchedulerPopFromBackoffQ is on by default in v1.34: when activeQ
  is empty the scheduler pops the backoffQ's head without waiting.
- the unschedulable pool: pods that failed and wait for a cluster event one of the plugins that
  rejected them registered for with a hint that says Queue (QueueingHints are GA in v1.34; each
  plugin declares its events, the scheduler gathers them per profile), or for 5 minutes at most.

Pods that failed with an error and no rejecting plugin go to a separate error backoff queue that
the scheduler never pops early.

v1.30 and v1.31 ship SchedulerQueueingHints off (`hints_enabled`): every registered event's hint is
then the default one (framework/runtime.py build_queueing_hint_map), and a pending pod's own update
moves it whenever anything but its status changed (Update, isPodUpdated); the event handlers'
pre-filters of that time live in replay/eventhandlers.py.
"""
from __future__ import annotations

import heapq
import math
from typing import Any, Callable, Iterable, Iterator, Mapping

from ...framework.config import default_config
from ...framework.events import (BACKOFF_COMPLETE, EVENT_FORCE_ACTIVATE, EVENT_UNSCHEDULABLE_TIMEOUT,
                                 SCHEDULE_ATTEMPT_FAILURE, UNSCHEDULED_POD_ADD, UNSCHEDULED_POD_UPDATE,
                                 QUEUE_AFTER_BACKOFF, QUEUE_IMMEDIATELY, QUEUE_SKIP, ClusterEvent,
                                 QueueingHintMap, unscheduled_pod_update_events)
from ...framework.runtime import Framework, build_queueing_hint_map
from ...model.objects import Pod
from ...plugins import names
from ...plugins.registry import in_tree_registry

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
# flushUnschedulablePodsLeftover runs this often
UNSCHEDULABLE_FLUSH_PERIOD = 30.0
BACKOFF_ORDERING_WINDOW = 1.0

ACTIVE = "activeQ"
BACKOFF = "backoffQ"
ERROR_BACKOFF = "errorBackoffQ"
UNSCHEDULABLE = "unschedulable"
IN_FLIGHT = "inFlight"

# how an event treats a gated pod in unschedulablePods (SchedulingQueue's gated_events)
GATED_BY_EVENTS = "events"
GATED_BY_SCHEDULING_GATES = "schedulingGates"
GATED_NONE = "none"


def gated_events(minor: int) -> str:
    """The release's rule for gated pods in movePodsToActiveOrBackoffQueue (SchedulingQueue)."""
    return GATED_BY_EVENTS if minor >= 34 else GATED_BY_SCHEDULING_GATES if minor >= 31 else GATED_NONE

# PreEnqueue: pod -> (ok, plugin that gated it)
PreEnqueue = Callable[[Pod], "tuple[bool, str]"]


class QueuedPodInfo:
    """framework.QueuedPodInfo: a pending pod and its history in the queue."""

    __slots__ = ("pod", "timestamp", "initial_attempt_timestamp", "initial_attempt_seq", "attempts", "unschedulable_count",
                 "consecutive_errors", "backoff_expiration", "unschedulable_plugins", "pending_plugins",
                 "gating_plugin", "where", "token", "seq")

    def __init__(self, pod: Pod, now: float) -> None:
        self.pod = pod
        self.timestamp = now
        self.initial_attempt_timestamp: float | None = None
        # the order of first attempts made at one virtual instant (each time.Now() upstream is later)
        self.initial_attempt_seq = 0
        self.attempts = 0
        self.unschedulable_count = 0
        self.consecutive_errors = 0
        self.backoff_expiration: float | None = None
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.gating_plugin = ""
        self.where = ""
        self.token = 0
        self.seq = 0

    @property
    def gated(self) -> bool:
        return bool(self.gating_plugin)

    def __repr__(self) -> str:
        return f"QueuedPodInfo({self.pod.key}, {self.where}, attempts={self.attempts})"


# what isPodUpdated leaves out of a pod's metadata (besides the whole status)
_UNCOMPARED_METADATA = frozenset(("resourceVersion", "generation", "managedFields", "finalizers"))


def metadata_updated(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """isPodUpdated's look at two pods' metadata: anything but what it leaves out changed."""
    return ({k: v for k, v in old.items() if k not in _UNCOMPARED_METADATA}
            != {k: v for k, v in new.items() if k not in _UNCOMPARED_METADATA})


def pod_updated(old: Pod, new: Pod) -> bool:
    """mirrors isPodUpdated: anything but status, resourceVersion, generation, managedFields changed."""
    return old.spec != new.spec or metadata_updated(old.metadata, new.metadata)


# QueueSort's Less over two queued pods (anything with .pod and .timestamp)
LessFunc = Callable[[Any, Any], bool]


class _Entry:
    """A pod's place in activeQ: the pod and its queue timestamp as they were when it was queued,
    so a later change of the QueuedPodInfo never reorders the heap under it. Ordered by the
    QueueSort plugin's Less; pods neither orders before the other keep their queueing order."""

    __slots__ = ("pod", "timestamp", "seq", "token", "info", "less")

    def __init__(self, info: "QueuedPodInfo", less: LessFunc) -> None:
        self.pod = info.pod
        self.timestamp = info.timestamp
        self.seq = info.seq
        self.token = info.token
        self.info = info
        self.less = less

    def __lt__(self, other: "_Entry") -> bool:
        if self.less(self, other):
            return True
        if self.less(other, self):
            return False
        return self.seq < other.seq


class _BackoffEntry(_Entry):
    """A pod's place in backoffQ: the end of its backoff first, then activeQ's order (mirrors
    lessBackoffCompletedWithPriority)."""

    __slots__ = ("backoff",)

    def __init__(self, info: "QueuedPodInfo", less: LessFunc, backoff: float) -> None:
        super().__init__(info, less)
        self.backoff = backoff

    def __lt__(self, other: "_Entry") -> bool:
        if self.backoff != other.backoff:  # type: ignore[attr-defined]
            return self.backoff < other.backoff  # type: ignore[attr-defined]
        return _Entry.__lt__(self, other)


class _ErrorBackoffEntry:
    """A pod's place in the error backoff queue: the end of its backoff, then queueing order."""

    __slots__ = ("backoff", "seq", "token", "info")

    def __init__(self, info: "QueuedPodInfo", backoff: float) -> None:
        self.backoff = backoff
        self.seq = info.seq
        self.token = info.token
        self.info = info

    def __lt__(self, other: "_ErrorBackoffEntry") -> bool:
        return (self.backoff, self.seq) < (other.backoff, other.seq)


def default_queue_setup() -> tuple[dict[str, QueueingHintMap], LessFunc]:
    """The default profile's hints and QueueSort, for a queue built without a scheduler: read from
    its plugins' own declarations (EventsToRegister, the QueueSort plugin's Less), as NewScheduler
    gathers them, with no cluster, snapshot or scheduler behind them."""
    config = default_config()
    profile = config.profiles[0]
    fwk = Framework(in_tree_registry(config.version), profile)
    return {profile.scheduler_name: build_queueing_hint_map(fwk)}, fwk.points["queueSort"][0].less


class SchedulingQueue:
    """PriorityQueue of scheduling_queue.go, driven by a virtual clock (`clock()` gives now).

    `queueing_hints`: per profile (schedulerName), the events and hints its plugins registered
    (Scheduler.queueing_hints); `less`: the QueueSort plugin's Less (Scheduler.queue_sort_less).
    Without them, the default profile's."""

    def __init__(self, clock: Callable[[], float], *, pre_enqueue: PreEnqueue | None = None,
                 initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF, max_backoff: float = DEFAULT_POD_MAX_BACKOFF,
                 max_in_unschedulable: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
                 pop_from_backoff: bool = True, queueing_hints: Mapping[str, QueueingHintMap] | None = None,
                 less: LessFunc | None = None, hints_enabled: bool = True,
                 backoff_by_attempts: bool = False, activate_skips_pre_enqueue: bool = True,
                 gated_events: str = GATED_BY_EVENTS) -> None:
        self.clock = clock
        if queueing_hints is None or less is None:
            default_hints, default_less = default_queue_setup()
            queueing_hints = default_hints if queueing_hints is None else queueing_hints
            less = default_less if less is None else less
        self.queueing_hints = queueing_hints
        self.less = less
        self.pre_enqueue = pre_enqueue
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_in_unschedulable = max_in_unschedulable
        self.pop_from_backoff = pop_from_backoff
        # SchedulerQueueingHints (off in v1.30 and v1.31): without it a pending pod's own update
        # requeues it whenever anything but its status changed (Update's isPodUpdated)
        self.hints_enabled = hints_enabled
        # v1.30 to v1.33: calculateBackoffDuration counts the pod's Attempts (every pop); v1.34
        # counts its UnschedulableCount, or its ConsecutiveErrorsCount after an error
        # (backend/queue/backoff_queue.go)
        self.backoff_by_attempts = backoff_by_attempts
        # v1.35 on, moveToActiveQ skips PreEnqueue for a pod Activate takes out of backoffQ
        # (movesFromBackoffQ, as for one whose backoff completed); v1.34 runs it again
        self.activate_skips_pre_enqueue = activate_skips_pre_enqueue
        # which gated pods an event leaves alone (movePodsToActiveOrBackoffQueue): GATED_BY_EVENTS
        # (v1.34 on), GATED_BY_SCHEDULING_GATES (v1.31 to v1.33) or GATED_NONE (v1.30)
        self.gated_events = gated_events
        self.infos: dict[str, QueuedPodInfo] = {}  # by pod uid, wherever it waits
        self._active: list[_Entry] = []
        self._backoff: list[_BackoffEntry] = []
        self._error_backoff: list[_ErrorBackoffEntry] = []
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self.counts = {ACTIVE: 0, BACKOFF: 0, ERROR_BACKOFF: 0}
        self._seq = 0
        self.scheduling_cycle = 0
        # called when the earliest backoff completion may have changed (the replay arms a flush)
        self.on_backoff_change: Callable[[float], None] | None = None

    # ------------------------------------------------------------------ helpers
    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _leave(self, p: QueuedPodInfo) -> None:
        where = p.where
        if where in self.counts:
            self.counts[where] -= 1
            p.token += 1  # its heap entry is now stale
        elif where == UNSCHEDULABLE:
            self.unschedulable.pop(p.pod.uid, None)
        p.where = ""

    def _push_active(self, p: QueuedPodInfo) -> None:
        self._leave(p)
        p.where = ACTIVE
        p.token += 1
        p.seq = self._next_seq()
        heapq.heappush(self._active, _Entry(p, self.less))
        self.counts[ACTIVE] += 1

    def _push_backoff(self, p: QueuedPodInfo) -> None:
        self._leave(p)
        p.token += 1
        p.seq = self._next_seq()
        bo = self.backoff_time(p)
        if not p.unschedulable_plugins and not p.pending_plugins:
            p.where = ERROR_BACKOFF
            heapq.heappush(self._error_backoff, _ErrorBackoffEntry(p, bo))
            self.counts[ERROR_BACKOFF] += 1
        else:
            p.where = BACKOFF
            heapq.heappush(self._backoff, _BackoffEntry(p, self.less, bo))
            self.counts[BACKOFF] += 1
        if self.on_backoff_change is not None:
            self.on_backoff_change(bo + BACKOFF_ORDERING_WINDOW)

    def _put_unschedulable(self, p: QueuedPodInfo) -> None:
        if p.where != UNSCHEDULABLE:
            self._leave(p)
            p.where = UNSCHEDULABLE
            self.unschedulable[p.pod.uid] = p

    @staticmethod
    def _head(heap: list[Any], where: str) -> QueuedPodInfo | None:
        while heap:
            entry = heap[0]
            p = entry.info
            if p.where == where and p.token == entry.token:
                return p
            heapq.heappop(heap)
        return None

    # ------------------------------------------------------------------ queueing hints
    def _gated_skips(self, p: QueuedPodInfo, event: ClusterEvent) -> bool:
        """Whether movePodsToActiveOrBackoffQueue leaves a gated pod alone on `event`. v1.34 on:
        unless its gating plugin registered an event the incoming one matches
        (MatchAnyClusterEvent: an incoming wildcard event, UnschedulableTimeout's, matches only a
        registered wildcard). v1.31 to v1.33: when SchedulingGates gates it (kubernetes#124384's
        hotfix), whatever the event. v1.30: never."""
        if self.gated_events == GATED_BY_EVENTS:
            return not self._registered(p, p.gating_plugin, event)
        if self.gated_events == GATED_BY_SCHEDULING_GATES:
            return names.SCHEDULING_GATES in p.unschedulable_plugins
        return False

    def _registered(self, p: QueuedPodInfo, plugin: str, event: ClusterEvent) -> bool:
        """Whether `plugin` of the pod's profile registered for `event`."""
        hints = self.queueing_hints.get(p.pod.scheduler_name)
        return True if hints is None else hints.registered(plugin, event)

    def _worth_requeuing(self, p: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> int:
        """mirrors isPodWorthRequeuing: the hints of the plugins that rejected the pod, from the
        map of the pod's profile (a pod of no known profile is always worth it)."""
        hints = self.queueing_hints.get(p.pod.scheduler_name)
        if hints is None:
            return QUEUE_AFTER_BACKOFF
        return hints.worth_requeuing(p.pod, p.unschedulable_plugins, p.pending_plugins, event, old, new)

    # ------------------------------------------------------------------ backoff
    def backoff_duration(self, count: int) -> float:
        # mirrors calculateBackoffDuration: initial << (count-1), at most max
        if count <= 0:
            return 0.0
        d = self.initial_backoff
        for _ in range(count - 1):
            d *= 2
            if d > self.max_backoff:
                return self.max_backoff
        return min(d, self.max_backoff)

    def backoff_time(self, p: QueuedPodInfo) -> float:
        """mirrors getBackoffTime: the end of the pod's backoff, aligned to the 1 s window; -inf
        for a pod that never failed."""
        if self.max_backoff == 0:
            return -math.inf
        if self.backoff_by_attempts:
            count = p.attempts
        else:
            count = p.consecutive_errors if p.consecutive_errors > 0 else p.unschedulable_count
        if count == 0:
            return -math.inf
        if p.backoff_expiration is None:
            end = p.timestamp + self.backoff_duration(count)
            p.backoff_expiration = math.floor(end) if self.pop_from_backoff else end
        return p.backoff_expiration

    def is_backing_off(self, p: QueuedPodInfo) -> bool:
        now = self.clock()
        aligned = math.floor(now) if self.pop_from_backoff else now
        return not (self.backoff_time(p) < aligned)

    # ------------------------------------------------------------------ moving between queues
    def _run_pre_enqueue(self, p: QueuedPodInfo) -> None:
        if self.pre_enqueue is None:
            p.gating_plugin = ""
            return
        ok, plugin = self.pre_enqueue(p.pod)
        if ok:
            p.gating_plugin = ""
        else:
            p.gating_plugin = plugin
            p.unschedulable_plugins.add(plugin)

    def _move_to_active(self, p: QueuedPodInfo, event: str, moves_from_backoff: bool = False) -> bool:
        # PreEnqueue ran when the pod entered backoffQ (SchedulerPopFromBackoffQ): not again for a
        # pod whose backoff completed, nor (v1.35 on) for one Activate moves from there
        if not (self.pop_from_backoff and (event == BACKOFF_COMPLETE or moves_from_backoff)):
            self._run_pre_enqueue(p)
        if p.gated:
            if p.where in (ACTIVE, BACKOFF, ERROR_BACKOFF, UNSCHEDULABLE):
                return False
            self._put_unschedulable(p)
            return False
        if p.initial_attempt_timestamp is None:
            p.initial_attempt_timestamp = self.clock()
            p.initial_attempt_seq = self._next_seq()
        self._push_active(p)
        return True

    def _move_to_backoff(self, p: QueuedPodInfo, event: str) -> bool:
        if self.pop_from_backoff:
            self._run_pre_enqueue(p)
            if p.gated:
                self._put_unschedulable(p)
                return False
        self._push_backoff(p)
        return True

    def _requeue_after_backoff(self, p: QueuedPodInfo, event: str) -> str:
        # mirrors requeuePodWithQueueingStrategy with queueAfterBackoff
        if self.is_backing_off(p):
            if self._move_to_backoff(p, event):
                return p.where
            return UNSCHEDULABLE
        if self._move_to_active(p, event):
            return ACTIVE
        return UNSCHEDULABLE

    # ------------------------------------------------------------------ the queue's API
    def add(self, pod: Pod) -> QueuedPodInfo:
        """A new pending pod (Add)."""
        p = self.infos.get(pod.uid)
        if p is None:
            p = self.infos[pod.uid] = QueuedPodInfo(pod, self.clock())
        else:
            p.pod = pod
        self._move_to_active(p, UNSCHEDULED_POD_ADD)
        return p

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule (activeQ's head, else backoffQ's head), or None."""
        p = self._head(self._active, ACTIVE)
        if p is not None:
            heapq.heappop(self._active)
        elif self.pop_from_backoff:
            p = self._head(self._backoff, BACKOFF)
            if p is not None:
                heapq.heappop(self._backoff)
        if p is None:
            return None
        self._leave(p)
        p.where = IN_FLIGHT
        p.attempts += 1
        self.scheduling_cycle += 1
        p.unschedulable_plugins = set()
        p.pending_plugins = set()
        p.gating_plugin = ""
        return p

    def has_poppable(self) -> bool:
        if self._head(self._active, ACTIVE) is not None:
            return True
        return self.pop_from_backoff and self._head(self._backoff, BACKOFF) is not None

    def pop_specific(self, pod: Pod) -> QueuedPodInfo | None:
        """mirrors PopSpecificPod: the pod activated (as Activate would: its PreEnqueue asked
        again unless it waits in backoffQ) and taken from activeQ as pop() would; None when it is
        not waiting in the queue or is gated."""
        p = self.infos.get(pod.uid)
        if p is None:
            return None
        if p.where == UNSCHEDULABLE:
            self._move_to_active(p, EVENT_FORCE_ACTIVATE.label)
        elif p.where in (BACKOFF, ERROR_BACKOFF):
            # activate's moveToActiveQ from backoffQ: PreEnqueue ran when it entered backoffQ
            self._leave(p)
            self._move_to_active(p, BACKOFF_COMPLETE if self.pop_from_backoff else EVENT_FORCE_ACTIVATE.label)
        if p.where != ACTIVE:
            return None
        self._leave(p)
        p.where = IN_FLIGHT
        p.attempts += 1
        p.unschedulable_plugins = set()
        p.pending_plugins = set()
        p.gating_plugin = ""
        return p

    def add_unschedulable_if_not_present(self, p: QueuedPodInfo, unschedulable_plugins: Iterable[str] = (),
                                         pending_plugins: Iterable[str] = (), *, group_member: bool = False) -> str:
        """A pod whose cycle failed goes back: where to, the pod's rejectors and its counters decide.
        `group_member`: a pod of a pod group (v1.36, GenericWorkload) is retried after its backoff
        whoever rejected it (determineSchedulingHintForInFlightPod: event-based requeueing is not
        implemented for pod groups)."""
        p.unschedulable_plugins = set(unschedulable_plugins)
        p.pending_plugins = set(pending_plugins)
        if not p.unschedulable_plugins and not p.pending_plugins:
            p.consecutive_errors += 1
        else:
            p.unschedulable_count += 1
            p.consecutive_errors = 0
        p.timestamp = self.clock()
        p.backoff_expiration = None
        if p.where == IN_FLIGHT:
            p.where = ""
        # no cluster event happens while a cycle runs on the virtual clock, so only a pod that no
        # plugin rejected is worth requeuing at once (determineSchedulingHintForInFlightPod)
        if group_member or (not p.unschedulable_plugins and not p.pending_plugins):
            return self._requeue_after_backoff(p, SCHEDULE_ATTEMPT_FAILURE)
        self._put_unschedulable(p)
        return UNSCHEDULABLE

    def set_aside(self, p: QueuedPodInfo) -> None:
        """Take a pod out of wherever it waits, as if in flight, until requeue() (see requeue)."""
        self._leave(p)
        p.where = IN_FLIGHT

    def requeue(self, p: QueuedPodInfo) -> str:
        """A pod set aside after its cycle (not popped again while nothing changed: a pod group
        whose cycle would only repeat itself) goes back where its failure sent it."""
        if p.where == IN_FLIGHT:
            p.where = ""
        return self._requeue_after_backoff(p, SCHEDULE_ATTEMPT_FAILURE)

    def done(self, pod: Pod) -> None:
        """A pod leaves the queue for good (bound)."""
        p = self.infos.pop(pod.uid, None)
        if p is not None:
            self._leave(p)

    def update(self, old: Pod, new: Pod) -> None:
        """An update of a pod that is not bound (Update)."""
        p = self.infos.get(new.uid)
        if p is None or p.where in ("", IN_FLIGHT):
            if p is not None and p.where == IN_FLIGHT:
                p.pod = new
                return
            p = self.infos[new.uid] = QueuedPodInfo(new, self.clock())
            self._move_to_active(p, UNSCHEDULED_POD_UPDATE)
            return
        p.pod = new
        if p.where in (ACTIVE, BACKOFF, ERROR_BACKOFF):
            return
        if not self.hints_enabled:
            # Update without SchedulerQueueingHints: any change but the status' requeues the pod
            # (to backoffQ while it backs off, else to activeQ, where its PreEnqueue runs again)
            if pod_updated(old, new):
                self._requeue_after_backoff(p, UNSCHEDULED_POD_UPDATE)
            return
        # in the unschedulable pool: the rejectors' hints say whether this change could help
        # (Update: isPodWorthRequeuing for each event, then requeuePodWithQueueingStrategy). Unlike
        # movePodsToActiveOrBackoffQueue, Update does not first ask whether the gating plugin
        # registered the event: a gated pod whose other rejector's hint says Queue is requeued, and
        # its PreEnqueue plugins run again on the way
        for ev in unscheduled_pod_update_events(old, new):
            strategy = self._worth_requeuing(p, ev, old, new)
            if strategy == QUEUE_SKIP:
                continue
            if strategy == QUEUE_IMMEDIATELY:
                self._move_to_active(p, UNSCHEDULED_POD_UPDATE)
            else:
                self._requeue_after_backoff(p, UNSCHEDULED_POD_UPDATE)
            if p.where == ACTIVE or (self.pop_from_backoff and p.where in (BACKOFF, ERROR_BACKOFF)):
                return

    def delete(self, pod: Pod) -> None:
        p = self.infos.pop(pod.uid, None)
        if p is not None:
            self._leave(p)

    def move_all_to_active_or_backoff(self, event: ClusterEvent, old: Any = None, new: Any = None,
                                      pre_check: Callable[[Pod], bool] | None = None) -> int:
        """mirrors MoveAllToActiveOrBackoffQueue: every unschedulable pod the event may help."""
        if not self.unschedulable:
            return 0
        return self.move_pods(list(self.unschedulable.values()), event, old, new, pre_check)

    def move_pods(self, pods: list[QueuedPodInfo], event: ClusterEvent, old: Any = None, new: Any = None,
                  pre_check: Callable[[Pod], bool] | None = None) -> int:
        moved = 0
        for p in pods:
            if pre_check is not None and not pre_check(p.pod):
                continue
            if p.gated and self._gated_skips(p, event):
                continue
            strategy = self._worth_requeuing(p, event, old, new)
            if strategy == QUEUE_SKIP:
                continue
            if strategy == QUEUE_IMMEDIATELY:
                # mirrors requeuePodWithQueueingStrategy: no wait for the backoff
                where = ACTIVE if self._move_to_active(p, event.label) else UNSCHEDULABLE
            else:
                where = self._requeue_after_backoff(p, event.label)
            if where != UNSCHEDULABLE:
                moved += 1
        return moved

    def activate(self, pods: Iterable[Pod]) -> None:
        """mirrors Activate: pods waiting in the pool or in backoff go to activeQ now."""
        for pod in pods:
            p = self.infos.get(pod.uid)
            if p is None or p.where not in (UNSCHEDULABLE, BACKOFF, ERROR_BACKOFF):
                continue
            from_backoff = p.where != UNSCHEDULABLE
            if from_backoff:
                # deleted from backoffQ first: a pod PreEnqueue then gates goes to unschedulablePods
                self._leave(p)
            self._move_to_active(p, EVENT_FORCE_ACTIVATE.label,
                                 moves_from_backoff=from_backoff and self.activate_skips_pre_enqueue)

    def flush_backoff_completed(self) -> int:
        """mirrors flushBackoffQCompleted (run every second)."""
        moved = 0
        for heap, where in ((self._backoff, BACKOFF), (self._error_backoff, ERROR_BACKOFF)):
            while True:
                p = self._head(heap, where)
                if p is None or self.is_backing_off(p):
                    break
                heapq.heappop(heap)
                self._leave(p)
                if self._move_to_active(p, BACKOFF_COMPLETE):
                    moved += 1
        return moved

    def next_backoff_completion(self) -> float | None:
        """When the earliest pod in a backoff queue completes its backoff, or None."""
        times = []
        for heap, where in ((self._backoff, BACKOFF), (self._error_backoff, ERROR_BACKOFF)):
            p = self._head(heap, where)
            if p is not None:
                times.append(self.backoff_time(p) + BACKOFF_ORDERING_WINDOW)
        return min(times) if times else None

    def flush_unschedulable_leftover(self) -> int:
        """mirrors flushUnschedulablePodsLeftover (run every 30 s)."""
        now = self.clock()
        stale = [p for p in self.unschedulable.values() if now - p.timestamp > self.max_in_unschedulable]
        if not stale:
            return 0
        return self.move_pods(stale, EVENT_UNSCHEDULABLE_TIMEOUT)

    # ------------------------------------------------------------------ views
    def where(self, pod: Pod) -> str:
        p = self.infos.get(pod.uid)
        return p.where if p is not None else ""

    def info(self, pod: Pod) -> QueuedPodInfo | None:
        return self.infos.get(pod.uid)

    def __len__(self) -> int:
        return sum(self.counts.values()) + len(self.unschedulable)

    def active_pods(self) -> list[Pod]:
        """activeQ in pop order."""
        entries = sorted(e for e in self._active if e.info.where == ACTIVE and e.info.token == e.token)
        return [e.info.pod for e in entries]

    def backoff_pods(self) -> list[Pod]:
        entries = sorted(e for e in self._backoff if e.info.where == BACKOFF and e.info.token == e.token)
        return [e.info.pod for e in entries]

    def unschedulable_pods(self) -> list[Pod]:
        return [p.pod for p in self.unschedulable.values()]

    def pending(self) -> Iterator[QueuedPodInfo]:
        return iter(list(self.infos.values()))


__all__ = ["SchedulingQueue", "QueuedPodInfo", "ACTIVE", "BACKOFF", "ERROR_BACKOFF", "UNSCHEDULABLE",
           "IN_FLIGHT", "metadata_updated", "pod_updated"]
