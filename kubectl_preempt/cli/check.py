"""kubectl preempt check: a CI gate for PriorityClass changes."""
from __future__ import annotations

import sys
from typing import Annotated, Callable, Optional

import typer

from .. import api
from ..api import DEFAULT_FAIL_ON, FAIL_ON, STDOUT, write_atomic
from ..errors import ExitCode, MissingInput
from ..render.check_junit import render_junit
from ..render.check_output import CHECK_FORMATS, render_check
from ..render.replay import gap_notes
from . import options
from .common import guard, note, Progress, stdin_once, write_output

HELP = f"""Check proposed PriorityClasses before they merge: would the API server take them, and what
would change on recorded traffic?

Each proposed class is validated as the API server and its Priority admission plugin would
(value above 1000000000, the reserved system- prefix, a second globalDefault, an unknown
preemptionPolicy), in their words; a changed value or preemptionPolicy is reported as the delete
and re-create it takes, with the pods that keep their old priority. Every TRACE is then replayed
twice through kube-scheduler's offline copy (the release the trace was recorded from, or
--kubernetes-version; v1.34.1 when neither says), with the baseline classes and with the
proposed ones, and the two are compared pod by pod: newly preempted, no longer preempted, newly
unschedulable or newly scheduled, another preemptor or node.

The policy decides: --fail-on {'|'.join(FAIL_ON)} (repeatable), --protect-namespace NS (a new
victim there fails), --max-new-victims N (per trace). Without any of them: --fail-on
{' --fail-on '.join(DEFAULT_FAIL_ON)}. A class the API server refuses always fails.

With --runs N both sides are replayed N times over the same seeds (run k of the baseline and of
the proposal make the same random choices), and each rule is decided on the p95 over the paired
runs: --max-new-victims N fails when the p95 of the new victims per pair is above N, the other
rules when they flag something in more than 5% of the pairs; each flagged pod is listed with the
fraction of pairs flagging it, and -o json gives both sides' distributions and each pod's
probability of changing outcome. Runs fan out over --jobs processes or a Ray cluster (--ray).

Exit codes: 0 the change passes, 1 it fails the policy or validation, 2 bad input or usage."""

EPILOG = """\b
Examples:
  # the classes of a pull request against a recorded trace
  kubectl preempt check --trace prod.jsonl.gz --proposed priorityclasses/
\b
  # the directory before and after the change; a class left out is deleted
  kubectl preempt check --trace traces/ --baseline main/priorityclasses/ --proposed priorityclasses/
\b
  # stricter: no change at all, and nothing in kube-system may become a victim
  kubectl preempt check -t prod.jsonl.gz -p pc.yaml --fail-on any-change --protect-namespace kube-system
\b
  # the same gate on 20 paired runs of each trace: decided on the p95, not on one draw
  kubectl preempt check -t prod.jsonl.gz -p pc/ --runs 20 --max-new-victims 2
\b
  # a pull-request comment and JUnit results for CI
  kubectl preempt check -t prod.jsonl.gz -p pc/ -o markdown --junit check.xml >> "$GITHUB_STEP_SUMMARY\""""


def register(app: typer.Typer) -> None:
    app.command("check", help=HELP, epilog=EPILOG, options_metavar="--trace TRACE --proposed PATH [OPTIONS]")(check)


def _progress(line: Progress) -> Callable[[str, str], None]:
    def show(trace: str, which: str) -> None:
        # cut to one line of a narrow terminal: a wrapped line cannot be overwritten
        line(f"replaying {trace} with the {which} classes"[:78])

    return show


@guard
def check(
    trace: Annotated[Optional[list[str]], typer.Option(
        "--trace", "-t", metavar="TRACE",
        help="Trace to replay (from `kubectl preempt record`, a kubectl watch stream or a snapshot), or a "
             "directory of .jsonl/.jsonl.gz traces; repeatable.", show_default=False)] = None,
    proposed: Annotated[Optional[list[str]], typer.Option(
        "--proposed", "-p", metavar="PATH",
        help="PriorityClass manifests after the change: YAML/JSON files or directories (other kinds are "
             "skipped); repeatable.", show_default=False)] = None,
    baseline: Annotated[Optional[list[str]], typer.Option(
        "--baseline", "-b", metavar="PATH",
        help="PriorityClass manifests before the change (the whole set: a class --proposed leaves out is "
             "deleted). Default: the classes in each trace, with --proposed adding and replacing.",
        show_default=False)] = None,
    fail_on: Annotated[Optional[list[str]], typer.Option(
        "--fail-on", metavar="|".join(FAIL_ON),
        help="Fail on new victims, on pods that no longer get a node, or on any per-pod change; "
             "repeatable.", show_default=False)] = None,
    protect_namespace: Annotated[Optional[list[str]], typer.Option(
        "--protect-namespace", metavar="NS", help="Fail when a pod in NS becomes a victim; repeatable.",
        show_default=False)] = None,
    max_new_victims: Annotated[Optional[int], typer.Option(
        "--max-new-victims", metavar="N", help="Fail when a trace has more than N new victims.",
        show_default=False)] = None,
    output: Annotated[str, options.output_option(CHECK_FORMATS)] = "table",
    no_headers: options.NoHeaders = False,
    junit: Annotated[Optional[str], typer.Option(
        "--junit", metavar="FILE", help="Also write JUnit XML: a testsuite per trace, a testcase per rule.",
        show_default=False)] = None,
    config: options.ConfigFile = None,
    seed: options.Seed = 0,
    max_input_size: options.MaxInputSize = None,
    max_trace_span: options.MaxTraceSpan = None,
    max_trace_events: options.MaxTraceEvents = None,
    html: Annotated[Optional[str], options.html_option(
        "Also write one self-contained HTML page: per trace, the baseline replay above the proposed "
        "one, with the changed preemptions marked (replays each trace twice more).")] = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGates = None,
    runs: options.Runs = 1,
    jobs: options.Jobs = None,
    ray: options.Ray = None,
) -> None:
    if not trace:
        raise MissingInput("give at least one --trace", field="--trace")
    if not proposed:
        raise MissingInput("give the proposed PriorityClasses with --proposed", field="--proposed")
    stdin_once(("--trace", trace), ("--proposed", proposed), ("--baseline", baseline), ("--config", config))
    line = Progress() if sys.stderr.isatty() else None
    try:
        result = api.check_request(trace, proposed, baseline=baseline, fail_on=fail_on,
                                   protect_namespace=protect_namespace, max_new_victims=max_new_victims, config=config,
                                   seed=seed, kubernetes_version=kubernetes_version, feature_gates=feature_gates,
                                   runs=runs, jobs=jobs, ray_address=ray, html=html, junit=junit,
                                   progress=_progress(line) if line is not None else None, note=note)
    finally:
        if line is not None:
            line.clear()
    report, private = result.report, result.private

    if output not in ("table", "markdown") or html == STDOUT:
        # the table and markdown say it under each trace; data formats on stderr
        for t in report["traces"]:
            for line in gap_notes(t):
                note(line.replace("note: ", f"note: {t['trace']}: ", 1))
    if html != STDOUT:
        write_output(render_check(report, output, no_headers=no_headers))
    if junit:
        write_atomic(junit, render_junit(report), private=private, field="--junit")
    if html:
        page = result.page()
        write_atomic(html, page, private=private, field="--html")
        if html != STDOUT:
            note(f"wrote the HTML report to {html}")
    if not report["passed"]:
        raise typer.Exit(int(ExitCode.POLICY_VIOLATION))
