"""The data the HTML replay report draws, derived from a replay's report and its trace.

The page embeds the report exactly as `replay -o json` prints it and, beside it, the view built
here: one lane per node (or per node pool / zone past GROUP_THRESHOLD nodes), the runs of pods on
nodes, occupancy layers by PriorityClass and namespace, preemption marks tied to the runs of
their preemptor and victims, pending pods over time and preemptions per minute, and the pod
groups pods belong to (a gang's members are drawn as one unit; a PodGroup's workload-aware
preemption is one mark on every node it took victims from, its victims by unit). Every
aggregation the page shows is made here; the page's script only sums the layers its filters
leave visible, so a filter can never disagree with this module.

Who preempted whom, when and why is in the report; when each pod was bound or went away is in
the trace (follow mode: the recording is what happened) or, in simulate mode, in the report's
`activity` (the replayed scheduler's own bindings, kept by replay.activity.ActivityRecorder).
A report without it (made elsewhere) falls back to the recording's bindings and says so
(`approximate`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..model.objects import Node, Pod
from ..model.workload import group_name_of, is_workload_object, pod_groups_of
from ..version import KUBERNETES_VERSION
from .activity import ActivityRecorder, pod_info
from .report import evicts, percentile
from .simulate import initial_objects
from .state import finished, parse_time, preempted_by_scheduler
from .timeline import normalize

VIEW_VERSION = 1
# above this many nodes, lanes are node pools / zones, each expandable into its nodes
GROUP_THRESHOLD = 60
# when nodes carry no pool or zone label, they are grouped by name in runs of this many
GROUP_CHUNK = 40
# preemptions are counted per minute, in wider buckets when that would make too many bars
BUCKET_SECONDS = 60
MAX_BUCKETS = 120
NO_CLASS = "(none)"
DEFAULT_SCHEDULER = "default-scheduler"
# slack when matching a report's millisecond times to the trace's and the recorder's
EPSILON = 0.002

# node labels naming a pool, most specific first
POOL_LABELS = (
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "node.kubernetes.io/pool",
    "node-pool",
    "pool",
)
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")

# how a run on a node ended
RUNNING, COMPLETED, DELETED, PREEMPTED = "R", "C", "D", "P"
RUN_ENDS = {RUNNING: "still on the node at the end", COMPLETED: "completed", DELETED: "deleted",
            PREEMPTED: "preempted"}

# colours of PriorityClasses, highest priority first (Tableau 10, colour-blind safe in order)
PALETTE = ("#e15759", "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
           "#ff9da7", "#17becf")
NO_CLASS_COLOUR = "#a0a0a0"

# "group": the index in the view's podGroups of the pod group the pod belongs to, or None
POD_FIELDS = ("key", "namespace", "priorityClass", "priority", "milliCPU", "memory", "request", "created", "group")
RUN_FIELDS = ("pod", "node", "start", "end", "how", "preemptedAt", "mark")


# --- what the replayed scheduler did ----------------------------------------------------------------

# --- building the view -------------------------------------------------------------------------------

@dataclass
class _PodRec:
    uid: str
    info: dict[str, Any]
    created: float
    index: int = -1
    group: str = ""  # namespace/name of the pod group it names, "" for none


@dataclass
class _Run:
    uid: str
    node: str
    start: float
    end: float | None = None
    how: str = RUNNING
    preempted_at: float | None = None
    mark: int | None = None


@dataclass
class _NodeRec:
    name: str
    labels: Mapping[str, str]
    alloc: dict[str, int] = field(default_factory=dict)
    alive: list[list[float | None]] = field(default_factory=list)


@dataclass
class _Pending:
    uid: str
    start: float
    end: float | None = None
    how: str = ""  # "bound", "deleted" or "" (still pending at the end)


def _alloc(node: Node) -> dict[str, int]:
    a = node.allocatable
    out = {"cpu": a.milli_cpu, "memory": a.memory}
    out.update(a.scalar)
    return out


def _request(info: Mapping[str, Any], resource: str) -> int:
    if resource == "cpu":
        return int(info.get("milliCPU") or 0)
    if resource == "memory":
        return int(info.get("memory") or 0)
    return int((info.get("scalar") or {}).get(resource) or 0)


class _Walk:
    """One pass over the trace: nodes, pods with their creation, and what the recording says
    about their bindings and ends."""

    def __init__(self, start: float, initial: list[Mapping[str, Any]], events: list[Any], minor: int = 0) -> None:
        self.start = start
        self.minor = minor
        self.workloads: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        self.nodes: dict[str, _NodeRec] = {}
        self.pods: dict[str, _PodRec] = {}
        self.classes: dict[str, int] = {}
        self.runs: list[_Run] = []
        self.open_run: dict[str, _Run] = {}
        self.pending: dict[str, _Pending] = {}
        self.pending_done: list[_Pending] = []
        self.bound_at_start: set[str] = set()
        self.gone: set[str] = set()
        for obj in initial:
            self._object(start, "ADDED", obj, initial=True)
        for ev in events:
            if ev.type != "BOOKMARK":
                self._object(ev.time, ev.type, ev.obj, initial=False)

    def _object(self, t: float, typ: str, obj: Mapping[str, Any], *, initial: bool) -> None:
        kind = obj.get("kind")
        if kind == "Node":
            self._node(t, typ, obj)
        elif kind == "Pod":
            self._pod(t, typ, obj, initial)
        elif kind == "PriorityClass" and typ != "DELETED":
            name = (obj.get("metadata") or {}).get("name")
            v = obj.get("value")
            if name and isinstance(v, int) and not isinstance(v, bool):
                self.classes[name] = v
        elif is_workload_object(obj) and typ != "DELETED":
            md = obj.get("metadata") or {}
            self.workloads[(str(kind), md.get("namespace") or "default", md.get("name") or "")] = obj

    def _node(self, t: float, typ: str, obj: Mapping[str, Any]) -> None:
        node = Node(obj)
        rec = self.nodes.get(node.name)
        if typ == "DELETED":
            if rec is not None and rec.alive and rec.alive[-1][1] is None:
                rec.alive[-1][1] = t
            return
        if rec is None:
            rec = self.nodes[node.name] = _NodeRec(node.name, node.labels)
        rec.labels = node.labels or rec.labels
        for k, v in _alloc(node).items():
            rec.alloc[k] = max(rec.alloc.get(k, 0), v)
        if not rec.alive or rec.alive[-1][1] is not None:
            rec.alive.append([t, None])

    def _pod(self, t: float, typ: str, obj: Mapping[str, Any], initial: bool) -> None:
        md = obj.get("metadata") or {}
        uid = md.get("uid") or f"{md.get('namespace') or 'default'}/{md.get('name')}"
        if uid in self.gone:
            return
        rec = self.pods.get(uid)
        if rec is None:
            if typ == "DELETED" or finished(obj):
                return
            rec = self.pods[uid] = _PodRec(uid, pod_info(Pod(obj)), t)
            group = group_name_of(obj.get("spec") or {}, self.minor) if self.minor >= 35 else ""
            if group:
                rec.group = f"{md.get('namespace') or 'default'}/{group}"
        node = (obj.get("spec") or {}).get("nodeName") or ""
        if rec.created == t and uid not in self.open_run and not node and uid not in self.pending:
            # pending from its creation; a pod that appears already bound never waited that we saw
            self.pending[uid] = _Pending(uid, t)
        run = self.open_run.get(uid)
        if node and run is None:
            run = self.open_run[uid] = _Run(uid, node, t)
            self.runs.append(run)
            if initial:
                self.bound_at_start.add(uid)
            self._end_pending(uid, t, "bound")
        if run is not None and run.preempted_at is None and preempted_by_scheduler(obj):
            run.preempted_at = t
        if typ == "DELETED" or finished(obj):
            self.gone.add(uid)
            if run is not None:
                del self.open_run[uid]
                run.end = t
                run.how = COMPLETED if finished(obj) else (PREEMPTED if run.preempted_at is not None else DELETED)
            self._end_pending(uid, t, "deleted")

    def _end_pending(self, uid: str, t: float, how: str) -> None:
        p = self.pending.pop(uid, None)
        if p is not None:
            p.end, p.how = t, how
            self.pending_done.append(p)

    def all_pending(self) -> list[_Pending]:
        return self.pending_done + list(self.pending.values())


def _simulated(walk: _Walk, activity: Mapping[str, Any]) -> tuple[list[_Run], list[_Pending]]:
    """Runs and pending spans as the replayed scheduler made them (simulate mode)."""
    infos: Mapping[str, Mapping[str, Any]] = activity.get("pods") or {}
    for uid, info in infos.items():
        rec = walk.pods.get(uid)
        if rec is not None:
            rec.info = dict(info)
    # who the replay schedules: mirrors ReplayState.owned for the default profile, and any pod
    # the replay was seen placing or trying
    touched = {e[2] for e in activity.get("events") or () if e[0] in ("bound", "unschedulable", "nominated")}

    def owned(uid: str) -> bool:
        info = walk.pods[uid].info
        return uid in touched or (info.get("schedulerName") in (None, "", DEFAULT_SCHEDULER) and not info.get("mirror"))

    runs: list[_Run] = []
    pending: dict[str, _Pending] = {}
    done: list[_Pending] = []
    # the recording's bindings stand for pods bound at the start and pods the replay does not own;
    # the replay's own bindings, preemptions and deletions come from the recorder, in time order
    timeline: list[tuple[float, int, tuple]] = []
    for run in walk.runs:
        if run.uid in walk.bound_at_start or not owned(run.uid):
            timeline.append((run.start, 0, ("_open", run.start, run.uid, run.node)))
    for uid, rec in walk.pods.items():
        if owned(uid) and uid not in walk.bound_at_start:
            pending[uid] = _Pending(uid, rec.created)
    for e in activity.get("events") or ():
        timeline.append((e[1], 1, tuple(e)))
    timeline.sort(key=lambda x: (x[0], x[1]))
    open_run: dict[str, _Run] = {}
    for t, _, e in timeline:
        typ = e[0]
        uid = e[2]
        if uid not in walk.pods:
            info = infos.get(uid)
            if info is None:
                continue
            walk.pods[uid] = _PodRec(uid, dict(info), t)
        if typ in ("_open", "bound"):
            if uid in open_run:
                continue
            r = _Run(uid, e[3], t)
            runs.append(r)
            open_run[uid] = r
            p = pending.pop(uid, None)
            if p is not None:
                p.end, p.how = t, "bound"
                done.append(p)
        elif typ == "preempted":
            r = open_run.get(uid)
            if r is not None and r.preempted_at is None:
                r.preempted_at = t
        elif typ == "deleted":
            r = open_run.pop(uid, None)
            if r is not None:
                r.end = t
                r.how = {"completed": COMPLETED, "preempted": PREEMPTED}.get(e[3], DELETED)
            p = pending.pop(uid, None)
            if p is not None:
                p.end, p.how = t, "deleted"
                done.append(p)
    return runs, done + list(pending.values())


def _pool_zone(labels: Mapping[str, str]) -> tuple[str, str]:
    pool = next((labels[k] for k in POOL_LABELS if labels.get(k)), "")
    zone = next((labels[k] for k in ZONE_LABELS if labels.get(k)), "")
    return pool, zone


def group_nodes(nodes: list[_NodeRec] | list[tuple[str, Mapping[str, str]]]) -> list[tuple[str, list[int]]]:
    """Node pools / zones as (name, node indexes), in the order their first node appears.

    The group of a node is its pool and zone ("gpu-a100 · europe-west4-a"), or whichever of the
    two it has; nodes with neither are grouped by name in runs of GROUP_CHUNK.
    """
    pairs = [(n.name, n.labels) if isinstance(n, _NodeRec) else n for n in nodes]
    groups: dict[str, list[int]] = {}
    unlabelled: list[int] = []
    for i, (_name, labels) in enumerate(pairs):
        pool, zone = _pool_zone(labels)
        if not pool and not zone:
            unlabelled.append(i)
            continue
        key = " · ".join(x for x in (pool, zone) if x)
        groups.setdefault(key, []).append(i)
    out = list(groups.items())
    if unlabelled:
        ordered = sorted(unlabelled, key=lambda i: pairs[i][0])
        for k in range(0, len(ordered), GROUP_CHUNK):
            chunk = ordered[k:k + GROUP_CHUNK]
            first, last = pairs[chunk[0]][0], pairs[chunk[-1]][0]
            out.append((first if first == last else f"{first} … {last}", sorted(chunk)))
    return out


def steps(deltas: Iterable[tuple[float, int]]) -> list[float | int]:
    """A step series, flattened [t0, v0, t1, v1, ...], from (time, change) pairs: the value v_i
    holds from t_i until t_i+1 (the last until the end); 0 before t0. Changes at one instant are
    merged and instants that change nothing are dropped."""
    out: list[float | int] = []
    total = 0
    for t, d in sorted(deltas, key=lambda x: x[0]):
        total += d
        if out and out[-2] == t:
            out[-1] = total
            if len(out) >= 4 and out[-3] == total:
                del out[-2:]
        elif (out[-1] if out else 0) != total:
            out += [t, total]
    if out and len(out) == 2 and out[1] == 0:
        return []
    return out


def class_colour(i: int, name: str) -> str:
    """The colour of the i-th PriorityClass by value, highest first."""
    if name == NO_CLASS:
        return NO_CLASS_COLOUR
    return PALETTE[i] if i < len(PALETTE) else f"hsl({(i * 137) % 360}, 55%, 55%)"


def _bucket_seconds(duration: float) -> int:
    b = BUCKET_SECONDS
    while duration / b > MAX_BUCKETS:
        b += BUCKET_SECONDS
    return b


def _rel(t: float, start: float) -> float:
    return round(t - start, 3)


def build_view(report: Mapping[str, Any], trace: Any, activity: Mapping[str, Any] | ActivityRecorder | None = None,
               *, resource: str | None = None, group_threshold: int = GROUP_THRESHOLD) -> dict[str, Any]:
    """The view the HTML report draws, from a replay report and the trace it replayed.

    `trace`: what `replay()` was given (a read trace, {"header", "events"} or a list of events).
    `activity`: the replayed bindings in simulate mode; by default the report's own `activity`. `resource`: the resource occupancy is
    drawn in ("cpu", "memory", "nvidia.com/gpu", ...); by default the one whose cluster-wide
    requests peak highest against allocatable. Times are seconds from the trace's start.
    """
    if isinstance(activity, ActivityRecorder):
        activity = activity.activity()
    if activity is None:
        activity = report.get("activity")
    tl = normalize(trace)
    start = tl.start
    tr = report.get("trace") or {}
    end = parse_time(tr.get("end")) or tl.end
    end = max(end, start)
    mode = report.get("mode") or "simulate"
    walk = _Walk(start, initial_objects(tl.initial), tl.events, _minor(report))
    approximate = False
    if mode == "simulate" and activity is not None:
        runs, pend = _simulated(walk, activity)
    else:
        runs, pend = walk.runs, walk.all_pending()
        approximate = mode == "simulate"

    class_list, cls_index = _classes(report, walk)
    namespaces = sorted({rec.info.get("namespace") or "default" for rec in walk.pods.values()}
                        | {k.split("/")[0] for p in report.get("preemptions") or ()
                           for k in [p.get("preemptor") or "", *(p.get("victims") or ())] if "/" in k})
    ns_index = {n: i for i, n in enumerate(namespaces)}
    node_recs = _nodes(report, walk, runs, start)
    node_index = {n.name: i for i, n in enumerate(node_recs)}

    # --- pods, in order of creation
    pod_recs = sorted(walk.pods.values(), key=lambda r: (r.created, r.info.get("key") or ""))
    for i, rec in enumerate(pod_recs):
        rec.index = i
    pods_info = {rec.uid: rec for rec in pod_recs}
    groups_list, group_index = _pod_groups(walk, pod_recs)

    # --- the resource occupancy is drawn in
    if resource is None:
        resource = _busiest_resource(runs, walk, node_recs)

    # --- runs, ordered by start
    runs.sort(key=lambda r: (r.start, walk.pods[r.uid].index))
    marks = _marks(report, walk, runs, pod_recs, start, cls_index, ns_index, node_index, group_index)
    lanes, groups = _occupancy(runs, pods_info, node_recs, resource, start, cls_index, ns_index, node_index,
                               group_threshold)
    pending_layers, still_pending, waits = _pending(pend, pods_info, start, cls_index, ns_index)
    bucket = _bucket_seconds(end - start)

    return {
        "version": VIEW_VERSION,
        "mode": mode,
        "approximate": approximate,
        "start": round(start, 3),
        "duration": _rel(end, start),
        "resource": {"name": resource, **_unit(resource)},
        "classes": class_list,
        "namespaces": namespaces,
        "podFields": list(POD_FIELDS),
        "pods": [[rec.info["key"], ns_index[rec.info.get("namespace") or "default"],
                  cls_index[rec.info.get("priorityClassName") or NO_CLASS], rec.info.get("priority") or 0,
                  rec.info.get("milliCPU") or 0, rec.info.get("memory") or 0, _request(rec.info, resource),
                  _rel(rec.created, start), group_index.get(rec.group)] for rec in pod_recs],
        "runFields": list(RUN_FIELDS),
        "runEnds": dict(RUN_ENDS),
        "runs": [[pods_info[r.uid].index, node_index[r.node], _rel(r.start, start),
                  None if r.end is None else _rel(r.end, start), r.how,
                  None if r.preempted_at is None else _rel(r.preempted_at, start), r.mark] for r in runs],
        "podGroups": _pod_group_spans(groups_list, runs, pods_info, start),
        "lanes": lanes,
        "grouped": len(node_recs) > group_threshold,
        "groups": groups,
        "marks": marks,
        "pending": pending_layers,
        "pendingAtEnd": [[pods_info[sp.uid].index, _rel(sp.start, start)] for sp in still_pending],
        # whose binds the cards count, and so whose pods the time to schedule is of
        "binds": binds(report),
        "timeToSchedule": {"pods": len(waits), "p50Seconds": _round(percentile(waits, 50)),
                           "p99Seconds": _round(percentile(waits, 99)),
                           "maxSeconds": _round(max(waits) if waits else None)},
        "bucketSeconds": bucket,
        "buckets": max(1, math.ceil((end - start) / bucket)),
        "perBucket": _per_bucket(marks, bucket),
    }


def _minor(report: Mapping[str, Any]) -> int:
    """The minor release that replayed the report (its schedulerVersion): which field of a pod
    names its pod group (model/workload.group_name_of)."""
    m = re.match(r"v?1\.(\d+)", str(report.get("schedulerVersion") or KUBERNETES_VERSION))
    return int(m.group(1)) if m else 0


def _pod_groups(walk: _Walk, pod_recs: list[_PodRec]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The pod groups the trace's pods name, in order of their first member: namespace/name, the
    gang's minCount (None: a basic group, or a group the trace never listed) and the members."""
    known = pod_groups_of(walk.workloads.values(), walk.minor) if walk.minor >= 35 else {}
    out: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rec in pod_recs:
        if not rec.group:
            continue
        gi = index.get(rec.group)
        if gi is None:
            gi = index[rec.group] = len(out)
            pg = known.get(rec.group)
            out.append({"key": rec.group, "minCount": pg.min_count if pg is not None else None,
                        "listed": pg is not None, "members": []})
        out[gi]["members"].append(rec.index)
    return out, index


