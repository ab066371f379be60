"""history's request: a recorded trace, a snapshot or the live cluster, read into one document
(history/build.py), with the release that wrote the records resolved once."""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping

from ..errors import ClusterError, InputError
from ..framework.versions import KubernetesVersion, kubelet_versions, resolve_kubernetes_version
from ..io import kinds, live
from ..io.release import captured_server_version, data_items
from ..io.snapshot import display_name
from ..io.trace import read_trace


def preemption_history(objects: Iterable[Mapping[str, Any]] = (), *,
                       trace_events: Iterable[Mapping[str, Any]] | None = None, now: float | None = None,
                       since: float | None = None, namespace: str | None = None,
                       pods_visible: Callable[[str], bool] | None = None, events_read: bool = True,
                       source: str = "", notes: Iterable[str] = (), checked: bool = False,
                       server_version: str | None = None,
                       kubernetes_version: str | KubernetesVersion | None = None) -> dict[str, Any]:
    """What got preempted (`history`): the scheduler's Preempted Events, victims' DisruptionTarget
    conditions and preemptors' nominations, and kube-batch's Evict Events, joined into one row per
    victim and preemptor, and grouped into preemptions. From the objects of one instant (a live
    read, a snapshot) or from every version a trace recorded (`trace_events`, {"ts", "type",
    "object"}). `since` seconds before `now` (default: the trace's last event) bound the rows;
    `namespace` keeps one namespace's victims; `checked`: the objects come from an API server, their
    shapes need no check (else a bad one is an InputError naming it). The kube-scheduler release
    that wrote them (`kubernetes_version`, else the one `server_version`, the API server's, picks:
    resolve_kubernetes_version) says whether a nomination alone shows a preemption (not with
    NominatedNodeNameForExpectation, on from v1.35). See history/build.py."""
    from .build import build_history, observe_objects, observe_trace

    if trace_events is not None:
        trace_events = list(trace_events)
        items = [e.get("object") or {} for e in trace_events]
    else:
        items = list(data_items(objects))
    resolved = resolve_kubernetes_version(kubernetes_version, server_version, data_source=source or "the data",
                                          kubelets=kubelet_versions(items))
    release = resolved.version
    if resolved.note:  # the release is never guessed in silence
        notes = [*notes, resolved.note.removeprefix("note: ")]

    obs = observe_trace(trace_events) if trace_events is not None else observe_objects(items, checked=checked)
    if now is None:
        now = obs.last_time
    return build_history(obs, now=now, since=since, namespace=namespace, pods_visible=pods_visible,
                         events_read=events_read, source=source, notes=notes,
                         nominations_name_preemptors=not release.gate_enabled("NominatedNodeNameForExpectation"))


def history_request(namespace: str | None, since: float | None, default_since: float, *,
                    snapshot: str | None = None, trace: str | None = None, context_namespace: bool = False,
                    context: str | None = None, kubeconfig: str | None = None, request_timeout: str | None = None,
                    progress: Callable[[str], None] | None = None,
                    kubernetes_version: str | None = None) -> tuple[dict[str, Any], str]:
    """`history`'s document from a recorded trace (every version it recorded), a snapshot (the
    `default_since` seconds before its capture unless `since`), or else the live cluster (the
    context's namespace with `context_namespace`); and the refusal to report once it is shown (a
    live read that could read pods or Events but not both), else "". An object of a bad shape in
    a file is an InputError naming the object and field, and here the file too."""
    try:
        return _history_document(namespace, since, default_since, snapshot=snapshot, trace=trace,
                                 context_namespace=context_namespace, context=context, kubeconfig=kubeconfig,
                                 request_timeout=request_timeout, progress=progress,
                                 kubernetes_version=kubernetes_version)
    except InputError as e:
        raise e.located(source=display_name(trace or snapshot) if (trace or snapshot) else None) from None


