"""kubectl preempt explain: what the scheduler decides for a pod, and why."""
from __future__ import annotations

import difflib
import sys
from typing import Annotated, Any, Callable, Mapping, Optional, Sequence

import typer

from .. import api
from ..errors import InputError, UsageError, quote
from ..framework.versions import (KubernetesVersion, apply_feature_gates, parse_feature_gates,
                                  resolve_kubernetes_version)
from ..io.snapshot import (display_name, ignored_note, load_config, load_manifests, load_objects,
                           pod_key)
from ..model.bulk import bulk_allocation
from ..model.cluster import Cluster
from ..model.selectors import LabelSelector, parse_selector
from ..render import render
from ..render.output import NAME, is_data
from . import live as live_cli
from . import options
from . import session as batch_options
from .common import guard, note, other_type, picked_version, strip_pod_prefix

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
    app.command("explain", help=HELP, epilog=EPILOG, no_args_is_help=True)(explain)


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
    if namespace is not None and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces do not go together")
    if pods and all_namespaces:
        # kubectl get: "a resource cannot be retrieved by name across all namespaces"
        raise UsageError("a resource cannot be retrieved by name across all namespaces (give namespace/name, "
                         "or the name with -n NAMESPACE)")
    pods = [strip_pod_prefix(p) for p in pods] if pods else pods
    if selector is not None and pods:
        # kubectl get: "selectors and the all flag cannot be used when passing resource/name arguments"
        raise UsageError("a selector (-l) cannot be used when naming pods: it picks among the pending pods "
                         "of -n NAMESPACE or -A", field="--selector")
    label_selector = parse_selector(selector) if selector is not None else None
    if label_selector is not None and namespace is None and not all_namespaces:
        namespace = "default" if snapshot is not None else None
    gates = parse_feature_gates(feature_gates)  # a malformed flag fails before the cluster is read
    manifests = list(filename or [])
    # one pass over a large snapshot with no collections; what it builds lives to the end
    with bulk_allocation():
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
            objects = load_objects(snapshot)
            data_version, data_source = objects.server_version, source
        # Queues and PodGroups are read for the pods kube-batch schedules
        # Preempted events (capture keeps them) say who preempted a pod, read below
        ignored = ignored_note([o for o in objects if o.get("kind") not in batch_options.BATCH_KINDS
                                and o.get("kind") != "Event"])
        if ignored:
            note(f"{source}: {ignored}")
        version = picked_version(resolve_kubernetes_version(kubernetes_version, data_version, data_source=data_source))
        version = apply_feature_gates(version, gates)
        cfg = load_config(config) if config else None
        extra: list[dict] = []
        for path in manifests:
            extra.extend(load_manifests(path, namespace))

        try:
            cluster = Cluster.from_objects(objects)
        except InputError as e:
            raise e.located(source=source) from None
        for text in cluster.notes:
            note(f"note: {source}: {text}")
    extra_keys = {pod_key(m) for m in extra}
    if live_ctx is None and pods:
        # a victim in a snapshot: what the snapshot recorded of its preemption (the DisruptionTarget
        # condition, and the preemptor when a captured Preempted event names it), as live explain
        live_ctx = live_cli.snapshot_records(objects, source, namespace, list(pods), cluster)
    keys = [] if live_ctx is not None and live_ctx.all_gone else \
        _pods_to_explain(cluster, pods or [], namespace, all_namespaces, extra_keys, cfg, source, label_selector)
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
    _check_requests(cluster, keys, objects, source)
    try:
        docs = _explain_all(cluster, keys, cfg, seed, extra, version)
    except InputError as e:
        raise e.located(source=source) from None
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
    text, conf_name = batch_options.read_scheduler_conf(conf_path)
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