def _pod_group_spans(groups: list[dict[str, Any]], runs: list[_Run], pods_info: Mapping[str, _PodRec],
                     start: float) -> list[dict[str, Any]]:
    """Each pod group with its members' runs: what the page draws as one unit (the members placed
    together by one pod-group cycle, on the nodes their runs name)."""
    runs_of: dict[int, list[int]] = {}
    for ri, r in enumerate(runs):
        runs_of.setdefault(pods_info[r.uid].index, []).append(ri)
    out = []
    for g in groups:
        member_runs = [ri for m in g["members"] for ri in runs_of.get(m, ())]
        starts = [runs[ri].start for ri in member_runs]
        out.append({**g, "runs": member_runs,
                    "firstBound": _rel(min(starts), start) if starts else None,
                    "lastBound": _rel(max(starts), start) if starts else None})
    return out


def _classes(report: Mapping[str, Any], walk: _Walk) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The PriorityClasses the view names, highest value first, and each one's index."""
    class_values: dict[str, int] = dict(walk.classes)
    for pc in (report.get("whatIf") or {}).get("priorityClasses") or ():
        class_values[pc["name"]] = pc["value"]
    seen_prio: dict[str, int] = {}
    for rec in walk.pods.values():
        name = rec.info.get("priorityClassName") or NO_CLASS
        seen_prio[name] = max(seen_prio.get(name, rec.info.get("priority") or 0), rec.info.get("priority") or 0)
    for p in report.get("preemptions") or ():
        name = p.get("priorityClassName") or NO_CLASS
        if p.get("priority") is not None:
            seen_prio.setdefault(name, p["priority"])
        for d in p.get("victimDetails") or ():
            seen_prio.setdefault(d.get("priorityClassName") or NO_CLASS, d.get("priority") or 0)
    used = set(seen_prio)
    classes = sorted(used, key=lambda c: (-(class_values.get(c, seen_prio.get(c, 0))), c == NO_CLASS, c))
    class_list = [{"name": c, "value": class_values.get(c, seen_prio.get(c, 0)), "colour": class_colour(i, c),
                   "recorded": c in walk.classes} for i, c in enumerate(classes)]
    return class_list, {c: i for i, c in enumerate(classes)}


