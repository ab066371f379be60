"""What got preempted, and by whom: the cluster's own records of preemptions joined into rows.

kube-scheduler v1.34.1 leaves three signs of a preemption (framework/preemption/preemption.go):
`prepareCandidate` / `prepareCandidateAsync` call `PreemptPod` for each victim not already being
deleted, which patches the victim's status with a DisruptionTarget condition (reason
PreemptionByScheduler), deletes it, and records a `Preempted` Event on it, "Preempted by pod
<preemptor UID> on node <node>" (events.k8s.io/v1, also served as core/v1; `related` names the
preemptor); and the scheduler's failure handler (schedule_one.go, handleSchedulingFailure) writes
the preemptor's status.nominatedNodeName. The Event outlives the pod (the API server keeps Events
an hour by default); the condition outlives the Event while the victim terminates, and on a pod
that ended Failed; the nomination stays until the preemptor is bound.

kube-batch (kubernetes-sigs/kube-batch, pkg/scheduler/cache/cache.go, SchedulerCache.Evict)
deletes its victims without a condition and records one Event on the victim's PodGroup,
reason `Evict`, the message being the action that evicted: "preempt" (actions/preempt) or
"reclaim" (actions/reclaim). It names no preemptor.

The input is plain objects, wherever they came from (a live cluster's lists, a snapshot, every
version a trace recorded); `observe_objects` and `observe_trace` gather them, `build_history`
joins them. Nothing here reads a file or the network.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..errors import InputError
from ..model.objects import metadata_of
from ..model.rfc3339 import format_seconds, parse_seconds
from ..model.schema import check_objects, object_label
from ..model.workload import is_workload_object, scheduling_group
from ..model.who_preempted import (DISRUPTION_TARGET, POD_GROUP_PREEMPTION_NODE, check_event, EVENT_REASON_PREEMPTED,
                                   REASON_PREEMPTION_BY_SCHEDULER, preempted_by, preempted_in_memory)

API_VERSION = "kubectl-preempt/v1"
KIND = "PreemptionHistory"

# kube-batch cache.go, SchedulerCache.Evict: Recorder.Eventf(podgroup, Normal, "Evict", reason)
EVENT_REASON_EVICT = "Evict"
# kube-batch's PodGroup annotation on its pods (api/job_info.go, getJobID)
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
DEFAULT_SCHEDULER = "default-scheduler"

# The victim's condition patch and the preemptor's nomination are written by one scheduling
# attempt within milliseconds (with async preemption, from two goroutines): in the shared
# real-cluster traces at most 0.4 s apart as the watch saw them. A nomination this close to a
# victim's condition, on the victim's node, is "at the same instant".
SAME_INSTANT = 2.0
# the truth files of the real-cluster traces count the scheduler deciding again for the same pod
# and node within 10 s as one preemption; rows are grouped the same way
SAME_PREEMPTION = 10.0

# the DisruptionTarget condition's message after "<schedulerName>: " (preemption.go, PreemptPod;
# from v1.36 executor.go PreemptPod, ending with the preemptor's type: a pod, or a podgroup under
# workload-aware preemption)
CONDITION_MESSAGE_TAILS = ("preempting to accommodate a higher priority pod",
                           "preempting to accommodate a higher priority podgroup")

FOUND_EVENT = "event"
FOUND_CONDITION = "condition"
FOUND_BOTH = "both"


# --- reading one object ---------------------------------------------------------------------------

def _key(ns: Any, name: Any) -> str:
    return f"{ns or 'default'}/{name}"


def pod_key(o: Mapping[str, Any]) -> str:
    md = metadata_of(o)
    return _key(md.get("namespace"), md.get("name"))


def preemption_condition(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The DisruptionTarget condition kube-scheduler's PreemptPod writes, or None."""
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == DISRUPTION_TARGET \
                and c.get("reason") == REASON_PREEMPTION_BY_SCHEDULER and c.get("status", "True") == "True":
            return c
    return None


def event_first_time(ev: Mapping[str, Any]) -> float | None:
    """When an Event's first occurrence happened: events.k8s.io's eventTime (what the scheduler's
    recorder sets, to the microsecond), else the core/v1 firstTimestamp (deprecatedFirstTimestamp
    in events.k8s.io/v1), else its last time, else when the object was created."""
    series = ev.get("series") or {}
    for v in (ev.get("eventTime"), ev.get("firstTimestamp"), ev.get("deprecatedFirstTimestamp"),
              ev.get("lastTimestamp"), ev.get("deprecatedLastTimestamp"), series.get("lastObservedTime"),
              metadata_of(ev).get("creationTimestamp")):
        t = parse_seconds(v)
        if t is not None:
            return t
    return None


