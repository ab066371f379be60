"""kubectl preempt explain: what the scheduler decides for a pod, and why."""
from __future__ import annotations

import contextlib
import sys
from typing import Annotated, Any, Callable, Iterator, Mapping, Optional, Sequence

import typer

from .. import api
from ..api import KubernetesVersion, parse_feature_gates, parse_selector
from ..errors import MissingInput, UsageError
from ..render import render
from ..render.output import NAME, is_data
from . import live as live_cli
from . import options
from . import session as batch_options
from .common import guard, note, Progress, stdin_once, write_output

# a progress bar is worth showing only when the wait is long enough to wonder about
PROGRESS_MIN_PODS = 20

HELP = """Explain what kube-scheduler decides for each POD: where it goes, or which pods it would
preempt on which node and why there, or why it cannot be scheduled, with every other node's reason.

POD is namespace/name, or a name in the namespace of -n (default: default). Without PODs, -n NS
explains every pending pod in NS and -A every pending pod; -l SELECTOR keeps those whose labels
match. Each pod is explained on its own against the same cluster state."""

EPILOG = """\b
Examples:
  # the live cluster of the current context; if the scheduler preempted this pod, who did
  kubectl preempt explain batch/etl-2
\b
  # whom would this pending pod evict, where, and why there?
  kubectl preempt explain serving/checkout-7d9f-x2 --snapshot prod.json
\b
  # a snapshot taken with kubectl, read from stdin
  kubectl get nodes,pods,pdb,priorityclasses -A -o json | kubectl preempt explain web-0 -n shop --snapshot -
\b
  # every pending pod in every namespace, as data
  kubectl preempt explain -A --snapshot prod.json.gz -o json
\b
  # the pending pods of one workload, one line each, for a script
  kubectl preempt explain -n shop -l app=checkout --snapshot prod.json --no-headers
\b
  # which pods each pending pod would evict, as kubectl's JSONPath
  kubectl preempt explain -A --snapshot prod.json -o jsonpath='{range .items[*]}{.pod}: {.victims}{"\\n"}{end}'
\b
  # what would happen if this pod were created now
  kubectl preempt explain -f big-job.yaml --snapshot prod.json
\b
  # with your scheduler's configuration, showing every node's and plugin's detail
  kubectl preempt explain batch/etl-0 --snapshot prod.json --config scheduler.yaml -o wide
\b
  # as kube-scheduler v1.36 decides (default: the version the snapshot or server names)
  kubectl preempt explain batch/etl-0 --snapshot prod.json --kubernetes-version v1.36
\b
  # a v1.33 cluster whose scheduler runs with pod-level resources turned on
  kubectl preempt explain batch/etl-0 --snapshot prod.json --feature-gates PodLevelResources=true
\b
  # a gang's pod-group cycle and workload-aware preemption (v1.36's alpha gates)
  kubectl preempt explain podgroup/ml/train-workers --snapshot prod.json --kubernetes-version v1.36 \\
      --feature-gates GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true"""


def register(app: typer.Typer) -> None:
    app.command("explain", help=HELP, epilog=EPILOG,
                options_metavar="[-n NS | -A | -f FILE] [--snapshot FILE] [OPTIONS]")(explain)


