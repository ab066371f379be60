"""kubectl preempt replay: a recorded stretch of time through the offline scheduler."""
from __future__ import annotations

import sys
import time
from typing import Annotated, Any, Optional

import typer

from .. import api
from ..api import DEFAULT_API_LATENCY, STDOUT, parse_feature_gates
from ..errors import UsageError
from ..render.replay import REPLAY_FORMATS, gap_notes, render_replay
from . import options
from .session import BatchSchedulerName
from .common import finish_outputs, guard, note, Progress, stdin_once, write_output

DEMO_TRACE = "demo.jsonl.gz"

HELP = """Replay a trace (from `kubectl preempt record`, a `kubectl get --watch --output-watch-events
-o json` stream, or a snapshot) through kube-scheduler's offline copy (the release the trace was
recorded from, or --kubernetes-version; v1.34.1 when neither says), on a virtual clock,
much faster than real time. Prints a timeline of preemptions (when, who, on which node, whom it
evicted and why there) and a summary: preemptions by PriorityClass and namespace, pods never
scheduled, time to schedule.

By default the offline scheduler owns every pending pod (simulate mode): what people, controllers
and nodes did is applied at its time, what the recorded scheduler did is left out. With --follow
the recording is applied as it happened and every preemption the cluster made is explained at
that instant, flagged where the offline verdict differs.

What-if: --priorityclasses replaces or adds PriorityClasses (pods created during the trace get
their priority from them; pods existing at its start keep theirs unless --reresolve-existing);
--config replays with another KubeSchedulerConfiguration.

Distributions: kube-scheduler breaks ties at random, so one replay is one draw. --runs N replays N
times, each run with its own random choices, and reports p5/p50/p95/min/max of the preemptions and
of the victims per PriorityClass, namespace and owning workload, each pod's probability of being
evicted or left pending, and time to schedule; the timeline shown is the run with the median
number of preemptions. Runs fan out over --jobs processes or a Ray cluster (--ray), with the same
result whatever the fan-out.

Workload controllers in simulate mode: a pod owned by a ReplicaSet (a Deployment's), a
ReplicationController, a StatefulSet or a Job that the replay deletes and the recording did not is
re-created as its controller would (ReplicaSet and ReplicationController 0.1 s after the pod gets
its deletionTimestamp, keeping the recorded spec.replicas; StatefulSet under the same name 0.1 s
after the old pod is gone; Job after the pod failure back-off, 10 s doubling per failure up to 10
min); a recorded creation that replaced a pod the replay kept is not applied. PodDisruptionBudget
status follows the replayed pods 0.08 s after they change, with the owners' scale as the expected
count, as the disruption controller computes it (delays measured on a real cluster).

kube-batch beside kube-scheduler (simulate mode): pods whose schedulerName is kube-batch's
(--batch-scheduler-name) are placed by kube-batch's session, run every --schedule-period (1 s)
with --batch-scheduler-conf while any of them is pending; its reclaim and preempt evictions are
preemptions that say the scheduler and the action, for whom, and which plugins made each victim
eligible.

Without TRACE, the bundled demo trace is replayed."""

EPILOG = """\b
Examples:
  # the bundled demo: serving and batch across zones, with PDBs
  kubectl preempt replay
\b
  # your own recording, as a table, then as data
  kubectl preempt replay prod.jsonl.gz
  kubectl preempt replay prod.jsonl.gz -o json > replay.json
\b
  # only the preemptions touching one namespace, in the trace's first half hour
  kubectl preempt replay prod.jsonl.gz -n team-a --until 30m
\b
  # what the cluster did, explained decision by decision
  kubectl preempt replay prod.jsonl.gz --follow
\b
  # what would have happened with the proposed classes
  kubectl preempt replay prod.jsonl.gz --priorityclasses proposed.yaml -o markdown
\b
  # every preemption decision as a conformance case, to check against the reference scheduler
  kubectl preempt replay prod.jsonl.gz --dump-decisions cases/
\b
  # 30 runs with their own random choices: distributions, on 4 processes or a Ray cluster
  kubectl preempt replay prod.jsonl.gz --runs 30 --jobs 4
  kubectl preempt replay prod.jsonl.gz --runs 30 --ray ray-head:6379 -o json
\b
  # kube-batch and kube-scheduler sharing the bundled cluster
  kubectl preempt replay traces/two-schedulers.jsonl.gz --batch-scheduler-conf traces/kube-batch.conf"""


def register(app: typer.Typer) -> None:
    app.command("replay", help=HELP, epilog=EPILOG)(replay)


