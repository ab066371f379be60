"""Session (pkg/scheduler/framework/session.go, framework.go, session_plugins.go): one scheduling
pass over a snapshot of the cache; plugins register their functions on it, and the tiers of the
configuration decide how their votes combine."""
from __future__ import annotations

from typing import Any, Callable

from ...framework.randomness import RandomSource
from ...model.memory import MEMORY, remembered
from ...model.objects import parse_time
from ..api.job_info import JobInfo, TaskInfo
from ..api.node_info import NodeError, NodeInfo
from ..api.queue_info import QueueInfo
from ..api.types import (ALLOCATED, BINDING, PIPELINED, POD_GROUP_PENDING, POD_GROUP_RUNNING,
                         POD_GROUP_UNKNOWN, POD_GROUP_UNSCHEDULABLE_TYPE, RELEASING, RUNNING, allocated_status)
from ..cache.cache import SchedulerCache
from ..conf import PluginOption
from ..util.gomap import GoMap, go_range
from .statement import Statement
from ..util.scheduler_helper import NodeScoreCache

SESSION_UID = "session-0"


# jobs, queues and tasks are ordered by creation time over and over, and a job's tasks share theirs
@remembered("batch.framework creation times", 65536)
def time_key(ts: str) -> float:
    t = parse_time(ts)
    return t.timestamp() if t is not None else float("-inf")


class EventHandler:
    __slots__ = ("allocate", "deallocate")

    def __init__(self, allocate: Callable[[TaskInfo], None] | None = None,
                 deallocate: Callable[[TaskInfo], None] | None = None) -> None:
        self.allocate = allocate
        self.deallocate = deallocate


