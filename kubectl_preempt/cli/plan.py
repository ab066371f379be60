"""kubectl preempt plan: what creating or scaling workloads would do, and how many copies fit."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from .. import api
from ..errors import MissingInput, UsageError
from ..api import STDOUT, limits
from ..render.plan import PLAN_FORMATS, render_plan
from . import options
from .common import finish_outputs, guard, note, stdin_once, write_output

HELP = """Plan a rollout or a scale-up before making it: which pods would be preempted, where and why,
and what would stay pending.

The workloads in -f MANIFEST (Pods, Deployments, ReplicaSets, StatefulSets, Jobs, v1.36 Workloads and
PodGroups with the pods that name them; a List or a YAML stream) and the --scale targets (Deployment, ReplicaSet or StatefulSet in the snapshot, at N
replicas) get their pods as their controllers make them (a ReplicaSet's `<rs>-<5 chars>`, a
Deployment's ReplicaSet `<name>-<pod-template-hash>`, a StatefulSet's `<name>-<ordinal>` one after
another, a Job's with its labels and completion index; under WorkloadWithJob an Indexed Job of
parallelism = completions gets its Workload and PodGroup, a gang), their priority from their PriorityClass
as admission gives it. They are created at the snapshot's time, all at once, into the same engine
as `replay`: the scheduling queue orders them, each sees the nominations and evictions of the ones
before, victims terminate over their grace period and their controllers re-create them. The run
lasts until nothing changes any more (at most 1h of virtual time) or --duration.

Prints the replicas placed and pending per workload, every preemption (victims, why that node),
the victims per PriorityClass, namespace and workload, and the pods left pending with their last
reason.

--max -f POD: how many copies of the pod (or of a workload's pod template) fit, one after another,
once the cluster's own pending pods have settled: the count on free room alone (what
cluster-capacity counts), the count with preemption, what the extra copies cost in victims per
class and namespace, and where it stops, with the scheduler's message."""

EPILOG = """\b
Examples:
  # roll out a Deployment: which pods get evicted, where, and what stays pending
  kubectl preempt plan -f storefront-deployment.yaml --snapshot prod.json
\b
  # scale an existing Deployment to 40 replicas, against the live cluster (read only)
  kubectl preempt plan --scale shop/deployment/checkout=40
\b
  # 30 runs with their own random choices: distributions of placed, pending and victims
  kubectl preempt plan -f job.yaml --snapshot prod.json --runs 30 -o json
\b
  # every preemption decision as a conformance case, and the timeline as a web page
  kubectl preempt plan -f app.yaml --snapshot prod.json --dump-decisions cases/ --html plan.html
\b
  # how many more of this pod fit, on free room and by preempting
  kubectl preempt plan --max -f api-pod.yaml --snapshot prod.json
  kubectl preempt plan --max -f storefront-deployment.yaml --snapshot prod.json --max-count 500 -o wide
\b
  # as the cluster's older release decides, with a scheduler feature gate turned on
  kubectl preempt plan -f app.yaml --snapshot prod.json --kubernetes-version v1.33 --feature-gates PodLevelResources=true
\b
  # for a script: the new pods (pod/NAME), one row a pod without headers, a value by JSONPath
  kubectl preempt plan -f app.yaml --snapshot prod.json -o name
  kubectl preempt plan -f app.yaml --snapshot prod.json --no-headers | awk '$2 == "Pending"'
  kubectl preempt plan --max -f api-pod.yaml --snapshot prod.json -o jsonpath='{.withPreemption.count}'"""


def register(app: typer.Typer) -> None:
    app.command("plan", help=HELP, epilog=EPILOG,
                options_metavar="(-f MANIFEST | --scale NS/KIND/NAME=N) [OPTIONS]")(plan)


