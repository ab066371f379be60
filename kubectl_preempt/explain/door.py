"""explain's one door: `kubectl preempt explain` from the flags' values to the documents.

The cluster is read (a snapshot, or the live cluster with the preemption records of the pods
named), the release that decides is resolved once (explain/inputs.py) and carried to every
explanation, the pods are picked as kubectl picks them, kube-batch's pods get the story of its
session, the others kube-scheduler's cycle (explain/request.py). What the caller shows comes back
in an ExplainResult; what is worth knowing on the way is told to `note`, in order.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Iterator, Mapping, Sequence

from ..errors import ClusterError, InputError
from ..framework.versions import KubernetesVersion
from ..io.snapshot import display_name, load_objects, pod_key
from ..batch.cache.cache import BATCH_KINDS
from ..batch.request import explain_batch, read_scheduler_conf
from ..model.cluster import Cluster
from ..model.selectors import LabelSelector
from . import request
from .inputs import check_requests, explain_inputs, pods_to_explain
from .live import live_explain_read, pod_arg_key, who_preempted

# what shows the explaining's progress: given the number of pods, a context in which a step
# callable (None: nothing shown) hears each pod explained
Explaining = Callable[[int], ContextManager[Callable[[int], None] | None]]


@dataclass
class ExplainResult:
    """What `explain` answers. `records`: the named pods the scheduler preempted (key -> record,
    model/who_preempted.py), `record_only` those whose record is the whole answer (gone: False,
    still on their node: True); `records_shown`: the records are part of the answer (a live read,
    or a snapshot that recorded a preemption of a pod named). `refused`: the nodes could not be
    read, so no verdict: the records, then this error. `nothing`: no pod to explain (the note
    saying so when no record answers instead). `docs`: kube-scheduler's explanations, decided by
    `version` (the table's footer names its gates); `batch_docs`: kube-batch's stories."""
    version: KubernetesVersion | None = None
    docs: list[dict[str, Any]] = field(default_factory=list)
    batch_docs: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    record_only: dict[str, bool] = field(default_factory=dict)
    records_shown: bool = False
    refused: ClusterError | None = None
    nothing: str | None = None


@dataclass
class _Read:
    """The cluster's objects as read, where from, the namespace and POD arguments left to explain
    (a live read settles both), and the preemption records read with them."""
    objects: Any
    source: str
    namespace: str | None
    pods: list[str]
    data_version: str | None
    data_source: str
    result: ExplainResult


def explain_request(pods: Sequence[str], *, snapshot: str | None = None, manifests: Sequence[str] = (),
                    namespace: str | None = None, all_namespaces: bool = False,
                    selector: LabelSelector | None = None, selector_text: str | None = None,
                    config: str | None = None, seed: int = 0, scheduler_conf: str | None = None,
                    batch_scheduler_name: str = "kube-batch", context: str | None = None,
                    kubeconfig: str | None = None, request_timeout: str | None = None,
                    kubernetes_version: str | None = None, feature_gates: Mapping[str, bool] | None = None,
                    note: Callable[[str], None] = lambda _text: None,
                    live_progress: Callable[[str], None] | None = None,
                    live_progress_done: Callable[[], None] | None = None,
                    explaining: Explaining | None = None) -> ExplainResult:
    """`kubectl preempt explain` for the POD arguments `pods` (already without kubectl's pod/
    prefix), the -f `manifests`, -n/-A and the parsed -l `selector` (`selector_text` as typed):
    against `snapshot`, else the live cluster of `context`."""
    read = _read(pods, snapshot, manifests, namespace, all_namespaces, selector is not None, context, kubeconfig,
                 request_timeout, kubernetes_version, note, live_progress, live_progress_done)
    result = read.result
    if result.refused is not None:
        return result
    # Queues and PodGroups are read for the pods kube-batch schedules
    inputs = explain_inputs(read.objects, read.source, data_version=read.data_version, data_source=read.data_source,
                            kubernetes_version=kubernetes_version, feature_gates=feature_gates, config=config,
                            manifests=manifests, namespace=read.namespace, also_read=BATCH_KINDS, note=note,
                            live_data=snapshot is None)
    cluster, extra = inputs.cluster, inputs.extra
    result.version = inputs.version
    extra_keys = {pod_key(m) for m in extra}
    if snapshot is not None and read.pods:
        try:
            _snapshot_records(result, read.objects, read.namespace, read.pods, cluster)
        except InputError as e:
            raise e.located(source=read.source) from None
    all_gone = bool(result.record_only) and not read.pods
    keys = [] if result.records_shown and all_gone else \
        pods_to_explain(cluster, read.pods, read.namespace, all_namespaces, extra_keys, inputs.config, read.source,
                        selector)
    if result.records_shown:
        keys = _with_preemptors(result.records, keys, cluster.pods, note)
    for key in keys:
        p = cluster.pods.get(key)
        if p is not None and p.node_name and key not in extra_keys and p.scheduler_name != batch_scheduler_name:
            note(f"{key} is bound to {p.node_name}: explained as if it were pending again, its node freed of it")
    if not keys and not extra:
        if not result.records:
            scope = f"namespace {read.namespace}" if read.namespace is not None else "any namespace"
            matching = f" matching {selector_text}" if selector_text is not None else ""
            result.nothing = f"{read.source}: no pending pods{matching} in {scope}"
        return result

    # pods that kube-batch schedules get the story of its session instead of kube-scheduler's cycle
    batch_keys = [k for k in keys if k in cluster.pods and cluster.pods[k].scheduler_name == batch_scheduler_name
                  and k not in extra_keys]
    if batch_keys:
        keys = [k for k in keys if k not in batch_keys]
        result.batch_docs = _explain_batch(read.objects, batch_keys, scheduler_conf, batch_scheduler_name, seed,
                                           read.source)
        if not keys and not extra:
            return result
    check_requests(cluster, keys, read.objects, read.source)
    try:
        result.docs = _explain_all(cluster, keys, inputs.config, seed, extra, inputs.resolved, explaining)
    except InputError as e:
        raise e.located(source=read.source) from None
    if inputs.resolved.note:
        # never guessed in silence: the release that decided, when the data did not name it
        note(inputs.resolved.note)
    return result


def _read(pods: Sequence[str], snapshot: str | None, manifests: Sequence[str], namespace: str | None,
          all_namespaces: bool, by_selector: bool, context: str | None, kubeconfig: str | None,
          request_timeout: str | None, kubernetes_version: str | None, note: Callable[[str], None],
          progress: Callable[[str], None] | None, progress_done: Callable[[], None] | None) -> _Read:
    """The snapshot's objects, or the live cluster's with the preemption records of the pods named
    (and, when no release is named, the server's version)."""
    result = ExplainResult()
    if snapshot is not None:
        source = display_name(snapshot)
        # as explain reads them: fields no reader of the snapshot reads are left out (load_objects)
        objects = load_objects(snapshot, lean=True)
        return _Read(objects, source, namespace, list(pods), objects.server_version, source, result)
    live = live_explain_read(context, kubeconfig, request_timeout, namespace, all_namespaces, pods, manifests,
                             server_version=not kubernetes_version, current_namespace=by_selector,
                             progress=progress, progress_done=progress_done, note=note)
    result.records, result.record_only, result.records_shown = live.records, live.record_only, True
    # no verdict is possible without nodes: what was recorded, then the refusal (exit 3)
    result.refused = live.nodes_refused
    return _Read(live.objects, live.source, live.namespace, live.pods, live.server_version, "the API server", result)


def _snapshot_records(result: ExplainResult, objects: Sequence[Mapping[str, Any]], namespace: str | None,
                      pods: Sequence[str], cluster: Cluster) -> None:
    """A victim in a snapshot: what the snapshot recorded of its preemption (the DisruptionTarget
    condition, and the preemptor when a captured Preempted event names it), as live explain
    shows it; nothing when the snapshot recorded none for the pods named."""
    records: dict[str, dict[str, Any]] = {}
    for arg in pods:
        key = pod_arg_key(arg, namespace) or arg
        if key not in cluster.pods:
            continue
        rec = who_preempted(objects, key)
        if rec is not None:
            records[key] = rec
    if records:
        result.records, result.records_shown = records, True


def _with_preemptors(records: Mapping[str, Mapping[str, Any]], keys: list[str], present: Mapping[str, Any],
                     note: Callable[[str], None]) -> list[str]:
    """`keys` and the preemptors still pending or nominated: what the scheduler decides for them
    now is the rest of the answer to "who preempted my pod"."""
    extra: list[str] = []
    for rec in records.values():
        p = rec.get("preemptor")
        if p and rec.get("preemptorState") in ("Pending", "Nominated") and p not in keys and p not in extra:
            extra.append(p)
    extra = [k for k in extra if k in present]
    for k in extra:
        note(f"{k} preempted {', '.join(v for v, r in records.items() if r.get('preemptor') == k)} "
             "and is still pending: explained as it stands now")
    return keys + extra


def _explain_batch(objects: Sequence[Mapping[str, Any]], keys: list[str], conf_path: str | None,
                   scheduler_name: str, seed: int, source: str) -> list[dict[str, Any]]:
    text, conf_name = read_scheduler_conf(conf_path)
    try:
        return explain_batch(objects, keys, text, scheduler_name=scheduler_name, seed=seed, conf_source=conf_name)
    except InputError as e:
        raise (e if e.source else e.located(source=source)) from None


@contextlib.contextmanager
def _nothing_shown(_total: int) -> Iterator[None]:
    yield None


def _explain_all(cluster: Cluster, keys: list[str], cfg: Any, seed: int, extra: list[dict],
                 resolved: Any, explaining: Explaining | None) -> list[dict[str, Any]]:
    with (explaining or _nothing_shown)(len(keys) + len(extra)) as step:
        return request.explain_pods(cluster, keys, cfg, seed=seed, extra_pods=extra, kubernetes_version=resolved,
                                    progress=step)
