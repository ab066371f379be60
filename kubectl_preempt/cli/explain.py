"""kubectl preempt explain: what the scheduler decides for a pod, and why."""
from __future__ import annotations

import sys
from typing import Annotated, Any, Callable, Mapping, Optional, Sequence

import typer

from .. import api
from ..api import KubernetesVersion, display_name, load_objects, parse_feature_gates, parse_selector
from ..errors import InputError, MissingInput, UsageError
from ..render import render
from ..render.output import NAME, is_data
from . import live as live_cli
from . import options
from . import session as batch_options
from .common import guard, note

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
  kubectl preempt explain batch/etl-0 --snapshot prod.json --feature-gates PodLevelResources=true"""


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
    live_ctx = None
    if snapshot is None:
        live_ctx = live_cli.read_live(context, kubeconfig, request_timeout, namespace, all_namespaces,
                                      pods or [], manifests, server_version=not kubernetes_version,
                                      current_namespace=label_selector is not None)
        live_ctx.require_nodes(output)
        objects, source, namespace, pods = live_ctx.objects, live_ctx.source, live_ctx.namespace, live_ctx.pods
        data_version, data_source = live_ctx.server_version, "the API server"
    else:
        if context is not None or kubeconfig is not None or request_timeout is not None:
            raise UsageError("--context, --kubeconfig and --request-timeout are for the live cluster; they do not "
                             "apply to --snapshot")
        if snapshot == "-" and "-" in manifests:
            raise UsageError("--snapshot - and -f - cannot both read standard input")
        source = display_name(snapshot)
        # as explain reads them: fields no reader of the snapshot reads are left out (load_objects)
        objects = load_objects(snapshot, lean=True)
        data_version, data_source = objects.server_version, source
    # Queues and PodGroups are read for the pods kube-batch schedules
    inputs = api.explain_inputs(objects, source, data_version=data_version, data_source=data_source,
                                kubernetes_version=kubernetes_version, feature_gates=gates, config=config,
                                manifests=manifests, namespace=namespace, also_read=api.BATCH_KINDS,
                                note=note, live_data=live_ctx is not None)
    cluster, version, cfg, extra = inputs.cluster, inputs.version, inputs.config, inputs.extra
    extra_keys = {api.pod_key(m) for m in extra}
    if live_ctx is None and pods:
        # a victim in a snapshot: what the snapshot recorded of its preemption (the DisruptionTarget
        # condition, and the preemptor when a captured Preempted event names it), as live explain
        live_ctx = live_cli.snapshot_records(objects, source, namespace, list(pods), cluster)
    keys = [] if live_ctx is not None and live_ctx.all_gone else \
        api.pods_to_explain(cluster, pods or [], namespace, all_namespaces, extra_keys, cfg, source, label_selector)
    if live_ctx is not None:
        keys = live_ctx.with_preemptors(keys, cluster.pods)
    for key in keys:
        p = cluster.pods.get(key)
        if p is not None and p.node_name and key not in extra_keys and p.scheduler_name != batch_scheduler_name:
            note(f"{key} is bound to {p.node_name}: explained as if it were pending again, its node freed of it")
    if not keys and not extra:
        if live_ctx is not None and live_ctx.records:
            sys.stdout.write(live_ctx.render([], output))
            return
        scope = f"namespace {namespace}" if namespace is not None else "any namespace"
        matching = f" matching {selector}" if selector is not None else ""
        note(f"{source}: no pending pods{matching} in {scope}")
        if is_data(output):
            sys.stdout.write(render([], output))
        return

    # pods that kube-batch schedules get the story of its session instead of kube-scheduler's cycle
    batch_keys = [k for k in keys if k in cluster.pods and cluster.pods[k].scheduler_name == batch_scheduler_name
                  and k not in extra_keys]
    if batch_keys:
        keys = [k for k in keys if k not in batch_keys]
        batch_docs = _explain_batch(objects, batch_keys, scheduler_conf, batch_scheduler_name, seed, source)
        if not keys and not extra:
            sys.stdout.write(render_batch(batch_docs, output, no_headers))
            return
    api.check_requests(cluster, keys, objects, source)
    try:
        docs = _explain_all(cluster, keys, cfg, seed, extra, inputs.resolved)
    except InputError as e:
        raise e.located(source=source) from None
    if inputs.resolved.note:
        # never guessed in silence: the release that decided, when the data did not name it
        note(inputs.resolved.note)
    if batch_keys:
        if is_data(output) or output == NAME or no_headers:
            sys.stdout.write(render([*docs, *batch_docs], output, no_headers=no_headers))
        else:
            sys.stdout.write(render(docs, output) + "\n" + render_batch(batch_docs, output))
        return
    if live_ctx is not None and not no_headers:
        text = live_ctx.render(docs, output)
    else:
        text = render(docs, output, no_headers=no_headers)
    sys.stdout.write(text if no_headers else _gates_footer(text, version, output))


def _gates_footer(text: str, version: KubernetesVersion, output: str) -> str:
    """The table's last lines name the release that decided; with --feature-gates, the gates it
    decided with follow (json and yaml carry them in each document's featureGates)."""
    if not version.gates or output not in ("table", "wide") or not text:
        return text
    return text.rstrip("\n") + f"\nFeature gates: {version.gates_label()}\n"


def _explain_batch(objects: Sequence[Mapping[str, Any]], keys: list[str], conf_path: Optional[str],
                   scheduler_name: str, seed: int, source: str) -> list[dict]:
    text, conf_name = api.read_scheduler_conf(conf_path)
    try:
        return api.explain_batch(objects, keys, text, scheduler_name=scheduler_name, seed=seed,
                                 conf_source=conf_name)
    except InputError as e:
        raise (e if e.source else e.located(source=source)) from None


def render_batch(docs: Sequence[Mapping[str, Any]], output: str, no_headers: bool = False) -> str:
    if is_data(output) or output == NAME or no_headers:
        # the batch story's document has the same pod and outcome fields as an explanation
        return render(docs, output, no_headers=no_headers)
    from ..render.session import render_batch_explain_table
    return render_batch_explain_table(docs, wide=output == "wide")


def _explain_all(cluster: api.Cluster, keys: list[str], cfg: Any, seed: int, extra: list[dict],
                 version: api.Resolved) -> list[Mapping[str, Any]]:
    total = len(keys) + len(extra)
    if not (total >= PROGRESS_MIN_PODS and sys.stderr.isatty()):
        return api.explain_pods(cluster, keys, cfg, seed=seed, extra_pods=extra, kubernetes_version=version)
    with typer.progressbar(length=total, label="explaining", file=sys.stderr) as bar:
        step: Callable[[int], None] = bar.update
        return api.explain_pods(cluster, keys, cfg, seed=seed, extra_pods=extra, kubernetes_version=version,
                                progress=lambda n=1: step(n))