class _Progress:
    """How far the virtual clock has come, on a terminal's status line (at most five times a second)."""

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end
        self.last = 0.0
        self.line = Progress()

    def __call__(self, now: float, end: float, decisions: int) -> None:
        wall = time.monotonic()
        if wall - self.last < 0.2:
            return
        self.last = wall
        span = max(end - self.start, 1e-9)
        pct = min(100, int(100 * (now - self.start) / span))
        self.line(f"replaying: {pct}% of the trace, {decisions:,} scheduling decisions")

    def clear(self) -> None:
        self.line.clear()


class _RunProgress:
    """How many runs are done, on a terminal's status line."""

    def __init__(self) -> None:
        self.line = Progress()

    def __call__(self, done: int, runs: int) -> None:
        self.line(f"replaying: {done} of {runs} runs done")

    def clear(self) -> None:
        self.line.clear()


def _feature_gates(text: str | None) -> dict[str, bool]:
    """--feature-gates as kube-scheduler reads it (featureGate.Set): NAME=BOOL, comma-separated;
    checked against the release's gates once the release is known (replay/api.py)."""
    return dict(parse_feature_gates(text))


@guard
def replay(
    trace: Annotated[Optional[str], typer.Argument(
        metavar="TRACE", help="Trace file (.jsonl, .jsonl.gz, a kubectl watch stream or a snapshot; - for "
                                "stdin). Default: the bundled demo.", show_default=False)] = None,
    follow: Annotated[bool, typer.Option(
        "--follow", help="Apply the recording as it happened and explain each preemption the cluster made.")] = False,
    priorityclasses: Annotated[Optional[list[str]], typer.Option(
        "--priorityclasses", metavar="FILE",
        help="PriorityClass manifests that replace or add classes (what-if); repeatable.",
        show_default=False)] = None,
    reresolve_existing: Annotated[bool, typer.Option(
        "--reresolve-existing",
        help="With --priorityclasses: give pods that exist at the trace's start the new priorities too.")] = False,
    config: options.ConfigFile = None,
    output: Annotated[str, options.output_option(REPLAY_FORMATS)] = "table",
    no_headers: options.NoHeaders = False,
    namespace: options.ReplayNamespace = None,
    all_namespaces: options.ReplayAllNamespaces = False,
    since: options.Since = None,
    until: options.Until = None,
    dump_decisions: Annotated[Optional[str], typer.Option(
        "--dump-decisions", metavar="DIR",
        help="Write every preemption decision as a conformance case file (the cluster at that instant "
             "plus the preemptor) into DIR, which must be empty or new (see --overwrite).",
        show_default=False)] = None,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Let --dump-decisions write into a directory that is not empty (cases of the same "
                            "name are replaced, others stay).")] = False,
    seed: options.Seed = 0,
    max_input_size: options.MaxInputSize = None,
    max_trace_span: options.MaxTraceSpan = None,
    max_trace_events: options.MaxTraceEvents = None,
    html: Annotated[Optional[str], options.html_option(
        "Also write the replay as one self-contained HTML page (no network needed to view it): a "
        "timeline per node, the summary, filters, and the why of each preemption.")] = None,
    kubernetes_version: options.KubernetesVersion = None,
    runs: options.Runs = 1,
    jobs: options.Jobs = None,
    ray: options.Ray = None,
    api_latency: Annotated[Optional[float], typer.Option(
        "--api-latency", metavar="SECONDS", min=0.0,
        help="How long each API call of the scheduler takes in simulate mode. With asynchronous preemption "
             "a victim's status patch and its deletion are two such calls, made for all victims but the last "
             "in parallel while the preemptor waits; the preemptor is released before the last victim's calls, "
             "so it may be tried again before that victim is deleted. Default: what the trace's own calls took "
             "(the median time from a recorded victim's DisruptionTarget patch to its deletion, with 5 or more "
             f"such victims), else {DEFAULT_API_LATENCY}, that median on a real kube-scheduler v1.34.1 cluster "
             "(../shared/realcluster, 79 victims). The JSON says which (asyncPreemption.apiLatencyFrom). "
             "With --runs, runs 2 and later draw each call's time from the trace's measured calls instead.",
        show_default=False)] = None,
    feature_gates: Annotated[Optional[str], typer.Option(
        "--feature-gates", metavar="GATE=true|false,...",
        help="kube-scheduler's --feature-gates, checked against the release's own gates (an unknown or locked "
             "gate is refused as kube-scheduler refuses it). Those that change a verdict here: "
             "DynamicResourceAllocation, PodLevelResources, InPlacePodVerticalScaling, the DRA and other "
             "scheduling gates; SchedulerAsyncPreemption (on since v1.33; false makes a preemption's API calls "
             "at the decision, as the scheduler does with the gate off).",
        show_default=False)] = None,
    batch_scheduler_name: BatchSchedulerName = "kube-batch",
    batch_scheduler_conf: Annotated[Optional[str], typer.Option(
        "--batch-scheduler-conf", metavar="FILE",
        help="kube-batch's configuration file (actions and plugin tiers) for the pods it schedules; default: "
             "kube-batch's own (allocate, backfill), which evicts nobody.", show_default=False)] = None,
    schedule_period: Annotated[float, typer.Option(
        "--schedule-period", metavar="SECONDS",
        help="Seconds between kube-batch's sessions (its --schedule-period). A period that makes more "
             "sessions over the trace than --max-trace-events is refused.")] = 1.0,
) -> None:
    if namespace is not None and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces do not go together")
    if reresolve_existing and not priorityclasses:
        raise UsageError("--reresolve-existing needs --priorityclasses")
    gates = _feature_gates(feature_gates)
    if runs > 1 and follow:
        raise UsageError("--runs needs simulate mode: --follow applies the recording as it happened, "
                         "with nothing left to chance")
    if runs > 1 and dump_decisions:
        raise UsageError("--dump-decisions writes the decisions of one run; use it with --runs 1")
    stdin_once(("TRACE", trace), ("--priorityclasses", priorityclasses), ("--config", config),
               ("--batch-scheduler-conf", batch_scheduler_conf))
    shown = _Shown(since, until, runs)
    try:
        result = api.replay_request(
            trace, bundled=DEMO_TRACE, follow=follow, priorityclasses=priorityclasses or (),
            reresolve_existing=reresolve_existing, config=config, seed=seed, dump_decisions=dump_decisions,
            overwrite=overwrite, html=html, kubernetes_version=kubernetes_version, feature_gates=gates, runs=runs,
            jobs=jobs, ray_address=ray, api_latency=api_latency, batch_scheduler_name=batch_scheduler_name,
            batch_scheduler_conf=batch_scheduler_conf, schedule_period=schedule_period,
            stdin_taken=trace == "-" or "-" in (priorityclasses or ()), watch=shown.watch, note=note)
    finally:
        shown.clear()
    if namespace is not None or shown.window != (None, None):
        # the HTML page shows the narrowed report too: result.page() renders result.report
        result.report = options.narrow_timeline(result.report, namespace=namespace, window=shown.window)
    _finish(result, trace is None, output, no_headers, html, dump_decisions)