class Session:
    def __init__(self, cache: SchedulerCache, tiers: list[list[PluginOption]], random_source: RandomSource) -> None:
        self.uid = SESSION_UID
        # every random choice of kube-batch (each map range's start, each map's key hashes,
        # SelectBestNode's rand.Intn) drawn from the run's one generator, in the order Go draws them
        if random_source.rng is None:
            raise ValueError("a kube-batch session draws every choice: its RandomSource needs a generator")
        self.random_source = random_source
        self.rng = random_source.rng
        self.cache = cache
        self.jobs: GoMap[str, JobInfo]
        self.nodes: GoMap[str, NodeInfo]
        self.queues: GoMap[str, QueueInfo]
        self.tiers = tiers
        self.plugins: dict[str, Any] = {}
        self.event_handlers: list[EventHandler] = []
        self.job_order_fns: dict[str, Callable] = {}
        self.queue_order_fns: dict[str, Callable] = {}
        self.task_order_fns: dict[str, Callable] = {}
        self.predicate_fns: dict[str, Callable] = {}
        self.preemptable_fns: dict[str, Callable] = {}
        self.reclaimable_fns: dict[str, Callable] = {}
        self.overused_fns: dict[str, Callable] = {}
        self.job_ready_fns: dict[str, Callable] = {}
        self.job_pipelined_fns: dict[str, Callable] = {}
        self.job_valid_fns: dict[str, Callable] = {}
        self.node_prioritizers: dict[str, list] = {}
        # the why of the session, read by the story: what each action did and the votes behind it
        self.action = ""
        self.events: list[dict[str, Any]] = []
        self.last_votes: dict[str, set[str]] = {}
        self.task_node_reasons: dict[str, dict[str, str]] = {}
        # each task's creation time by uid, read by every comparison of the task order (a memory:
        # nothing kept with every memory off, model/memory.py)
        self._task_times: dict[str, float] = {}
        MEMORY.track(self)
        # node results kept per task shape while a node is unchanged (scheduler_helper)
        self.node_cache = NodeScoreCache()
        self.any_pod_affinity = False
        # names of the nodes whose tasks changed, in order (NodeInfo.add_task / remove_task)
        self.node_changes: list[str] = []
        self._flat: dict[tuple[int, str], list[Callable]] = {}

    def remembered(self) -> int:
        """The creation times kept (model/memory.py sizes())."""
        return len(self._task_times)

    def ranged(self, m: Any) -> list:
        """The values of a map in the order one Go `range` over it gives (util/gomap.py), its random
        start drawn from the session's generator."""
        return go_range(m, self.rng)

    def jobs_with_queue(self) -> list[tuple[JobInfo, QueueInfo]]:
        """The jobs in one range over ssn.Jobs, each with its queue; a job whose queue the session
        does not know is left out, as the actions' `if queue, found := ssn.Queues[job.Queue];
        !found { continue }` (allocate, preempt, reclaim)."""
        queues = self.queues
        return [(job, queues[job.queue]) for job in self.ranged(self.jobs) if job.queue in queues]

    # --- registration (session_plugins.go) ----------------------------------------------
    def add_job_order_fn(self, name: str, fn: Callable) -> None: self.job_order_fns[name] = fn
    def add_queue_order_fn(self, name: str, fn: Callable) -> None: self.queue_order_fns[name] = fn
    def add_task_order_fn(self, name: str, fn: Callable) -> None: self.task_order_fns[name] = fn
    def add_preemptable_fn(self, name: str, fn: Callable) -> None: self.preemptable_fns[name] = fn
    def add_reclaimable_fn(self, name: str, fn: Callable) -> None: self.reclaimable_fns[name] = fn
    def add_job_ready_fn(self, name: str, fn: Callable) -> None: self.job_ready_fns[name] = fn
    def add_job_pipelined_fn(self, name: str, fn: Callable) -> None: self.job_pipelined_fns[name] = fn
    def add_predicate_fn(self, name: str, fn: Callable) -> None: self.predicate_fns[name] = fn
    def add_node_prioritizers(self, name: str, fns: list) -> None: self.node_prioritizers[name] = fns
    def add_overused_fn(self, name: str, fn: Callable) -> None: self.overused_fns[name] = fn
    def add_job_valid_fn(self, name: str, fn: Callable) -> None: self.job_valid_fns[name] = fn
    def add_event_handler(self, eh: EventHandler) -> None: self.event_handlers.append(eh)

    # --- how the tiers combine the plugins' votes ----------------------------------------
    def _evictable(self, fns: dict[str, Callable], switch: str, actor: TaskInfo,
                   candidates: list[TaskInfo], in_order: Callable[[], list[TaskInfo]] | None = None
                   ) -> list[TaskInfo]:
        """mirrors Reclaimable / Preemptable: within a tier the plugins' victims intersect; the
        first tier that yields a non-nil list decides.

        `in_order`, when given, makes the candidates in the order kube-batch ranged them; only a
        plugin whose choice depends on that order (PREEMPTEES_IN_ORDER) is asked with it, the
        others with `candidates`, the same tasks in any order."""
        self.last_votes = {}
        victims: list[TaskInfo] | None = None
        init = False
        ordered: list[TaskInfo] | None = None
        for tier in self.tiers:
            for p in tier:
                if not p.on(switch):
                    continue
                fn = fns.get(p.name)
                if fn is None:
                    continue
                if in_order is not None and getattr(self.plugins.get(p.name), "PREEMPTEES_IN_ORDER", False):
                    if ordered is None:
                        ordered = in_order()
                    got = fn(actor, ordered)
                else:
                    got = fn(actor, candidates)
                self.last_votes[p.name] = {t.uid for t in got or ()}
                if not init:
                    victims = list(got) or None  # Go: a plugin with no victims returns nil
                    init = True
                else:
                    ids = {c.uid for c in got or ()}
                    victims = [v for v in victims or () if v.uid in ids] or None
            if victims is not None:
                return victims
        return victims or []

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
        return self._evictable(self.reclaimable_fns, "enableReclaimable", reclaimer, reclaimees)

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo],
                    in_order: Callable[[], list[TaskInfo]] | None = None) -> list[TaskInfo]:
        return self._evictable(self.preemptable_fns, "enablePreemptable", preemptor, preemptees, in_order)

    def overused(self, queue: QueueInfo) -> bool:
        for tier in self.tiers:
            for p in tier:
                fn = self.overused_fns.get(p.name)
                if fn is not None and fn(queue):
                    return True
        return False

    def _enabled(self, fns: dict[str, Callable], switch: str) -> list[Callable]:
        """The plugins' functions for one extension point, tier by tier, plugin by plugin; kept
        once asked (plugins register theirs when the session opens, before any action)."""
        key = (id(fns), switch)
        got = self._flat.get(key)
        if got is None:
            got = self._flat[key] = [fns[p.name] for tier in self.tiers for p in tier
                                     if p.on(switch) and p.name in fns]
        return got

    def _all_true(self, fns: dict[str, Callable], switch: str, obj: Any) -> bool:
        for fn in self._enabled(fns, switch):
            if not fn(obj):
                return False
        return True

    def job_ready(self, job: JobInfo) -> bool:
        return self._all_true(self.job_ready_fns, "enableJobReady", job)

    def job_pipelined(self, job: JobInfo) -> bool:
        return self._all_true(self.job_pipelined_fns, "enableJobPipelined", job)

    def job_order_fn(self, l: JobInfo, r: JobInfo) -> bool:
        return self._order(self.job_order_fns, "enableJobOrder", l, r)

    def queue_order_fn(self, l: QueueInfo, r: QueueInfo) -> bool:
        return self._order(self.queue_order_fns, "enableQueueOrder", l, r)

    def _order(self, fns: Any, switch: str, l: Any, r: Any) -> bool:
        """session_plugins.go JobOrderFn and QueueOrderFn: the first enabled plugin that tells the
        two apart decides; else the older first (creation time), then the smaller UID."""
        for fn in self._enabled(fns, switch):
            j = fn(l, r)
            if j != 0:
                return j < 0
        lt, rt = time_key(l.creation_timestamp), time_key(r.creation_timestamp)
        if lt == rt:
            return l.uid < r.uid
        return lt < rt

    def task_compare_fns(self, l: TaskInfo, r: TaskInfo) -> int:
        for fn in self._enabled(self.task_order_fns, "enableTaskOrder"):
            j = fn(l, r)
            if j != 0:
                return j
        return 0

    def _pod_time(self, t: TaskInfo) -> float:
        v = self._task_times.get(t.uid)
        if v is None:
            v = time_key(t.pod.metadata.get("creationTimestamp") or "")
            if MEMORY.on:
                self._task_times[t.uid] = v
        return v

    def task_order_fn(self, l: TaskInfo, r: TaskInfo) -> bool:
        res = self.task_compare_fns(l, r)
        if res != 0:
            return res < 0
        lt, rt = self._pod_time(l), self._pod_time(r)
        if lt == rt:
            return l.uid < r.uid
        return lt < rt

    def predicate_fn(self, task: TaskInfo, node: NodeInfo) -> str | None:
        """The first plugin's refusal (its error text), or None when the node fits."""
        for fn in self._enabled(self.predicate_fns, "enablePredicate"):
            err = fn(task, node)
            if err is not None:
                return err
        return None

    def node_prioritizer_list(self) -> list:
        out: list = []
        for tier in self.tiers:
            for p in tier:
                if not p.on("enableNodeOrder"):
                    continue
                out.extend(self.node_prioritizers.get(p.name) or ())
        return out

    # --- what actions do to the session (session.go) -------------------------------------
    def _allocate_event(self, task: TaskInfo) -> None:
        for eh in self.event_handlers:
            if eh.allocate is not None:
                eh.allocate(task)

    def _deallocate_event(self, task: TaskInfo) -> None:
        for eh in self.event_handlers:
            if eh.deallocate is not None:
                eh.deallocate(task)

    def pipeline_in(self, action: str, task: TaskInfo, hostname: str) -> None:
        """ssn.Pipeline as allocate and reclaim call it: an error is only logged there (here: passed
        over); a task pipelined enters the session's story."""
        try:
            self.pipeline(task, hostname)
        except (NodeError, LookupError):
            return
        self.events.append({"action": action, "kind": "pipeline", "task": task.key, "job": task.job,
                            "node": hostname})

    def pipeline(self, task: TaskInfo, hostname: str) -> None:
        job = self.jobs[task.job]
        job.update_task_status(task, PIPELINED)
        self.nodes[hostname].add_task(task)
        self._allocate_event(task)

    def allocate(self, task: TaskInfo, hostname: str) -> None:
        job = self.jobs[task.job]
        job.update_task_status(task, ALLOCATED)
        self.nodes[hostname].add_task(task)
        self._allocate_event(task)
        if self.job_ready(job):
            for t in job.tasks_in(ALLOCATED):
                self.dispatch(t)

    def dispatch(self, task: TaskInfo) -> None:
        self.cache.bind(task, task.node_name)
        self.jobs[task.job].update_task_status(task, BINDING)
        self.events.append({"action": self.action, "kind": "bind", "task": task.key, "job": task.job,
                            "node": task.node_name})

    def evict(self, reclaimee: TaskInfo, reason: str) -> None:
        self.cache.evict(reclaimee, reason)
        self.jobs[reclaimee.job].update_task_status(reclaimee, RELEASING)
        node = self.nodes.get(reclaimee.node_name)
        if node is not None:
            node.update_task(reclaimee)
        self._deallocate_event(reclaimee)

    def update_job_condition(self, job: JobInfo, cond: dict[str, Any]) -> None:
        conds = job.pod_group.status.conditions
        for i, c in enumerate(conds):
            if c.get("type") == cond["type"]:
                conds[i] = cond
                return
        conds.append(cond)

    def statement(self) -> Statement:
        return Statement(self)


