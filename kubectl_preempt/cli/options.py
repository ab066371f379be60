"""Options shared by every command, defined once (as pip-tools does) so their names, short flags
and help read the same everywhere."""
from __future__ import annotations

from typing import Annotated, Any, Callable, Mapping, Optional, Sequence

import typer

from ..errors import InputError, UsageError, quote
from ..api import format_seconds, limits, parse_seconds
from ..render import FORMATS
from ..render.output import check_format, extended_formats


def _choice(choices: Sequence[str]) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"{quote(value)} is not one of {', '.join(choices)}")
        return value
    return check


def _format(choices: Sequence[str]) -> Callable[[str], str]:
    def check(value: str) -> str:
        why = check_format(value, choices)
        if why is not None:
            raise typer.BadParameter(why.replace(repr(value), quote(value), 1))
        return value
    return check


def output_option(choices: Sequence[str] = FORMATS, *, habits: bool = True) -> typer.models.OptionInfo:
    """-o: the command's formats and, with `habits`, kubectl's `name` and `jsonpath=TEMPLATE`
    (render/output.py renders them; a command hands its document and its list's pod keys)."""
    if not habits:
        return typer.Option("--output", "-o", metavar="|".join(choices), callback=_choice(choices),
                            help="Output format: " + ", ".join(choices) + ".")
    shown = extended_formats(choices)
    return typer.Option("--output", "-o", metavar="|".join(shown), callback=_format(choices),
                        help="Output format: " + ", ".join(shown) + ". name prints pod/NAME of each pod the "
                             "table lists, as kubectl does; jsonpath=TEMPLATE applies a kubectl JSONPath template "
                             "to what -o json prints" + (" (wide: the table, never cut to the terminal)"
                                                         if "wide" in choices else "") + ".")


Output = Annotated[str, output_option()]

NoHeaders = Annotated[bool, typer.Option(
    "--no-headers",
    help="With -o table or wide: print only the rows of the command's list (one line each, no header, "
         "nothing cut), for scripts, as kubectl get --no-headers.")]

Selector = Annotated[Optional[str], typer.Option(
    "--selector", "-l", metavar="SELECTOR",
    help="Without PODs: only the pods whose labels match (kubectl's syntax: key=value, key!=value, "
         "key in (a,b), key notin (a), key, !key; comma-separated terms all hold).")]


def html_option(help: str) -> typer.models.OptionInfo:
    """--html FILE, with what `-` does (the page on standard output instead of the usual output)."""
    return typer.Option("--html", metavar="FILE", show_default=False,
                        help=help + " - writes the page to standard output instead of the usual output.")

def output_compat_option(metavar: str) -> typer.models.OptionInfo:
    """capture's and record's -o FILE, kept for compatibility: everywhere else -o is a format."""
    return typer.Option("--output", "-o", metavar=metavar, show_default=False,
                        help="The same as --output-file, kept for compatibility: unlike every other command's -o, "
                             "it names a file, not a format.")


Namespace = Annotated[Optional[str], typer.Option(
    "--namespace", "-n", metavar="NS",
    help="Namespace of POD names given without one (default: default); without PODs, explain every "
         "pending pod in it.")]

AllNamespaces = Annotated[bool, typer.Option(
    "--all-namespaces", "-A", help="Without PODs, explain every pending pod in every namespace.")]

Context = Annotated[Optional[str], typer.Option(
    "--context", metavar="NAME", help="Kubeconfig context of the live cluster to read.")]

Kubeconfig = Annotated[Optional[str], typer.Option(
    "--kubeconfig", metavar="FILE", help="Kubeconfig file of the live cluster (default: $KUBECONFIG or "
                                         "~/.kube/config).")]

Snapshot = Annotated[Optional[str], typer.Option(
    "--snapshot", "-s", metavar="FILE",
    help="Read the cluster from this file instead of the live cluster: a List (JSON/YAML), a YAML "
         "stream, a conformance case, any of them gzipped, or - for stdin.")]