class _Shown:
    """What replay shows around the run, set up once the trace is read: --since/--until as
    instants of the trace (refused before anything else is read), and the progress line."""

    def __init__(self, since: Optional[str], until: Optional[str], runs: int) -> None:
        self.since, self.until, self.runs = since, until, runs
        self.window: tuple[Optional[float], Optional[float]] = (None, None)
        self.progress: Optional[_Progress | _RunProgress] = None

    def watch(self, tr: Any) -> tuple[Optional[_Progress], Optional[_RunProgress]]:
        self.window = options.timeline_window(self.since, self.until, tr.start)
        if not (sys.stderr.isatty() and tr.events):
            return None, None
        if self.runs > 1:
            self.progress = _RunProgress()
            return None, self.progress
        self.progress = _Progress(tr.events[0]["ts"], tr.events[-1]["ts"])
        return self.progress, None

    def clear(self) -> None:
        if self.progress is not None:
            self.progress.clear()


def _finish(result: Any, bundled: bool, output: str, no_headers: bool, html: Optional[str],
            dump_decisions: Optional[str]) -> None:
    """The report rendered, with the notes that go to stderr, then --html's page and the count of
    --dump-decisions' cases."""
    report, source = result.report, result.source
    if bundled:
        note(f"replaying the bundled demo trace ({DEMO_TRACE}); give a TRACE file to replay your own")
    if output not in ("table", "markdown") or html == STDOUT:
        # the table and markdown say it in their head; data formats on stderr
        for line in gap_notes(report.get("trace") or {}):
            note(line.replace("note: ", f"note: {source}: ", 1) if source else line)
    if html != STDOUT:
        write_output(render_replay(report, output, no_headers=no_headers))
    finish_outputs(html, result.page, private=result.private, what="report",
                   dump_decisions=dump_decisions, written=result.written)
