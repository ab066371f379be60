"""Traces: JSON Lines (optionally gzipped), a header line then one watch event per line.

    {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "...", "source": {...}, "redacted": true}
    {"time": "2026-03-01T10:00:03.125Z", "type": "ADDED", "object": {"kind": "Pod", ...}}

The events at startTime are the initial state. The reader also takes a header-less stream of
`kubectl get ... --watch --output-watch-events -o json` ({"type", "object"} documents, one per
line or pretty-printed), timing each event from its object's timestamps, and a snapshot (any
form `io.snapshot` reads), as a trace of one instant. Every problem names the file and the line.
"""
from __future__ import annotations

import gzip
import json
import os
import stat
import sys
import zlib
from dataclasses import dataclass, field
from typing import IO, Any, Iterator, Mapping

import orjson

from ..errors import InputError, output_error, quote
from ..model.rfc3339 import NANOS, format_seconds, parse_nanos
from ..model.schema import describe
from . import kinds
from .files import refuse_link
from .snapshot import GZIP_MAGIC, STDIN, display_name, gunzip, json_number_error, objects_from_bytes, one_line, read_raw_bytes

API_VERSION = "kubectl-preempt/v1"
KIND = "Trace"
EVENT_TYPES = ("ADDED", "MODIFIED", "DELETED", "BOOKMARK")
# snapshot annotations that say when it was taken (written by `capture`)
CAPTURED_AT = "kubectl-preempt/captured-at"



# --- time ----------------------------------------------------------------------------------------