def _pods_to_explain(cluster: Cluster, pods: Sequence[str], namespace: Optional[str], all_namespaces: bool,
                     extra_keys: set[str], cfg: Any, source: str,
                     selector: Optional[LabelSelector] = None) -> list[str]:
    if pods:
        return [_resolve(cluster, p, namespace, all_namespaces, extra_keys, source) for p in pods]
    if extra_keys:
        return []
    if namespace is None and not all_namespaces:
        raise UsageError("name the pods to explain, or give -f MANIFEST, -n NAMESPACE or -A")
    schedulers = ({p.scheduler_name for p in cfg.profiles} if cfg is not None else {"default-scheduler"})
    # the pods the scheduler would try: pending, not being deleted, handled by one of its profiles
    return [key for key in api.pending_pods(cluster, namespace)
            if not cluster.pods[key].terminating and cluster.pods[key].scheduler_name in schedulers
            and (selector is None or selector.matches(cluster.pods[key].labels))]


def _resolve(cluster: Cluster, arg: str, namespace: Optional[str], all_namespaces: bool,
             extra_keys: set[str], source: str) -> str:
    if arg.count("/") > 1 or arg.startswith("/") or arg.endswith("/"):
        raise UsageError(f"pod {quote(arg)} is neither namespace/name nor name")
    arg = strip_pod_prefix(arg)
    key = arg if "/" in arg else f"{namespace or 'default'}/{arg}"
    if key not in cluster.pods and key not in extra_keys:
        ns, name = key.split("/", 1)
        kind = other_type(arg) if not any(p.namespace == ns for p in cluster.pods.values()) else None
        if kind is not None:
            # kubectl's TYPE/NAME (deployment/checkout) would otherwise read as namespace/name
            raise UsageError(f"{arg} names a {kind}: give namespace/name of a Pod (explain reads pods; "
                             f"-n NAMESPACE -l SELECTOR picks a workload's pending pods)")
        names = sorted({p.name for p in cluster.pods.values() if p.namespace == ns}
                       | {k.split("/", 1)[1] for k in extra_keys if k.split("/", 1)[0] == ns})
        hint = f"{len(names)} pod{'s' if len(names) != 1 else ''} in namespace {ns}" if names \
            else f"no pods in namespace {ns}"
        # as kubectl's "did you mean": the names in the same namespace closest to the one typed
        close = sorted(difflib.get_close_matches(name, names, n=3, cutoff=0.6),
                       key=lambda c: (-difflib.SequenceMatcher(None, name, c).ratio(), c))
        mean = f"; did you mean {' or '.join(f'{ns}/{c}' for c in close)}?" if close else ""
        raise InputError(f"pod {key} not found{mean} ({hint}; finished pods are left out; -f MANIFEST explains "
                         f"a pod not created yet)", source=source)
    return key


def _check_requests(cluster: Cluster, keys: Sequence[str], objects: Sequence[Mapping[str, Any]], source: str) -> None:
    # a pending pod's requests are parsed only when it is scheduled: check them here, so that a
    # bad quantity is reported with the item it sits in, as the loader reports bound pods'
    for key in keys:
        pod = cluster.pods.get(key)
        if pod is None:
            continue
        try:
            pod.resource  # noqa: B018
        except InputError as e:
            where = next((f"items[{i}] (Pod {key})" for i, o in enumerate(objects)
                          if o.get("kind") == "Pod" and pod_key(o) == key), f"Pod {key}")
            raise e.located(source=source, field_prefix=where) from None


def _explain_all(cluster: Cluster, keys: list[str], cfg: Any, seed: int, extra: list[dict],
                 version: KubernetesVersion) -> list[Mapping[str, Any]]:
    total = len(keys) + len(extra)
    if not (total >= PROGRESS_MIN_PODS and sys.stderr.isatty()):
        return api.explain_pods(cluster, keys, cfg, seed=seed, extra_pods=extra, kubernetes_version=version)
    with typer.progressbar(length=total, label="explaining", file=sys.stderr) as bar:
        step: Callable[[int], None] = bar.update
        return api.explain_pods(cluster, keys, cfg, seed=seed, extra_pods=extra, kubernetes_version=version,
                                progress=lambda n=1: step(n))
