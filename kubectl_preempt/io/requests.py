"""The live cluster's small requests: capture (the cluster into a snapshot file), record (a
trace), version's /version, completion's names; and the bundled files `demo` runs on."""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from ..errors import UsageError, quote
from ..framework.versions import resolve_kubernetes_version
from . import bundled, live
from .record import Notice, Progress, record


def server_version_info(context: str | None = None, kubeconfig: str | None = None,
                        request_timeout: str | None = None) -> dict[str, Any]:
    """The API server's /version (gitVersion, ...), read through the context as kubectl version
    reads it; a ClusterError when it cannot be reached."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        return live.LiveCluster(conn).version_info()
    finally:
        conn.close()




kubeconfig_paths = live.kubeconfig_paths  # the kubeconfig files kubectl would read, for --context's names


def live_pod_names(context: str | None, kubeconfig: str | None, request_timeout: str | None,
                   namespace: str | None) -> tuple[str, list[str]]:
    """The namespace read (`namespace`, else the context's when None) and the names of its pods."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        target = conn.namespace if namespace is None else namespace
        items = live.LiveCluster(conn).list(live.SPECS_BY_KIND["Pod"], target)
        return target, [(o.get("metadata") or {}).get("name") or "" for o in items]
    finally:
        conn.close()


def live_namespace_names(context: str | None, kubeconfig: str | None, request_timeout: str | None) -> list[str]:
    """The names of the cluster's namespaces, sorted."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        items = live.LiveCluster(conn).list(live.SPECS_BY_KIND["Namespace"])
        return sorted((o.get("metadata") or {}).get("name") or "" for o in items)
    finally:
        conn.close()


_SUMMARY_KINDS = (("Node", "node", "nodes"), ("Pod", "pod", "pods"), ("PodDisruptionBudget", "PDB", "PDBs"),
                  ("PriorityClass", "PriorityClass", "PriorityClasses"))


def default_snapshot_filename(context: str | None, now: Any) -> str:
    """capture's file when none is named: snapshot-<context>-<UTC time>.json.gz."""
    # context names may be ARNs or URLs ("arn:aws:eks:...:cluster/prod"): keep a file name plain
    ctx = re.sub(r"[^A-Za-z0-9._-]+", "_", context or "in-cluster").strip("_") or "cluster"
    return f"snapshot-{ctx}-{now.astimezone(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.json.gz"


def snapshot_summary(doc: Mapping[str, Any]) -> str:
    """A snapshot's object counts in a few words: nodes, pods, PDBs, PriorityClasses, the rest."""
    counts: dict[str, int] = {}
    for item in doc.get("items") or ():
        counts[item.get("kind")] = counts.get(item.get("kind"), 0) + 1
    parts = []
    for kind, one, many in _SUMMARY_KINDS:
        n = counts.pop(kind, 0)
        parts.append(f"{n:,} {one if n == 1 else many}")
    rest = sum(counts.values())
    if rest:
        parts.append(f"{rest:,} other objects")
    return ", ".join(parts)


def snapshot_context(doc: Mapping[str, Any]) -> str | None:
    """The context a snapshot was captured from (its annotation)."""
    return ((doc.get("metadata") or {}).get("annotations") or {}).get(live.ANN_CONTEXT)


@dataclass
class Captured:
    """What capture wrote: where, a summary of its objects, whether redacted, the server's version."""
    path: str
    summary: str
    redacted: bool
    server_version: str


def capture_snapshot(output_file: str | None, *, kubeconfig: str | None = None, context: str | None = None,
                     namespace: str | None = None, request_timeout: str | None = None, redact: bool = True,
                     chunk_size: int = live.DEFAULT_CHUNK_SIZE, progress: Any = None,
                     progress_done: Callable[[], None] | None = None,
                     note: Callable[[str], None] | None = None) -> Captured:
    """`kubectl preempt capture`: the live cluster listed (io/live.py capture), its notes told to
    `note` (after `progress_done`), then the snapshot written to `output_file` (None: a timestamped
    file named by default_snapshot_filename; "-": standard output). Unredacted: readable by its owner only."""
    now = datetime.now(timezone.utc)
    try:
        doc, notes = live.capture(kubeconfig, context, namespace, request_timeout, redact=redact,
                                  progress=progress, chunk_size=chunk_size, now=now)
    finally:
        if progress_done is not None:
            progress_done()
    path = output_file or default_snapshot_filename(snapshot_context(doc), now)
    if note is not None:
        for n in notes:
            note(n)
    live.write_document(doc, path, private=not redact)
    return Captured(path, snapshot_summary(doc), redact, doc["metadata"]["annotations"][live.ANN_SERVER_VERSION])


def record_duration(duration: str | None) -> float | None:
    """record's --duration in seconds (None: until stopped); refused when not longer than 0."""
    if duration is None:
        return None
    seconds = live.parse_request_timeout(duration, field="--duration")
    if seconds is None:
        raise UsageError(f"{quote(duration)} must be longer than 0", field="--duration")
    return seconds


def record_summary(stats: Any, output_file: str) -> str:
    """What a recording wrote, in one line: objects at the start, events, re-lists, per kind, why it ended."""
    where = "standard output" if output_file == "-" else output_file
    kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(stats.per_kind.items()))
    return (f"wrote {where}: {stats.initial_objects:,} objects at the start, "
            f"{stats.events - stats.initial_objects:,} events over {int(stats.ended - stats.started)}s"
            + (f", {stats.relists} re-list(s) after 410 Gone" if stats.relists else "")
            + f" ({kinds}); ended: {stats.reason or 'done'}")