def parse_rfc3339(value: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (up to nanoseconds, Z or an offset), or None."""
    n = parse_nanos(value)
    return None if n is None else n / NANOS


format_rfc3339 = format_seconds


# --- the trace -------------------------------------------------------------------------------------

@dataclass
class Trace:
    """A read trace: its header and its events ({"time", "ts", "type", "object", "line"})."""

    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    source: str = ""
    form: str = "trace"  # "trace", "watch" (header-less kubectl stream) or "snapshot"
    notes: list[str] = field(default_factory=list)

    @property
    def start(self) -> float | None:
        return parse_rfc3339(self.header.get("startTime"))


def _read_raw(path: str, notes: list[str]) -> bytes:
    data = read_raw_bytes(path)
    if data[:2] == GZIP_MAGIC:
        data = gunzip(data, display_name(path), notes)
    return data


def read_trace(path: str, *, require: tuple[str, ...] = ("Node",)) -> Trace:
    """Read a trace file ("-" for standard input) in any of the accepted forms. A headerless file
    must hold one of the kinds `require` names: a Node for replay and check (a cluster), a Pod or
    an Event for `history`, which reads those alone."""
    notes: list[str] = []
    data = _read_raw(path, notes)
    trace = parse_trace(data, display_name(path), require=require)
    trace.notes[:0] = notes
    return trace


def parse_trace(data: bytes, name: str, *, require: tuple[str, ...] = ("Node",)) -> Trace:
    def checked(trace: Trace) -> Trace:
        return _require_kinds(trace, require)

    stripped = data.lstrip()
    if not stripped:
        raise InputError("empty file: expected a trace", source=name)
    if stripped[:1] == b"{":
        first_line, _, _ = stripped.partition(b"\n")
        try:
            first = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            first = None
        if isinstance(first, dict) and first.get("kind") == KIND:
            return _parse_jsonl(data, name)
        if isinstance(first, dict) and "type" in first and "object" in first:
            return checked(_parse_watch(data, name))
        if first is None:
            # a pretty-printed document: a watch stream if its first document is an event
            doc = _first_document(data, name)
            if isinstance(doc, dict) and "type" in doc and "object" in doc and "kind" not in doc:
                return checked(_parse_watch(data, name))
    return checked(_parse_snapshot(data, name))


def _require_kinds(trace: Trace, require: tuple[str, ...]) -> Trace:
    """A file without a trace header is taken for a cluster (a watch stream or a snapshot): one
    without a single Node is something else (a ConfigMap, a lone Pod) and replaying it would only
    report an empty cluster dated 1970. Say what it holds instead."""
    kinds: dict[str, int] = {}
    for ev in trace.events:
        kind = (ev.get("object") or {}).get("kind")
        if kind:
            kinds[kind] = kinds.get(kind, 0) + 1
    if any(kind in kinds for kind in require):
        return trace
    held = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))) or "no objects"
    what = "a kubectl watch stream of " if trace.form == "watch" else ""
    if require == ("Node",):
        raise InputError(f"no trace header and no Node (it holds {what}{held}): expected a trace from kubectl "
                         "preempt record, or a watch stream or snapshot of a cluster with its nodes",
                         source=trace.source)
    raise InputError(f"no trace header and no {' or '.join(require)} (it holds {what}{held}): expected a trace "
                     f"from kubectl preempt record, or a watch stream or snapshot with {' or '.join(require)}s",
                     source=trace.source)


# --- JSON Lines ------------------------------------------------------------------------------------

def _line_error(name: str, line: int, message: str) -> InputError:
    return InputError(message, source=name, field=f"line {line}")


def _check_object(obj: Any, name: str, line: int, where: str = "object") -> None:
    if not isinstance(obj, dict):
        raise _line_error(name, line, f"{where} must be a Kubernetes object")
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise _line_error(name, line, f"{where}.kind is missing")
    md = obj.get("metadata")
    if not isinstance(md, dict) or not isinstance(md.get("name"), str) or not md.get("name"):
        raise _line_error(name, line, f"{where}.metadata.name is missing ({kind})")


def _parse_header(raw: bytes, name: str) -> dict[str, Any]:
    try:
        h = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise _line_error(name, 1, f"not JSON: {one_line(e.msg)}") from None
    if not isinstance(h, dict):
        raise _line_error(name, 1, "the header must be an object")
    if h.get("apiVersion") != API_VERSION:
        raise _line_error(name, 1, f"header apiVersion {quote(h.get('apiVersion'))} is not {API_VERSION}")
    if parse_rfc3339(h.get("startTime")) is None:
        raise _line_error(name, 1, f"header startTime {quote(h.get('startTime'))} is not an RFC 3339 time")
    # the header's other fields every reader reads, by their types (record writes them so)
    for key in ("source", "recorder"):
        if h.get(key) is not None and not isinstance(h[key], dict):
            raise _line_error(name, 1, f"header {key} must be an object, got {describe(h[key])}")
    for key, value in (h.get("source") or {}).items():
        if key in ("context", "serverVersion", "form") and value is not None and not isinstance(value, str):
            raise _line_error(name, 1, f"header source.{key} must be a string, got {describe(value)}")
    kinds = (h.get("recorder") or {}).get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds)):
        raise _line_error(name, 1, f"header recorder.kinds must be a list of kind names, got {describe(kinds)}")
    if h.get("redacted") is not None and not isinstance(h["redacted"], bool):
        raise _line_error(name, 1, f"header redacted must be true or false, got {describe(h['redacted'])}")
    return h


def _parse_jsonl(data: bytes, name: str) -> Trace:
    lines = data.split(b"\n")
    header_index = next(i for i, ln in enumerate(lines) if ln.strip())
    header = _parse_header(lines[header_index], name)
    start = parse_rfc3339(header["startTime"])
    assert start is not None
    events: list[dict[str, Any]] = []
    prev = start
    loads = orjson.loads
    for i in range(header_index + 1, len(lines)):
        raw = lines[i]
        if not raw.strip():
            continue
        n = i + 1
        try:
            ev = loads(raw)
        except orjson.JSONDecodeError as e:
            raise _line_error(name, n, f"not JSON: {one_line(e.msg)}") from None
        if not isinstance(ev, dict):
            raise _line_error(name, n, "an event must be an object with time, type and object")
        typ = ev.get("type")
        if typ not in EVENT_TYPES:
            raise _line_error(name, n, f"type {quote(typ)} is not one of {', '.join(EVENT_TYPES)}")
        ts = parse_rfc3339(ev.get("time"))
        if ts is None:
            raise _line_error(name, n, f"time {quote(ev.get('time'))} is not an RFC 3339 time")
        if ts < prev:
            what = "the trace's startTime" if prev == start and not events else "the previous event's"
            raise _line_error(name, n, f"time {ev['time']} is before {what} ({format_rfc3339(prev)}): "
                                       "events must be in time order")
        prev = ts
        obj = ev.get("object")
        if typ != "BOOKMARK":
            _check_object(obj, name, n)
        elif obj is not None and not isinstance(obj, dict):
            raise _line_error(name, n, "object must be an object")
        events.append({"time": ev["time"], "ts": ts, "type": typ, "object": obj or {}, "line": n})
    # what `record` could not read, so that a replay's reader knows what its verdicts lack
    recorder = header.get("recorder")
    said = recorder.get("notes") if isinstance(recorder, dict) else None
    notes = [f"{name}: when recorded: {n}" for n in said if isinstance(n, str)] if isinstance(said, list) else []
    return Trace(header, events, name, "trace", notes)


# --- header-less kubectl watch streams ---------------------------------------------------------------

def _first_document(data: bytes, name: str) -> Any:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", source=name) from None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))
    except json.JSONDecodeError as e:
        raise InputError(one_line(e.msg), source=name, field=f"line {e.lineno} column {e.colno}") from None
    except ValueError:
        raise json_number_error(text, 0, name) from None
    except RecursionError:
        raise _too_deep(text, 0, name) from None
    return value


def _too_deep(text: str, pos: int, name: str) -> InputError:
    """A document nested deeper than the standard decoder's recursion goes: worded as the snapshot
    reader (orjson) words it, "depth limit exceeded" at its place."""
    try:
        orjson.loads(text[pos:])
    except orjson.JSONDecodeError as e:
        if "depth" in e.msg:
            line = text.count("\n", 0, pos) + e.lineno
            column = e.colno + (pos - text.rfind("\n", 0, pos) - 1 if e.lineno == 1 else 0)
            return InputError(one_line(e.msg), source=name, field=f"line {line} column {column}")
    return InputError("depth limit exceeded", source=name)


def _documents(data: bytes, name: str) -> Iterator[tuple[int, Any]]:
    """(line, document) of every JSON document, one per line or pretty-printed."""
    lines = data.split(b"\n")
    try:
        parsed = [(i + 1, orjson.loads(ln)) for i, ln in enumerate(lines) if ln.strip()]
        yield from parsed
        return
    except orjson.JSONDecodeError:
        pass
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", source=name) from None
    dec = json.JSONDecoder()
    pos, n, line = 0, len(text), 1
    while True:
        start = pos
        while pos < n and text[pos].isspace():
            pos += 1
        line += text.count("\n", start, pos)
        if pos >= n:
            return
        try:
            value, end = dec.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise InputError(one_line(e.msg), source=name, field=f"line {e.lineno} column {e.colno}") from None
        except ValueError:
            raise json_number_error(text, pos, name) from None
        except RecursionError:
            raise _too_deep(text, pos, name) from None
        yield line, value
        line += text.count("\n", pos, end)
        pos = end


def object_time(obj: Mapping[str, Any], typ: str) -> float | None:
    """When a watch event most likely happened, from its object's own timestamps."""
    md = obj.get("metadata") or {}
    if typ == "ADDED":
        return parse_rfc3339(md.get("creationTimestamp"))
    times = [parse_rfc3339(md.get("creationTimestamp")), parse_rfc3339(md.get("deletionTimestamp"))]
    for mf in md.get("managedFields") or ():
        times.append(parse_rfc3339(mf.get("time")))
    status = obj.get("status") or {}
    times.append(parse_rfc3339(status.get("startTime")))
    for c in status.get("conditions") or ():
        times.append(parse_rfc3339(c.get("lastTransitionTime")))
    for cs in status.get("containerStatuses") or ():
        st = cs.get("state") or {}
        for s in st.values():
            if isinstance(s, dict):
                times.append(parse_rfc3339(s.get("startedAt")))
                times.append(parse_rfc3339(s.get("finishedAt")))
    got = [t for t in times if t is not None]
    return max(got) if got else None


def _parse_watch(data: bytes, name: str) -> Trace:
    """kubectl's --watch --output-watch-events stream: the list it prints first (ADDED events
    before any other type) is the initial state; every later event is timed by its object,
    never before the event ahead of it."""
    raw_events: list[tuple[int, str, dict]] = []
    for line, doc in _documents(data, name):
        if not isinstance(doc, dict) or "type" not in doc:
            raise _line_error(name, line, "expected a watch event {\"type\": ..., \"object\": ...}")
        typ = doc.get("type")
        if typ == "ERROR":
            obj = doc.get("object") or {}
            raise _line_error(name, line, f"the watch reported an error: {obj.get('message') or obj}")
        if typ not in EVENT_TYPES:
            raise _line_error(name, line, f"type {quote(typ)} is not one of {', '.join(EVENT_TYPES)}")
        obj = doc.get("object")
        if typ != "BOOKMARK":
            _check_object(obj, name, line)
        raw_events.append((line, typ, obj or {}))
    n_initial = 0
    while n_initial < len(raw_events) and raw_events[n_initial][1] == "ADDED":
        n_initial += 1
    # a stream that is nothing but ADDED events is a list: all of it is the initial state
    initial_times = [object_time(o, "MODIFIED") for _, _, o in raw_events[:n_initial]]
    known = [t for t in initial_times if t is not None]
    start = max(known) if known else 0.0
    events: list[dict[str, Any]] = []
    prev = start
    for i, (line, typ, obj) in enumerate(raw_events):
        if i < n_initial:
            ts = start
        else:
            t = object_time(obj, typ) if typ != "BOOKMARK" else None
            ts = prev if t is None or t < prev else t
        prev = ts
        events.append({"time": format_rfc3339(ts), "ts": ts, "type": typ, "object": obj, "line": line})
    header = {"apiVersion": API_VERSION, "kind": KIND, "startTime": format_rfc3339(start),
              "source": {"form": "kubectl watch stream"}}
    notes = [f"{name}: a kubectl watch stream without a header; its first {n_initial} ADDED events are the "
             "initial state and later events are timed by their objects' timestamps"]
    return Trace(header, events, name, "watch", notes)


# --- snapshots -------------------------------------------------------------------------------------

def _parse_snapshot(data: bytes, name: str) -> Trace:
    objects = objects_from_bytes(data, name, expected=kinds.TRACE, accepted=(kinds.SNAPSHOT, kinds.CASE))
    if not objects:
        raise InputError("no Kubernetes objects in the file: expected a trace or a snapshot", source=name)
    start = None
    try:
        doc = orjson.loads(data)
        ann = ((doc.get("metadata") or {}).get("annotations") or {}) if isinstance(doc, dict) else {}
        start = parse_rfc3339(ann.get(CAPTURED_AT))
    except orjson.JSONDecodeError:
        pass
    if start is None:
        times = [parse_rfc3339((o.get("metadata") or {}).get("creationTimestamp")) for o in objects]
        known = [t for t in times if t is not None]
        start = max(known) if known else 0.0
    stamp = format_rfc3339(start)
    # each event named by its object's place in the file (items[i]), as a snapshot's errors name it
    events = [{"time": stamp, "ts": start, "type": "ADDED", "object": o, "line": None, "item": i}
              for i, o in enumerate(objects)]
    header = {"apiVersion": API_VERSION, "kind": KIND, "startTime": stamp, "source": {"form": "snapshot"}}
    return Trace(header, events, name, "snapshot",
                 [f"{name}: a snapshot, replayed as a trace of one instant"])


# --- writing ---------------------------------------------------------------------------------------

def trace_header(start: float, *, context: str | None = None, server_version: str | None = None,
                 redacted: bool = True, **extra: Any) -> dict[str, Any]:
    source: dict[str, Any] = {}
    if context is not None:
        source["context"] = context
    if server_version is not None:
        source["serverVersion"] = server_version
    h: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND, "startTime": format_rfc3339(start),
                         "source": source, "redacted": redacted}
    h.update(extra)
    return h