def _nodes(report: Mapping[str, Any], walk: _Walk, runs: list[Any], start: float) -> list[_NodeRec]:
    """The nodes, including any a preemption or a run names that the trace never listed."""
    node_recs = list(walk.nodes.values())
    for p in report.get("preemptions") or ():
        if p.get("node") and p["node"] not in walk.nodes and not p.get("podGroup"):
            walk.nodes[p["node"]] = _NodeRec(p["node"], {}, {}, [[start, None]])
            node_recs.append(walk.nodes[p["node"]])
    for r in runs:
        if r.node not in walk.nodes:
            walk.nodes[r.node] = _NodeRec(r.node, {}, {}, [[start, None]])
            node_recs.append(walk.nodes[r.node])
    return node_recs


def counted_victims(p: Mapping[str, Any], mode: str) -> int:
    """How many of a preemption's victims the text report's totals count (replay/report.py): in
    simulate mode the victims it evicts (`evicts`: one already terminating, or one an earlier
    decision is already evicting, is not evicted again, so a pod that two decisions name counts
    once), in follow mode every victim the recording names. The page sums these, so that its
    count of victims is the text's."""
    details = p.get("victimDetails")
    if mode == "follow" or details is None:
        return len(p.get("victims") or ())
    return sum(1 for d in details if evicts(d))


