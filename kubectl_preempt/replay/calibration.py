"""What a trace says about the cluster that recorded it, read in one pass over its events.

A replay is calibrated on the recording before it starts: how long the kubelets took to write a
bound pod's status (startTime), how long one API call of the scheduler took, which pods the
recorded scheduler preempted, how long deleted pods took to leave, which workloads own which pods
and which recorded creations replaced which recorded losses, which schedulers the pods name.
`calibrate` walks the trace's events once and returns all of it as one frozen `Calibration`; the
replay's parts (replay/simulate.py, replay/controllers.py, replay/state.py) read it from there and
no other module of the replay, nor anything in scheduler/, reads the events for these facts.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ..model.who_preempted import EVENT_REASON_PREEMPTED, preempted_by
from .controllers import OWNER_KINDS, LeaveFigures, OwnerKey, Replacement, owner_key, pod_uid, workload_of
from .state import parse_time
from .timeline import Timeline, TraceEvent

# a trace's own measure of the scheduler's API calls stands with at least this many victims behind it
MIN_LATENCY_SAMPLES = 5

_FINISHED = ("Succeeded", "Failed")


def _empty() -> Mapping[Any, Any]:
    return MappingProxyType({})


def _grace_of(raw: Mapping[str, Any]) -> float:
    """The pod's grace period as its deletion used it (deletionGracePeriodSeconds), else its spec's
    (the API server's default 30 s when unset)."""
    for g in ((raw.get("metadata") or {}).get("deletionGracePeriodSeconds"),
              (raw.get("spec") or {}).get("terminationGracePeriodSeconds")):
        if isinstance(g, (int, float)) and not isinstance(g, bool) and g >= 0:
            return float(g)
    return 30.0


def _asked_at(seen: float, md: Mapping[str, Any]) -> float:
    """When a deletion was asked for: when the recording saw it, unless the object says earlier.
    The API server sets deletionTimestamp to the request's time plus deletionGracePeriodSeconds
    (apiserver registry/rest BeforeDelete), written in whole seconds, so the request came before
    deletionTimestamp - deletionGracePeriodSeconds + 1 s."""
    g = md.get("deletionGracePeriodSeconds")
    dts = parse_time(md.get("deletionTimestamp"))
    if dts is None or isinstance(g, bool) or not isinstance(g, (int, float)):
        return seen
    return min(seen, dts - g + 1.0)


def _median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _preempted_by_scheduler(obj: Mapping[str, Any]) -> bool:
    """The DisruptionTarget condition kube-scheduler's PreemptPod patches onto a victim."""
    for c in (obj.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "DisruptionTarget" \
                and c.get("reason") == "PreemptionByScheduler" and c.get("status", "True") == "True":
            return True
    return False


@dataclass(frozen=True)
class Calibration:
    """The trace's facts a replay reads, every mapping read-only."""

    # uid -> seconds from binding to the status write showing it Running (pods bound in the trace)
    status_delays: Mapping[str, float] = field(default_factory=_empty)
    # their median, or None when the trace bound none
    status_delay: float | None = None
    # the median seconds of one scheduler API call, None below MIN_LATENCY_SAMPLES victims
    api_latency: float | None = None
    # every such call the trace measured, in seconds (sorted; empty where api_latency is None):
    # the runs of `replay --runs` draw each call's time from them (replay/simulate.py)
    api_latencies: tuple[float, ...] = ()
    # uids (or namespace/name) of the pods a Preempted Event of the recorded scheduler names
    recorded_victims: frozenset[str] = frozenset()
    # ReplicaSets by (namespace, name): the initial ones, then every version the events hold
    replica_sets: Mapping[tuple[str, str], Mapping[str, Any]] = field(default_factory=_empty)
    leave: LeaveFigures = field(default_factory=lambda: LeaveFigures(_empty(), _empty(), _empty()))
    # owners (namespace, kind, name) of a kind the workload controllers scale that the trace holds
    owners_in_trace: frozenset[OwnerKey] = frozenset()
    # recorded creations matched to recorded losses, in the trace's order
    replacements: tuple[Replacement, ...] = ()
    # every spec.schedulerName a pod of the trace names
    scheduler_names: frozenset[str] = frozenset()

    def schedules_any(self, scheduler_name: str) -> bool:
        """Whether a pod of the trace names this scheduler."""
        return scheduler_name in self.scheduler_names


class _StatusDelays:
    """Per pod created and bound during the trace: how long its kubelet took from the binding to
    the status write that shows it Running (the kubelet's status manager, updateStatusInternal)."""

    def __init__(self) -> None:
        self.bound_at: dict[str, float] = {}
        self.delays: dict[str, float] = {}
        self.seen: set[str] = set()

    def see(self, ev: TraceEvent, md: Mapping[str, Any], spec: Mapping[str, Any]) -> None:
        if ev.type != "MODIFIED":
            if ev.type == "ADDED" and not spec.get("nodeName"):
                self.seen.add(md.get("uid") or "")
            return
        uid = md.get("uid") or ""
        if uid not in self.seen:
            return  # bound before the trace, or its creation is not in it
        node = spec.get("nodeName")
        if node and uid not in self.bound_at:
            self.bound_at[uid] = ev.time
        elif node and uid in self.bound_at and (ev.obj.get("status") or {}).get("phase") == "Running" \
                and not md.get("deletionTimestamp"):
            self.delays[uid] = ev.time - self.bound_at.pop(uid)
            self.seen.discard(uid)


class _ApiLatency:
    """The gap from a victim's DisruptionTarget patch reaching the watch to its deletionTimestamp
    reaching it: Evaluator.PreemptPod (framework/preemption/preemption.go) makes the delete call
    as soon as the patch returns, so the gap is one call as that cluster's API server answered."""

    def __init__(self) -> None:
        self.patched: dict[str, float] = {}
        self.gaps: list[float] = []

    def see(self, ev: TraceEvent, md: Mapping[str, Any]) -> None:
        if ev.type not in ("MODIFIED", "DELETED"):
            return
        uid = md.get("uid") or ""
        if md.get("deletionTimestamp"):
            if uid in self.patched:
                self.gaps.append(ev.time - self.patched.pop(uid))
            return
        if uid not in self.patched and _preempted_by_scheduler(ev.obj):
            self.patched[uid] = ev.time

    def median(self) -> float | None:
        return statistics.median(self.gaps) if len(self.gaps) >= MIN_LATENCY_SAMPLES else None

    def samples(self) -> tuple[float, ...]:
        """Every gap measured, sorted, when there are enough to stand for the cluster (as median)."""
        return tuple(sorted(self.gaps)) if len(self.gaps) >= MIN_LATENCY_SAMPLES else ()


class _Leaving:
    """Each recorded deletion of a bound pod that ends in a terminal status or a removal: from the
    request (the first version with a deletionTimestamp) to the end, at most the grace period
    (see controllers.LeaveTimes). Workloads are resolved at the end, with every ReplicaSet known."""

    def __init__(self) -> None:
        self.asked: dict[str, tuple[float, float, Mapping[str, Any]]] = {}  # uid -> (time, grace, metadata)
        self.done: set[str] = set()
        self.took: list[tuple[float, float, Mapping[str, Any]]] = []  # (seconds, grace, metadata)

    def see(self, ev: TraceEvent, md: Mapping[str, Any], uid: str) -> None:
        if uid in self.done:
            return
        raw = ev.obj
        phase = (raw.get("status") or {}).get("phase")
        req = self.asked.get(uid)
        if req is None:
            if md.get("deletionTimestamp") and ev.type != "DELETED":
                if not (raw.get("spec") or {}).get("nodeName") or phase in _FINISHED:
                    self.done.add(uid)  # no kubelet to wait for: it leaves at once
                    return
                self.asked[uid] = (_asked_at(ev.time, md), _grace_of(raw), md)
            return
        if ev.type == "DELETED" or phase in _FINISHED:
            self.done.add(uid)
            t0, grace, asked_md = req
            self.took.append((min(max(0.0, ev.time - t0), grace), grace, asked_md))

    def figures(self, replica_sets: Mapping[tuple[str, str], Mapping[str, Any]]) -> LeaveFigures:
        by_workload: dict[tuple[str, float], list[float]] = {}
        by_namespace: dict[tuple[str, float], list[float]] = {}
        by_grace: dict[float, list[float]] = {}
        for took, grace, md in self.took:
            by_workload.setdefault((workload_of(md, replica_sets), grace), []).append(took)
            by_namespace.setdefault((md.get("namespace") or "default", grace), []).append(took)
            by_grace.setdefault(grace, []).append(took)

        def medians(d: Mapping[Any, list[float]]) -> Mapping[Any, tuple[float, int]]:
            return MappingProxyType({k: (_median(v), len(v)) for k, v in d.items()})
        return LeaveFigures(medians(by_workload), medians(by_namespace), medians(by_grace))


class _Replacements:
    """Per owner, recorded creations matched in order to the pods the recording lost and had not
    replaced yet (StatefulSets re-create under the same name: not matched)."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.seen: set[str] = set()
        self.lost: set[str] = set()
        self.pending: dict[OwnerKey, list[str]] = {}
        self.out: list[Replacement] = []

    def see(self, ev: TraceEvent, md: Mapping[str, Any], uid: str | None = None) -> None:
        """`uid`: the pod's (pod_uid), when the caller has it already."""
        key = owner_key(md)
        if key is None or key[1] == "StatefulSet":
            return
        if uid is None:
            uid = pod_uid(md)
        if uid not in self.seen:
            self.seen.add(uid)
            queue = self.pending.get(key)
            if ev.time > self.start and queue:
                self.out.append(Replacement(key, uid, ev.obj, ev.time, queue.pop(0)))
        phase = (ev.obj.get("status") or {}).get("phase")
        if uid not in self.lost and phase != "Succeeded" and (
                ev.type == "DELETED" or md.get("deletionTimestamp") or phase == "Failed"):
            self.lost.add(uid)
            self.pending.setdefault(key, []).append(uid)


def _preempted_event_victim(obj: Mapping[str, Any]) -> str | None:
    """The pod a `Preempted` Event names (kube-scheduler's PreemptPod records one per victim it
    deletes: "Preempted by pod <uid> on node <node>"), or None."""
    if obj.get("reason") != EVENT_REASON_PREEMPTED or preempted_by(obj) is None:
        return None
    inv = obj.get("involvedObject") or obj.get("regarding") or {}
    if inv.get("kind", "Pod") != "Pod":
        return None
    if inv.get("uid"):
        return inv["uid"]
    if inv.get("name"):
        return f"{inv.get('namespace') or 'default'}/{inv['name']}"
    return None


class _Pass:
    """The accumulators of one walk over the events."""

    def __init__(self, start: float) -> None:
        self.status = _StatusDelays()
        self.latency = _ApiLatency()
        self.leaving = _Leaving()
        self.replacements = _Replacements(start)
        self.victims: set[str] = set()
        self.replica_sets: dict[tuple[str, str], Mapping[str, Any]] = {}
        self.owners: set[OwnerKey] = set()
        self.scheduler_names: set[str] = set()

    def initial(self, ev: TraceEvent) -> None:
        """An event of the trace's start: what the whole-trace facts (owners, replacements,
        schedulers, ReplicaSets) read; the measures are of the events after it."""
        if ev.type == "BOOKMARK":
            return
        kind = ev.kind
        md = ev.obj.get("metadata") or {}
        if kind == "Pod":
            self.scheduler_names.add((ev.obj.get("spec") or {}).get("schedulerName"))
            self.replacements.see(ev, md)  # its uid only read for a pod a controller owns
            return
        if kind == "ReplicaSet":
            # the objects the start leaves (simulate.initial_objects): a deletion removes one
            k = (md.get("namespace") or "default", md.get("name") or "")
            self.replica_sets.pop(k, None)
            if ev.type != "DELETED":
                self.replica_sets[k] = ev.obj
        if kind in OWNER_KINDS:
            self.owners.add((md.get("namespace") or "default", kind, md.get("name") or ""))

    def event(self, ev: TraceEvent) -> None:
        if ev.type == "BOOKMARK":
            return
        kind = ev.kind
        md = ev.obj.get("metadata") or {}
        if kind == "Pod":
            spec = ev.obj.get("spec") or {}
            uid = pod_uid(md)
            self.scheduler_names.add(spec.get("schedulerName"))
            self.status.see(ev, md, spec)
            self.latency.see(ev, md)
            self.leaving.see(ev, md, uid)
            self.replacements.see(ev, md, uid)
            return
        if kind == "Event":
            victim = _preempted_event_victim(ev.obj)
            if victim is not None:
                self.victims.add(victim)
            return
        if kind == "ReplicaSet":
            self.replica_sets[(md.get("namespace") or "default", md.get("name") or "")] = ev.obj
        if kind in OWNER_KINDS:
            self.owners.add((md.get("namespace") or "default", kind, md.get("name") or ""))

    def result(self) -> Calibration:
        delays = self.status.delays
        replica_sets = MappingProxyType(dict(self.replica_sets))
        return Calibration(
            status_delays=MappingProxyType(dict(delays)),
            status_delay=statistics.median(delays.values()) if delays else None,
            api_latency=self.latency.median(),
            api_latencies=self.latency.samples(),
            recorded_victims=frozenset(self.victims),
            replica_sets=replica_sets,
            leave=self.leaving.figures(replica_sets),
            owners_in_trace=frozenset(self.owners),
            replacements=tuple(self.replacements.out),
            scheduler_names=frozenset(n for n in self.scheduler_names if n is not None),
        )


def calibrate(timeline: Timeline) -> Calibration:
    """The trace's facts, from one walk over its initial events and then the events after them."""
    walk = _Pass(timeline.start)
    for ev in timeline.initial:
        walk.initial(ev)
    for ev in timeline.events:
        walk.event(ev)
    return walk.result()


def status_delay_of(events: Iterable[TraceEvent]) -> float | None:
    """The median seconds from a pod's binding to the status write showing it Running, over the
    pods bound during these events (follow mode reads this alone), or None."""
    acc = _StatusDelays()
    for ev in events:
        if ev.kind == "Pod" and ev.type != "BOOKMARK":
            acc.see(ev, ev.obj.get("metadata") or {}, ev.obj.get("spec") or {})
    return statistics.median(acc.delays.values()) if acc.delays else None


def api_latency_of(events: Iterable[TraceEvent]) -> float | None:
    """The seconds one API call of the scheduler took over these events (see _ApiLatency), or
    None below MIN_LATENCY_SAMPLES victims."""
    acc = _ApiLatency()
    for ev in events:
        if ev.kind == "Pod":
            acc.see(ev, ev.obj.get("metadata") or {})
    return acc.median()