def event_last_time(ev: Mapping[str, Any]) -> float | None:
    series = ev.get("series") or {}
    for v in (series.get("lastObservedTime"), ev.get("lastTimestamp"), ev.get("deprecatedLastTimestamp")):
        t = parse_seconds(v)
        if t is not None:
            return t
    return event_first_time(ev)


def _regarding(ev: Mapping[str, Any]) -> Mapping[str, Any]:
    # core/v1 calls it involvedObject, events.k8s.io/v1 regarding
    return ev.get("involvedObject") or ev.get("regarding") or {}


def _reporter(ev: Mapping[str, Any]) -> str:
    return (ev.get("reportingComponent") or ev.get("reportingController") or (ev.get("source") or {}).get("component")
            or (ev.get("deprecatedSource") or {}).get("component") or "")


def _priority(pod: Mapping[str, Any] | None) -> int | None:
    if pod is None:
        return None
    p = (pod.get("spec") or {}).get("priority")
    return p if isinstance(p, int) and not isinstance(p, bool) else None


def _class(pod: Mapping[str, Any] | None) -> str | None:
    if pod is None:
        return None
    name = (pod.get("spec") or {}).get("priorityClassName")
    # (a PodGroup's fields are not checked as a pod's are: only a name is a class)
    return name if isinstance(name, str) and name else None


