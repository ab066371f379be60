"""Follow mode: the recording is applied as it happened (bindings, nominations, deletions), and
every preemption the cluster made is explained at the instant it was made, with a flag where the
offline scheduler's verdict differs from what the cluster did.

A preemption shows in a recording as a pending pod's status.nominatedNodeName being set and, on
the victims, a DisruptionTarget condition with reason PreemptionByScheduler (kube-scheduler
v1.34.1 writes both; with async preemption they arrive within moments of each other), and as a
`Preempted` Event ("Preempted by pod <uid> on node <node>") when the trace holds Events. The
signals within a short window on one node are one preemption; it is explained against the state
just before its first signal.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, Callable, Mapping

from ..framework.config import SchedulerConfig
from ..framework.cycle_state import CycleState
from ..framework.randomness import RandomSource
from ..framework.events import node_scheduling_properties_change
from ..model.objects import Node, Pod
from ..model.who_preempted import preempted_by
from ..scheduler.backend.cache import PodOrder, TracedPodOrder
from .calibration import status_delay_of
from ..scheduler.schedule_one import CycleResult
from .eventhandlers import EventHandler
from .podgroups import (FollowGroups, api_latency_for, group_of, pod_group_of, pod_scheduled_condition,
                        preempted_for_pod_group)
from ..scheduler.schedule_one_podgroup import order_members
from .preemption_summary import decision_case, preemption_why
from .verdicts import AGREES, DIFFERS, NOT_EXPLAINED, TIED, UNDECIDABLE
from .simulate import Progress, initial_objects
from .state import (ReplayState, build_cluster, finished, format_time, preempted_by_scheduler)
from .timeline import Timeline, TraceEvent
from .victim_orders import OrderVerdict, order_verdict
from .whatif import PriorityPolicy

# nomination and victims' conditions of one preemption are this close in time
SIGNAL_WINDOW = 15.0
# the members of a gang moved into activeQ by one event whose every order follow tries (4! = 24)
MAX_MOVED_IN = 4
# how long after a decision's first sign the bindings of pods decided before it may still come:
# the binding goroutine's API call, a few milliseconds, and the watch's delivery
ASSUMED_WINDOW = 0.5
# how long before its first sign a decision may have been made: its first API write (the
# nomination's status patch, a victim's condition patch), with asynchronous preemption issued from
# goroutines behind the client's rate limiter. The same bound as a decision's other API writes
# (ASSUMED_WINDOW); the shared real-cluster traces' decisions came 8 to 310 ms before their sign
DECISION_LAG = ASSUMED_WINDOW



@dataclass
class Write:
    """A write by another component than the scheduler (the disruption controller's PDB status, a
    kubelet ending a pod, a node's update) that the scheduler may or may not have seen when it
    decided: `before` is the object it replaced (a PDB's or node's raw object, or the Pod the
    cache held), None when the write created it."""

    index: int
    event: TraceEvent
    before: Any
    what: str


@dataclass
class Decision:
    """One decision of the replayed scheduler at an instant, with what the trace leaves open."""

    res: CycleResult
    winners: list[str] = field(default_factory=list)    # every node that can win, the replay's tie first
    on_recorded: list[list[str]] = field(default_factory=list)  # victim sets on the recorded node, the most likely first
    orders: OrderVerdict | None = None
    going: set[str] = field(default_factory=set)  # pods already terminating on the recorded node then


@dataclass
class Incident:
    """One preemption the cluster made, as the recording shows it."""

    time: float
    node: str
    first_index: int
    preemptor_uid: str | None = None
    preemptor_key: str | None = None
    victims: list[str] = field(default_factory=list)
    victim_uids: list[str] = field(default_factory=list)
    inferred: bool = False


def find_incidents(initial: list[Mapping[str, Any]], events: list[TraceEvent]) -> list[Incident]:
    """Group the recording's preemption signals into incidents, in time order."""
    last: dict[str, Mapping[str, Any]] = {}
    for o in initial:
        if o.get("kind") == "Pod":
            md = o.get("metadata") or {}
            last[md.get("uid") or f"{md.get('namespace') or 'default'}/{md.get('name')}"] = o
    nominations: list[tuple[int, float, str, str, str]] = []  # index, time, uid, key, node
    victims: list[tuple[int, float, str, str, str, str | None]] = []  # index, time, uid, key, node, preemptor uid
    for i, ev in enumerate(events):
        if ev.kind == "Event" and ev.type in ("ADDED", "MODIFIED"):
            o = ev.obj
            if o.get("reason") == "Preempted":
                by = preempted_by(o)  # "who preempted my pod" reads the same event the same way
                inv = o.get("involvedObject") or o.get("regarding") or {}
                if by is not None and inv.get("name"):
                    key = f"{inv.get('namespace') or 'default'}/{inv['name']}"
                    victims.append((i, ev.time, inv.get("uid") or key, key, by[1], by[0]))
            continue
        if ev.kind != "Pod" or ev.type == "BOOKMARK":
            continue
        uid = ev.uid
        old = last.get(uid)
        new = ev.obj
        if ev.type == "DELETED":
            last.pop(uid, None)
            if preempted_by_scheduler(new) and not (old is not None and preempted_by_scheduler(old)):
                victims.append((i, ev.time, uid, ev.key, (new.get("spec") or {}).get("nodeName") or "", None))
            continue
        last[uid] = new
        old_nom = ((old or {}).get("status") or {}).get("nominatedNodeName") or ""
        new_nom = (new.get("status") or {}).get("nominatedNodeName") or ""
        if new_nom and new_nom != old_nom and not (new.get("spec") or {}).get("nodeName"):
            nominations.append((i, ev.time, uid, ev.key, new_nom))
        if preempted_by_scheduler(new) and not (old is not None and preempted_by_scheduler(old)):
            victims.append((i, ev.time, uid, ev.key, (new.get("spec") or {}).get("nodeName") or "", None))

    incidents: list[Incident] = []
    used: set[int] = set()
    seen_victims: set[str] = set()
    # a victim the scheduler's Preempted event names is attributed by it alone; a victim known
    # only by its condition goes to the nomination on its node closest in time
    by_event = {vuid for (_, _, vuid, _, _, puid) in victims if puid is not None}
    # a victim the Event attributes still shows the preemption first by its condition (PreemptPod
    # patches the DisruptionTarget condition, then deletes, then records the Event): its earliest
    # such sign is one of its preemption's signs
    own_sign: dict[str, tuple[int, float]] = {}
    for vi, vt, vuid, _, _, puid in victims:
        if puid is None and vuid in by_event and vuid not in own_sign:
            own_sign[vuid] = (vi, vt)

    def first_sign(inc: Incident, vuid: str, vi: int, vt: float) -> None:
        sign = own_sign.get(vuid)
        if sign is not None and abs(sign[1] - vt) <= SIGNAL_WINDOW:
            vi, vt = min((vi, vt), sign)
        inc.first_index = min(inc.first_index, vi)
        inc.time = min(inc.time, vt)
    # each victim goes to the nomination on its node closest in time: of its preemptor when the
    # Event names it (a pod nominated again on the node, a decision of its own), else of any pod
    closest: dict[int, int] = {}
    for j, (vi, vt, vuid, vkey, vnode, puid) in enumerate(victims):
        if puid is not None or vuid not in by_event:
            near = [(abs(vt - t), n) for n, (_, t, nuid, _, node) in enumerate(nominations)
                    if node == vnode and abs(vt - t) <= SIGNAL_WINDOW and (puid is None or nuid == puid)]
            if near:
                closest[j] = min(near)[1]
    for n_idx, (idx, t, uid, key, node) in enumerate(nominations):
        inc = Incident(t, node, idx, uid, key)
        for j, (vi, vt, vuid, vkey, vnode, puid) in enumerate(victims):
            if j in used or vnode != node or abs(vt - t) > SIGNAL_WINDOW:
                continue
            if puid is not None and (puid != uid or closest.get(j) != n_idx):
                continue
            if puid is None and (vuid in by_event or closest.get(j) != n_idx):
                continue
            used.add(j)
            if vuid not in seen_victims:
                seen_victims.add(vuid)
                inc.victims.append(vkey)
                inc.victim_uids.append(vuid)
                first_sign(inc, vuid, vi, vt)
            else:
                inc.first_index = min(inc.first_index, vi)
                inc.time = min(inc.time, vt)
        incidents.append(inc)
    # victims no nomination accounts for: a preemption by a pod already nominated to that node
    rest: dict[tuple[str, str | None], Incident] = {}
    for j, (vi, vt, vuid, vkey, vnode, puid) in enumerate(victims):
        if j in used or vuid in seen_victims or (puid is None and vuid in by_event):
            continue  # (a condition the Event attributes: a sign of the Event's preemption, first_sign)
        k = (vnode, puid)
        inc = rest.get(k)
        if inc is None or vt - inc.time > SIGNAL_WINDOW:
            inc = rest[k] = Incident(vt, vnode, vi, puid, None, inferred=puid is None)
            incidents.append(inc)
        seen_victims.add(vuid)
        inc.victims.append(vkey)
        inc.victim_uids.append(vuid)
        first_sign(inc, vuid, vi, vt)
    incidents.sort(key=lambda x: (x.first_index, x.time))
    return incidents


class Follow:
    mode = "follow"

    def __init__(self, timeline: Timeline, config: SchedulerConfig, *, policy: PriorityPolicy | None = None,
                 seed: int = 0, on_decision: Callable[[dict[str, Any]], None] | None = None,
                 progress: Progress | None = None) -> None:
        self.timeline = timeline
        self.config = config
        self.policy = policy or PriorityPolicy()
        self.seed = seed
        self.on_decision = on_decision
        self.progress = progress
        initial = initial_objects(timeline.initial)
        cluster = build_cluster(initial)
        self.recorded_classes = self.policy.apply_initial(cluster)
        # pods bound when the trace starts: their order in the recorded scheduler's cache comes
        # from before the trace (PodOrder.from_history estimates it; TracedPodOrder carries the doubt)
        self.bound_at_start = {p.uid for p in cluster.pods.values() if p.node_name}
        estimate = PodOrder.from_history(cluster.pods.values(), status_delay=status_delay_of(timeline.events))
        self.order = TracedPodOrder(estimate, self.bound_at_start)
        self.state = ReplayState(cluster, config, random_source=RandomSource(seed), recompute_pdbs=False,
                                 order=self.order)
        # the trace's events reach the cache through follow's handler (FollowHandler): no queue,
        # the recorded bindings and nominations applied as they happened
        # pod groups (v1.36, GenericWorkload) are followed by their own cycles (replay/podgroups.py)
        self._now = timeline.start
        # with WorkloadAwarePreemption a pod group preempts as one unit, in cycles the recording
        # cannot point at one by one: they are followed by the groups' own cycles; without it a
        # member preempts on its node like a pod, and its recorded preemption is explained in its
        # group's cycle (_member_in)
        sched = self.state.scheduler
        self.groups = FollowGroups(self.state, lambda: self._now, api_latency_for(config, timeline.events),
                                   timeline.events) \
            if sched.pod_group_cycles and config.version.features.enable_workload_aware_preemption else None
        self.handler = FollowHandler(self, queue=self.groups.queue if self.groups is not None else None)
        if self.groups is not None:
            self.groups.without_writes_since = self._without_writes_since
        self.incidents = find_incidents(initial, timeline.events)
        # v1.35+ (NominatedNodeNameForExpectation): the scheduler also nominates a pod it placed and
        # that waits at Permit or PreBind, so a nomination alone is no preemption
        self.expectation_nominations = config.version.gate_enabled("NominatedNodeNameForExpectation")
        # other components' writes lately applied, for the windows decisions are made in
        self.writes: deque[Write] = deque()
        self.last_sign: dict[str, int] = {}  # preemptor uid -> index of its last decision's first sign
        if self.groups is not None:
            # victims the recording shows preempted for a PodGroup, and the PodGroups' uids
            self._podgroup_victim: dict[str, bool] = {}
            self._podgroup_uids = {(o.get("metadata") or {}).get("uid") for o in
                                   [ev.obj for ev in timeline.initial + timeline.events if ev.kind == "PodGroup"]}
            for ev in timeline.events:
                if ev.kind in ("Event", "Pod") and preempted_for_pod_group(ev.obj):
                    inv = ev.obj.get("involvedObject") or ev.obj.get("regarding") or {} if ev.kind == "Event" \
                        else ev.obj.get("metadata") or {}
                    self._podgroup_victim[f"{inv.get('namespace') or 'default'}/{inv.get('name')}"] = True
            # the pods of pod groups the trace holds, by uid and by key (their spec names the group)
            self._group_members: set[str] = set()
            for ev in timeline.initial + timeline.events:
                if ev.kind == "Pod" and group_of(self.state, Pod(ev.obj)):
                    self._group_members.update((ev.uid, ev.key))
            self.incidents = [i for i in self.incidents if not self._group_incident(i)]
        self.preemptions: list[dict[str, Any]] = []
        self.decisions = 0
        self.bindings = 0
        self.added_at: dict[str, int] = {}  # uid -> index of the event that added the pod
        self.victims_of: dict[str, list[str]] = {}  # preemptor uid -> uids of the victims it was seen to take
        self._index = -1
        self.config_raw: Mapping[str, Any] | None = None

    def run(self) -> "Follow":
        events = self.timeline.events
        by_index: dict[int, list[Incident]] = {}
        for inc in self.incidents:
            by_index.setdefault(self._decided_before(inc), []).append(inc)
        applied: set[int] = set()  # pod events of a backlog applied ahead of its other writes
        for i, ev in enumerate(events):
            for inc in by_index.get(i, ()):
                for j in range(i, inc.first_index):
                    if events[j].kind == "Pod" and j not in applied:
                        self._apply_at(j)
                        applied.add(j)
                assumed = self._assume_bindings_decided_before(inc, i)
                held = self._hold_nominations_decided_before(inc)
                self.explain(inc, ev.time, i)
                self._forget_nominations(held)
                self._forget_assumed(assumed)
            if i in applied:
                continue
            self._apply_at(i)
            if self.groups is not None:
                self._now = ev.time
                self.groups.drain()
            if self.progress is not None and i % 1000 == 0:
                self.progress(ev.time, self.timeline.end, self.decisions)
        if self.groups is not None:
            self.decisions += self.groups.cycles
            self.preemptions = sorted(self.preemptions + self.groups.rows, key=lambda r: r["time"])
        return self

    def _member_orders(self, pod: Pod) -> tuple[str, list[list[Pod]]]:
        """A pod group's members at this instant, in the orders its cycle may take them (v1.36,
        GenericWorkload; none for a pod of no group): priority, then the first attempt
        (schedule_one_podgroup.go podGroupInfoForPod). A gang's members wait at PreEnqueue until
        minCount of them exist; the one that completed it enters activeQ first, and the waiting
        ones are moved in after it by one event, in the order scheduling_queue.go
        movePodsToActiveOrBackoffQueue ranges over unschedulablePods, a Go map: any order of them
        (MAX_MOVED_IN of them at most), the replay's own first."""
        st = self.state
        key = group_of(st, pod)
        if not key:
            return "", []
        from ..framework.podgroupstate import group_key_of
        minor = st.scheduler.config.version.minor
        members = [p for p in st.cluster.pods.values() if p.namespace == pod.namespace and not p.node_name
                   and not p.terminating and group_key_of(p, minor) == key]
        added = {p.uid: self.added_at.get(p.uid, -1) for p in members}
        pg = pod_group_of(st, key)
        complete = -1
        if pg is not None and pg.min_count is not None:
            seen = sorted(added.values())
            complete = seen[pg.min_count - 1] if len(seen) >= pg.min_count else -1
        own = order_members(members, lambda p: (max(added[p.uid], complete), added[p.uid] != complete,
                                                added[p.uid]))
        orders = [own]
        moved = [i for i, p in enumerate(own) if added[p.uid] < complete]
        if 1 < len(moved) <= MAX_MOVED_IN and moved == list(range(moved[0], moved[0] + len(moved))):
            first = moved[0]
            for perm in permutations(own[first:first + len(moved)]):
                order = own[:first] + list(perm) + own[first + len(moved):]
                if order != own:
                    orders.append(order)
        return key, orders

    def _member_in(self, pod: Pod, key: str, members: list[Pod]) -> Any:
        """A pod group's member decides inside its group's cycle: the cycle at this instant over
        `members` in that order, and this member's part of it."""
        result = self.state.scheduler.schedule_pod_group(key, members)
        m = result.member(pod.key)
        return m.cycle if m is not None else None

    def _member_alternatives(self, pod: Pod, inc: Incident, d: Decision, key: str,
                             orders: list[list[Pod]]) -> None:
        """The member's decision under `orders`, the other orders its cycle may take the group's
        members in: each node it would preempt on can win, and its victims there count on the
        recorded node. Each is a what-if: the node walk starts where it would have."""
        sched = self.state.scheduler
        for members in orders:
            start = sched.next_start_node_index
            try:
                res = self._member_in(pod, key, members)
            finally:
                sched.next_start_node_index = start
            details = res.preempted if res is not None else None
            if details is None:
                continue
            d.winners += [n for n in details.tied_nodes if n not in d.winners]
            if details.selected.name == inc.node or inc.node in details.tied_nodes:
                victims = _victims_there(details, inc.node)
                if victims is not None and victims not in d.on_recorded:
                    d.on_recorded.append(victims)

    def _group_incident(self, inc: Incident) -> bool:
        """Signs of a preemption the replay's own pod-group cycles decide: by a pod group's member, or
        by a PodGroup (workload-aware preemption's victims name no pod)."""
        if inc.preemptor_key is None and inc.preemptor_uid is None:
            return any(self._podgroup_victim.get(k) for k in inc.victims)
        if inc.preemptor_uid in self._podgroup_uids:
            return True
        return inc.preemptor_uid in self._group_members or inc.preemptor_key in self._group_members

    def _decided_before(self, inc: Incident) -> int:
        """Where the decision goes among the events: before the backlog its first sign is in.

        The recorder stamps each event when it writes it, so events stamped with one instant are
        a backlog written at once: they arrived at any time since the previous stamp. The decision
        came before its first sign was written; another component's write delivered in the same
        backlog (a PDB status the disruption controller computed from the pod changes beside it,
        a node's update) may have come after the decision as well, and is applied after it. The
        backlog's pod events stay before the decision (run applies them first): the preemptor,
        the bindings and the scheduler's own earlier nominations and victims are what it knew."""
        events = self.timeline.events
        start = inc.first_index
        t = events[start].time
        while start > 0 and events[start - 1].time == t:
            start -= 1
        return start

    # ------------------------------------------------------------------ the scheduler's assumed pods
    def _queue_key(self, pod: Pod) -> tuple[int, int]:
        # mirrors PrioritySort: higher priority first, then the earlier arrival in the queue (the
        # watch delivers pods to the scheduler in the order the recording has them)
        return (-pod.priority, self.added_at.get(pod.uid, -1))

    def _assume_bindings_decided_before(self, inc: Incident, index: int) -> list[tuple[Pod, Pod]]:
        """Pods the scheduler had already placed when it made this decision, though their
        binding reaches the recording only after the decision's first sign.

        kube-scheduler assumes a pod on its node in its cache when it decides, then binds it
        through the API in another goroutine; it decides pods one at a time in its queue's
        order. A pod ahead of the preemptor in that order whose binding follows the sign within
        ASSUMED_WINDOW was placed before the preemptor was tried, if it could be placed then: the
        scheduler assumes a pod only once it passed Filter on the node (schedule_one.go
        schedulingCycle, assume after findNodesThatFitPod), so a pod that does not fit there in the
        replay's state at this instant (a nominated pod whose victims still hold the room) was
        bound later. Returns (recorded, assumed) pairs for _forget_assumed."""
        pod = self._find_preemptor(inc, infer=False)
        if pod is None or pod.node_name:
            return []
        mine = self._queue_key(pod)
        events = self.timeline.events
        t0 = events[index].time
        out: list[tuple[Pod, Pod]] = []
        st = self.state
        for ev in events[index:]:
            if ev.time - t0 > ASSUMED_WINDOW:
                break
            if ev.kind != "Pod" or ev.type == "DELETED" or ev.uid == pod.uid:
                continue
            node = (ev.obj.get("spec") or {}).get("nodeName")
            cur = st.pods_by_uid.get(ev.uid)
            if not node or cur is None or cur.node_name or self._queue_key(cur) >= mine or not self._fits(cur, node):
                continue
            assumed = Pod(cur.raw)
            assumed.priority, assumed.preemption_policy, assumed.has_priority = cur.priority, cur.preemption_policy, True
            assumed.node_name = node
            assumed.nominated_node_name = ""
            st.replace_pod(cur, assumed)
            out.append((cur, assumed))
        return out

    def _hold_nominations_decided_before(self, inc: Incident) -> list[tuple[Pod, str]]:
        """Nominations the scheduler already held when it made this decision, though their first
        sign reaches the recording after this decision's.

        The scheduler decides pods one at a time in its queue's order and sets a preemptor's
        nomination in its nominator at once (then patches it through the API, with the victims'
        calls); a preemptor ahead of this one in that order whose preemption's first sign comes
        within ASSUMED_WINDOW of this one's was decided before this one was tried. Its first sign
        may even come before this one's while its nomination comes after this decision (a victim's
        condition patch landed first): the nomination is held all the same. Returns (pod, previous
        nominated node) pairs for _forget_nominations."""
        pod = self._find_preemptor(inc, infer=False)
        if pod is None or pod.node_name:
            return []
        mine = self._queue_key(pod)
        st = self.state
        out: list[tuple[Pod, str]] = []
        # per preemptor, the decision it had made when this one was made: its latest whose first
        # sign came before this one's, else its next one (a later one came after this)
        last: dict[str, Incident] = {}
        for other in self.incidents:
            dt = other.time - inc.time
            uid = other.preemptor_uid
            if other is inc or abs(dt) > ASSUMED_WINDOW or not uid:
                continue
            if dt < 0 or uid not in last:
                last[uid] = other
        for other in last.values():
            p = st.pods_by_uid.get(other.preemptor_uid or "")
            if p is None or p is pod or p.node_name or p.nominated_node_name == other.node \
                    or self._queue_key(p) >= mine:
                continue
            out.append((p, st.nominate(p, other.node)))
        return out

    def _forget_nominations(self, held: list[tuple[Pod, str]]) -> None:
        for p, prev in reversed(held):
            self.state.nominate(p, prev)

    def _forget_assumed(self, assumed: list[tuple[Pod, Pod]]) -> None:
        # in reverse: each assumed pod is the last on its node when it is taken off again
        for cur, pod in reversed(assumed):
            self.state.replace_pod(pod, cur)

    def _victim_details(self, inc: Incident) -> list[dict[str, Any]]:
        """The recorded victims as the recording shows them just before the preemption: their
        priority and class are what the timeline and the summary group by."""
        out = []
        for key, uid in zip(inc.victims, inc.victim_uids):
            v = self.state.pods_by_uid.get(uid) or self.state.cluster.pods.get(key)
            out.append({"pod": key, "priority": v.priority if v is not None else None,
                        "priorityClassName": v.priority_class_name if v is not None else "",
                        "alreadyTerminating": bool(v is not None and v.terminating)})
        return out

    def _deletions_in_flight(self, pod: Pod) -> list[tuple[Pod, Any]]:
        """A preemptor that preempts again while its own earlier victims on its nominated node
        are terminating: v1.34.1 refuses that (PodEligibleToPreemptOthers: a terminating pod on
        the nominated node), so the scheduler decided before it saw those victims' deletion. With
        asynchronous preemption the preemptor is released before its last victim's API calls are
        made, so it can be tried again while they are in flight. Those victims are taken as not
        yet terminating for this decision; returns them with their deletion time, to restore."""
        node = pod.nominated_node_name
        mine = self.victims_of.get(pod.uid)
        if not node or not mine:
            return []
        out = []
        for uid in mine:
            v = self.state.pods_by_uid.get(uid)
            if v is not None and v.node_name == node and v.deletion_timestamp:
                out.append((v, v.deletion_timestamp))
                v.deletion_timestamp = None
        return out

    # ------------------------------------------------------------------ explaining one preemption
    def _find_preemptor(self, inc: Incident, infer: bool = True) -> Pod | None:
        st = self.state
        if inc.preemptor_uid:
            p = st.pods_by_uid.get(inc.preemptor_uid)
            if p is not None:
                return p
        if inc.preemptor_key:
            p = st.cluster.pods.get(inc.preemptor_key)
            if p is not None:
                return p
        if not infer:
            return None
        # inferred: the highest-priority pending pod nominated to that node (v1.35+: of those that
        # do not fit there, as a pod placed there and waiting at Permit or PreBind is nominated too)
        nominated = [p for p in st.nominator.nominated_pods_for_node(inc.node) if not p.node_name
                     and not (self.expectation_nominations and self._fits(p, inc.node))]
        if nominated:
            nominated.sort(key=lambda p: -p.priority)
            inc.inferred = True
            return nominated[0]
        return None

    def explain(self, inc: Incident, t: float, index: int | None = None) -> None:
        """Explain one recorded preemption at the decision point `index` (the event the decision
        goes before): the replay's verdict, checked against the recording, with what the trace
        cannot decide (other orders of pods placed before it began, writes in the decision's window)."""
        pod = self._find_preemptor(inc)
        record = self._recorded_row(inc, pod)
        if not inc.victims:
            if pod is not None and not pod.node_name and self.expectation_nominations and self._fits(pod, inc.node):
                # v1.35+ (NominatedNodeNameForExpectation, schedule_one.go bindingCycle): a pod the
                # scheduler placed on this node and that waits at Permit or PreBind is nominated
                # there too; one that passes Filter there was placed, not preempting: no preemption
                return
            # a nomination with no new victim: the scheduler decided again and counted only victims
            # already terminating (a re-nomination), which is no new preemption
            record["renomination"] = True
        if pod is not None:
            self.victims_of.setdefault(pod.uid, []).extend(inc.victim_uids)
        if pod is None or pod.node_name:
            record["agrees"] = None
            record["verdict"] = NOT_EXPLAINED
            record["differences"] = ["the preemptor is not in the trace as a pending pod at that instant: "
                                     "nothing to explain"]
            self.preemptions.append(record)
            return
        late = self._decide(pod, inc)
        self.decisions += 1
        early, changing = self._window_verdicts(inc, pod, late, index)
        window_start = self._window_start_text(inc, pod)
        self.last_sign[pod.uid] = inc.first_index
        res = late.res
        replayed: dict[str, Any] = {"outcome": res.outcome}
        if res.preempted is not None:
            verdict, diffs = self._replayed_preemption(inc, pod, late, index, record, replayed)
        else:
            replayed["message"] = res.message
            replayed.update(res.fit_error_fields())
            verdict, diffs = DIFFERS, ["the replay would not preempt: " + (res.message or res.outcome)]
        if changing and early is not None:
            verdict = UNDECIDABLE
            diffs = self._undecidable(early, changing, window_start, replayed) + diffs
        record["replayed"] = replayed
        record["verdict"] = verdict
        record["agrees"] = None if verdict == UNDECIDABLE else verdict in (AGREES, TIED)
        record["differences"] = diffs
        self.preemptions.append(record)

    def _recorded_row(self, inc: Incident, pod: Pod | None) -> dict[str, Any]:
        """The row's head: what the recording shows of this preemption."""
        record: dict[str, Any] = {
            "time": format_time(inc.time),
            "preemptor": pod.key if pod is not None else inc.preemptor_key,
            "priority": pod.priority if pod is not None else None,
            "priorityClassName": pod.priority_class_name if pod is not None else "",
            "node": inc.node,
            "victims": list(inc.victims),
            "victimDetails": self._victim_details(inc),
        }
        if inc.inferred:
            record["preemptorInferred"] = True
        return record

    def _window_verdicts(self, inc: Incident, pod: Pod, late: Decision,
                         index: int | None) -> tuple[Decision | None, list[Write]]:
        """The decision at the window's start, and the writes inside the window that change the
        verdict (none when both ends agree with the cluster, or both differ)."""
        window = self._window(inc, pod, index) if index is not None else []
        if not window:
            return None, []
        # the trace decides a row when the replay agrees with the cluster at both ends of the
        # window, or differs at both: only where one end agrees and the other does not is the
        # verdict the trace's to give
        agrees = self._agrees(inc, late)
        early = self._decide_without(window, pod, inc)
        if self._agrees(inc, early) == agrees:
            return early, []
        return early, [w for w in window if self._agrees(inc, self._decide_without([w], pod, inc)) != agrees] or window

    def _replayed_preemption(self, inc: Incident, pod: Pod, late: Decision, index: int | None,
                             record: dict[str, Any], replayed: dict[str, Any]) -> tuple[str, list[str]]:
        """What the replay's preemption was, written into `replayed` (and `why` into the row), with
        the verdict against the recording and what differs."""
        res = late.res
        details = res.preempted
        sel = details.selected
        replayed.update({"node": sel.name, "tiedNodes": list(late.winners), "victims": [v.key for v in sel.victims]})
        if late.on_recorded:
            replayed["victimsOnRecordedNode"] = list(late.on_recorded[0])
            if len(late.on_recorded) > 1:
                replayed["victimAlternatives"] = [list(s) for s in late.on_recorded[1:]]
        orders = late.orders
        if orders is not None and (sel.name in orders.nodes or inc.node in orders.nodes
                                   or set(late.winners) - set(details.tied_nodes)):
            replayed["victimOrderUnknown"] = True
            if not all(n.complete for n in orders.nodes.values()):
                replayed["victimAlternativesIncomplete"] = True
        verdict, diffs = self._verdict(inc, late)
        if verdict == DIFFERS and inc.node not in late.winners:
            racing = self._nominated_just_after(inc, pod, set(late.winners), index)
            if racing:
                # the recording orders the API writes, not the decisions behind them
                replayed["nominatedJustAfter"] = racing
                diffs.append("the recording shows " + ", ".join(f"{r['preemptor']} nominated to {r['node']} "
                                                                f"{r['afterSeconds']} s after this decision's "
                                                                f"first sign" for r in racing)
                             + f", within the {ASSUMED_WINDOW} s a decision's API writes take: the scheduler may "
                               "have made that decision first and held its nomination")
        if verdict == DIFFERS and orders is not None and inc.node in orders.nodes:
            diffs.append(f"on {inc.node} the order of pods placed before the trace began, of equal priority and "
                         f"start second ([{', '.join(orders.nodes[inc.node].doubtful)}]), is not in the trace; "
                         "no order of them gives the cluster's choice")
        record["why"] = preemption_why(pod, res, details)
        if self.on_decision is not None:
            case = decision_case(self.state, self.config_raw, pod, res, details, len(self.preemptions) + 1, inc.time)
            case["recorded"] = {"node": inc.node, "victims": sorted(inc.victims)}
            self.on_decision(case)
        return verdict, diffs

    @staticmethod
    def _undecidable(early: Decision, changing: list[Write], window_start: str, replayed: dict[str, Any]) -> list[str]:
        """The row's marks when a write inside the window changes the verdict: the writes, the
        decision at the window's start, and the difference that says so."""
        replayed["undecidableFromTrace"] = [w.what for w in changing]
        ep = early.res.preempted
        replayed["atWindowStart"] = ({"outcome": early.res.outcome, "node": ep.selected.name,
                                      "tiedNodes": list(early.winners),
                                      "victimsOnRecordedNode": list(early.on_recorded[0]) if early.on_recorded else None}
                                     if ep is not None else {"outcome": early.res.outcome})
        return [f"the trace cannot decide: the scheduler decided between {window_start} and "
                f"this decision's first sign, and {'; '.join(w.what for w in changing)} "
                f"{'changes' if len(changing) == 1 else 'change'} the verdict; without "
                f"{'it' if len(changing) == 1 else 'them'}: " + _verdict_text(early)]

    def _agrees(self, inc: Incident, d: Decision) -> bool:
        return d.res.preempted is not None and self._verdict(inc, d)[0] in (AGREES, TIED)

    def _verdict(self, inc: Incident, d: Decision) -> tuple[str, list[str]]:
        """AGREES, TIED or DIFFERS for a decision that preempted, with the differences."""
        details = d.res.preempted
        assert details is not None
        sel = details.selected
        # a victim already terminating gets no new signal in the recording: it agrees
        going = d.going
        recorded = set(inc.victims)

        def same(victims: list[str]) -> bool:
            return recorded | (going & set(victims)) == set(victims)

        ours = sorted(v.key for v in sel.victims)
        if sel.name == inc.node and same(ours):
            return AGREES, []
        if inc.node in d.winners and any(same(s) for s in d.on_recorded):
            return TIED, []
        if inc.node not in d.winners:
            tied = d.winners
            return DIFFERS, [f"the replay nominates {sel.name}" + (f" (tied: {', '.join(tied)})" if len(tied) > 1 else "")
                             + f"; the cluster nominated {inc.node}"]
        there = d.on_recorded[0] if d.on_recorded else []
        return DIFFERS, [f"on {inc.node} the replay evicts [{', '.join(there)}]; the cluster evicted "
                         f"[{', '.join(sorted(inc.victims))}]"]

    # ------------------------------------------------------------------ one decision, and its window
    def _decide(self, pod: Pod, inc: Incident) -> Decision:
        """The replayed scheduler's cycle for `pod` in the state as it is, with every node that can
        win and the victim sets on the recorded node under the orders the trace allows."""
        st = self.state
        st.prepare()
        # explained as the pod was when the scheduler tried it (restored after)
        saved = pod.nominated_node_name
        in_flight = self._deletions_in_flight(pod)
        try:
            # a pod group's member decides inside its group's cycle, in the replay's own order of
            # its members first (_member_orders)
            key, orders = self._member_orders(pod)
            res = (self._member_in(pod, key, orders[0]) if key else None) or st.scheduler.schedule(pod)
            d = Decision(res)
            details = res.preempted
            if details is None:
                return d
            d.winners = list(details.tied_nodes)
            d.going = {p.key for p in st.order.pods_on(inc.node, st.pods_by_uid) if p.terminating}
            # the offline verdict on the node the cluster chose, when the dry run made it a candidate
            there = _victims_there(details, inc.node)
            if there is not None:
                d.on_recorded = [there]
            if self.order.unknown:
                fwk = st.scheduler.framework_for(pod)
                if fwk is not None:
                    d.orders = order_verdict(fwk, pod, details, self.order.unknown_on, st.cluster.pdbs)
            if d.orders is not None:
                d.winners += [n for n in d.orders.winners if n not in d.winners]
                there = d.orders.nodes.get(inc.node)
                if there is not None:
                    sets = there.winning_sets or there.victim_sets
                    d.on_recorded += [s for s in sets if s not in d.on_recorded]
            if key:
                self._member_alternatives(pod, inc, d, key, orders[1:])
            return d
        finally:
            pod.nominated_node_name = saved
            for victim, stamp in in_flight:
                victim.deletion_timestamp = stamp

    def _decide_without(self, writes: list[Write], pod: Pod, inc: Incident) -> Decision:
        """The decision as if `writes` had not reached the scheduler yet."""
        return self._without(writes, lambda: self._decide(pod, inc))

    def _without_writes_since(self, since: float, decide: Callable[[], Any]) -> tuple[Any, list[str]]:
        """`decide()` as if the other components' writes recorded after `since` had not reached the
        scheduler yet (FollowGroups' window), with what they were; (None, []) when there are none."""
        writes = [w for w in self.writes if w.event.time > since]
        if not writes:
            return None, []
        return self._without(writes, decide), [w.what for w in writes]

    def _without(self, writes: list[Write], decide: Callable[[], Any]) -> Any:
        """`decide()` with `writes` undone, then each done again; the scheduler's node walk starts
        where it would have."""
        sched = self.state.scheduler
        start = sched.next_start_node_index
        applied = self.handler.applied
        readded = self._undo(writes)
        try:
            return decide()
        finally:
            self._redo(writes, readded)
            sched.next_start_node_index = start
            self.handler.applied = applied

    def _undo(self, writes: list[Write]) -> dict[int, Pod]:
        readded: dict[int, Pod] = {}
        for w in reversed(writes):
            e = w.event
            if e.kind == "Pod":
                old: Pod = w.before
                pod = Pod(old.raw)
                pod.priority, pod.preemption_policy, pod.has_priority = old.priority, old.preemption_policy, True
                self.handler.add_pod(pod)
                readded[w.index] = pod
            elif w.before is None:
                self.handler.apply(TraceEvent(e.time, "DELETED", e.obj, e.kind, e.where))
            else:
                self.handler.apply(TraceEvent(e.time, "MODIFIED", w.before, e.kind, e.where))
        return readded

    def _redo(self, writes: list[Write], readded: dict[int, Pod]) -> None:
        for w in writes:
            if w.event.kind == "Pod":
                self.handler.delete_pod(readded[w.index])
            else:
                self.handler.apply(w.event)

    def _window(self, inc: Incident, pod: Pod, index: int) -> list[Write]:
        """Other components' writes the scheduler may or may not have seen when it decided: those
        recorded after the preemptor came (or after its previous decision's first sign), at most
        DECISION_LAG before this decision's first sign, and up to the decision point (with the pod
        events of the sign's own backlog). The scheduler decides on the snapshot of its cycle's
        start (schedule_one.go, UpdateSnapshot) and the PDBs its lister holds in PostFilter."""
        sign = self.timeline.events[inc.first_index].time
        after = max(self.added_at.get(pod.uid, -1), self.last_sign.get(pod.uid, -1))
        return [w for w in self.writes if w.index > after and w.event.time >= sign - DECISION_LAG]

    def _window_start_text(self, inc: Incident, pod: Pod) -> str:
        came = self.added_at.get(pod.uid, -1)
        prev = self.last_sign.get(pod.uid, -1)
        sign = self.timeline.events[inc.first_index].time
        start = self.timeline.events[max(came, prev)].time if max(came, prev) >= 0 else None
        if start is None or start < sign - DECISION_LAG:
            return f"{DECISION_LAG:g} s before"
        return "its previous decision's first sign" if prev > came else "the preemptor's arrival"

    def _fits(self, pod: Pod, node: str) -> bool:
        """Whether `pod` passes PreFilter and Filter on `node` in the replay's state now (with the
        pods nominated there: RunFilterPluginsWithNominatedPods), as the cycle that placed it did."""
        st = self.state
        st.prepare()
        fwk = st.scheduler.framework_for(pod)
        ni = st.snapshot.get(node)
        if fwk is None or ni is None:
            return False
        cs = CycleState()
        result, status, _ = fwk.run_pre_filter_plugins(cs, pod)
        if not status.is_success() or (result is not None and not result.all_nodes() and node not in result.node_names):
            return False
        return fwk.run_filter_plugins_with_nominated_pods(cs, pod, ni).is_success()

    def _nominated_just_after(self, inc: Incident, pod: Pod, nodes: set[str], index: int | None) -> list[dict[str, Any]]:
        """Other preemptions on the replay's nodes whose first sign comes within ASSUMED_WINDOW
        after this one's and that the scheduler could have decided first: their preemptor had come
        before this decision and was ahead of this one in the queue, and the replay does not hold
        its nomination already. Decisions made a few milliseconds apart reach the recording in the
        order of their API writes, which need not be the order the scheduler made them in."""
        out = []
        mine = self._queue_key(pod)
        st = self.state
        for other in self.incidents:
            if other is inc or other.node not in nodes or other.preemptor_uid == inc.preemptor_uid:
                continue
            dt = other.time - inc.time
            if not 0 <= dt <= ASSUMED_WINDOW:
                continue
            p = st.pods_by_uid.get(other.preemptor_uid or "")
            came = self.added_at.get(other.preemptor_uid or "")
            if p is None or p.node_name or p.nominated_node_name == other.node or self._queue_key(p) >= mine \
                    or (came is not None and index is not None and came >= index):
                continue
            out.append({"preemptor": other.preemptor_key, "node": other.node, "afterSeconds": round(dt, 3)})
        return out

    # ------------------------------------------------------------------ other components' writes
    def _apply_at(self, j: int) -> None:
        ev = self.timeline.events[j]
        self._index = j
        self._note_write(j, ev)
        self.apply(ev)

    def _note_write(self, j: int, ev: TraceEvent) -> None:
        """Keep `ev` (about to be applied) when it is another component's write a decision's
        window may hold: a PDB's change, a bound pod leaving the cache (deleted, or ended by its
        kubelet), a change of a node's scheduling properties."""
        writes = self.writes
        while writes and writes[0].event.time < ev.time - DECISION_LAG:
            writes.popleft()
        st = self.state
        kind = ev.kind
        when = format_time(ev.time)
        if kind == "PodDisruptionBudget":
            old = next((p for p in st.cluster.pdbs if p.key == ev.key), None)
            if ev.type == "DELETED":
                what = f"PodDisruptionBudget {ev.key} deleted"
            elif old is None:
                what = f"PodDisruptionBudget {ev.key} created"
            else:
                new_allowed = (ev.obj.get("status") or {}).get("disruptionsAllowed")
                what = (f"PodDisruptionBudget {ev.key} disruptionsAllowed {old.disruptions_allowed} -> {new_allowed}"
                        if new_allowed != old.disruptions_allowed else f"PodDisruptionBudget {ev.key} changed")
            writes.append(Write(j, ev, old.raw if old is not None else None, f"{what} at {when}"))
        elif kind == "Pod":
            cur = st.pods_by_uid.get(ev.uid)
            if cur is None or not cur.node_name or not (ev.type == "DELETED" or finished(ev.obj)):
                return
            how = "deleted" if ev.type == "DELETED" else (ev.obj.get("status") or {}).get("phase")
            writes.append(Write(j, ev, cur, f"pod {cur.key} on {cur.node_name} {how} at {when}"))
        elif kind == "Node":
            cur_node = st.cluster.nodes.get(ev.name)
            if ev.type != "DELETED" and cur_node is not None \
                    and node_scheduling_properties_change(cur_node, Node(ev.obj)) is None:
                return
            how = "deleted" if ev.type == "DELETED" else "added" if cur_node is None else "changed"
            writes.append(Write(j, ev, cur_node.raw if cur_node is not None else None, f"node {ev.name} {how} at {when}"))

    # ------------------------------------------------------------------ applying the recording
    def apply(self, ev: TraceEvent) -> None:
        self.handler.apply(ev)

    @property
    def events_applied(self) -> int:
        return self.handler.applied


class FollowHandler(EventHandler):
    """The recording applied to a follow-mode replay: each Pod event as it was recorded, bindings
    and nominations included (the recorded scheduler's, not the replay's). What it counts of them
    (bindings, when each pod was added) is the Follow's."""

    def __init__(self, follow: Follow, **kwargs: Any) -> None:
        super().__init__(follow.state, follow.policy, follow.recorded_classes, **kwargs)
        self.follow = follow

    def pod_event(self, ev: TraceEvent) -> None:
        st, follow = self.state, self.follow
        raw = ev.obj
        cur = st.pods_by_uid.get(ev.uid)
        if ev.type == "DELETED" or finished(raw):
            if cur is not None:
                self.delete_pod(cur)
            return
        if cur is not None and not _relevant_change(cur, raw):
            if not cur.node_name and pod_scheduled_condition(raw.get("status") or {}) != pod_scheduled_condition(cur.status):
                # the recorded scheduler's status patch of a pending pod: no change the scheduler
                # reacts to, but what its next FailureHandler compares with (schedule_one.go
                # updatePod patches only a changed PodScheduled condition or nomination)
                cur.status = raw.get("status") or {}
            self.touch_pod(cur)
            return
        new = Pod(raw)
        if cur is not None:
            new.priority, new.preemption_policy, new.has_priority = cur.priority, cur.preemption_policy, True
            if new.node_name and not cur.node_name:
                follow.bindings += 1  # a recorded binding (or nomination, below) as it happened
            self.update_pod(cur, new)
        else:
            self.policy.resolve(new, st.cluster.priority_classes, existing=False)
            follow.added_at.setdefault(new.uid, follow._index)
            self.add_pod(new)


def _relevant_change(cur: Pod, raw: Mapping[str, Any]) -> bool:
    md = raw.get("metadata") or {}
    spec = raw.get("spec") or {}
    status = raw.get("status") or {}
    if (spec.get("nodeName") or "") != cur.node_name:
        return True
    if (status.get("nominatedNodeName") or "") != cur.nominated_node_name:
        return True
    if md.get("deletionTimestamp") != cur.deletion_timestamp:
        return True
    if (md.get("labels") or {}) != dict(cur.labels):
        return True
    if preempted_by_scheduler(raw) != preempted_by_scheduler(cur.raw):
        return True
    if status.get("startTime") != cur.status.get("startTime"):
        return True
    return spec is not cur.spec and spec != cur.spec


def _victims_there(details: Any, node: str) -> list[str] | None:
    """The victims a preemption's dry run chose on `node` (sorted keys), None when it was no
    candidate there."""
    sel = details.selected
    cand = sel if sel.name == node else next((c for c in details.candidates if c.name == node), None)
    return sorted(v.key for v in cand.victims) if cand is not None else None


def _verdict_text(d: Decision) -> str:
    p = d.res.preempted
    if p is None:
        return "the replay would not preempt"
    tied = f" (tied: {', '.join(d.winners)})" if len(d.winners) > 1 else ""
    there = f", evicting [{', '.join(d.on_recorded[0])}] on the cluster's node" if d.on_recorded else ""
    return f"the replay nominates {p.selected.name}{tied}{there}"