ConfigFile = Annotated[Optional[str], typer.Option(
    "--config", metavar="FILE",
    help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) to use instead of the default "
         "profile; the pod's schedulerName picks the profile.")]

Seed = Annotated[int, typer.Option(
    "--seed", metavar="N", help="Seed of the scheduler's random choices (the preemption candidate offset); "
                                "0 keeps output reproducible.")]

KubernetesVersion = Annotated[Optional[str], typer.Option(
    "--kubernetes-version", metavar="VERSION",
    help="The kube-scheduler release to imitate: v1.30 (v1.30.1), v1.31 (v1.31.1), v1.32 (v1.32.2), v1.33 "
         "(v1.33.0), v1.34 (v1.34.1), v1.35 (v1.35.6) or v1.36 (v1.36.2); another patch maps to its minor's, another minor to the "
         "nearest, with a note. Default: the version the data names (a captured snapshot's, a trace's, the "
         "live server's), else v1.34.1.")]

FeatureGates = Annotated[Optional[str], typer.Option(
    "--feature-gates", metavar="GATE=true|false,...",
    help="kube-scheduler's --feature-gates: the release decides with these gates set, checked against its own "
         "(an unknown gate, or one locked to its default, is refused with kube-scheduler's words), e.g. "
         "PodLevelResources=true on v1.33. A scheduling gate whose behaviour is not imitated is refused when set "
         "away from its default; a gate that does not touch scheduling is accepted and shown as having no effect. "
         "Shown with the release that decided.", show_default=False)]

RequestTimeout = Annotated[Optional[str], typer.Option(
    "--request-timeout", metavar="DURATION",
    help="How long to wait for each answer of the API server (e.g. 30s, 1m; 0 waits forever), "
         "as kubectl's flag.")]

Runs = Annotated[int, typer.Option(
    "--runs", metavar="N", min=1, max=limits.MAX_RUNS,
    help="Replay N times, each run with its own random choices (the node among equal scores, the "
         "preemption candidate offset, the node among candidates tied after the choice chain), and report "
         "distributions (p5, p50, p95, min, max; nearest-rank). Run 1 keeps the choices of a single replay; "
         f"run k draws from a seed derived from --seed. At most {limits.MAX_RUNS:,}; runs are counted as they "
         "finish, so memory does not grow with N.")]

Jobs = Annotated[Optional[int], typer.Option(
    "--jobs", "-j", metavar="N", min=1,
    help="Local processes the runs fan out over (default, and at most: the cores this process may run on; "
         "more would only share them, each with its own copy of the replay); the result is the same "
         "whatever N.", show_default=False)]

Ray = Annotated[Optional[str], typer.Option(
    "--ray", metavar="ADDRESS",
    help="Fan the runs out over the Ray cluster at ADDRESS (host:port, ray://host:port, or 'local' to start "
         "one here); needs the extra kubectl-preempt[ray]. The result is the same as with --jobs.",
    show_default=False)]


# --- limits on input (model/limits.py): each raises one limit for the rest of the command ----------

def _max_input_size(value: Optional[str]) -> Optional[str]:
    if value is not None:
        limits.override(max_input_bytes=limits.parse_size(value, "--max-input-size"))
    return value


def _max_trace_span(value: Optional[str]) -> Optional[str]:
    if value is not None:
        limits.override(max_trace_span=limits.parse_span(value, "--max-trace-span"))
    return value


def _max_trace_events(value: Optional[int]) -> Optional[int]:
    if value is not None:
        limits.override(max_trace_events=value)
    return value


MaxInputSize = Annotated[Optional[str], typer.Option(
    "--max-input-size", metavar="SIZE", callback=_max_input_size, show_default=False,
    help=f"Refuse an input file larger than SIZE once gunzipped (default "
         f"{limits.format_size(limits.DEFAULT.max_input_bytes)}; e.g. 4Gi). YAML deeper than "
         f"{limits.MAX_DEPTH} levels or with more than {limits.MAX_ALIASES:,} aliases is always refused.")]