def _duration(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    seconds = limits.parse_span(text, "--duration")
    if not 0 < seconds <= 3600:
        raise UsageError(f"{text} is more than 1h of virtual time, the most a plan runs", field="--duration")
    return seconds


@guard
def plan(
    filename: Annotated[Optional[list[str]], typer.Option(
        "--filename", "-f", metavar="MANIFEST",
        help="Pods, Deployments, ReplicaSets, StatefulSets, Jobs, Workloads or PodGroups to create (YAML/JSON, a List or a stream; - for "
             "stdin); repeatable. With --max: the one pod (or workload template) to copy.", show_default=False)] = None,
    scale: Annotated[Optional[list[str]], typer.Option(
        "--scale", metavar="NS/KIND/NAME=N",
        help="Scale a Deployment, ReplicaSet or StatefulSet of the snapshot to N replicas; repeatable.",
        show_default=False)] = None,
    snapshot: options.Snapshot = None,
    max_: Annotated[bool, typer.Option(
        "--max", help="How many copies of the -f pod fit, one after another: on free room, then by preempting.")] = False,
    max_count: Annotated[int, typer.Option(
        "--max-count", metavar="N", min=1, help="With --max: stop after N copies.")] = 10_000,
    duration: Annotated[Optional[str], typer.Option(
        "--duration", metavar="DURATION",
        help="Virtual time to run (e.g. 90s, 10m, 1h; at most 1h). Default: until nothing changes, at most 1h.",
        show_default=False)] = None,
    runs: options.Runs = 1,
    jobs: options.Jobs = None,
    seed: options.Seed = 0,
    dump_decisions: Annotated[Optional[str], typer.Option(
        "--dump-decisions", metavar="DIR",
        help="Write every preemption decision as a conformance case file into DIR (empty or new).",
        show_default=False)] = None,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Let --dump-decisions write into a directory that is not empty.")] = False,
    html: Annotated[Optional[str], options.html_option(
        "Also write the plan as the replay's HTML page (a timeline per node, the why of each preemption).")] = None,
    output: Annotated[str, options.output_option(PLAN_FORMATS)] = "table",
    no_headers: options.NoHeaders = False,
    namespace: Annotated[Optional[str], typer.Option(
        "--namespace", "-n", metavar="NS", help="Namespace of manifests that name none (default: default).")] = None,
    config: options.ConfigFile = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGates = None,
    max_input_size: options.MaxInputSize = None,
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
) -> None:
    manifests_paths = list(filename or [])
    targets = list(scale or [])
    if not manifests_paths and not targets:
        raise MissingInput("nothing to plan: give -f MANIFEST or --scale NS/KIND/NAME=N")
    if max_:
        if targets:
            raise UsageError("--max copies one pod: give it with -f, not --scale", field="--scale")
        if runs > 1 or dump_decisions or html or duration:
            raise UsageError("--max goes without --runs, --dump-decisions, --html and --duration", field="--max")
    elif max_count != 10_000:
        raise UsageError("--max-count goes with --max", field="--max-count")
    if overwrite and not dump_decisions:
        raise UsageError("--overwrite goes with --dump-decisions", field="--overwrite")
    if runs > 1 and dump_decisions:
        raise UsageError("--dump-decisions writes the decisions of one run; use it with --runs 1")
    seconds = _duration(duration)
    gates = dict(api.parse_feature_gates(feature_gates))  # a malformed flag fails before the cluster is read
    if snapshot is not None and (context is not None or kubeconfig is not None or request_timeout is not None):
        raise UsageError("--context, --kubeconfig and --request-timeout are for the live cluster; they do not "
                         "apply to --snapshot")
    stdin_once(("--snapshot", snapshot), ("-f", manifests_paths), ("--config", config))
    result = api.plan_request(manifests_paths, snapshot, targets, max_copies=max_, max_count=max_count,
                              duration=seconds, runs=runs, jobs=jobs, seed=seed, namespace=namespace, config=config,
                              kubernetes_version=kubernetes_version, feature_gates=gates, context=context,
                              kubeconfig=kubeconfig, request_timeout=request_timeout, dump_decisions=dump_decisions,
                              overwrite=overwrite, html=html, note=note)
    if max_:
        write_output(render_plan(result.report, output, no_headers=no_headers))
        return
    if html != STDOUT:
        write_output(render_plan(result.report, output, no_headers=no_headers))
    finish_outputs(html, result.page, private=result.private, what="page", dump_decisions=dump_decisions,
                   written=result.written)
