"""kubectl preempt demo: what the plugin answers, without a cluster, from the data every install
carries (the repository's examples/ and traces/, kubectl_preempt/io/bundled.py)."""
from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .. import api
from . import explain, replay
from .common import guard, note, write_output

HELP = """No cluster at hand? See what the plugin answers, on the example cluster and the demo
trace that every install carries: which pods a pending pod would preempt, where and why
(`explain`), then half an hour of a recorded cluster replayed through kube-scheduler's offline
copy (`replay`).

--copy-to DIR writes those files (examples/ and traces/) into DIR, so that every example of the
README runs from there."""

EPILOG = """\b
Examples:
  # the tour
  kubectl preempt demo
\b
  # the example files, to try every README example
  kubectl preempt demo --copy-to kubectl-preempt-examples
  cd kubectl-preempt-examples && kubectl preempt explain -A --snapshot examples/cluster.json"""

EXAMPLE_CLUSTER = "examples/cluster.json"
EXAMPLE_POD = "shop/checkout"
DEMO_TRACE = "traces/" + replay.DEMO_TRACE

NEXT = """\
On your own cluster (read-only: GET requests only):
  kubectl preempt explain POD -n NAMESPACE     # whom it would evict, where, why; or who evicted it
  kubectl preempt history -A                   # what got preempted in the last hour, and by whom
  kubectl preempt record --output-file prod.jsonl.gz --duration 10m   # then: replay prod.jsonl.gz
"""


def register(app: typer.Typer) -> None:
    app.command("demo", help=HELP, epilog=EPILOG)(demo)


@guard
def demo(
    copy_to: Annotated[Optional[str], typer.Option(
        "--copy-to", metavar="DIR", help="Write the bundled examples/ and traces/ into DIR (new or without "
                                         "those files) instead of running the demo.", show_default=False)] = None,
) -> None:
    files = api.bundled_demo(EXAMPLE_CLUSTER, DEMO_TRACE, copy_to)
    if copy_to is not None:
        note(f"wrote {len(files.written)} files into {copy_to}: examples/ and traces/, as the README's examples "
             "name them")
        return
    cluster, trace = files.cluster, files.trace
    note(f"demo: no cluster needed: the example cluster and trace every install carries ({files.root}; "
         "kubectl preempt demo --copy-to DIR writes them out)")
    write_output(f"$ kubectl preempt explain {EXAMPLE_POD} --snapshot {EXAMPLE_CLUSTER}\n")
    explain.explain(pods=[EXAMPLE_POD], snapshot=cluster)
    write_output(f"\n$ kubectl preempt replay {DEMO_TRACE}\n")
    sys.stdout.flush()
    replay.replay(trace=trace)
    write_output("\n" + NEXT)