def _higher(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether pod a may preempt pod b by priority (unknown priorities do not rule it out)."""
    pa, pb = _priority(a), _priority(b)
    return pa is None or pb is None or pa > pb


# --- what was observed ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Nomination:
    """A pending pod's status.nominatedNodeName; `time` when a trace saw it set, None when read live."""

    time: float | None
    uid: str
    node: str


@dataclass
class Observed:
    """Everything the join reads: pods by UID (the last version seen, deleted ones included for a
    trace), when each victim's condition was first seen (a trace), Events, nominations."""

    pods: dict[str, dict] = field(default_factory=dict)
    condition_seen: dict[str, float] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    events: list[dict] = field(default_factory=list)
    nominations: list[Nomination] = field(default_factory=list)
    last_time: float | None = None  # the latest instant the input shows (a trace's last event)
    # scheduling.k8s.io PodGroups by namespace/name (the last version seen): a workload-aware
    # preemption's preemptor, whose class and priority are its PodGroup's
    pod_groups: dict[str, dict] = field(default_factory=dict)


def _uid(o: Mapping[str, Any]) -> str:
    md = metadata_of(o)
    return md.get("uid") or pod_key(o)


def _event_id(ev: Mapping[str, Any]) -> str:
    # the same Event read through both API groups is one object: one UID
    md = metadata_of(ev)
    return md.get("uid") or f"{md.get('namespace')}/{md.get('name')}"


def _wanted_event(o: Mapping[str, Any]) -> bool:
    return o.get("kind") == "Event" and o.get("reason") in (EVENT_REASON_PREEMPTED, EVENT_REASON_EVICT)


def check_input(objects: list[Mapping[str, Any]], where: Callable[[int], str]) -> None:
    """InputError naming `where(i)`, the object and the field, when an object the join reads has
    a shape the API server would not have stored: Pods by the model's schema (all at once, at C
    speed when all is well), the fields of Events read here by their type."""
    pods = [i for i, o in enumerate(objects) if o.get("kind") == "Pod"]
    check_objects([objects[i] for i in pods], lambda j, o: f"{where(pods[j])} ({object_label(o)})")
    for i, o in enumerate(objects):
        if _wanted_event(o):
            try:
                check_event(o)
            except InputError as e:
                raise e.located(field_prefix=f"{where(i)} ({object_label(o)})") from None


def observe_objects(objects: Iterable[Mapping[str, Any]], *, checked: bool = False) -> Observed:
    """The objects of one instant (a live read, a snapshot): nominations without a time.
    `checked`: the objects come from an API server (their shapes are its own)."""
    obs = Observed()
    events: dict[str, dict] = {}
    objects = objects if isinstance(objects, list) else list(objects)
    if not checked:
        check_input(objects, lambda i: f"items[{i}]")
    for o in objects:
        kind = o.get("kind")
        if kind == "Pod":
            uid = _uid(o)
            obs.pods[uid] = o  # type: ignore[assignment]
            status = o.get("status") or {}
            nom = status.get("nominatedNodeName")
            if nom and not (o.get("spec") or {}).get("nodeName"):
                obs.nominations.append(Nomination(None, uid, nom))
        elif _wanted_event(o):
            events.setdefault(_event_id(o), o)  # type: ignore[arg-type]
        elif kind == "PodGroup" and is_workload_object(o) and isinstance(o.get("spec"), Mapping):
            obs.pod_groups[pod_key(o)] = o  # type: ignore[assignment]
    obs.events = list(events.values())
    return obs


def observe_trace(events: Iterable[Mapping[str, Any]]) -> Observed:
    """Every version a trace recorded ({"ts", "type", "object"} in time order): each pod's last
    version, when its condition first appeared, each nomination as it was set."""
    obs = Observed()
    seen_events: dict[str, dict] = {}
    events = events if isinstance(events, list) else list(events)
    check_input([ev.get("object") or {} for ev in events],
                lambda i: f"line {events[i]['line']}" if events[i].get("line") is not None else f"events[{i}]")
    for ev in events:
        typ = ev.get("type")
        o = ev.get("object") or {}
        ts = ev.get("ts")
        if typ == "BOOKMARK":
            continue
        if isinstance(ts, (int, float)):
            obs.last_time = ts if obs.last_time is None else max(obs.last_time, ts)
        kind = o.get("kind")
        if kind == "Pod":
            uid = _uid(o)
            old = obs.pods.get(uid)
            obs.pods[uid] = o
            if typ == "DELETED":
                obs.deleted.add(uid)
            if uid not in obs.condition_seen and preemption_condition(o) is not None and ts is not None:
                obs.condition_seen[uid] = ts
            nom = (o.get("status") or {}).get("nominatedNodeName") or ""
            old_nom = ((old or {}).get("status") or {}).get("nominatedNodeName") or ""
            if nom and nom != old_nom and typ != "DELETED" and not (o.get("spec") or {}).get("nodeName"):
                obs.nominations.append(Nomination(ts, uid, nom))
        elif kind == "PodGroup" and is_workload_object(o) and isinstance(o.get("spec"), Mapping):
            obs.pod_groups[pod_key(o)] = o
        elif _wanted_event(o) and typ != "DELETED":
            # a series updates its Event: the first version holds the first occurrence's time,
            # the last one its count
            first = seen_events.get(_event_id(o))
            seen_events[_event_id(o)] = o if first is None else {**o, "eventTime": first.get("eventTime") or o.get("eventTime")}
    obs.events = list(seen_events.values())
    return obs


# --- the join ----------------------------------------------------------------------------------------

@dataclass
class _Row:
    victim: str | None
    victim_uid: str | None
    node: str | None
    preemptor_uid: str | None
    time: float | None = None
    scheduler: str = DEFAULT_SCHEDULER
    reason: str = EVENT_REASON_PREEMPTED
    event: bool = False
    condition: bool = False
    event_groups: set[str] = field(default_factory=set)
    related: Mapping[str, Any] | None = None
    event_message: str = ""
    # the Event says the victim was rejected in the scheduler's memory (executor.go PreemptPod: it
    # waited at Permit or in PreBind; no condition, no deletion)
    in_memory: bool = False
    group: str | None = None  # kube-batch: the PodGroup its Event names
    preemptor: str | None = None
    preemptor_from: str | None = None
    notes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def _note(row: _Row, text: str) -> None:
    if text not in row.notes:
        row.notes.append(text)


def _conflict(row: _Row, text: str) -> None:
    if text not in row.conflicts:
        row.conflicts.append(text)


def build_history(obs: Observed, *, now: float | None, since: float | None, namespace: str | None = None,
                  pods_visible: Callable[[str], bool] | None = None, events_read: bool = True,
                  source: str = "", notes: Iterable[str] = (), nominations_name_preemptors: bool = True
                  ) -> dict[str, Any]:
    """The history document: one row per victim and preemptor, newest last, and the rows grouped
    into preemptions (preemptor, node). `since` seconds before `now` bound it (None: no bound);
    `namespace` keeps the victims of one namespace. `pods_visible(ns)` says whether every pod of a
    namespace was read ("" for all), so that a preemptor not found is gone rather than unreadable.
    `events_read`: False when Events could not be read (a victim with its condition only is then
    not remarkable). `nominations_name_preemptors`: False for a scheduler that also nominates pods
    it placed and that wait at Permit or PreBind (v1.35+, NominatedNodeNameForExpectation): a
    nomination alone then names no preemptor."""
    visible = pods_visible or (lambda ns: True)
    by_uid = obs.pods
    rows, evict_events = _event_rows(obs)
    _condition_rows(rows, obs, events_read, nominations_name_preemptors)
    for row in rows.values():
        _resolve_preemptor(row, obs, by_uid, visible)
    _add_kube_batch_rows(rows, evict_events, by_uid)

    lo = None if since is None or now is None else now - since
    out_rows = _rows_in_window(rows, by_uid, namespace, lo, obs.pod_groups)
    doc: dict[str, Any] = {
        "apiVersion": API_VERSION, "kind": KIND, "source": source,
        "namespace": namespace,
        "window": {"since": since, "from": format_seconds(lo) if lo is not None else None,
                   "to": format_seconds(now) if now is not None else None},
        "items": out_rows,
        "preemptions": group_preemptions(out_rows, _pod_group_sizes(by_uid)),
        "notes": list(notes),
    }
    return doc


def _event_rows(obs: Observed) -> tuple[dict[tuple, _Row], list[Mapping[str, Any]]]:
    """The rows the scheduler's Preempted Events make, one per (victim, preemptor, node); and
    kube-batch's Evict Events, set aside for their own rows."""
    rows: dict[tuple, _Row] = {}
    evict_events: list[Mapping[str, Any]] = []
    for ev in obs.events:
        if ev.get("reason") == EVENT_REASON_EVICT:
            evict_events.append(ev)
            continue
        reg = _regarding(ev)
        if reg.get("kind") not in (None, "", "Pod") or not reg.get("name"):
            continue
        victim = _key(reg.get("namespace") or metadata_of(ev).get("namespace"), reg["name"])
        msg = (ev.get("message") or ev.get("note") or "").strip()
        by = preempted_by(ev)
        puid, node = by if by is not None else (None, None)
        related = ev.get("related") or None
        if puid is None and related and related.get("uid"):
            puid = related["uid"]
            if related.get("kind") == "PodGroup" and not msg:
                # a workload-aware preemption's Event whose message a recorder dropped: its node is
                # the search's domain, which the message names "cluster" (podgrouppreemption.go
                # Preempt: the whole cluster is one domain)
                node = POD_GROUP_PREEMPTION_NODE
        k = (reg.get("uid") or victim, puid, node)
        row = rows.get(k)
        if row is None:
            row = rows[k] = _Row(victim, reg.get("uid") or None, node, puid)
        row.event = True
        row.event_groups.add(ev.get("apiVersion") or "v1")
        row.scheduler = _reporter(ev) or row.scheduler
        t = event_first_time(ev)
        if t is not None and (row.time is None or t < row.time):
            row.time = t
        row.event_message = msg
        if preempted_in_memory(ev):
            row.in_memory = True
            _note(row, "rejected in kube-scheduler's memory: it waited at Permit or in PreBind, and goes back to "
                       "the scheduling queue (not deleted)")
        if related and related.get("name"):
            row.related = related
        if by is None and not (related and related.get("kind") == "PodGroup" and not msg):
            # (a workload-aware preemption's Event whose message a recorder dropped is still named
            # by its `related` PodGroup)
            _note(row, f"the Event's message is not the scheduler's \"Preempted by pod <UID> on node <node>\": {msg!r}")
    return rows, evict_events


def _condition_rows(rows: dict[tuple, _Row], obs: Observed, events_read: bool,
                    nominations_name_preemptors: bool) -> None:
    """The Event rows checked against their victims' DisruptionTarget conditions, a row for each
    victim whose condition no Event matches, and a note on each victim several Events name."""
    by_uid = obs.pods
    # several Events naming different preemptors of one victim: each row says so
    per_victim: dict[str, list[_Row]] = {}
    for row in rows.values():
        per_victim.setdefault(row.victim_uid or row.victim or "", []).append(row)

    # an Event without the victim's UID is matched by name (pod_key for every pod only then)
    by_name = any(r.victim_uid is None for r in rows.values())
    for uid, pod in by_uid.items():
        cond = preemption_condition(pod)
        mine = per_victim.get(uid) or (
            [r for r in per_victim.get(pod_key(pod), ()) if r.victim_uid is None] if by_name else ())
        for row in mine:
            _check_victim(row, pod, cond, uid in obs.deleted)
        if cond is None or mine:
            continue
        node = (pod.get("spec") or {}).get("nodeName") or None
        row = _Row(pod_key(pod), uid, node, None, condition=True)
        row.scheduler = _condition_scheduler(cond) or row.scheduler
        row.time = obs.condition_seen.get(uid, parse_seconds(cond.get("lastTransitionTime")))
        rows[(uid, None, node)] = row
        _attribute_by_nomination(row, pod, obs, by_uid, nominations_name_preemptors)
        if events_read:
            _note(row, "no Preempted Event: expired (the API server keeps Events an hour by default) or not recorded")

    for rlist in per_victim.values():
        if len(rlist) > 1:
            for row in rlist:
                others = sorted({_preemptor_label(r, by_uid) for r in rlist if r is not row})
                _note(row, "also preempted by " + ", ".join(others) + " (another Event on this victim)")


def _add_kube_batch_rows(rows: dict[tuple, _Row], evict_events: list[Mapping[str, Any]],
                         by_uid: Mapping[str, Mapping[str, Any]]) -> None:
    """kube-batch's Evict Events' rows, after the scheduler's."""
    groups: dict[tuple[str, str], list[dict]] = {}
    if evict_events:  # kube-batch's pods by PodGroup, once: not every pod once per Event
        for p in by_uid.values():
            md = metadata_of(p)
            g = (md.get("annotations") or {}).get(GROUP_NAME_ANNOTATION)
            if g:
                groups.setdefault((md.get("namespace") or "default", g), []).append(p)
    for ev in evict_events:
        for row in _kube_batch_rows(ev, groups):
            rows[(row.victim_uid or row.victim or row.group, "kube-batch", _event_id(ev))] = row


def _rows_in_window(rows: dict[tuple, _Row], by_uid: Mapping[str, Mapping[str, Any]], namespace: str | None,
                    lo: float | None, pod_groups: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of `namespace`'s victims (None: all) from `lo` on (None: all), as documents in
    time order."""
    out_rows: list[tuple[float | None, dict[str, Any]]] = []
    for row in rows.values():
        ns = (row.victim or row.group or "/").partition("/")[0]
        if namespace is not None and ns != namespace:
            continue
        if lo is not None and row.time is not None and row.time < lo:
            continue
        if row.time is None:
            _note(row, "no time recorded")
        out_rows.append((row.time, _row_doc(row, by_uid, pod_groups)))
    # by the time itself: "…:00.100Z" sorts before "…:00Z" as text
    out_rows.sort(key=lambda tr: (tr[0] is None, tr[0] or 0.0, tr[1]["victim"] or "", tr[1]["preemptor"] or ""))
    return [r for _, r in out_rows]


def _condition_scheduler(cond: Mapping[str, Any]) -> str | None:
    """The scheduler that wrote the condition: PreemptPod's message is "<the preemptor's
    schedulerName>: preempting to accommodate a higher priority pod" (preemption.go)."""
    msg = cond.get("message")
    if isinstance(msg, str):
        for tail in CONDITION_MESSAGE_TAILS:
            if msg.endswith(": " + tail):
                return msg[: -len(tail) - 2] or None
    return None


def _preemptor_label(row: _Row, by_uid: Mapping[str, Mapping[str, Any]]) -> str:
    if row.preemptor_uid and row.preemptor_uid in by_uid:
        return pod_key(by_uid[row.preemptor_uid])
    if row.related and row.related.get("name"):
        return _key(row.related.get("namespace"), row.related["name"])
    return f"pod UID {row.preemptor_uid}" if row.preemptor_uid else "an unnamed pod"


def _pod_group_event(row: _Row) -> bool:
    """Whether the row's Event is a PodGroup's (workload-aware preemption: "Preempted by podgroup")."""
    return row.event_message.startswith("Preempted by podgroup ") or bool(
        row.related and row.related.get("kind") == "PodGroup")


def _check_victim(row: _Row, pod: Mapping[str, Any], cond: Mapping[str, Any] | None, deleted: bool) -> None:
    """An Event row meets the victim pod it names: the condition joins it, or contradicts it."""
    spec = pod.get("spec") or {}
    on = spec.get("nodeName")
    if cond is not None:
        row.condition = True
        if row.node and on and on != row.node and not _pod_group_event(row):
            _conflict(row, f"the Event says node {row.node}, the victim's condition was set on node {on}")
        return
    terminating = bool(metadata_of(pod).get("deletionTimestamp")) or deleted
    phase = (pod.get("status") or {}).get("phase")
    # a PodGroup's preemption searches the whole cluster: its Event's node is "cluster", no node
    if row.node and on and on != row.node and not _pod_group_event(row):
        _conflict(row, f"the Event says node {row.node}, the victim runs on node {on}")
    if not terminating and phase not in ("Succeeded", "Failed") and not row.in_memory:
        _conflict(row, "the Event says preempted, but the pod has no DisruptionTarget condition and is not "
                       "terminating")


def _attribute_by_nomination(row: _Row, victim: Mapping[str, Any], obs: Observed,
                             by_uid: Mapping[str, Mapping[str, Any]], decisive: bool = True) -> None:
    """A victim known by its condition only: the pod nominated to its node at the same instant
    (a trace) or now (a live read, while the victim still terminates) is its preemptor, as
    handleSchedulingFailure writes the nomination of the pod whose PostFilter chose the victims.
    Not `decisive` (v1.35+): the scheduler's binding cycle also nominates a pod it placed there and
    that waits at Permit or PreBind (schedule_one.go bindingCycle, NominatedNodeNameForExpectation),
    so the nominated pods are named in a note and the preemptor stays unknown."""
    node = row.node
    if not node:
        _note(row, "preemptor unknown: no Event, and the victim is on no node")
        return
    timed = row.time is not None and any(n.time is not None for n in obs.nominations)
    if timed:
        near = sorted((abs(n.time - row.time), n.uid) for n in obs.nominations  # type: ignore[operator]
                      if n.time is not None and n.node == node and abs(n.time - row.time) <= SAME_INSTANT
                      and n.uid != row.victim_uid and _higher(by_uid.get(n.uid), victim))
        if not near:
            _note(row, f"preemptor unknown: no Event, and no pod was nominated to {node} at the same instant")
            return
        if not decisive:
            names = sorted({pod_key(by_uid[u]) if u in by_uid else u for _, u in near})
            _note(row, f"preemptor unknown: no Event; nominated to {node} at the same instant: {', '.join(names)}, "
                       "but this scheduler also nominates pods it placed that wait at Permit or PreBind "
                       "(NominatedNodeNameForExpectation): a nomination alone is no preemption")
            return
        best = near[0][1]
        row.preemptor_uid = best
        row.preemptor_from = "nomination"  # FOUND says "+nomination"
        others = sorted({pod_key(by_uid[u]) if u in by_uid else u for _, u in near[1:] if u != best})
        if others:
            _note(row, "also nominated to " + node + " within " + f"{SAME_INSTANT:g}s: " + ", ".join(others))
        return
    terminating = bool(metadata_of(victim).get("deletionTimestamp")) \
        and (victim.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    cands = sorted({n.uid for n in obs.nominations if n.node == node and n.uid != row.victim_uid
                    and _higher(by_uid.get(n.uid), victim)})
    if terminating and cands and not decisive:
        names = ", ".join(sorted(pod_key(by_uid[u]) for u in cands if u in by_uid))
        _note(row, f"preemptor unknown: no Event; nominated to {node} now: {names}, but this scheduler also "
                   "nominates pods it placed that wait at Permit or PreBind (NominatedNodeNameForExpectation): "
                   "a nomination alone is no preemption")
    elif terminating and len(cands) == 1:
        row.preemptor_uid = cands[0]
        row.preemptor_from = "nomination"
        _note(row, f"preemptor from its nomination to {node}, the only higher-priority pod nominated there (no Event)")
    elif terminating and cands:
        names = ", ".join(sorted(pod_key(by_uid[u]) for u in cands if u in by_uid))
        _note(row, f"preemptor unknown: no Event; nominated to {node} now: {names}")
    else:
        _note(row, "preemptor unknown: no Event" + ("" if terminating else ", and the victim no longer terminates"))


def _resolve_preemptor(row: _Row, obs: Observed, by_uid: Mapping[str, Mapping[str, Any]],
                       visible: Callable[[str], bool]) -> None:
    """The preemptor's name from its UID: the pod itself, else the Event's `related`, else any
    other Event about that UID, else the UID with a note."""
    puid = row.preemptor_uid
    if not puid:
        return
    pod = by_uid.get(puid)
    related = row.related
    rel_key = _key(related.get("namespace"), related["name"]) if related and related.get("name") else None
    if pod is not None:
        row.preemptor = pod_key(pod)
        row.preemptor_from = row.preemptor_from or "pod"
        if rel_key and rel_key != row.preemptor:
            _conflict(row, f"the Event's related pod is {rel_key}, the pod with UID {puid} is {row.preemptor}")
        _check_nomination(row, pod, obs)
        return
    if rel_key:
        row.preemptor = rel_key
        row.preemptor_from = "event"
        ns = rel_key.partition("/")[0]
        if related.get("kind") == "PodGroup":
            # v1.36's workload-aware preemption: the PodGroup preempted as one unit, on the cluster
            _note(row, "preempted by a PodGroup (workload-aware preemption)")
        elif visible(ns):
            _note(row, "preemptor gone; named by the Event")
        else:
            _note(row, f"preemptor's pods (namespace {ns}) not read; named by the Event")
        return
    for ev in obs.events:
        reg = _regarding(ev)
        if reg.get("uid") == puid and reg.get("name"):
            row.preemptor = _key(reg.get("namespace"), reg["name"])
            row.preemptor_from = "event"
            _note(row, "preemptor gone; named by another Event about it")
            return
    _note(row, f"preemptor pod UID {puid} not found: " + ("gone, and no Event names it" if visible("")
                                                           else "gone or not readable, and no Event names it"))


def _check_nomination(row: _Row, pod: Mapping[str, Any], obs: Observed) -> None:
    """The preemptor's own nomination at the same instant (a trace) should name the Event's node."""
    if row.preemptor_from != "pod" or row.time is None or not row.node:
        return
    near = sorted((abs(n.time - row.time), n.node) for n in obs.nominations  # type: ignore[operator]
                  if n.uid == row.preemptor_uid and n.time is not None and abs(n.time - row.time) <= SAME_INSTANT)
    if near and all(node != row.node for _, node in near):
        _conflict(row, f"the Event says node {row.node}, the preemptor's nomination at the same instant names "
                       f"{near[0][1]}")


def _deletion_requested(pod: Mapping[str, Any]) -> float | None:
    """When a pod's deletion was asked for: the API server sets deletionTimestamp to that time
    plus the grace period (registry/rest/delete.go, BeforeDelete)."""
    md = metadata_of(pod)
    t = parse_seconds(md.get("deletionTimestamp"))
    if t is None:
        return None
    grace = md.get("deletionGracePeriodSeconds")
    if not isinstance(grace, int):
        grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    return t - (grace if isinstance(grace, int) and not isinstance(grace, bool) else 30)


def _kube_batch_rows(ev: Mapping[str, Any], groups: Mapping[tuple[str, str], list[dict]]) -> list[_Row]:
    """kube-batch's Evict Event on a PodGroup: the group's pods whose deletion was asked for
    while the Event's occurrences lasted (kube-batch's Evict deletes, then records the Event)."""
    reg = _regarding(ev)
    if reg.get("kind") != "PodGroup" or not reg.get("name"):
        return []
    ns = reg.get("namespace") or metadata_of(ev).get("namespace") or "default"
    group = _key(ns, reg["name"])
    action = (ev.get("message") or ev.get("note") or "").strip()
    first, last = event_first_time(ev), event_last_time(ev)
    scheduler = _reporter(ev) or "kube-batch"
    out = []
    for pod in groups.get((ns, reg["name"]), ()):
        asked = _deletion_requested(pod)
        if asked is None or first is None or not (first - SAME_INSTANT <= asked <= (last or first) + SAME_INSTANT):
            continue
        row = _Row(pod_key(pod), _uid(pod), (pod.get("spec") or {}).get("nodeName") or None, None, time=asked,
                   scheduler=scheduler, reason=action or EVENT_REASON_EVICT, event=True, group=group,
                   event_message=action)
        row.event_groups.add(ev.get("apiVersion") or "v1")
        _note(row, f"kube-batch's Evict Event on PodGroup {group} ({action or 'no reason given'}); "
                   "kube-batch names no preemptor")
        out.append(row)
    if not out:
        row = _Row(None, None, None, None, time=first, scheduler=scheduler, reason=action or EVENT_REASON_EVICT,
                   event=True, group=group)
        row.event_groups.add(ev.get("apiVersion") or "v1")
        count = ev.get("count") or ev.get("deprecatedCount") or (ev.get("series") or {}).get("count") or 1
        _note(row, f"kube-batch's Evict Event on PodGroup {group} ({action or 'no reason given'}, {count}x); "
                   "no pod of the group was seen being deleted then")
        out.append(row)
    return out


def _row_doc(row: _Row, by_uid: Mapping[str, Mapping[str, Any]],
             pod_groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    victim = by_uid.get(row.victim_uid or "")
    pre = by_uid.get(row.preemptor_uid or "")
    # a PodGroup that preempted (workload-aware preemption): its class and priority are its
    # PodGroup's spec.priorityClassName and spec.priority, which its members follow
    # (util.PodGroupPriority); its state stays a pod's to say
    ranked = pre if pre is not None else pod_groups.get(row.preemptor or "") \
        if row.related and row.related.get("kind") == "PodGroup" else None
    found = FOUND_BOTH if row.event and row.condition else FOUND_EVENT if row.event else FOUND_CONDITION
    if row.victim_uid and victim is None and row.victim and row.event:
        _note(row, "victim gone")
    sources = sorted(f"event ({g})" for g in row.event_groups) + (["condition"] if row.condition else [])
    if row.preemptor_from == "nomination":
        sources.append("nomination")
    state = None
    if pre is not None:
        spec, status = pre.get("spec") or {}, pre.get("status") or {}
        if spec.get("nodeName"):
            state = f"Scheduled on {spec['nodeName']}"
        elif status.get("phase") in ("Succeeded", "Failed"):
            state = status["phase"]
        elif status.get("nominatedNodeName"):
            state = f"Nominated to {status['nominatedNodeName']}"
        else:
            state = "Pending"
    elif row.preemptor_uid:
        state = "Gone"
    return {
        "time": format_seconds(row.time) if row.time is not None else None,
        "victim": row.victim,
        "victimUID": row.victim_uid,
        "victimClass": _class(victim),
        "victimPriority": _priority(victim),
        "preemptor": row.preemptor,
        "preemptorUID": row.preemptor_uid,
        "preemptorClass": _class(ranked),
        "preemptorPriority": _priority(ranked),
        "preemptorState": state,
        "node": row.node,
        "found": found,
        "sources": sources,
        "scheduler": row.scheduler,
        "reason": row.reason,
        "eventMessage": row.event_message or None,
        **({"podGroup": row.group} if row.group else {}),
        **({"victimPodGroup": vg} if (vg := _victim_pod_group(victim)) else {}),
        "notes": list(row.notes),
        "conflicts": list(row.conflicts),
    }


def _pod_group_sizes(by_uid: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """How many pods of each scheduling.k8s.io PodGroup the input holds (namespace/name -> pods)."""
    out: dict[str, int] = {}
    for p in by_uid.values():
        g = _victim_pod_group(p)
        if g:
            out[g] = out.get(g, 0) + 1
    return out


def _victim_pod_group(pod: Mapping[str, Any] | None) -> str | None:
    """namespace/name of the scheduling.k8s.io PodGroup a victim belonged to (v1.36's
    spec.schedulingGroup), else None."""
    if pod is None:
        return None
    name = scheduling_group(pod.get("spec") or {})
    return _key(metadata_of(pod).get("namespace"), name) if name else None


def group_preemptions(rows: list[Mapping[str, Any]], members: Mapping[str, int] | None = None
                      ) -> list[dict[str, Any]]:
    """Rows of one preemptor on one node within SAME_PREEMPTION seconds are one preemption
    (its victims); a row with no preemptor is a preemption of its own. Victims of PodGroups
    (workload-aware scheduling) are grouped by their PodGroup, and a PodGroup all of whose pods
    the input holds (`members`: namespace/name -> pods) went in one preemption is named whole."""
    out: list[dict[str, Any]] = []
    open_: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        who = r["preemptorUID"] or r["preemptor"]
        t = parse_seconds(r["time"])
        k = (r["scheduler"], who, r["node"])
        g = open_.get(k) if who else None
        if g is not None and t is not None and g["_t"] is not None and t - g["_t"] <= SAME_PREEMPTION:
            g["victims"].append(r["victim"])
            continue
        g = {"time": r["time"], "preemptor": r["preemptor"], "preemptorUID": r["preemptorUID"], "node": r["node"],
             "scheduler": r["scheduler"], "victims": [r["victim"]], "_t": t}
        out.append(g)
        if who:
            open_[k] = g
    groups_of = {r["victim"]: r.get("victimPodGroup") for r in rows if r.get("victimPodGroup")}
    for g in out:
        g.pop("_t")
        by_group: dict[str, list[str]] = {}
        for v in g["victims"]:
            if v in groups_of:
                by_group.setdefault(groups_of[v], []).append(v)
        if by_group:
            g["victimsByPodGroup"] = by_group
            whole = [pg for pg, vs in by_group.items() if members and len(set(vs)) >= members.get(pg, 1 << 30)]
            if whole:
                # disruptionMode PodGroup: the group went whole for this one preemptor
                g["wholePodGroups"] = whole
    return out
