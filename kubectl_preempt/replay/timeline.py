"""Trace events as the replay reads them: a time in seconds, a type, an object.

Events come in as plain dicts ({"time", "type", "object"}, as a trace line holds them) or as any
object with those attributes; the io layer reads files, the replay never does.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any, Mapping

from ..errors import InputError, quote
from ..model import limits
from ..model.schema import check_objects, fast_checker, object_label, objects_ok
from ..model.workload import KINDS as WORKLOAD_KINDS, check_workload_object, is_workload_object
from ..model.rfc3339 import format_seconds
from ..model.who_preempted import check_event
from .state import format_time, parse_time

EVENT_TYPES = ("ADDED", "MODIFIED", "DELETED", "BOOKMARK")


@dataclass
class TraceEvent:
    time: float
    type: str
    obj: Mapping[str, Any]
    kind: str
    where: str  # "line 12", "items[11]" (a snapshot's) or "events[11]", for messages

    @property
    def name(self) -> str:
        return (self.obj.get("metadata") or {}).get("name") or ""

    @property
    def namespace(self) -> str:
        return (self.obj.get("metadata") or {}).get("namespace") or "default"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def uid(self) -> str:
        md = self.obj.get("metadata") or {}
        return md.get("uid") or f"{md.get('namespace') or 'default'}/{md.get('name')}"


@dataclass
class Timeline:
    start: float
    end: float
    initial: list[TraceEvent]
    events: list[TraceEvent]
    header: Mapping[str, Any]


def _get(e: Any, name: str) -> Any:
    if type(e) is dict or isinstance(e, Mapping):  # a dict is by far the most common: no ABC check
        return e.get(name)
    return getattr(e, name, None)


def _when(t: float) -> str:
    try:
        return format_seconds(t)
    except (OverflowError, ValueError, OSError):  # beyond the years datetime knows
        return f"{t:g} seconds after 1970"


def _span(seconds: float) -> str:
    days = seconds / 86400
    return f"{days / 365.25:,.0f} years" if days > 3 * 365 else f"{days:,.1f} days" if days >= 2 else f"{seconds / 3600:,.1f} hours"


_TIME = attrgetter("time")


def normalize(events: Any) -> Timeline:
    """A Timeline from a trace (an object with .header and .events, a {"header", "events"} dict)
    or a plain list of events. Events at the start time form the initial state."""
    header: Mapping[str, Any] = {}
    if isinstance(events, Mapping) and "events" in events:
        header = events.get("header") or {}
        events = events["events"]
    elif not isinstance(events, (list, tuple)) and hasattr(events, "events"):
        header = getattr(events, "header", None) or {}
        events = events.events
    lim = limits.current()
    if hasattr(events, "__len__") and len(events) > lim.max_trace_events:
        raise InputError(f"{len(events):,} events, more than {lim.max_trace_events:,}, the most a replay takes "
                         "(--max-trace-events raises it)")
    out: list[TraceEvent] = []
    # the events' structure, and in the same pass each object's shape by its kind's fast pass
    # (model/schema.py fast_checker): an object is visited once while it is in the processor's
    # cache. Any doubt (a fast pass saying no, an object that is not a plain dict) leaves the
    # whole check to check_objects below, which names the first bad object in the trace's order,
    # once every event's structure is known good, as before.
    fast: dict[str, Any] = {}
    shapes_ok = True
    ordered = True
    last: Any = None  # the time of the event before
    workload_events: list[TraceEvent] = []
    event_events: list[TraceEvent] = []  # the Events, their fields checked once every shape is
    for i, e in enumerate(events):
        plain = type(e) is dict  # a JSON object: read without _get's checks
        if plain:
            line, typ = e.get("line"), e.get("type")
        elif isinstance(e, TraceEvent):
            out.append(e)
            if last is not None and e.time < last:
                ordered = False
            last = e.time
            if e.type == "BOOKMARK":
                continue
            if e.kind in WORKLOAD_KINDS:
                workload_events.append(e)
            elif e.kind == "Event":
                event_events.append(e)
            if shapes_ok:
                shapes_ok = objects_ok([e.obj])
            continue
        else:
            line, typ = _get(e, "line"), _get(e, "type")
        if line:
            where = f"line {line}"
        else:
            item = e.get("item") if plain else None
            where = f"items[{item}]" if isinstance(item, int) else f"events[{i}]"
        if typ not in EVENT_TYPES:
            raise InputError(f"type {quote(typ)} is not one of {', '.join(EVENT_TYPES)}", field=f"{where}.type")
        t = e.get("ts") if plain else _get(e, "ts")
        if t is None:
            t = parse_time(_get(e, "time"))
            if t is None:
                raise InputError(f"time {quote(_get(e, 'time'))} is not an RFC 3339 time", field=f"{where}.time")
        obj = (e.get("object") if plain else _get(e, "object")) or {}
        if last is not None and t < last:
            ordered = False
        last = t
        if typ == "BOOKMARK":
            out.append(TraceEvent(t, typ, obj, obj.get("kind") or "", where))
            continue
        if type(obj) is dict:
            kind = obj.get("kind")
            md = obj.get("metadata")
        elif isinstance(obj, Mapping):
            kind = obj.get("kind")
            md = obj.get("metadata")
            shapes_ok = False
        else:
            raise InputError("object must be a Kubernetes object", field=f"{where}.object")
        if not isinstance(kind, str) or not kind:
            raise InputError("missing kind", field=f"{where}.object.kind")
        if type(md) is dict:
            name = md.get("name")
        elif isinstance(md, Mapping):
            name = md.get("name")
            shapes_ok = False
        else:
            name = None
        if not isinstance(name, str) or not name:
            raise InputError(f"{kind} without metadata.name", field=f"{where}.object.metadata.name")
        ev = TraceEvent(t, typ, obj, kind, where)
        out.append(ev)
        if kind in WORKLOAD_KINDS:
            workload_events.append(ev)
        elif kind == "Event":
            event_events.append(ev)
        if shapes_ok:
            f = fast.get(kind)
            if f is None:
                f = fast[kind] = fast_checker(kind)
            shapes_ok = f(obj) and type(kind) is str and type(name) is str
    if not shapes_ok:
        # every object's shape, one by one in the trace's order, to name the first bad one
        shaped = [ev for ev in out if ev.type != "BOOKMARK"]
        check_objects([ev.obj for ev in shaped], lambda i, o: f"{shaped[i].where} ({object_label(o)})")
    for ev in event_events:
        # the fields the replay's recorded preemptions read (model/who_preempted.py)
        try:
            check_event(ev.obj)
        except InputError as e:
            raise e.located(field_prefix=f"{ev.where} ({object_label(ev.obj)})") from None
    for ev in workload_events:
        if ev.type != "DELETED" and is_workload_object(ev.obj):
            try:
                check_workload_object(ev.obj)
            except InputError as e:
                raise e.located(field_prefix=f"{ev.where} ({object_label(ev.obj)})") from None
    # stable: events at one instant keep their order in the trace
    if not ordered:
        out.sort(key=_TIME)
    start = parse_time(header.get("startTime")) if header else None
    if start is None:
        start = out[0].time if out else 0.0
    n = 0
    while n < len(out) and out[n].time <= start:
        n += 1
    end = max(out[-1].time if out else start, start)
    if end - start > lim.max_trace_span:
        # the virtual clock's work grows with the span (backoff and flush timers): one event dated
        # far away would make a replay run for hours
        late = next(ev for ev in out if ev.time - start > lim.max_trace_span)
        raise InputError(f"{late.kind} {late.key if late.kind != 'Node' else late.name} at {_when(late.time)} is "
                         f"{_span(late.time - start)} after the trace's start, more than "
                         f"{limits.format_span(lim.max_trace_span)} (--max-trace-span raises it)",
                         field=late.where)
    return Timeline(start, end, out[:n], out[n:], header)


# --- recorder gaps -----------------------------------------------------------------------------------
# A recorder that stalls (its process or machine paused, its watch connection hung) leaves a
# stretch with no event and no bookmark; replayed, that stretch reads as a cluster where nothing
# happened, and every pod waiting across it seems to have waited that long for the scheduler.
# "Much longer than the trace's usual gaps": longer than GAP_FACTOR times the GAP_QUANTILE-th
# percentile (nearest rank) of the trace's own positive gaps between consecutive events (bookmarks
# included, events at one instant are one), and never shorter than MIN_GAP_SECONDS. The floor is
# two bookmark periods: a watch that asks for bookmarks (`kubectl preempt record` does) gets one
# per kind about every minute however quiet the cluster is (kube-apiserver's cacher,
# staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, defaultBookmarkFrequency), so a
# healthy recording is never silent that long; the factor keeps a sparse trace without bookmarks
# (a kubectl watch stream, a generated trace) whose events are usually minutes apart from having
# each of its quiet stretches called a stall. The 95th percentile, not the largest gap, so that a
# stall does not set its own yardstick in a trace of more than twenty gaps.
BOOKMARK_PERIOD = 60.0
MIN_GAP_SECONDS = 2 * BOOKMARK_PERIOD
GAP_FACTOR = 4.0
GAP_QUANTILE = 95


@dataclass(frozen=True)
class Gap:
    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def overlaps(self, start: float, end: float) -> bool:
        """Whether the interval start..end (a pod's wait) runs through part of the gap."""
        return start < self.end and end > self.start

    def to_dict(self) -> dict[str, Any]:
        return {"start": format_time(self.start), "end": format_time(self.end), "seconds": round(self.seconds, 3)}


def gap_threshold(tl: Timeline) -> float:
    """The length above which a stretch without events is a recorder gap (see above)."""
    times = [tl.start] + [ev.time for ev in tl.events]
    steps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    if not steps:
        return MIN_GAP_SECONDS
    rank = max(1, -(-GAP_QUANTILE * len(steps) // 100))  # nearest rank: ceil(q/100 * n)
    return max(MIN_GAP_SECONDS, GAP_FACTOR * steps[min(rank, len(steps)) - 1])


def find_gaps(tl: Timeline) -> list[Gap]:
    """Stretches of the trace after its start with no event and no bookmark for longer than
    gap_threshold: the recorder's stalls, not the cluster's quiet."""
    limit = gap_threshold(tl)
    out = []
    prev = tl.start
    for ev in tl.events:
        if ev.time - prev > limit:
            out.append(Gap(prev, ev.time))
        prev = max(prev, ev.time)
    return out


# --- events that contradict each other ----------------------------------------------------------------
# A recording can hold events that no API server would have produced in that order: a deletion of
# an object no event created (or already deleted), a binding of a pod after its terminal status,
# a pod leaving a terminal phase (the API server refuses both: a terminal phase is final,
# ValidatePodStatusUpdate in pkg/apis/core/validation; a Binding needs a pod without a node).
# The replay applies them as it always has; these notes only say where the trace is odd.
TERMINAL_PHASES = ("Succeeded", "Failed")
_NO_METADATA: Mapping[str, Any] = {}
MAX_CONTRADICTIONS = 20


def contradictions(tl: Timeline) -> list[str]:
    """A note per event that contradicts an earlier one, naming the event and the object (at most
    MAX_CONTRADICTIONS, then how many more)."""
    out: list[str] = []
    # objects -> the event that last created or changed them / deleted them; its `where` (a string
    # made per event) is only spelt out for a note
    alive: dict[tuple[str, str, str], TraceEvent] = {}
    gone: dict[tuple[str, str, str], TraceEvent] = {}
    terminal: dict[tuple[str, str, str], tuple[str, TraceEvent, bool]] = {}  # pod -> (phase, event, bound then)
    flagged: set[tuple[tuple[str, str, str], str]] = set()
    more = 0

    def say(k: tuple[str, str, str], what: str, text: str) -> None:
        nonlocal more
        if (k, what) in flagged:
            return
        flagged.add((k, what))
        if len(out) < MAX_CONTRADICTIONS:
            out.append(text)
        else:
            more += 1

    for ev in chain(tl.initial, tl.events):
        typ = ev.type
        if typ == "BOOKMARK":
            continue
        obj = ev.obj
        # (kind, namespace, name) as TraceEvent's properties have them, the metadata read once
        md = obj.get("metadata") or _NO_METADATA
        k = (ev.kind, md.get("namespace") or "default", md.get("name") or "")
        if typ == "DELETED":
            if k not in alive:
                prev = gone.get(k)
                say(k, "deleted", f"{ev.where}: {ev.type} {_label(ev)}, which " +
                    (f"{prev.where} deleted already" if prev is not None else "no earlier event created") +
                    "; the events contradict each other")
            else:
                del alive[k]
            gone[k] = ev
            terminal.pop(k, None)
            continue
        if typ == "ADDED" and k not in alive:
            terminal.pop(k, None)  # a new object of that name
        alive[k] = ev
        if k[0] != "Pod":
            continue
        status = obj.get("status")
        # a JSON object is a dict; the Mapping check is the slow path for other mappings
        phase = status.get("phase") if type(status) is dict or isinstance(status, Mapping) else None
        spec = obj.get("spec")
        node = spec.get("nodeName") if type(spec) is dict or isinstance(spec, Mapping) else None
        was = terminal.get(k)
        if was is not None:
            odd = []
            if node and not was[2]:
                odd.append(f"binds it to {node}")
            if phase and phase not in TERMINAL_PHASES:
                odd.append(f"moves it back to {phase}")
            if odd:
                say(k, "terminal", f"{ev.where}: {ev.type} {_label(ev)} {' and '.join(odd)} after {was[1].where} "
                                   f"gave it the terminal phase {was[0]}; the events contradict each other")
        elif phase in TERMINAL_PHASES:
            terminal[k] = (str(phase), ev, bool(node))
    if more:
        out.append(f"{more} more events contradict earlier ones")
    return out


def _label(ev: TraceEvent) -> str:
    return f"{ev.kind} {ev.key if ev.kind == 'Pod' else ev.name}"