def _open_trace(path: str, private: bool) -> IO[bytes]:
    """`path` opened for writing, as a shell's `>` opens it, but never through a symbolic link (as
    io/files.py refuses one for every other file the plugin writes: a link planted where a
    recording goes would send it, secrets included, wherever it points). `private`: an unredacted
    trace can hold secrets, so a file is readable by its owner only, from the first byte (a new
    one is created so, an existing one made so); a device or a pipe (/dev/null, a FIFO) keeps its
    mode (run as root, a chmod made /dev/null unwritable for every other user)."""
    refuse_link(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                 0o600 if private else 0o666)
    try:
        if private and stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


class TraceWriter:
    """Writes a trace line by line, flushing each line, so that a reader (or a crash) never
    finds more than the last line missing. `.gz` names are gzipped (flushed per line too)."""

    def __init__(self, path: str, header: Mapping[str, Any], *, private: bool = False) -> None:
        self.path = path
        self.count = 0
        self.last_time = parse_rfc3339(header.get("startTime")) or 0.0
        self._raw: IO[bytes] | None = None
        try:
            if path == STDIN:
                if sys.stdout is None:  # started with stdout closed (`>&-`)
                    raise output_error()
                self._out: IO[bytes] = sys.stdout.buffer
            elif path.endswith(".gz"):
                self._raw = _open_trace(path, private)
                # the file's name in gzip's header, as a file opened by name gives it
                self._out = gzip.GzipFile(filename=path, fileobj=self._raw, mode="wb", compresslevel=6,  # type: ignore[assignment]
                                          mtime=0)
            else:
                self._out = _open_trace(path, private)
        except OSError as e:
            raise output_error(e, path=path) from None
        self._write(header)

    def _write(self, doc: Mapping[str, Any]) -> None:
        try:
            self._out.write(orjson.dumps(doc) + b"\n")
            if isinstance(self._out, gzip.GzipFile):
                self._out.flush(zlib.Z_SYNC_FLUSH)
                assert self._raw is not None
                self._raw.flush()
            else:
                self._out.flush()
        except BrokenPipeError:
            raise  # the reader went away (| head): the CLI ends quietly
        except OSError as e:
            # a full disk mid-recording: what was flushed before stays a valid trace
            raise output_error(e, path=None if self.path == STDIN else self.path) from None

    def event(self, t: float, typ: str, obj: Mapping[str, Any]) -> None:
        if typ not in EVENT_TYPES:
            raise ValueError(f"event type {quote(typ)}")
        # a trace is in time order even if a clock steps back
        t = max(t, self.last_time)
        self.last_time = t
        self._write({"time": format_rfc3339(t), "type": typ, "object": obj})
        self.count += 1

    def close(self) -> None:
        if self.path == STDIN:
            self._out.flush()
            return
        try:
            self._out.close()
            if self._raw is not None:
                self._raw.close()
        except OSError as e:
            raise output_error(e, path=self.path) from None

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_trace(path: str, header: Mapping[str, Any], events: list[Mapping[str, Any]]) -> None:
    """A whole trace at once; events carry "time" (RFC 3339 or seconds), "type" and "object"."""
    with TraceWriter(path, header) as w:
        for ev in events:
            t = ev.get("ts")
            if t is None:
                t = ev["time"] if isinstance(ev["time"], (int, float)) else parse_rfc3339(ev["time"])
            w.event(float(t), ev["type"], ev.get("object") or {})


__all__ = ["Trace", "TraceWriter", "read_trace", "parse_trace", "write_trace", "trace_header",
           "parse_rfc3339", "format_rfc3339", "object_time"]
