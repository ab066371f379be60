"""kubectl preempt history: what got preempted recently, by whom, from the cluster's own records."""
from __future__ import annotations

import re
import sys
from typing import Annotated, Optional

import typer

from .. import api
from ..errors import ClusterError, ExitCode, UsageError, quote
from ..render.history import FORMATS, render_history, summary_line, whole_pod_groups
from . import options
from .common import error_line, guard, note, Progress, write_output

HELP = """What got preempted recently, and by whom: one line per victim, with its PriorityClass,
the pod that preempted it and that pod's class, the node, and how it was found.

Read from what the cluster records (GET requests only): the scheduler's Preempted Events on the
victims ("Preempted by pod <UID> on node <node>", through events.k8s.io/v1 and v1; the API server
keeps them about an hour), the victims' DisruptionTarget condition (reason PreemptionByScheduler,
kept while a victim terminates and on pods that ended Failed), and the preemptors'
nominatedNodeName. FOUND says which of them showed a victim: event, condition or both; a
preemptor named only by its nomination is marked +nomination. The preemptor's name is resolved
from the Event's UID through the pod, else the Event's related object, else the UID is shown
with a note. Where the sources disagree (another node, another pod) the row says CONFLICT.
kube-batch's evictions show with its Evict Event's reason (preempt or reclaim).

--snapshot reads a file `kubectl preempt capture` wrote (it keeps the last hour's Preempted
Events); --trace a recording of `kubectl preempt record`: every preemption it saw, a victim
without an Event attributed to the pod nominated to its node at the same instant. From v1.35
kube-scheduler also nominates a pod it placed that waits at Permit or PreBind, so a nomination
alone names no preemptor there (the release: --kubernetes-version, else the API server's).

Without access to Events, the missing permission is named (exit 3) and the pods' conditions
are still listed."""

EPILOG = """\b
Examples:
  # the last hour, every namespace of the current context
  kubectl preempt history -A
\b
  # the last 20 minutes of one namespace, as JSON
  kubectl preempt history -n batch --since 20m -o json
\b
  # from a snapshot (the hour before it was captured), and from a recording
  kubectl preempt history -A --snapshot prod.json.gz
  kubectl preempt history -A --trace rollout.jsonl.gz -o wide
\b
  # for a script: the victims (pod/NAME), and the rows without their header
  kubectl preempt history -A -o name
  kubectl preempt history -A --no-headers"""

# Go's time.ParseDuration units, as kubectl's --since (kubectl logs) takes them
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
DEFAULT_SINCE = "1h"


def parse_since(text: str) -> float:
    """A Go duration ("1h", "20m", "1h30m", "90s"), in seconds; more than zero."""
    s = text.strip()
    parts = _PART.findall(s)
    if not parts or "".join(n + u for n, u in parts) != s:
        raise UsageError(f"{quote(text)} is not a duration such as 1h, 20m or 1h30m", field="--since")
    seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds > api.limits.GO_LONGEST_DURATION_SECONDS:
        raise UsageError(api.limits.too_long_for_go(text), field="--since")
    if seconds <= 0:
        raise UsageError(f"{quote(text)} must be more than zero", field="--since")
    return seconds


def register(app: typer.Typer) -> None:
    app.command("history", help=HELP, epilog=EPILOG)(history)


@guard
def history(
    namespace: Annotated[Optional[str], typer.Option(
        "--namespace", "-n", metavar="NS",
        help="Victims in NS only (default: the context's namespace live; every namespace in a file).")] = None,
    all_namespaces: Annotated[bool, typer.Option(
        "--all-namespaces", "-A", help="Victims in every namespace.")] = False,
    since: Annotated[Optional[str], typer.Option(
        "--since", metavar="DURATION",
        help="How far back: a duration such as 1h, 20m, 1h30m (default 1h before now, or before the "
             "snapshot was captured; a trace: all of it).", show_default=False)] = None,
    snapshot: options.Snapshot = None,
    trace: Annotated[Optional[str], typer.Option(
        "--trace", metavar="TRACE", help="Read a recording of `kubectl preempt record` (or - for stdin).")] = None,
    output: Annotated[str, options.output_option(FORMATS)] = "table",
    no_headers: options.NoHeaders = False,
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
    kubernetes_version: Annotated[Optional[str], typer.Option(
        "--kubernetes-version", metavar="VERSION",
        help="The kube-scheduler release that wrote the records (default: the one the API server's version "
             "names); from v1.35 it also nominates pods it placed, so a nomination alone names no preemptor.")] = None,
) -> None:
    if namespace is not None and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces do not go together")
    if snapshot is not None and trace is not None:
        raise UsageError("--snapshot and --trace do not go together: give one")
    window = parse_since(since) if since is not None else None
    ns = None if all_namespaces else namespace
    doc, refusal = _history(ns, namespace is None and not all_namespaces, window, snapshot, trace, context,
                            kubeconfig, request_timeout, kubernetes_version)
    _print(doc, output, no_headers)
    if refusal:
        print(error_line(ClusterError(refusal)), file=sys.stderr)
        raise typer.Exit(int(ExitCode.CLUSTER))


def _history(ns: Optional[str], context_namespace: bool, window: Optional[float], snapshot: Optional[str],
             trace: Optional[str], context: Optional[str], kubeconfig: Optional[str],
             request_timeout: Optional[str], kubernetes_version: Optional[str] = None) -> tuple[dict, str]:
    progress = Progress() if sys.stderr.isatty() else None
    try:
        return api.history_request(ns, window, parse_since(DEFAULT_SINCE), snapshot=snapshot, trace=trace,
                                   context_namespace=context_namespace, context=context, kubeconfig=kubeconfig,
                                   request_timeout=request_timeout, progress=progress,
                                   kubernetes_version=kubernetes_version)
    finally:
        if progress is not None:
            progress.clear()


def _print(doc: dict, output: str, no_headers: bool) -> None:
    for n in doc.get("notes") or ():
        note(f"note: {n}")
    write_output(render_history(doc, output, no_headers=no_headers))
    if output in ("table", "wide", "name") and not doc.get("items"):
        note(summary_line(doc))  # as kubectl's "No resources found", on stderr
    elif output in ("table", "wide"):
        for line in whole_pod_groups(doc):
            note(f"note: {line}")