@guard
def explain(
    pods: Annotated[Optional[list[str]], typer.Argument(
        metavar="POD", help="Pods to explain: namespace/name, or name with -n.", show_default=False)] = None,
    snapshot: options.Snapshot = None,
    filename: Annotated[Optional[list[str]], typer.Option(
        "--filename", "-f", metavar="MANIFEST",
        help="Pod manifest (YAML/JSON, - for stdin) to explain as if it were created now; repeatable.",
        show_default=False)] = None,
    namespace: options.Namespace = None,
    all_namespaces: options.AllNamespaces = False,
    output: options.Output = "table",
    no_headers: options.NoHeaders = False,
    selector: options.Selector = None,
    config: options.ConfigFile = None,
    seed: options.Seed = 0,
    max_input_size: options.MaxInputSize = None,
    scheduler_conf: batch_options.SchedulerConf = None,
    batch_scheduler_name: batch_options.BatchSchedulerName = "kube-batch",
    context: options.Context = None,
    kubeconfig: options.Kubeconfig = None,
    request_timeout: options.RequestTimeout = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGates = None,
) -> None:
    if not pods and not filename and namespace is None and not all_namespaces and selector is None:
        raise MissingInput(api.NOTHING_TO_EXPLAIN + " (no cluster at hand? kubectl preempt demo)")
    if namespace is not None and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces do not go together")
    if pods and all_namespaces:
        # kubectl get: "a resource cannot be retrieved by name across all namespaces"
        raise UsageError("a resource cannot be retrieved by name across all namespaces (give namespace/name, "
                         "or the name with -n NAMESPACE)")
    pods = [api.strip_pod_prefix(p) for p in pods] if pods else pods
    if selector is not None and pods:
        # kubectl get: "selectors and the all flag cannot be used when passing resource/name arguments"
        raise UsageError("a selector (-l) cannot be used when naming pods: it picks among the pending pods "
                         "of -n NAMESPACE or -A", field="--selector")
    label_selector = parse_selector(selector) if selector is not None else None
    if label_selector is not None and namespace is None and not all_namespaces:
        namespace = "default" if snapshot is not None else None
    gates = parse_feature_gates(feature_gates)  # a malformed flag fails before the cluster is read
    manifests = list(filename or [])
    if snapshot is not None:
        if context is not None or kubeconfig is not None or request_timeout is not None:
            raise UsageError("--context, --kubeconfig and --request-timeout are for the live cluster; they do not "
                             "apply to --snapshot")
    stdin_once(("--snapshot", snapshot), ("-f", manifests), ("--config", config), ("--scheduler-conf", scheduler_conf))
    reading = Progress() if snapshot is None and sys.stderr.isatty() else None
    result = api.explain_request(
        pods or [], snapshot=snapshot, manifests=manifests, namespace=namespace, all_namespaces=all_namespaces,
        selector=label_selector, selector_text=selector, config=config, seed=seed, scheduler_conf=scheduler_conf,
        batch_scheduler_name=batch_scheduler_name, context=context, kubeconfig=kubeconfig,
        request_timeout=request_timeout, kubernetes_version=kubernetes_version, feature_gates=gates, note=note,
        live_progress=reading, live_progress_done=reading.clear if reading is not None else None,
        explaining=_explaining)
    write_output(_render(result, output, no_headers))
    if result.refused is not None:
        raise result.refused


def _render(result: Any, output: str, no_headers: bool) -> str:
    """What explain prints: the records of the pods preempted, kube-scheduler's explanations and
    kube-batch's stories, as `output` shows them."""
    if result.refused is not None:
        # no verdict without nodes: what was recorded, then the refusal
        return live_cli.render_records(result, [], output) if result.records else ""
    if result.nothing is not None:
        note(result.nothing)
        return render([], output) if is_data(output) else ""
    if not result.docs and not result.batch_docs:
        return live_cli.render_records(result, [], output)
    if not result.docs:
        return render_batch(result.batch_docs, output, no_headers)
    if result.batch_docs:
        if is_data(output) or output == NAME or no_headers:
            return render([*result.docs, *result.batch_docs], output, no_headers=no_headers)
        return render(result.docs, output) + "\n" + render_batch(result.batch_docs, output)
    if result.records_shown and not no_headers:
        text = live_cli.render_records(result, result.docs, output)
    else:
        text = render(result.docs, output, no_headers=no_headers)
    return text if no_headers else _gates_footer(text, result.version, output)


@contextlib.contextmanager
def _explaining(total: int) -> Iterator[Optional[Callable[[int], None]]]:
    """A progress bar on stderr while many pods are explained on a terminal."""
    if not (total >= PROGRESS_MIN_PODS and sys.stderr.isatty()):
        yield None
        return
    with typer.progressbar(length=total, label="explaining", file=sys.stderr) as bar:
        step: Callable[[int], None] = bar.update
        yield lambda n=1: step(n)


def _gates_footer(text: str, version: KubernetesVersion, output: str) -> str:
    """The table's last lines name the release that decided; with --feature-gates, the gates it
    decided with follow (json and yaml carry them in each document's featureGates)."""
    if not version.gates or output not in ("table", "wide") or not text:
        return text
    return text.rstrip("\n") + f"\nFeature gates: {version.gates_label()}\n"


def render_batch(docs: Sequence[Mapping[str, Any]], output: str, no_headers: bool = False) -> str:
    if is_data(output) or output == NAME or no_headers:
        # the batch story's document has the same pod and outcome fields as an explanation
        return render(docs, output, no_headers=no_headers)
    from ..render.session import render_batch_explain_table
    return render_batch_explain_table(docs, wide=output == "wide")
