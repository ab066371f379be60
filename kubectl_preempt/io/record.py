"""record: a trace of a live cluster, read with GET requests only.

The initial lists of every kind a verdict depends on (io.live.LIST_SPECS: nodes, pods, PDBs and
PriorityClasses, and the workloads, Services, volumes and resource claims the plugins read) are
written as ADDED events at the trace's start; then one watch per kind continues from its list's
resourceVersion, with bookmarks. The kinds are read as `capture` reads them
(LiveCluster.read_kinds): a required kind that cannot be read is an error, an optional kind the
server refuses or does not serve is left out, said in a note and in the header's "recorder"
entry (and an optional kind whose watch is refused later stops being recorded, with a note).
When the API server answers 410 Gone (the resourceVersion was compacted away), the kind is
listed again and the difference from what the trace already holds is written as ADDED,
MODIFIED and DELETED events, and the watch resumes from the new list. Every line is
flushed when written. A duration, an event count, Ctrl-C or SIGTERM (through `stop`) end the
recording cleanly: the trace is valid whenever it ends.

The API client comes from io.live (the only module that talks to the kubernetes client).
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Callable, Mapping

from ..errors import ClusterError
from . import live
from .redact import redact_object
from .trace import TraceWriter, trace_header

# every kind a verdict depends on, and the scheduler's Preempted events (follow mode attributes
# each victim to its preemptor by them)
WATCHED_KINDS = tuple(s.kind for s in live.LIST_SPECS) + tuple(s.kind for s in live.EXTRA_SPECS)
DEFAULT_WATCH_TIMEOUT = 300  # seconds the API server keeps one watch open before we renew it
_POLL = 0.2
MAX_WATCH_RETRIES = 5  # consecutive dropped connections before a watch gives up

Progress = Callable[[str], None]
Notice = Callable[[str], None]


@dataclass
class RecordStats:
    path: str
    started: float
    ended: float = 0.0
    events: int = 0
    initial_objects: int = 0
    bookmarks: int = 0
    relists: int = 0
    reason: str = ""
    per_kind: dict[str, int] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)           # the kinds listed and watched
    skipped: dict[str, str] = field(default_factory=dict)    # optional kind -> why it is not in the trace
    notes: list[str] = field(default_factory=list)           # what could not be read, and what it costs


def _resource_version(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


def _uid(obj: Mapping[str, Any]) -> str:
    md = obj.get("metadata") or {}
    return md.get("uid") or f"{md.get('namespace') or ''}/{md.get('name')}"


@dataclass(eq=False)
class Recorder:
    """One recording: lists, watches, the trace file. `run()` returns when it ends."""

    reader: live.LiveCluster
    path: str
    _: KW_ONLY
    context: str | None
    server_version: str
    redact: bool = True
    duration: float | None = None
    max_events: int | None = None
    namespace: str | None = None
    stop: threading.Event | None = None
    progress: Progress | None = None
    clock: Callable[[], float] = time.time
    watch_timeout: int = DEFAULT_WATCH_TIMEOUT
    kinds: tuple[str, ...] = WATCHED_KINDS
    notice: Notice | None = None

    def __post_init__(self) -> None:
        if self.stop is None:
            self.stop = threading.Event()
        kinds = self.kinds = tuple(self.kinds)
        self.specs: list[live.ListSpec] = []  # the kinds read at the start (run)
        # per kind, where it is read and watched: None for every namespace (or cluster-scoped)
        self.where: dict[str, str | None] = {}
        self.known: dict[str, dict[str, dict]] = {k: {} for k in kinds}
        self.versions: dict[str, str] = {}
        self.generation: dict[str, int] = {k: 0 for k in kinds}
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self.stats = RecordStats(self.path, self.clock())
        self.writer: TraceWriter | None = None
        self._threads: list[threading.Thread] = []

    # ---------------------------------------------------------------- writing
    def _write(self, typ: str, obj: dict, t: float | None = None) -> None:
        assert self.writer is not None
        self.writer.event(self.clock() if t is None else t, typ, obj)
        if typ == "BOOKMARK":
            self.stats.bookmarks += 1
        else:
            self.stats.events += 1
            kind = obj.get("kind") or ""
            self.stats.per_kind[kind] = self.stats.per_kind.get(kind, 0) + 1

    def _clean(self, obj: dict) -> dict:
        return redact_object(obj) if self.redact else obj

    # ---------------------------------------------------------------- lists
    def _list(self, spec: live.ListSpec) -> list[dict]:
        items, version = self.reader.list_with_version(spec, self.where.get(spec.kind))
        self.versions[spec.kind] = version
        return [self._clean(o) for o in items]

    def _say(self, text: str) -> None:
        self.stats.notes.append(text)
        if self.notice is not None:
            self.notice(text)

    def _drop(self, spec: live.ListSpec, err: ClusterError) -> None:
        """An optional kind refused after the start: its changes from now on are not recorded."""
        self.generation[spec.kind] += 1  # events still queued from its watch are ignored
        what = err.short if isinstance(err, live.Forbidden) else str(err)
        self._say(f"{what}: changes to {spec.plural} after this point are not in the trace")

    def _relist(self, spec: live.ListSpec) -> None:
        """After 410 Gone: what changed while the watch was away, as events."""
        self.stats.relists += 1
        known = self.known[spec.kind]
        fresh = {_uid(o): o for o in self._list(spec)}
        now = self.clock()
        for uid, old in list(known.items()):
            if uid not in fresh:
                self._write("DELETED", old, now)
                del known[uid]
        for uid, obj in fresh.items():
            old = known.get(uid)
            if old is None:
                self._write("ADDED", obj, now)
            elif _resource_version(old) != _resource_version(obj):
                self._write("MODIFIED", obj, now)
            known[uid] = obj

    # ---------------------------------------------------------------- watches
    def _start_watch(self, spec: live.ListSpec) -> None:
        self.generation[spec.kind] += 1
        gen = self.generation[spec.kind]
        version = self.versions.get(spec.kind, "")
        t = threading.Thread(target=self._watch_loop, args=(spec, version, gen), daemon=True,
                             name=f"watch-{spec.plural}")
        t.start()
        self._threads.append(t)

    def _watch_loop(self, spec: live.ListSpec, version: str, gen: int) -> None:
        q = self.events
        failures = 0
        while not self.stop.is_set():
            got = 0
            try:
                for ev in self.reader.watch(spec, version, self.where.get(spec.kind),
                                            timeout_seconds=self.watch_timeout):
                    if self.stop.is_set():
                        return
                    typ = ev.get("type")
                    obj = ev.get("object") or {}
                    if typ == "ERROR":
                        if obj.get("code") == 410 or obj.get("reason") in ("Expired", "Gone"):
                            q.put(("gone", spec, gen, None))
                        else:
                            q.put(("error", spec, gen, ClusterError(
                                f"{self.reader.conn.server}: watch {spec.plural}: {obj.get('message') or obj}")))
                        return
                    got += 1
                    rv = _resource_version(obj)
                    if rv:
                        version = rv
                    q.put(("event", spec, gen, ev))
            except ClusterError as e:
                if getattr(e, "status", None) == 410:
                    q.put(("gone", spec, gen, None))
                    return
                failures += 1
                if isinstance(e, (live.Forbidden, live.NotServed)) or failures > MAX_WATCH_RETRIES:
                    q.put(("error", spec, gen, e))
                    return
                # a dropped connection: watch again from where this one got to, a little later
                self.stop.wait(min(0.25 * 2 ** failures, 5.0))
                continue
            except Exception as e:  # noqa: BLE001 - a broken stream ends this watch, not the process
                q.put(("error", spec, gen, ClusterError(f"{self.reader.conn.server}: watch {spec.plural}: {e}")))
                return
            failures = 0
            # the server closed the watch (its timeout): renew it, gently if it brought nothing
            if not got:
                self.stop.wait(0.5)

    def _handle(self, item: tuple) -> None:
        what, spec, gen, payload = item
        if gen != self.generation[spec.kind]:
            return  # from a watch replaced after a relist
        if what == "gone":
            try:
                self._relist(spec)
            except (live.Forbidden, live.NotServed) as e:
                if spec.required:
                    raise
                self._drop(spec, e)
                return
            self._start_watch(spec)
            return
        if what == "error":
            if not spec.required and isinstance(payload, (live.Forbidden, live.NotServed)):
                self._drop(spec, payload)
                return
            raise payload
        ev = payload
        typ = ev.get("type")
        obj = ev.get("object") or {}
        if typ == "BOOKMARK":
            rv = _resource_version(obj)
            if rv:
                self.versions[spec.kind] = rv
            self._write("BOOKMARK", {"kind": spec.kind, "apiVersion": spec.api_version,
                                     "metadata": {"resourceVersion": rv}})
            return
        if typ not in ("ADDED", "MODIFIED", "DELETED"):
            return
        known = self.known[spec.kind]
        uid = _uid(obj)
        rv = _resource_version(obj)
        old = known.get(uid)
        # a renewed watch may send again what the trace has (same object, same resourceVersion)
        if rv and old is not None and _resource_version(old) == rv and typ != "DELETED":
            return
        if typ == "DELETED" and old is None:
            return
        if typ == "ADDED" and old is not None and rv and _resource_version(old) == rv:
            return
        obj = self._clean(obj)
        if typ == "DELETED":
            known.pop(uid, None)
        else:
            known[uid] = obj
        if rv:
            self.versions[spec.kind] = rv
        self._write(typ, obj)

    # ---------------------------------------------------------------- the recording
    def _should_stop(self) -> str:
        if self.stop.is_set():
            return "stopped"
        if self.duration is not None and self.clock() - self.stats.started >= self.duration:
            return "duration reached"
        if self.max_events is not None and self.stats.events - self.stats.initial_objects >= self.max_events:
            return "event limit reached"
        return ""

    def run(self) -> RecordStats:
        start = self.clock()
        self.stats.started = start
        # the lists as capture reads them: required kinds or an error, optional ones when readable
        reads, notes = self.reader.read_kinds(self.namespace, strict=True, kinds=self.kinds)
        skipped = {k: why for k, why in self.reader.skipped.items() if k in self.kinds}
        self.specs = [r.spec for r in reads]
        for r in reads:
            self.where[r.spec.kind] = r.namespace
            self.versions[r.spec.kind] = r.version
        self.stats.kinds = [s.kind for s in self.specs]
        self.stats.skipped = skipped
        for n in notes:
            self._say(n)
        recorder: dict[str, Any] = {"kinds": list(self.stats.kinds)}
        if skipped:
            recorder["skipped"] = dict(skipped)
        if self.namespace:
            recorder["namespace"] = self.namespace
        if notes:
            recorder["notes"] = list(notes)
        header = trace_header(start, context=self.context, server_version=self.server_version,
                              redacted=self.redact, recorder=recorder)
        self.writer = TraceWriter(self.path, header, private=not self.redact)
        try:
            for r in reads:
                for raw in r.items:
                    obj = self._clean(raw)
                    self.known[r.spec.kind][_uid(obj)] = obj
                    self._write("ADDED", obj, start)
            self.stats.initial_objects = self.stats.events
            for spec in self.specs:
                self._start_watch(spec)
            last_progress = 0.0
            while True:
                reason = self._should_stop()
                if reason:
                    self.stats.reason = reason
                    break
                try:
                    item = self.events.get(timeout=_POLL)
                except queue.Empty:
                    item = None
                if item is not None:
                    self._handle(item)
                if self.progress is not None and self.clock() - last_progress >= 1.0:
                    last_progress = self.clock()
                    self.progress(f"recording: {self.stats.events - self.stats.initial_objects:,} events, "
                                  f"{int(last_progress - start)}s")
        except KeyboardInterrupt:
            self.stats.reason = "interrupted"
        finally:
            self.stop.set()
            self.stats.ended = self.clock()
            self.writer.close()
            self._end_watches()
        return self.stats

    def _end_watches(self) -> None:
        """Close the watch streams and wait a moment for their threads, so that none is left
        blocked in a read while the process exits."""
        close = getattr(self.reader, "close_streams", None)
        if close is not None:
            close()
        # one second for all of them, not one each: twenty watches blocked in a request would
        # otherwise hold a `--duration 1s` recording for twenty seconds (the threads are daemons)
        deadline = time.monotonic() + 1.0
        for t in self._threads:
            t.join(timeout=max(0.0, deadline - time.monotonic()))


def record(path: str, *, kubeconfig: str | None = None, context: str | None = None,
           request_timeout: str | float | None = None, duration: float | None = None,
           max_events: int | None = None, redact: bool = True, namespace: str | None = None,
           stop: threading.Event | None = None, progress: Progress | None = None,
           watch_timeout: int = DEFAULT_WATCH_TIMEOUT, chunk_size: int = live.DEFAULT_CHUNK_SIZE,
           notice: Notice | None = None) -> RecordStats:
    """Record the live cluster into the trace at `path` until a limit or `stop`. `notice` hears
    each note on what could not be read (as it happens); RecordStats.notes keeps them too."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        reader = live.LiveCluster(conn, chunk_size=chunk_size, progress=progress)
        version = reader.server_version()
        rec = Recorder(reader, path, context=conn.context or "in-cluster", server_version=version, redact=redact,
                       duration=duration, max_events=max_events, namespace=namespace, stop=stop, progress=progress,
                       watch_timeout=watch_timeout, notice=notice)
        return rec.run()
    finally:
        conn.close()
