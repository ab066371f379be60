"""The pod-group cycles of a replay (kube-scheduler v1.36.2 with GenericWorkload): which pods enter a
group's cycle together, what the queue does with them afterwards, and a workload-aware preemption
as a timeline entry. Shared by simulate mode (replay/scheduling_loop.py) and follow mode
(replay/follow.py).

- Members: the pod popped from the queue, then every other unscheduled pod of its group the
  queue still holds, each taken out as PopSpecificPod takes it (schedule_one_podgroup.go
  podGroupInfoForPod); a member gated at PreEnqueue stays out.
- After the cycle each member that is not bound goes back through FailureHandler: its nomination
  as the cycle said, and the queue retries it after its backoff whoever rejected it (a pod group's
  member is never parked on events: determineSchedulingHintForInFlightPod). A member whose
  failure is not its own FitError (the group's "pod group is unschedulable") has no rejecting
  plugin, so it backs off as an error does.
- With SchedulerPopFromBackoffQ, a group that keeps failing is tried again as soon as the
  scheduler is idle (the real one ran 46,810 such cycles in 75 s for a gang that could never fit).
  A cycle that changed nothing and preempted nothing would give the same answer on the same
  cluster: its members are set aside until the cluster, the nominations or the queue's other pods
  change (`Spin`), which is what those cycles amount to.
- The cluster's record counts the decisions of one pod on one node, each within 10 s of the one
  before, as one preemption (the truth files' `schedulerDecisions`); a group member's
  DefaultPreemption, re-decided on every such cycle, is summed up so (`Repeats`).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..framework.podgroupstate import group_key_of
from ..model.objects import Pod
from ..model.workload import PodGroup
from ..preemption.podgroup_preemption import CLUSTER, PodGroupPreemptionRecord
from ..scheduler.backend.queue import UNSCHEDULABLE, QueuedPodInfo, SchedulingQueue
from ..scheduler.schedule_one_podgroup import (BIND, LEAVE, MemberResult, PodGroupCycleResult, order_members,
                                               update_pod_group_condition)
from .state import ReplayState, finished, format_time, grace_period
from .verdicts import AGREES, DIFFERS, TIED, UNDECIDABLE

# the cluster's record merges the decisions of one pod on one node within this many seconds
REPEAT_WINDOW = 10.0


def group_of(state: ReplayState, pod: Pod) -> str:
    """namespace/name of the pod group whose cycle schedules `pod`, "" when it has its own cycle."""
    sched = state.scheduler
    if not sched.pod_group_cycles:
        return ""
    return group_key_of(pod, sched.config.version.minor)


def pod_group_uid(state: ReplayState, key: str) -> str:
    """The UID of a pod group (what DefaultPreemption's PreEnqueue holds while its preemption runs)."""
    pg = pod_group_of(state, key)
    return pg.uid if pg is not None else key


def pod_group_of(state: ReplayState, key: str) -> PodGroup | None:
    from ..framework.podgroupstate import PodGroupLister
    sched = state.scheduler
    fwk = next(iter(sched.frameworks.values()), None) or sched.framework_for_profile(
        sched.config.profiles[0].scheduler_name)
    if fwk is None:
        return None
    ns, name = key.split("/", 1)
    return PodGroupLister(fwk.listers, sched.config.version.minor).get(ns, name)


def members_for_cycle(state: ReplayState, queue: SchedulingQueue, first: QueuedPodInfo
                      ) -> tuple[str, list[Pod], dict[str, QueuedPodInfo]]:
    """podGroupInfoForPod: the popped pod and the group's other unscheduled pods the queue holds,
    in the cycle's order (priority, then first attempt)."""
    key = group_of(state, first.pod)
    ns = first.pod.namespace
    minor = state.scheduler.config.version.minor
    infos: dict[str, QueuedPodInfo] = {first.pod.uid: first}
    for p in list(state.cluster.pods.values()):
        if p.namespace != ns or p.node_name or p.uid in infos or group_key_of(p, minor) != key:
            continue
        info = queue.pop_specific(p)
        if info is not None:
            infos[p.uid] = info
    pods = order_members([i.pod for i in infos.values()],
                         lambda p: (infos[p.uid].initial_attempt_timestamp, infos[p.uid].initial_attempt_seq)
                         if infos[p.uid].initial_attempt_timestamp is not None else None)
    return key, pods, infos


def failure_plugins(m: MemberResult) -> tuple[set[str], set[str]]:
    """The rejecting plugins handleSchedulingFailure keeps for a failed member: those of its FitError
    when its failure is its own; none when it failed with the group (no FitError)."""
    res = m.cycle
    if res is None or m.failure is not m.status or res.error is not None:
        return set(), set()
    return set(res.diagnosis.unschedulable_plugins), set(res.diagnosis.pending_plugins)


def changed_nothing(result: PodGroupCycleResult, evicting: Callable[[Pod], bool] = lambda p: False,
                    group_victims: Iterable[Pod] | None = None) -> bool:
    """A cycle after which the same cycle would decide the same: nothing bound, no preemption (of
    the group or a member) that evicts a pod not already going (terminating, or `evicting`: its
    delete call on its way), no member nominated somewhere new, nothing to activate.
    `group_victims`: the group's preemption's victims as taken (follow mode takes the recording's
    choice among the search's), else the search's own."""
    def evicts_someone(victims: Iterable[Pod]) -> bool:
        return any(not v.terminating and not evicting(v) for v in victims)

    rec = result.preempted
    if rec is not None and evicts_someone(rec.victim_pods if group_victims is None else group_victims):
        return False
    for m in result.members:
        if m.action == BIND:
            return False
        p = m.preempted
        if p is not None and evicts_someone(p.selected.victims):
            return False
        if m.nominated_node and m.nominated_node != m.pod.nominated_node_name:
            return False
    return True


def end_of_group_cycle(queue: Any, spin: Any, conditions: dict[str, Any], key: str, result: PodGroupCycleResult,
                       infos: Mapping[str, Any], untried: set[str], evicting: Callable[[Pod], bool],
                       group_victims: Iterable[Pod] | None = None) -> None:
    """What a group's cycle leaves behind once its members are back in the queue, the same in
    simulate and follow (schedule_one_podgroup.go submitPodGroupAlgorithmResult): the
    PodGroupScheduled condition as the scheduler writes it, Permit's Activate, and the group set
    aside when the same cycle would decide the same (changed_nothing, with `evicting` and
    `group_victims` as it takes them). Activate moves no member in flight (this cycle's: a pod
    group's member comes back after its backoff whatever happened meanwhile); the others, it does."""
    written = update_pod_group_condition(conditions.get(key), result.condition)
    if written is not None:
        conditions[key] = written
    if result.activate:
        queue.activate([p for p in result.activate if p.uid not in infos])
    if changed_nothing(result, evicting, group_victims):
        spin.set_aside(key, queue, [infos[m.pod.uid] for m in result.members if m.action != BIND]
                       + [infos[u] for u in untried])


def pod_scheduled_condition(status: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A pod status's PodScheduled condition (None: none)."""
    for c in status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "PodScheduled":
            return c
    return None


def pod_scheduled_message(pod: Pod) -> str | None:
    """The message of the pod's PodScheduled condition as its object holds it (None: no condition)."""
    c = pod_scheduled_condition(pod.status)
    return None if c is None else c.get("message") or ""


def status_patches(result: PodGroupCycleResult, last_message: Callable[[Pod], str | None]) -> int:
    """How many status patches the cycle's FailureHandler calls make (updatePod: only when the
    PodScheduled condition's message or the nominated node changes). v1.36's scheduler makes them
    one after another inside the cycle (SchedulerAsyncAPICalls off: no API cacher), so a cycle
    whose members' statuses change lasts that many API calls; one whose do not lasts no time."""
    n = 0
    for m in result.members:
        if m.action == BIND:
            continue
        nominated = m.nominated_node is not None and m.nominated_node != m.pod.nominated_node_name
        if nominated or last_message(m.pod) != m.message:
            n += 1
    return n


class Spin:
    """Members of groups whose last cycle changed nothing, set aside until something changes
    (module docstring). `token()` says what the cluster is; a new token lets them back."""

    def __init__(self, token: Callable[[], Any]) -> None:
        self.token = token
        self.aside: dict[str, tuple[Any, list[QueuedPodInfo]]] = {}  # group key -> (token, members)

    def set_aside(self, key: str, queue: SchedulingQueue, infos: Iterable[QueuedPodInfo]) -> None:
        # only members the queue would hand out again: one FailureHandler parked in
        # unschedulablePods (gated at PreEnqueue, as DefaultPreemption gates a member whose own
        # preemption's calls run) waits there for an event its plugins' hints queue it on, or for
        # another member's PopSpecificPod (scheduling_queue.go AddUnschedulableIfNotPresent,
        # moveToBackoffQ, movePodsToActiveOrBackoffQueue); DefaultPreemption's hint is always
        # QueueSkip (default_preemption.go isPodSchedulableAfterPodDeletion), so a member parked by
        # it with no rejecting plugin of its own is not requeued by any event
        held = [i for i in infos if i.where != UNSCHEDULABLE]
        for i in held:
            queue.set_aside(i)
        self.aside[key] = (self.token(), held)

    def release(self, queue: SchedulingQueue, *, force: bool = False) -> int:
        """Members back to the queue when the cluster moved since they were set aside."""
        if not self.aside:
            return 0
        now = self.token()
        back = 0
        for key, (token, infos) in list(self.aside.items()):
            if token == now and not force:
                continue
            del self.aside[key]
            for i in infos:
                if i.pod.uid in queue.infos:
                    queue.requeue(i)
                    back += 1
        return back

    def forget(self, uid: str) -> None:
        for key, (token, infos) in list(self.aside.items()):
            kept = [i for i in infos if i.pod.uid != uid]
            if len(kept) != len(infos):
                self.aside[key] = (token, kept)


def pod_group_preemption_summary(result: PodGroupCycleResult, rec: PodGroupPreemptionRecord, now: float
                                 ) -> dict[str, Any]:
    """A workload-aware preemption as an entry of the preemption timeline: the PodGroup preempts on
    the whole cluster (node "cluster"); its victims are every pod of the units it evicts, those
    already terminating included (they get no delete call), grouped by unit."""
    pg = rec.pod_group
    victims = rec.victim_pods
    return {
        "time": format_time(now),
        "preemptor": pg.key,
        "podGroup": True,
        "priority": rec.priority,
        "priorityClassName": pg.priority_class_name,
        "node": CLUSTER,
        "victims": [v.key for v in victims],
        "victimDetails": [{"pod": v.key, "priority": v.priority, "priorityClassName": v.priority_class_name,
                           "node": v.node_name, "alreadyTerminating": v.terminating,
                           "gracePeriodSeconds": grace_period(v),
                           "unit": u.key, "unitKind": "PodGroup" if u.pod_group is not None else "Pod"}
                          for u in rec.victims for v in u.pods],
        "why": pod_group_preemption_why(result, rec),
    }


def pod_group_preemption_why(result: PodGroupCycleResult, rec: PodGroupPreemptionRecord) -> dict[str, Any]:
    """Why these victims, in a few fields a timeline can show."""
    members = result.members
    need_cpu = sum(m.pod.resource.resource.milli_cpu for m in members)
    need_mem = sum(m.pod.resource.resource.memory for m in members)
    victims = rec.victim_pods
    return {
        "message": result.condition["message"] if result.condition else "",
        "members": [{"pod": m.pod.key, "fitted": bool(m.suggested_host), "message": m.message} for m in members],
        "requests": {"milliCPU": need_cpu, "memory": need_mem},
        "potentialVictims": len(rec.potential),
        "reprieved": [r.unit.key for r in rec.reprieves if r.kept],
        "units": [u.to_dict() for u in rec.victims],
        "freedMilliCPU": sum(v.resource.resource.milli_cpu for v in victims),
        "freedMemory": sum(v.resource.resource.memory for v in victims),
    }


class Repeats:
    """Group members' decisions merged as the cluster's record merges them: a decision of the same
    preemptor on the same node within REPEAT_WINDOW of the entry's last decision joins it (its
    victims added, `schedulerDecisions` counted). The window runs from the last decision, not the
    first: s9-gang-nowap's truth counts in gang/huge-4's node-04 entry, first decided at 05:31:33.547,
    a victim whose Preempted event names huge-4 at 05:31:45.353, the entry's decisions having gone
    on meanwhile (thousands of them)."""

    def __init__(self) -> None:
        self.open: dict[tuple[str, str], tuple[float, dict[str, Any]]] = {}

    def merge(self, row: dict[str, Any], now: float) -> bool:
        """True when `row` joined an earlier entry (the caller does not append it)."""
        k = (row["preemptor"], row["node"])
        got = self.open.get(k)
        if got is not None and now - got[0] <= REPEAT_WINDOW:
            entry = got[1]
            self.open[k] = (now, entry)
            have = set(entry["victims"])
            for v, d in zip(row["victims"], row.get("victimDetails") or ()):
                if v not in have:
                    entry["victims"].append(v)
                    entry.setdefault("victimDetails", []).append(d)
                    have.add(v)
            rep, mine = entry.get("replayed"), row.get("replayed")
            if rep is not None and mine is not None:
                rep["victims"] = list(dict.fromkeys(list(rep.get("victims") or ()) + list(mine.get("victims") or ())))
            entry["schedulerDecisions"] = entry.get("schedulerDecisions", 1) + 1
            return True
        row["schedulerDecisions"] = 1
        self.open[k] = (now, row)
        return False


class PodGroupLoop:
    """Simulation's pod-group cycles (a mixin of replay/simulate.py Simulation, as the scheduling
    loop is): one cycle per pop of a group member, and what the scheduler does after it."""

    engine: Any
    state: ReplayState
    queue: SchedulingQueue
    listener: Any
    decisions: int
    outcomes: dict[str, int]
    last_failure: dict[str, str]
    last_failure_fields: dict[str, dict[str, Any]]
    preemptions: list[dict[str, Any]]
    evicted: dict[str, dict[str, Any]]
    preempting: set[str]
    async_preemption: bool
    api_latency: float
    api_latency_draw: Callable[[], float] | None
    config: Any
    _plan_leave: Callable[[Pod, dict[str, Any] | None], None]  # replay/preemption_calls.py

    scheduler_busy_until = float("-inf")

    def _pod_group_setup(self) -> None:
        self.pod_group_spin = Spin(lambda: (self.state.changes, self.state.scheduler.world_held()))
        self.pod_group_repeats = Repeats()
        self.pod_group_conditions: dict[str, dict[str, str]] = {}
        self._pod_group_uids: dict[str, str] = {}

    def _group_uid(self, key: str) -> str:
        uid = self._pod_group_uids.get(key)
        if uid is None:
            uid = self._pod_group_uids[key] = pod_group_uid(self.state, key)
        return uid

    def _group_held(self, pod: Pod) -> bool:
        """DefaultPreemption.PreEnqueue of a member: held while its group's preemption runs
        (IsPodGroupRunningPreemption)."""
        key = group_of(self.state, pod)
        return bool(key) and bool(self.preempting) and self._group_uid(key) in self.preempting

    def _schedule_pod_group(self, first: QueuedPodInfo) -> None:
        from ..scheduler.schedule_one import PREEMPTED, SCHEDULED
        now = self.engine.now
        key, pods, infos = members_for_cycle(self.state, self.queue, first)
        result = self.state.scheduler.schedule_pod_group(key, pods)
        self.decisions += len(result.members)
        self.scheduler_busy_until = now + status_patches(
            result, lambda p: self.last_failure.get(p.uid)) * self.api_latency
        # each member's own preemption (WorkloadAwarePreemption off) made its calls in the cycle
        for m in result.members:
            if m.preempted is not None:
                self._preempt(m.pod, m.cycle, m.preempted, infos[m.pod.uid].attempts, nominate=False,
                              repeats=self.pod_group_repeats)
        rec = result.preempted
        if rec is not None:
            self._preempt_pod_group(result, rec, first.attempts)
        in_cycle = {m.pod.uid for m in result.members}
        for m in result.members:
            pod = m.pod
            info = infos[pod.uid]
            if m.action == BIND:
                self.outcomes[SCHEDULED] += 1
                self.queue.done(pod)
                self._bind(pod, m.suggested_host, info.attempts)
                continue
            self.outcomes[PREEMPTED if m.preempted is not None else "Unschedulable"] += 1
            self.last_failure[pod.uid] = m.message
            fields = self.last_failure_fields[pod.uid] = m.cycle.fit_error_fields() if \
                m.cycle is not None and m.failure is m.status else {}
            if m.nominated_node is not None and m.nominated_node != pod.nominated_node_name:
                self._set_nomination(pod, m.nominated_node)
            if self.listener is not None:
                self.listener.unschedulable(now, pod, m.message, fields)
            plugins, pending = failure_plugins(m)
            self.queue.add_unschedulable_if_not_present(info, plugins, pending, group_member=True)
        untried = {p.uid for p in result.untried}
        for uid, info in infos.items():
            if uid in in_cycle:
                continue
            if uid not in untried:
                self.queue.done(info.pod)  # skipPodGroupPodSchedule: terminating, dropped
                continue
            # submitPodGroupAlgorithmResult: a member the cycle stopped before (another member's
            # error) gets the group's status through FailureHandler, its nomination cleared, and is
            # retried after its backoff
            pod, message = info.pod, result.status.message()
            self.outcomes["Unschedulable"] += 1
            self.last_failure[pod.uid] = message
            self.last_failure_fields[pod.uid] = {}
            if pod.nominated_node_name:
                self._set_nomination(pod, "")
            if self.listener is not None:
                self.listener.unschedulable(now, pod, message, {})
            self.queue.add_unschedulable_if_not_present(info, (), (), group_member=True)
        end_of_group_cycle(self.queue, self.pod_group_spin, self.pod_group_conditions, key, result, infos, untried,
                           lambda v: v.uid in self.evicted)

    def _preempt_pod_group(self, result: PodGroupCycleResult, rec: PodGroupPreemptionRecord, attempts: int) -> None:
        """A workload-aware preemption's API calls, as the Executor's actuatePodGroupPreemption
        makes them (prepareCandidateAsync with the PodGroup as preemptor, on node "cluster")."""
        from ..scheduler.backend.api_dispatcher import api_calls_async, plan_calls, plan_sync_calls
        from .engine import PRIORITY_INTERNAL
        now = self.engine.now
        row = pod_group_preemption_summary(result, rec, now)
        row["attempt"] = attempts
        self.preemptions.append(row)
        pg = rec.pod_group
        preemptor = Pod({"metadata": {"namespace": pg.namespace, "name": pg.name, "uid": pg.uid},
                         "spec": {"priority": pg.priority}})
        victims = rec.victim_pods
        details_of = {d["pod"]: d for d in row["victimDetails"]}
        evicting = []
        for v in victims:
            if v.terminating or v.uid in self.evicted:
                continue
            self.evicted[v.uid] = {"pod": v.key, "by": pg.key, "time": now, "node": v.node_name}
            # each victim leaves as the trace measured pods like it leaving after their delete
            # call, as a pod's victims do: not all at once at the end of one grace period
            self._plan_leave(v, details_of.get(v.key))
            evicting.append(v)
        if self.listener is not None:
            self.listener.preempting(now, preemptor, CLUSTER, evicting)
        if self.async_preemption:
            # workload-aware preemption (v1.36) holds the members until the last delete
            calls = plan_calls(preemptor, victims, [], now, self.api_latency,
                               clears_wait=not api_calls_async(self.config), release_after_last_delete=True,
                               draw=self.api_latency_draw)
            if calls:
                self.preempting.add(pg.uid)
        else:
            calls = plan_sync_calls(preemptor, victims, [], now)
        for call in calls:
            self.engine.schedule(call.at, lambda c=call: self._api_call(c, preemptor, CLUSTER),
                                 priority=PRIORITY_INTERNAL, name=f"{call.what} {call.pod.key}")


# --- follow mode -------------------------------------------------------------------------------------

def api_latency_for(config: Any, events: Any) -> float:
    """One API call of the scheduler, as simulate mode takes it: --api-latency, else the trace's
    measure (calibration.api_latency_of), else the default."""
    from ..scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY
    from .calibration import api_latency_of
    if config.api_latency is not None:
        return config.api_latency
    measured = api_latency_of(events)
    return measured if measured is not None else DEFAULT_API_LATENCY


PODGROUP_DISRUPTION_MESSAGE = "preempting to accommodate a higher priority podgroup"
# how long after a decision a group's preemption is taken as done when the recording never shows
# its last victim going (the cluster chose other victims): the calls of a few victims
RELEASE_AFTER = 1.0


def preempted_for_pod_group(obj: Any) -> bool:
    """A recorded sign of a workload-aware preemption: a Preempted Event related to a PodGroup, or
    a victim's DisruptionTarget condition whose message names a podgroup (executor.go PreemptPod:
    "preempting to accommodate a higher priority podgroup")."""
    if obj.get("kind") == "Event":
        rel = obj.get("related") or {}
        return rel.get("kind") == "PodGroup" or "by podgroup " in (obj.get("message") or obj.get("note") or "")
    for c in (obj.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "DisruptionTarget" and \
                (c.get("message") or "").endswith(PODGROUP_DISRUPTION_MESSAGE):
            return True
    return False


# recorded_bursts' key for the bursts the recording names no group for (victims' conditions alone)
ANY_GROUP = "*"


def recorded_bursts(events: Iterable[Any], api_latency: float) -> dict[str, list[tuple[float, frozenset[str]]]]:
    """The recording's workload-aware preemptions, per PodGroup (namespace/name): each burst of its
    Preempted events (related to the PodGroup; one per victim it deleted, made by the preemption's
    calls within a few API calls of each other) as (its first event's time, the victims). A
    decision whose victims were all going already leaves none.

    A victim no such Event names (a trace recorded without Events: `record` leaves out a kind it
    may not read) still shows its preemption by its DisruptionTarget condition (executor.go
    PreemptPod: "<scheduler>: preempting to accommodate a higher priority podgroup", the decision's
    first call), which names no group: those victims' bursts, by the time each condition first
    shows, are under ANY_GROUP, a burst any group's cycle may have made (follow_choice takes one
    only where the cycle's search evicts exactly its pods)."""
    from ..model.rfc3339 import parse_seconds
    signs: dict[str, list[tuple[float, str]]] = {}
    named: set[str] = set()
    shown: dict[str, float] = {}  # victim -> when its podgroup DisruptionTarget condition first shows
    for ev in events:
        if ev.kind == "Pod":
            if ev.type != "DELETED" and ev.key not in shown and preempted_for_pod_group(ev.obj):
                shown[ev.key] = ev.time
            continue
        if ev.kind != "Event" or ev.type == "DELETED" or ev.obj.get("reason") != "Preempted":
            continue
        rel = ev.obj.get("related") or {}
        if rel.get("kind") != "PodGroup":
            continue
        inv = ev.obj.get("involvedObject") or ev.obj.get("regarding") or {}
        t = parse_seconds(ev.obj.get("eventTime")) or ev.time
        victim = f"{inv.get('namespace') or 'default'}/{inv.get('name')}"
        named.add(victim)
        signs.setdefault(f"{rel.get('namespace') or 'default'}/{rel.get('name')}", []).append((t, victim))
    unnamed = [(t, v) for v, t in shown.items() if v not in named]
    if unnamed:
        signs[ANY_GROUP] = unnamed
    gap = max(0.05, api_latency)
    out: dict[str, list[tuple[float, frozenset[str]]]] = {}
    for key, lst in signs.items():
        lst.sort()
        bursts: list[tuple[float, set[str]]] = []
        last = float("-inf")
        for t, victim in lst:
            if t - last > gap:
                bursts.append((t, set()))
            bursts[-1][1].add(victim)
            last = t
        out[key] = [(t, frozenset(v)) for t, v in bursts]
    return out


def recorded_leaves(events: Iterable[Any]) -> list[float]:
    """When a bound pod left the scheduler's view in the recording, sorted. The scheduler's pod
    informer lists only pods that are not terminal (scheduler.go newPodInformer: field selector
    status.phase!=Succeeded,status.phase!=Failed), so a bound pod leaves when it turns Failed or
    Succeeded, or is deleted before that; its delete event (eventhandlers.go deletePodFromCache)
    requeues the pods its resources could serve (NodeResourcesFit's hint on an assigned pod's
    delete), a waiting pod group's members among them. A later delete of a pod already terminal is
    no event for the scheduler."""
    phase: dict[str, tuple[bool, bool]] = {}  # uid -> (bound, terminal) as last seen
    out: list[float] = []
    for ev in events:
        if ev.kind != "Pod":
            continue
        obj = ev.obj
        uid = (obj.get("metadata") or {}).get("uid") or ev.key
        bound = bool((obj.get("spec") or {}).get("nodeName"))
        terminal = finished(obj)
        # a pod created terminal was never the informer's; one the recording starts with is
        # as its first event shows it
        bound_before, terminal_before = phase.get(uid, (bound, terminal if ev.type == "ADDED" else False))
        if ev.type == "DELETED":
            phase.pop(uid, None)
            if (bound or bound_before) and not terminal_before and not terminal:
                out.append(ev.time)
            continue
        phase[uid] = (bound, terminal)
        if terminal and not terminal_before and (bound or bound_before):
            out.append(ev.time)
    out.sort()
    return out


class MemberQueue(SchedulingQueue):
    """Follow mode's queue: the recorded scheduler's other pods are the recording's, only the pods
    of pod groups wait here, for the cycles follow runs itself (their decisions the recording cannot
    point at one by one: a pod-group cycle that preempts only pods already going leaves no sign)."""

    member: Callable[[Pod], bool] = staticmethod(lambda p: False)  # type: ignore[assignment]

    def add(self, pod: Pod) -> QueuedPodInfo:  # type: ignore[override]
        if not self.member(pod):
            return None  # type: ignore[return-value]
        return super().add(pod)

    def update(self, old: Pod, new: Pod) -> None:
        if self.member(new):
            super().update(old, new)


class FollowGroups:
    """Follow mode's pod-group cycles under WorkloadAwarePreemption: the groups' members in their
    queue, driven by the recorded events; each cycle runs on the recorded cluster of that instant,
    and a workload-aware preemption is one timeline entry."""

    MAX_CYCLES_AT_ONCE = 200

    # the recorded bursts a cycle at time t compares its choice with: those starting within
    # (t - BEFORE, t + AFTER), the decision's calls following it (or racing it, in the recording)
    BEFORE, AFTER = 0.1, 2.0

    def __init__(self, state: ReplayState, clock: Callable[[], float], api_latency: float,
                 events: Iterable[Any] = ()) -> None:
        sched = state.scheduler
        self.state = state
        self.clock = clock
        self.queue = MemberQueue(clock, pre_enqueue=self._pre_enqueue,
                                 queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
        self.queue.member = lambda p: bool(group_of(state, p)) and state.owned(p)
        self.spin = Spin(lambda: (state.changes, state.scheduler.world_held()))
        self.rows: list[dict[str, Any]] = []
        # uid (a PodGroup's or a member's) -> (decided at, the victims its calls delete)
        self.preempting: dict[str, tuple[float, list[str]]] = {}
        self.conditions: dict[str, dict[str, str]] = {}
        self.cycles = 0
        self._uids: dict[str, str] = {}
        # the scheduler is busy with a cycle's status patches until then (status_patches)
        self.busy_until = float("-inf")
        self.api_latency = api_latency
        events = list(events)
        self.bursts = recorded_bursts(events, api_latency)
        self.leaves = recorded_leaves(events)
        # (since, decide) -> decide()'s answer as if other components' writes recorded after
        # `since` had not reached the scheduler yet, and what they were (Follow's)
        self.without_writes_since: Callable[[float, Callable[[], Any]], tuple[Any, list[str]]] = \
            lambda since, decide: (None, [])
        for p in list(state.cluster.pods.values()):
            if not p.node_name and not p.terminating:
                self.queue.add(p)

    # ---------------------------------------------------------------- PreEnqueue
    def _running(self, uid: str) -> bool:
        """IsPodRunningPreemption / IsPodGroupRunningPreemption: until its last victim is going (its
        calls end with the last victim's delete: every victim is going then)."""
        got = self.preempting.get(uid)
        if got is None:
            return False
        at, victims = got
        going = all(v is None or v.terminating for v in map(self.state.pods_by_uid.get, victims))
        if going or self.clock() - at > RELEASE_AFTER:
            del self.preempting[uid]
            return False
        return True

    def _pre_enqueue(self, pod: Pod) -> tuple[bool, str]:
        from ..plugins import names
        key = group_of(self.state, pod)
        if self._running(pod.uid) or (key and self._running(self._uid(key))):
            return False, names.DEFAULT_PREEMPTION
        fwk = self.state.scheduler.framework_for(pod)
        if fwk is None:
            return False, ""
        for pl in fwk.points["preEnqueue"]:
            if not pl.pre_enqueue(pod).is_success():
                return False, pl.name
        return True, ""

    def _next_cycle_by(self, start: float, busy_until: float, end: float) -> bool:
        """Whether the group's next cycle starts by `end`: the recording shows a bound pod leaving
        (recorded_leaves) after the cycle at `start`, an event that brings the group back (as
        an in-flight event, to backoffQ, popped when the scheduler is idle), and the scheduler is
        done with this cycle's status patches (`busy_until`) by then."""
        i = bisect_right(self.leaves, start)
        return i < len(self.leaves) and max(self.leaves[i], busy_until) <= end

    def _uid(self, key: str) -> str:
        uid = self._uids.get(key)
        if uid is None:
            uid = self._uids[key] = pod_group_uid(self.state, key)
        return uid

    # ---------------------------------------------------------------- after each recorded event
    def drain(self) -> None:
        """The cycles the scheduler runs before the next recorded event: its members that are
        bound or gone leave the queue, members set aside come back if anything changed, then
        every poppable member starts its group's cycle."""
        q = self.queue
        for uid, info in list(q.infos.items()):
            cur = self.state.pods_by_uid.get(uid)
            if cur is None or cur.node_name:
                q.done(info.pod)
                self.spin.forget(uid)
        self.spin.release(q)
        q.flush_backoff_completed()
        for _ in range(self.MAX_CYCLES_AT_ONCE):
            if self.clock() < self.busy_until or not q.has_poppable():
                return
            p = q.pop()
            if p is None:
                return
            cur = self.state.pods_by_uid.get(p.pod.uid)
            if cur is None or cur.node_name:
                q.done(p.pod)
                continue
            p.pod = cur
            self.cycle(p)

    def cycle(self, first: QueuedPodInfo) -> None:
        st = self.state
        now = self.clock()
        st.prepare()
        key, pods, infos = members_for_cycle(st, self.queue, first)
        near = [(t, v) for t, v in (*self.bursts.get(key, ()), *self.bursts.get(ANY_GROUP, ()))
                if now - self.BEFORE <= t <= now + self.AFTER]
        alternatives = [v for _, v in near] + [frozenset()]
        result = st.scheduler.schedule_pod_group(key, pods, alternatives=alternatives)
        self.cycles += 1
        # (with WorkloadAwarePreemption, which this follows, no member preempts on its own)
        rec = result.preempted
        # the scheduler is busy with the cycle's status patches until then: a requeue meanwhile
        # finds it so, and the group's next cycle starts after them
        busy_until = now + status_patches(result, pod_scheduled_message) * self.api_latency

        def next_cycle_by(start: float, end: float) -> bool:
            return self._next_cycle_by(start, busy_until, end)

        taken: list[Pod] | None = None
        unseen: list[str] = []
        if rec is not None:
            matched, at = follow_choice(rec, now, near, self.api_latency, next_cycle_by)
            if matched is None and near:
                # the writes recorded within one API call before the cycle may not have reached
                # the scheduler when it decided (its informer's delivery): when the cycle without
                # them makes the recording's choice, the trace cannot decide which it was, and the
                # group goes on as the cluster chose
                early, unseen = self.without_writes_since(
                    now - self.api_latency, lambda: st.scheduler.schedule_pod_group(key, pods, alternatives=alternatives))
                early_rec = early.preempted if early is not None else None
                early_matched, early_at = follow_choice(early_rec, now, near, self.api_latency, next_cycle_by) \
                    if early_rec is not None else (None, now)
                if early_matched is None:
                    unseen = []
                else:
                    result, rec, matched, at = early, early_rec, early_matched, early_at
            row = follow_pod_group_row(result, rec, matched, at, bool(near), unseen)
            self.rows.append(row)
            # the calls that hold the group are the cluster's when its choice is known (an
            # alternative matched the recording): none when it evicts only pods going already (no
            # call, executor.go prepareCandidateAsync returns); the replay's own without any
            chosen: list[Any] = matched if matched is not None else rec.victims
            taken = [v for u in chosen for v in u.pods]
            to_delete = [v.uid for v in taken if not v.terminating]
            if to_delete:
                self.preempting[rec.pod_group.uid] = (now, to_delete)
        in_cycle = {m.pod.uid for m in result.members}
        self.busy_until = busy_until
        for m in result.members:
            info = infos[m.pod.uid]
            if m.action == BIND:
                # assumed and bound by the recorded scheduler: the recording's binding follows
                self.queue.done(m.pod)
                continue
            # FailureHandler puts the member's nomination in the scheduler's nominator before
            # its next cycle (schedule_one.go handleSchedulingFailure: AddNominatedPod, then the
            # status patch); the recording's patch that follows confirms it or, when the cluster
            # took another order of tied units than the replay, corrects it
            cur = st.pods_by_uid.get(m.pod.uid)
            if m.nominated_node is not LEAVE and cur is not None and m.nominated_node != cur.nominated_node_name:
                st.nominate(cur, m.nominated_node)
            plugins, pending = failure_plugins(m)
            self.queue.add_unschedulable_if_not_present(info, plugins, pending, group_member=True)
        untried = {p.uid for p in result.untried}
        for uid, info in infos.items():
            if uid in in_cycle:
                continue
            if uid not in untried:
                self.queue.done(info.pod)
                continue
            # a member the cycle stopped before: FailureHandler with the group's status, its
            # nomination cleared, retried after its backoff (submitPodGroupAlgorithmResult)
            cur = st.pods_by_uid.get(uid)
            if cur is not None and cur.nominated_node_name:
                st.nominate(cur, "")
            self.queue.add_unschedulable_if_not_present(info, (), (), group_member=True)
        end_of_group_cycle(self.queue, self.spin, self.conditions, key, result, infos, untried,
                           lambda v: any(v.uid in vs for _, vs in self.preempting.values()), taken)


def follow_choice(rec: PodGroupPreemptionRecord, now: float, recorded: Sequence[tuple[float, frozenset[str]]] = (),
                  api_latency: float = 0.0,
                  next_cycle_by: Callable[[float, float], bool] = lambda a, b: False
                  ) -> tuple[list[Any] | None, float]:
    """Which of the search's choices (`rec.alternatives`, one per order of the units it cannot
    tell apart) the cluster made at a follow cycle at `now`, and when it decided; (None, now) when
    no choice is the recording's. `recorded`: the recording's bursts of Preempted events near it
    (recorded_bursts), as (first event's time, victims).

    A choice is the recording's when it evicts anew exactly a recorded burst's pods, or only pods
    already going (such a decision makes no call, so it leaves no sign). Which of the group's cycles
    made a burst: the last one before it. A decision's first Preempted event follows its first call
    (executor.go prepareCandidateAsync: the DisruptionTarget patch, then the delete and the Event),
    so the burst is this cycle's unless the group's next cycle (`next_cycle_by(start, end)`: requeued
    by a recorded event after this one, the scheduler free) starts at least one API call before the
    burst: that later cycle made it then, and
    this one, if the search can choose pods already going, chose them. A cycle that must evict anew
    takes a later cycle's burst all the same (its calls hold the group: no later cycle runs). The
    decision's time: one API call before its burst, never before the cycle's event."""
    def anew(alt: Sequence[Any]) -> frozenset[str]:
        return frozenset(p.key for u in alt for p in u.pods if not p.terminating)

    def made(bursts: Sequence[tuple[float, frozenset[str]]]) -> tuple[list[Any] | None, float]:
        for alt in rec.alternatives:
            t = next((t for t, v in bursts if v == anew(alt)), None)
            if t is not None:
                return list(alt), max(now, t - api_latency)
        return None, now

    mine = [b for b in recorded if not next_cycle_by(now, b[0] - api_latency)]
    later = [b for b in recorded if b not in mine]
    matched, at = made(mine)
    if matched is None and (later or not recorded):
        silent = next((alt for alt in rec.alternatives if not anew(alt)), None)
        matched = list(silent) if silent is not None else None
    if matched is None:
        matched, at = made(later)
    return matched, at


def follow_pod_group_row(result: PodGroupCycleResult, rec: PodGroupPreemptionRecord, matched: list[Any] | None,
                         at: float, recorded: bool, unseen: Sequence[str] = ()) -> dict[str, Any]:
    """A workload-aware preemption in follow mode: decided by the replay's own pod-group cycle on
    the recorded cluster of that instant (`at`, follow_choice's time). It agrees when the search
    makes the recording's choice (`matched`, follow_choice's) for some order of the units it cannot
    tell apart; the row's victims are then that choice, the replay's own order's under `replayed`.
    Its verdict: `agrees` when the replay's own order makes that choice, `tied` when another order
    of tied units does, `undecidable` when that choice is this cycle's only without the writes
    `unseen` names (recorded just before it: the scheduler may not have seen them yet), else
    `differs` (no burst of the recording near it is a choice this search makes, or none is near:
    `recorded`)."""
    row = pod_group_preemption_summary(result, replace(rec, victims=list(matched)) if matched is not None else rec,
                                       at)
    row["replayed"] = {"outcome": "Preempted", "node": CLUSTER, "tiedNodes": [],
                       "victims": [v.key for v in rec.victim_pods]}
    if rec.alternatives:
        # the recording's choice, when the search makes it for another order of units it cannot
        # tell apart (equal priority, kind, size and start second: a Go map's order)
        row["replayed"]["victimAlternatives"] = [[p.key for u in alt for p in u.pods] for alt in rec.alternatives]
        row["replayed"]["victimOrderUnknown"] = True
    if unseen:
        row["verdict"] = UNDECIDABLE
        row["agrees"] = None
        row["replayed"]["undecidableFromTrace"] = list(unseen)
        row["differences"] = [f"the trace cannot decide: the recording's choice is this cycle's without "
                              f"{'; '.join(unseen)}, which the scheduler may not have seen yet"]
    elif matched is not None:
        own = {p.key for p in rec.victim_pods}
        row["verdict"] = AGREES if {p.key for u in matched for p in u.pods} == own else TIED
        row["agrees"] = True
        row["differences"] = []
    else:
        row["verdict"] = DIFFERS
        row["agrees"] = False
        row["differences"] = ["decided by the replay's own pod-group cycle; no burst of the recording's Preempted "
                              "events near it is a choice this search makes (it may belong to another cycle of "
                              "the group)" if recorded else
                              "decided by the replay's own pod-group cycle; the recording shows no sign of it"]
    return row