def record_trace(output_file: str, *, duration: str | None = None, max_events: int | None = None,
                 redact: bool = True, namespace: str | None = None, context: str | None = None,
                 kubeconfig: str | None = None, request_timeout: str | None = None,
                 stop: threading.Event | None = None, progress: Progress | None = None,
                 notice: Notice | None = None) -> str:
    """`kubectl preempt record`: --duration read, the live cluster recorded into `output_file`
    until a limit or `stop` (io/record.py record), and what was written, in one line."""
    seconds = record_duration(duration)
    stats = record(output_file, kubeconfig=kubeconfig, context=context, request_timeout=request_timeout,
                   duration=seconds, max_events=max_events, redact=redact, namespace=namespace, stop=stop,
                   progress=progress, notice=notice)
    return record_summary(stats, output_file)


def server_version_document(context: str | None = None, kubeconfig: str | None = None,
                            request_timeout: str | None = None) -> dict[str, Any]:
    """`kubectl preempt version`'s server part: the API server's /version, and the kube-scheduler
    release imitated for it (resolve_kubernetes_version's rule, with its note when not exact)."""
    info = server_version_info(context, kubeconfig, request_timeout)
    doc: dict[str, Any] = {"serverVersion": info}
    git_version = str(info.get("gitVersion") or "")
    resolved = resolve_kubernetes_version(None, git_version or None, data_source="the API server")
    doc["imitatedKubeSchedulerVersion"] = resolved.version.name
    if resolved.note:
        doc["imitatedKubeSchedulerNote"] = resolved.note.removeprefix("note: ")
    return doc


@dataclass
class BundledDemo:
    """What `demo` runs on (the example cluster and the demo trace every install carries, and
    where they are), or the files --copy-to wrote."""
    cluster: str
    trace: str
    root: str
    written: list[str]


def bundled_demo(cluster: str, trace: str, copy_to: str | None = None) -> BundledDemo:
    """The bundled files `demo` runs on, by their paths in the repository; with `copy_to`, the
    bundled examples/ and traces/ written into that directory instead (io/bundled.py)."""
    if copy_to is not None:
        return BundledDemo("", "", str(bundled.root()), [str(p) for p in bundled.copy_to(copy_to)])
    return BundledDemo(str(bundled.path(cluster)), str(bundled.path(trace)), str(bundled.root()), [])