def job_status(ssn: Session, job: JobInfo) -> None:
    """mirrors jobStatus: the PodGroup's phase and counts as the session closes."""
    status = job.pod_group.status
    unschedulable = any(c.get("type") == POD_GROUP_UNSCHEDULABLE_TYPE and c.get("status") == "True"
                        and c.get("transitionID") == ssn.uid for c in status.conditions)
    if job.count(RUNNING) and unschedulable:
        status.phase = POD_GROUP_UNKNOWN
    else:
        allocated = sum(len(ts) for st, ts in job.task_status_index.items() if allocated_status(st))
        status.phase = POD_GROUP_RUNNING if allocated >= job.pod_group.min_member else POD_GROUP_PENDING
    from ..api.types import FAILED, SUCCEEDED
    status.running = job.count(RUNNING)
    status.failed = job.count(FAILED)
    status.succeeded = job.count(SUCCEEDED)


def _has_pod_affinity(pod: Any) -> bool:
    aff = pod.spec.get("affinity")
    return bool(aff) and bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))


def open_session(cache: SchedulerCache, tiers: list[list[PluginOption]],
                 builders: dict[str, Callable[[dict[str, str]], Any]], random_source: RandomSource) -> Session:
    """mirrors OpenSession: the snapshot, then each configured plugin's OnSessionOpen.

    openSession asks JobValid before the tiers are set, so no job is ever dropped there."""
    ssn = Session(cache, tiers, random_source)
    # Snapshot fills the session's maps by ranging over the cache's (and each clone its tasks by
    # ranging over the cached node's or job's), so their slot order is drawn here, once a session
    ssn.jobs, ssn.nodes, ssn.queues = cache.snapshot(ssn.ranged)
    for n in ssn.nodes.values():
        n.log = ssn.node_changes
    ssn.any_pod_affinity = any(_has_pod_affinity(t.pod) for n in ssn.nodes.values() for t in n.tasks.values()) \
        or any(_has_pod_affinity(t.pod) for j in ssn.jobs.values() for t in j.tasks.values())
    for tier in tiers:
        for p in tier:
            ssn.plugins[p.name] = builders[p.name](p.arguments)
    for plugin in ssn.plugins.values():
        plugin.on_session_open(ssn)
    return ssn


def close_session(ssn: Session) -> None:
    for plugin in ssn.plugins.values():
        plugin.on_session_close(ssn)
    for job in ssn.jobs.values():
        if job.pod_group is None:
            ssn.cache.record_job_status_event(job)
            continue
        job_status(ssn, job)
        ssn.cache.update_job_status(job)
