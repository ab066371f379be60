"""kubectl preempt record: a trace of the live cluster for `replay`."""
from __future__ import annotations

import signal
import sys
import threading
from typing import Annotated, Optional

import typer

from .. import api
from ..errors import MissingInput
from . import options
from .common import Progress, guard, note, output_path

HELP = """Record the live cluster into a trace that `kubectl preempt replay` reads: the lists of
every kind a verdict depends on first (nodes, pods, PodDisruptionBudgets, PriorityClasses and the
namespaces, Services, workloads, volumes and resource claims the scheduler's plugins read, as
`capture` lists them), then every change to them as the API server's watches report it (GET
requests only). A kind besides the first four that the server refuses or does not serve is left
out with a note. After a 410 Gone the kind is listed again and the difference is recorded. Every
line is written through at once.

Ends after --duration, after --max-events, or on Ctrl-C / SIGTERM, always leaving a valid trace.
Redacted as `capture` redacts, unless --no-redact. Gzipped when TRACE ends in .gz. -o TRACE is
the same as --output-file TRACE (kept for compatibility; in every other command -o names a format)."""

EPILOG = """\b
Examples:
  # ten minutes of the current context
  kubectl preempt record --output-file prod.jsonl.gz --duration 10m
\b
  # until Ctrl-C, then replay what happened
  kubectl preempt record --output-file rollout.jsonl.gz
  kubectl preempt replay rollout.jsonl.gz --follow"""


def register(app: typer.Typer) -> None:
    app.command("record", help=HELP, epilog=EPILOG, options_metavar="--output-file TRACE [OPTIONS]")(record)


@guard
def record(
    output_file: Annotated[Optional[str], typer.Option(
        "--output-file", metavar="TRACE", help="Where to write the trace (.jsonl or .jsonl.gz; - for stdout).",
        show_default=False)] = None,
    output_compat: Annotated[Optional[str], options.output_compat_option("TRACE")] = None,
    duration: Annotated[Optional[str], typer.Option(
        "--duration", metavar="D", help="Stop after this long (e.g. 30s, 10m, 1h).", show_default=False)] = None,
    max_events: Annotated[Optional[int], typer.Option(
        "--max-events", metavar="N", min=1, help="Stop after N watch events.", show_default=False)] = None,
    namespace: Annotated[Optional[str], typer.Option(
        "--namespace", "-n", metavar="NS",
        help="Record namespaced kinds (pods, PDBs, claims...) of NS only; cluster-scoped kinds in full.")] = None,
    no_redact: Annotated[bool, typer.Option(
        "--no-redact", help="Keep every field, secrets included; the file is then readable by you only.")] = False,
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
) -> None:
    output_file = output_path(output_file, output_compat)
    if output_file is None:
        raise MissingInput("give the trace's file with --output-file TRACE (or -o TRACE)", field="--output-file")
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        # Ctrl-C ends the recording as SIGTERM does, by the stop event: a KeyboardInterrupt raised
        # in the middle of a queue wait or a write could leave a lock held and the process hung.
        # A second Ctrl-C interrupts at once.
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    progress = Progress() if sys.stderr.isatty() else None

    def notice(text: str) -> None:
        if progress is not None:
            progress.clear()
        note(f"note: {text}")

    try:
        # --duration is read first, before anything is asked of the cluster
        summary = api.record_trace(output_file, duration=duration, max_events=max_events, redact=not no_redact,
                                   namespace=namespace, context=context, kubeconfig=kubeconfig,
                                   request_timeout=request_timeout, stop=stop, progress=progress, notice=notice)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if progress is not None:
            progress.clear()
    note(summary)