def binds(report: Mapping[str, Any]) -> list[list[Any]]:
    """[scheduler, pods bound] of each scheduler the replay ran, as the text report's summary says
    them (kube-scheduler's `scheduled`, kube-batch's `binds`): the page's cards say whose binds
    they count. Follow mode replays no binding of its own: none."""
    if (report.get("mode") or "simulate") != "simulate":
        return []
    sm = report.get("summary") or {}
    out: list[list[Any]] = [["kube-scheduler", sm.get("scheduled", 0)]]
    kb = sm.get("kubeBatch")
    if kb:
        out.append(["kube-batch", kb.get("binds", 0)])
    return out


def _marks(report: Mapping[str, Any], walk: _Walk, runs: list[Any], pod_recs: list[_PodRec], start: float,
           cls_index: dict[str, int], ns_index: dict[str, int], node_index: dict[str, int],
           group_index: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """One mark per preemption of the report, in its order; each victim's run is marked with it.

    A workload-aware preemption (a row of a PodGroup, `podGroup`) is made for the whole cluster:
    its mark has no node but the nodes its victims ran on (`nodes`), its preemptor is the pod
    group (`group`), its victims are listed by the unit they were evicted in (`units`: a PodGroup
    evicted whole, or a single pod) and `bound` says where each member went (`membersBound`)."""
    group_index = group_index or {}
    mode = report.get("mode") or "simulate"
    by_key: dict[str, list[_PodRec]] = {}
    for rec in pod_recs:
        by_key.setdefault(rec.info["key"], []).append(rec)
    runs_by_key: dict[tuple[str, str], list[int]] = {}
    runs_by_uid: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        runs_by_key.setdefault((walk.pods[r.uid].info["key"], r.node), []).append(i)
        runs_by_uid.setdefault(r.uid, []).append(i)

    def bound_after(uid: str, t: float) -> list[Any] | None:
        for ri in runs_by_uid.get(uid, ()):
            if runs[ri].start >= t - EPSILON:
                return [_rel(runs[ri].start, start), node_index[runs[ri].node], ri]
        return None

    marks = []
    for i, p in enumerate(report.get("preemptions") or ()):
        t = parse_time(p.get("time"))
        t = start if t is None else t
        node = p.get("node") or ""
        whole_cluster = bool(p.get("podGroup"))
        # a workload-aware preemption's victims are on several nodes: each detail names its own
        node_of = {d.get("pod"): d.get("node") or "" for d in p.get("victimDetails") or ()} if whole_cluster else {}
        preemptor = None if whole_cluster else _pod_at(by_key.get(p.get("preemptor") or ""), t)
        victims = []
        victim_run: dict[str, int] = {}
        for vkey in p.get("victims") or ():
            ri = _run_at(runs, runs_by_key.get((vkey, node_of.get(vkey, node))), t)
            if ri is not None:
                victims.append(ri)
                victim_run[vkey] = ri
                run = runs[ri]
                if run.mark is None:
                    run.mark = i
                if run.preempted_at is None:
                    run.preempted_at = t
        cls = p.get("priorityClassName") or NO_CLASS
        pkey = p.get("preemptor") or ""
        mark: dict[str, Any] = {
            "t": _rel(t, start),
            "node": None if whole_cluster else node_index.get(node),
            "pod": preemptor.index if preemptor is not None else None,
            "cls": cls_index.get(cls),
            "ns": ns_index.get(pkey.split("/")[0]) if "/" in pkey else None,
            "victims": victims,
            "evicts": counted_victims(p, mode),
            "missing": [v for v in p.get("victims") or () if v not in victim_run],
            "bound": bound_after(preemptor.uid, t) if preemptor is not None else None,
        }
        if whole_cluster:
            mark["group"] = group_index.get(pkey)
            mark["nodes"] = sorted({node_index[runs[ri].node] for ri in victims})
            units: dict[str, dict[str, Any]] = {}
            for d in p.get("victimDetails") or ():
                u = units.setdefault(d.get("unit") or d.get("pod") or "", {
                    "key": d.get("unit") or d.get("pod") or "", "kind": d.get("unitKind") or "Pod", "victims": []})
                if d.get("pod") in victim_run:
                    u["victims"].append(victim_run[d["pod"]])
            mark["units"] = list(units.values())
            members = [rec for rec in pod_recs if rec.group == pkey and rec.created <= t + EPSILON]
            mark["membersBound"] = [[rec.index, bound_after(rec.uid, t)] for rec in members]
        marks.append(mark)
    return marks


def _occupancy(runs: list[Any], pods_info: dict[str, _PodRec], node_recs: list[_NodeRec], resource: str,
               start: float, cls_index: dict[str, int], ns_index: dict[str, int], node_index: dict[str, int],
               group_threshold: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Occupancy layers per node (lanes) and, past `group_threshold` nodes, per group; a node
    without the resource (a CPU node in a GPU cluster) is drawn in cpu."""
    lane_res = [resource if n.alloc.get(resource, 0) > 0 or resource == "cpu" else "cpu" for n in node_recs]
    lane_deltas: dict[int, dict[tuple[int, int, int], list[tuple[float, int]]]] = {}
    for r in runs:
        rec = pods_info[r.uid]
        amount = _request(rec.info, lane_res[node_index[r.node]])
        if not amount:
            continue
        key = (cls_index[rec.info.get("priorityClassName") or NO_CLASS], ns_index[rec.info.get("namespace") or "default"])
        layers = lane_deltas.setdefault(node_index[r.node], {})
        s = _rel(r.start, start)
        e = _rel(r.end, start) if r.end is not None else None
        pa = _rel(r.preempted_at, start) if r.preempted_at is not None else None
        if pa is not None and (e is None or pa < e) and pa >= s:
            _span(layers.setdefault((*key, 0), []), s, pa, amount)
            _span(layers.setdefault((*key, 1), []), pa, e, amount)
        else:
            _span(layers.setdefault((*key, 0), []), s, e, amount)

    lanes = []
    for i, n in enumerate(node_recs):
        pool, zone = _pool_zone(n.labels)
        lanes.append({"name": n.name, "pool": pool, "zone": zone, "resource": lane_res[i],
                      "capacity": n.alloc.get(lane_res[i], 0),
                      "alive": [[_rel(a, start), None if b is None else _rel(b, start)] for a, b in n.alive],
                      "layers": _layers(lane_deltas.get(i, {}))})
    groups: list[dict[str, Any]] = []
    if len(node_recs) > group_threshold:
        for gi, (name, members) in enumerate(group_nodes(node_recs)):
            # a group is drawn in one resource: the view's, unless none of its nodes has it
            g_res = resource if any(lane_res[ni] == resource for ni in members) else "cpu"
            members_in = [ni for ni in members if lane_res[ni] == g_res]
            deltas: dict[tuple[int, int, int], list[tuple[float, int]]] = {}
            for ni in members_in:
                lanes[ni]["group"] = gi
                for k, ds in lane_deltas.get(ni, {}).items():
                    deltas.setdefault(k, []).extend(ds)
            for ni in members:
                lanes[ni]["group"] = gi
            groups.append({"name": name, "nodes": members, "resource": g_res,
                           "capacity": sum(lanes[ni]["capacity"] for ni in members_in), "layers": _layers(deltas)})
    return lanes, groups


def _pending(pend: list[Any], pods_info: dict[str, _PodRec], start: float, cls_index: dict[str, int],
             ns_index: dict[str, int]) -> tuple[list[list[Any]], list[Any], list[float]]:
    """Pending pods over time by class and namespace, those still pending at the end (highest
    priority first), and how long each bound pod waited."""
    pend_deltas: dict[tuple[int, int], list[tuple[float, int]]] = {}
    waits: list[float] = []
    for sp in pend:
        rec = pods_info.get(sp.uid)
        if rec is None:
            continue
        key = (cls_index[rec.info.get("priorityClassName") or NO_CLASS], ns_index[rec.info.get("namespace") or "default"])
        _span(pend_deltas.setdefault(key, []), _rel(sp.start, start), _rel(sp.end, start) if sp.end is not None else None, 1)
        if sp.how == "bound" and sp.end is not None:
            waits.append(sp.end - sp.start)
    pending_layers = [[c, n, steps(ds)] for (c, n), ds in sorted(pend_deltas.items())]
    still_pending = sorted((sp for sp in pend if sp.end is None and sp.uid in pods_info),
                           key=lambda sp: (-(pods_info[sp.uid].info.get("priority") or 0), sp.start,
                                           pods_info[sp.uid].info["key"]))
    return pending_layers, still_pending, waits


def _per_bucket(marks: list[dict[str, Any]], bucket: int) -> list[list[Any]]:
    """Preemptions per time bucket, by the preemptor's class and namespace."""
    per_bucket: dict[tuple[int, int], dict[int, int]] = {}
    for m in marks:
        k = (m["cls"] if m["cls"] is not None else -1, m["ns"] if m["ns"] is not None else -1)
        b = int(m["t"] // bucket)
        c = per_bucket.setdefault(k, {})
        c[b] = c.get(b, 0) + 1
    return [[c, n, [x for b in sorted(cnt) for x in (b, cnt[b])]] for (c, n), cnt in sorted(per_bucket.items())]


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def _unit(resource: str) -> dict[str, Any]:
    if resource == "cpu":
        return {"unit": "cores", "scale": 1000}
    if resource == "memory":
        return {"unit": "GiB", "scale": 1024 ** 3}
    return {"unit": "", "scale": 1}


def _span(deltas: list[tuple[float, int]], s: float, e: float | None, amount: int) -> None:
    if e is not None and e <= s:
        return
    deltas.append((s, amount))
    if e is not None:
        deltas.append((e, -amount))


def _layers(deltas: Mapping[tuple[int, int, int], list[tuple[float, int]]]) -> list[list[Any]]:
    """[class, namespace, terminating (0/1), steps] per layer with anything in it."""
    out = []
    for (c, n, term), ds in sorted(deltas.items()):
        s = steps(ds)
        if s:
            out.append([c, n, term, s])
    return out


def _pod_at(recs: list[_PodRec] | None, t: float) -> _PodRec | None:
    """The pod of that key that existed at `t`: the last created by then."""
    if not recs:
        return None
    best = None
    for rec in recs:
        if rec.created <= t + EPSILON:
            best = rec
    return best or recs[0]


def _run_at(runs: list[_Run], indexes: list[int] | None, t: float) -> int | None:
    """The run of a victim on the preemption's node at `t`."""
    if not indexes:
        return None
    for ri in indexes:
        r = runs[ri]
        if r.start <= t + EPSILON and (r.end is None or r.end >= t - EPSILON):
            return ri
    return None


def _busiest_resource(runs: list[_Run], walk: _Walk, nodes: list[_NodeRec]) -> str:
    """The resource whose cluster-wide requests peak highest against allocatable; cpu on a tie."""
    capacity: dict[str, int] = {}
    for n in nodes:
        for k, v in n.alloc.items():
            capacity[k] = capacity.get(k, 0) + v
    candidates = ["cpu", "memory"] + sorted(k for k in capacity if k not in ("cpu", "memory", "pods", "ephemeral-storage"))
    best, best_ratio = "cpu", -1.0
    for res in candidates:
        cap = capacity.get(res, 0)
        if cap <= 0:
            continue
        deltas = []
        for r in runs:
            a = _request(walk.pods[r.uid].info, res)
            if a:
                deltas.append((r.start, a))
                if r.end is not None:
                    deltas.append((r.end, -a))
        deltas.sort(key=lambda x: (x[0], x[1]))
        total = peak = 0
        for _, d in deltas:
            total += d
            peak = max(peak, total)
        ratio = peak / cap
        if ratio > best_ratio + 1e-9:
            best, best_ratio = res, ratio
    return best


def share_colours(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]]
                  ) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """Several replays drawn on one page, (label, report, view) each: one colour per PriorityClass
    name across all of them, in the order of the classes' values, as a single replay's view gives them."""
    if len(runs) < 2:
        return list(runs)
    value: dict[str, int] = {}
    for _, _, view in runs:
        for c in view.get("classes") or ():
            value.setdefault(c["name"], c["value"])
    order = sorted(value, key=lambda n: (-value[n], n == NO_CLASS, n))
    colour = {n: class_colour(i, n) for i, n in enumerate(order)}
    out = []
    for label, report, view in runs:
        classes = [{**c, "colour": colour[c["name"]]} for c in view.get("classes") or ()]
        out.append((label, report, {**view, "classes": classes}))
    return out


__all__ = ["ActivityRecorder", "build_view", "group_nodes", "share_colours", "steps", "pod_info", "GROUP_THRESHOLD"]