def _history_document(namespace: str | None, since: float | None, default_since: float, *,
                      snapshot: str | None, trace: str | None, context_namespace: bool, context: str | None,
                      kubeconfig: str | None, request_timeout: str | None,
                      progress: Callable[[str], None] | None,
                      kubernetes_version: str | None) -> tuple[dict[str, Any], str]:
    refusal = ""
    tr = read_trace(trace if trace is not None else snapshot, require=("Pod", "Event")) \
        if (trace or snapshot) is not None else None
    if snapshot is not None and tr is not None and tr.form != "snapshot":
        # as every command's --snapshot: a recording read as a snapshot would show its first
        # instant's pods against its later Events (preemptors <none>); --trace reads all of it
        kinds.wrong_kind(kinds.TRACE, kinds.SNAPSHOT, display_name(snapshot))
    if trace is not None and tr is not None:
        if tr.form == "snapshot":  # a snapshot given as --trace: a trace of one instant
            snapshot, trace = trace, None
        else:
            recorded = ((tr.header.get("recorder") or {}).get("kinds")) or ()
            events_read = "Event" in recorded or any((e.get("object") or {}).get("kind") == "Event" for e in tr.events)
            notes = list(tr.notes)
            if not events_read:
                notes.append(f"{display_name(trace)}: recorded without Events: victims are found by their "
                             "DisruptionTarget condition, preemptors by their nomination at the same instant")
            doc = preemption_history(trace_events=tr.events, since=since, namespace=namespace,
                                     events_read=events_read, source=display_name(trace), notes=notes,
                                     server_version=((tr.header.get("source") or {}).get("serverVersion")),
                                     kubernetes_version=kubernetes_version)
    if snapshot is not None and tr is not None:
        objects = [e.get("object") or {} for e in tr.events]
        # the reader's note on a snapshot ("replayed as a trace of one instant") is replay's; history
        # reads a snapshot as the hour before its capture, which its window says
        notes = [] if tr.form == "snapshot" else list(tr.notes)
        doc = preemption_history(objects, now=tr.start, since=since if since else default_since,
                                 namespace=namespace, source=display_name(snapshot), notes=notes,
                                 server_version=captured_server_version(snapshot), kubernetes_version=kubernetes_version)
    elif trace is None:
        doc, refusal = _live_history(namespace, context_namespace, since if since else default_since, context,
                                     kubeconfig, request_timeout, progress, kubernetes_version)
    return doc, refusal


def _live_history(namespace: str | None, context_namespace: bool, since: float, context: str | None,
                  kubeconfig: str | None, request_timeout: str | None,
                  progress: Callable[[str], None] | None,
                  kubernetes_version: str | None = None) -> tuple[dict[str, Any], str]:
    """Read the live cluster; the document, and the refusal to report once it is printed."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        if context_namespace:
            namespace = conn.namespace
        cluster = live.LiveCluster(conn, progress=progress)
        read = live.read_history(cluster, namespace)
        server = cluster.server_version()
    finally:
        conn.close()
    if not read.events_read and not read.pods_read:
        raise ClusterError(f"{read.events_refused}; and {read.pods_refused}")
    notes = list(read.notes)
    refusal = ""
    if not read.events_read:
        notes.append("no Events could be read: listing the victims the pods' DisruptionTarget conditions show "
                     "(preemptors from their nominations)")
        refusal = read.events_refused
    elif not read.pods_read:
        notes.append("no pods could be read: listing the victims the Events name (preemptors named by the Events)")
        refusal = read.pods_refused + ": the pods' conditions and nominations could not be read"
    source = f"context {conn.context}" if conn.context else "in-cluster"
    try:
        # checked as a snapshot's objects are, as explain checks a live read: a proxy before the
        # API server, or a server of another make, may answer objects of another shape
        doc = preemption_history(read.objects, now=time.time(), since=since, namespace=namespace,
                                 pods_visible=read.pods_visible, events_read=read.events_read, checked=False,
                                 source=source, notes=notes, server_version=server,
                                 kubernetes_version=kubernetes_version)
    except InputError as e:
        raise (e if e.source else e.located(source=source)) from None
    return doc, refusal
