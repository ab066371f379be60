"""kubectl preempt session: what one kube-batch session does to a cluster, action by action."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from .. import api
from ..errors import MissingInput
from ..render.session import SESSION_FORMATS, render_session, render_session_runs
from . import options
from .common import guard, note, stdin_once, write_output

FORMATS = SESSION_FORMATS

HELP = """What one kube-batch session does to the cluster in a snapshot, action by action: the
reclaims and preemptions (victim, job, queue, what it frees, for whom, which plugins made it
eligible), the tasks bound or pipelined, the jobs left pending with their gang's reason, and each
queue's weight, deserved share and allocation.

kube-batch (kubernetes-sigs/kube-batch at 86b2ba21; Volcano grew from it) schedules the pods
whose schedulerName is its own, job by job: PodGroups (scheduling.incubator.k8s.io/v1alpha1,
v1alpha2, or Volcano's scheduling.volcano.sh/v1beta1) and Queues come from the snapshot. A pod
without a PodGroup is a job of one in the default queue."""

EPILOG = """\b
Examples:
  # kube-batch's default configuration (allocate, backfill)
  kubectl preempt session --snapshot cluster.yaml
\b
  # your kube-batch configuration file, as data
  kubectl preempt session --snapshot cluster.yaml --scheduler-conf kube-batch.conf -o json
\b
  # 400 sessions (seeds 0..399): each distinct outcome with its share, evictions per job and queue
  kubectl preempt session --snapshot cluster.yaml --scheduler-conf kube-batch.conf --runs 400"""

SchedulerConf = Annotated[Optional[str], typer.Option(
    "--scheduler-conf", metavar="FILE",
    help="kube-batch's configuration file (actions and plugin tiers); default: kube-batch's own "
         "(allocate, backfill; priority, gang | drf, predicates, proportion, nodeorder).")]
BatchSchedulerName = Annotated[str, typer.Option(
    "--batch-scheduler-name", metavar="NAME", help="The schedulerName of the pods kube-batch schedules.")]
DefaultQueue = Annotated[str, typer.Option(
    "--default-queue", metavar="NAME", help="The queue of PodGroups that name none, and of pods without a PodGroup.")]
BatchSeed = Annotated[int, typer.Option(
    "--seed", metavar="N", help="Seed of kube-batch's random choices (ties between nodes, the start of each "
                                "map range); each seed is one run kube-batch can make; 0 keeps output reproducible.")]
BatchRuns = Annotated[int, typer.Option(
    "--runs", metavar="N", min=1, max=api.limits.MAX_RUNS,
    help="Run N sessions, seeds --seed .. --seed+N-1, and report their distribution: each distinct outcome "
         "(binds, evictions, pipelined tasks, pod and PodGroup conditions) with its share of the runs, and the "
         f"tasks evicted per job and per queue (p5, p50, p95, min, max; nearest-rank). At most {api.limits.MAX_RUNS:,}.")]


def register(app: typer.Typer) -> None:
    app.command("session", help=HELP, epilog=EPILOG, options_metavar="--snapshot FILE [OPTIONS]")(session)


@guard
def session(
    snapshot: options.Snapshot = None,
    scheduler_conf: SchedulerConf = None,
    output: Annotated[str, options.output_option(FORMATS)] = "table",
    no_headers: options.NoHeaders = False,
    batch_scheduler_name: BatchSchedulerName = "kube-batch",
    default_queue: DefaultQueue = "default",
    seed: BatchSeed = 0,
    runs: BatchRuns = 1,
) -> None:
    if snapshot is None:
        raise MissingInput("session reads a snapshot: give --snapshot FILE (kubectl preempt capture writes one)",
                           field="--snapshot")
    stdin_once(("--snapshot", snapshot), ("--scheduler-conf", scheduler_conf))
    result = api.session_request(snapshot, scheduler_conf, scheduler_name=batch_scheduler_name,
                                 default_queue=default_queue, seed=seed, runs=runs, note=note)
    render = render_session_runs if runs > 1 else render_session
    write_output(render(result, output, no_headers=no_headers))