MaxTraceSpan = Annotated[Optional[str], typer.Option(
    "--max-trace-span", metavar="DURATION", callback=_max_trace_span, show_default=False,
    help=f"Refuse a trace whose last event is more than DURATION after its start (default "
         f"{limits.format_span(limits.DEFAULT.max_trace_span)}; e.g. 90d): a replay's work grows with the span.")]

MaxTraceEvents = Annotated[Optional[int], typer.Option(
    "--max-trace-events", metavar="N", min=1, callback=_max_trace_events, show_default=False,
    help=f"Refuse a trace of more than N events (default {limits.DEFAULT.max_trace_events:,}).")]


# --- narrowing a replay's timeline: -n/-A, --since, --until (reusable by history, plan...) ----------

ReplayNamespace = Annotated[Optional[str], typer.Option(
    "--namespace", "-n", metavar="NS",
    help="Show only the preemptions touching NS: its pod preempted, or a pod of it was a victim. The "
         "replay still runs the whole cluster (every namespace shapes every decision); the summary "
         "counts it all.")]

ReplayAllNamespaces = Annotated[bool, typer.Option(
    "--all-namespaces", "-A", help="Show the preemptions of every namespace (the default).")]

Since = Annotated[Optional[str], typer.Option(
    "--since", metavar="TIME|DURATION",
    help="Show only the preemptions at or after TIME (RFC 3339, e.g. 2026-03-01T10:05:00Z) or DURATION "
         "after the trace's start (e.g. 5m). The replay still runs from the start: what comes before "
         "shapes what follows.")]

Until = Annotated[Optional[str], typer.Option(
    "--until", metavar="TIME|DURATION",
    help="Show only the preemptions at or before TIME (RFC 3339) or DURATION after the trace's start.")]


def _instant(value: str, flag: str, start: Optional[float]) -> float:
    """An RFC 3339 time, or a duration after the trace's start, as seconds since the epoch."""
    t = parse_seconds(value)
    if t is not None:
        return t
    try:
        span = limits.parse_span(value, flag)
    except InputError:
        raise UsageError(f"{quote(value)} is neither an RFC 3339 time (2026-03-01T10:05:00Z) nor a duration "
                         "(30s, 5m, 1h)", field=flag) from None
    return (start or 0.0) + span


def timeline_window(since: Optional[str], until: Optional[str],
                    start: Optional[float]) -> tuple[Optional[float], Optional[float]]:
    """--since/--until as instants (None: open), refusing a window that ends before it starts."""
    lo = _instant(since, "--since", start) if since is not None else None
    hi = _instant(until, "--until", start) if until is not None else None
    if lo is not None and hi is not None and hi < lo:
        raise UsageError(f"--until {until} is before --since {since}", field="--until")
    return lo, hi


def touches(preemption: Mapping[str, Any], namespace: str) -> bool:
    """Whether a preemption involves NS: its preemptor, or one of its victims, lives there."""
    keys = [preemption.get("preemptor") or ""] + list(preemption.get("victims") or ())
    return any(str(k).partition("/")[0] == namespace for k in keys)


def narrow_timeline(report: Mapping[str, Any], *, namespace: Optional[str] = None,
                    window: tuple[Optional[float], Optional[float]] = (None, None)) -> dict[str, Any]:
    """The report with only the preemptions in NS and the window; `shown` says what was kept of how
    many, so that -o json says it was narrowed."""
    lo, hi = window
    pre = list(report.get("preemptions") or ())
    kept = []
    for p in pre:
        if namespace is not None and not touches(p, namespace):
            continue
        t = parse_seconds(p.get("time"))
        if t is not None and ((lo is not None and t < lo) or (hi is not None and t > hi)):
            continue
        kept.append(p)
    shown: dict[str, Any] = {"preemptions": len(kept), "of": len(pre)}
    if namespace is not None:
        shown["namespace"] = namespace
    if lo is not None:
        shown["since"] = format_seconds(lo)
    if hi is not None:
        shown["until"] = format_seconds(hi)
    return {**report, "preemptions": kept, "shown": shown}
