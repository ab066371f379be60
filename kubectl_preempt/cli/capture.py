"""kubectl preempt capture: a redacted, shareable snapshot of the live cluster."""
from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .. import api
from ..errors import UsageError
from ..api import live
from . import options
from .common import Progress, guard, note, output_path

HELP = """Take a snapshot of the live cluster that `explain --snapshot` reads: every object a
scheduling decision depends on (nodes, pods, PodDisruptionBudgets, PriorityClasses, namespaces,
Services and workload owners, volumes and storage), listed page by page with GET requests only.

The snapshot is redacted unless --no-redact is given: environment values, envFrom, command and
args, probes and lifecycle hooks, annotations outside a short allow-list (in nested templates too),
managedFields, credentials in gitRepo URLs, mount options and free-form driver parameters are
removed (README's redaction table lists each place); everything the scheduler reads stays, so
verdicts on the redacted snapshot equal those on the full one.

Written atomically (a temporary file, then a rename); gzipped when FILE ends in .gz; YAML when it
ends in .yaml or .yml; to standard output with --output-file -. -o FILE is the same as
--output-file FILE (kept for compatibility; in every other command -o names a format)."""

EPILOG = """\b
Examples:
  # the current context, every namespace, into a timestamped .json.gz in this directory
  kubectl preempt capture
\b
  # another context, a chosen file, then explain a pending pod from it
  kubectl preempt capture --context prod-eu --output-file prod.json.gz
  kubectl preempt explain team-a/api-1 --snapshot prod.json.gz
\b
  # one namespace only (other namespaces' pods on the same nodes are then missing)
  kubectl preempt capture -n team-a --output-file team-a.json
\b
  # everything, unredacted, to standard output
  kubectl preempt capture --no-redact --output-file - | gzip > full.json.gz"""

def register(app: typer.Typer) -> None:
    app.command("capture", help=HELP, epilog=EPILOG)(capture)


@guard
def capture(
    output_file: Annotated[Optional[str], typer.Option(
        "--output-file", metavar="FILE",
        help="Where to write the snapshot (- for standard output); default: "
             "snapshot-<context>-<time>.json.gz here. The format follows the name (.json, .yaml, .gz).",
        show_default=False)] = None,
    output_compat: Annotated[Optional[str], options.output_compat_option("FILE")] = None,
    namespace: Annotated[Optional[str], typer.Option(
        "--namespace", "-n", metavar="NS",
        help="Read namespaced objects in NS only (nodes and other cluster-wide objects in full).")] = None,
    all_namespaces: Annotated[bool, typer.Option(
        "--all-namespaces", "-A", help="Read every namespace (the default).")] = False,
    no_redact: Annotated[bool, typer.Option(
        "--no-redact", help="Keep every field, secrets included; the file is then readable by you only.")] = False,
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
    chunk_size: Annotated[int, typer.Option(
        "--chunk-size", metavar="N", min=1, help="Objects per list request, as kubectl's flag.")] = live.DEFAULT_CHUNK_SIZE,
) -> None:
    if namespace is not None and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces do not go together")
    output_file = output_path(output_file, output_compat)
    progress = Progress() if sys.stderr.isatty() else None
    captured = api.capture_snapshot(output_file, kubeconfig=kubeconfig, context=context, namespace=namespace,
                                    request_timeout=request_timeout, redact=not no_redact, chunk_size=chunk_size,
                                    progress=progress, progress_done=progress.clear if progress is not None else None,
                                    note=lambda n: note(f"note: {n}"))
    where = "standard output" if captured.path == api.STDOUT else captured.path
    redacted = "redacted" if captured.redacted else "unredacted"
    note(f"wrote {where}: {captured.summary} ({redacted}, server {captured.server_version})")
