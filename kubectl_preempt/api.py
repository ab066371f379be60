"""Entry points of the library: plain data in, plain data out, nothing printed."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from .errors import InputError, quote
from .explain.document import build_document
from .framework.config import SchedulerConfig, parse_config
from .framework.snapshot import Snapshot
from .io.snapshot import ANN_SERVER_VERSION
from .framework.versions import KubernetesVersion, Resolved, apply_feature_gates, resolve_kubernetes_version
from .model.cluster import Cluster
from .model.admission import admit
from .model.objects import Pod
from .scheduler.scheduler import Scheduler


def data_server_version(objects: Any) -> str | None:
    """The server version the objects were read from, where they say it: a captured List's
    `kubectl-preempt/server-version` annotation (the List itself, or load_snapshot's result)."""
    v = getattr(objects, "server_version", None)
    if v is not None:
        return str(v)
    if isinstance(objects, Mapping):
        ann = (objects.get("metadata") or {}).get("annotations") or {}
        v = ann.get(ANN_SERVER_VERSION)
        return str(v) if v is not None else None
    return None


def scheduler_version(objects: Any = None, kubernetes_version: str | KubernetesVersion | None = None) -> Resolved:
    """Which kube-scheduler release decides (and a note when it is not the one the data names)."""
    return resolve_kubernetes_version(kubernetes_version, data_server_version(objects),
                                      data_source="the snapshot")


def _items(objects: Any) -> Any:
    if isinstance(objects, Mapping):
        if "items" in objects:
            return objects.get("items") or []
        if "objects" in objects:  # a conformance case
            return objects.get("objects") or []
    return objects


def _cluster(objects: Cluster | Iterable[Mapping[str, Any]]) -> Cluster:
    return objects if isinstance(objects, Cluster) else Cluster.from_objects(_items(objects))


def _config(config: SchedulerConfig | Mapping[str, Any] | None, version: KubernetesVersion) -> SchedulerConfig:
    if isinstance(config, SchedulerConfig):
        return config.for_version(version)
    return parse_config(config, version=version)


def explain(objects: Cluster | Iterable[Mapping[str, Any]] | Mapping[str, Any], pod: str, config: Any = None, *,
            seed: int = 0, kubernetes_version: str | KubernetesVersion | None = None,
            snapshot: Snapshot | None = None,
            feature_gates: str | Mapping[str, bool] | None = None) -> dict[str, Any]:
    """What kube-scheduler decides for `pod` ("namespace/name") in this cluster, and why.

    `kubernetes_version` ("v1.34", "v1.36", ...) picks the release imitated; by default the one
    the objects name (a captured List's server-version annotation), else v1.34.1. The document's
    `schedulerVersion` says which decided. `feature_gates` ("PodLevelResources=true,..." or a
    mapping): kube-scheduler's --feature-gates, checked against that release's gates; the document's
    `featureGates` repeats them. `snapshot` as for explain_pods()."""
    return explain_pods(objects, [pod], config, seed=seed, kubernetes_version=kubernetes_version,
                        snapshot=snapshot, feature_gates=feature_gates)[0]


def pending_pods(cluster: Cluster, namespace: str | None = None) -> list[str]:
    return [p.key for p in cluster.pods.values()
            if not p.node_name and (namespace is None or p.namespace == namespace)]


def _as_pending(pod: Pod) -> Pod:
    raw = dict(pod.raw)
    raw["spec"] = {k: v for k, v in pod.spec.items() if k != "nodeName"}
    pending = Pod(raw)
    pending.priority, pending.preemption_policy, pending.has_priority = (
        pod.priority, pod.preemption_policy, pod.has_priority)
    return pending


def explain_pods(objects: Cluster | Iterable[Mapping[str, Any]] | Mapping[str, Any], pods: list[str],
                 config: Any = None, *, seed: int = 0, extra_pods: Iterable[Mapping[str, Any]] = (),
                 progress: Callable[[int], None] | None = None,
                 kubernetes_version: str | KubernetesVersion | None = None,
                 snapshot: Snapshot | None = None,
                 feature_gates: str | Mapping[str, bool] | None = None) -> list[dict[str, Any]]:
    """Explain several pods against the same state; each as if it were the next one scheduled.

    `extra_pods` are manifests not in the cluster (what would happen if they were created); their
    priority is resolved from the cluster's PriorityClasses as admission would.
    `kubernetes_version` and `feature_gates` as for explain().
    `snapshot`: `Snapshot.build(objects)` of this very Cluster, unchanged since, for a caller that
    explains against one state more than once and keeps its snapshot; built here otherwise.
    """
    version = apply_feature_gates(scheduler_version(objects, kubernetes_version).version, feature_gates)
    cluster = _cluster(objects)
    cfg = _config(config, version)
    pods = list(pods)
    for raw in extra_pods:
        p = admit(raw, cluster.priority_classes)
        cluster.pods[p.key] = p
        if p.key not in pods:
            pods.append(p.key)
    base: Scheduler | None = None
    out = []
    for key in pods:
        if "/" not in key:
            raise InputError(f"pod {quote(key)} must be namespace/name", field="pod")
        pod = cluster.pod(key)
        if pod.node_name:
            # a bound pod is explained as if it were pending again: its node is freed of it and
            # it asks for no node by name
            sched = Scheduler(cluster, cfg, seed=seed, snapshot=Snapshot.from_cluster(
                cluster, exclude=[key], counting=version.node_counting))
            pod = _as_pending(pod)
        else:
            if base is None:
                base = Scheduler(cluster, cfg, seed=seed, snapshot=snapshot)
            sched = base
        res = sched.schedule(pod)
        nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
        doc = build_document(res, nominated)
        gates = {"featureGates": dict(version.gates)} if version.gates else {}
        out.append({"pod": doc.pop("pod"), "schedulerVersion": version.name, **gates, **doc})
        if progress is not None:
            progress(1)
    return out


from .replay.api import replay  # noqa: E402,F401 - replay(events, ...) -> report, see replay/api.py
from .check.api import check  # noqa: E402,F401 - check(traces, proposed, ...) -> gate result, see check/api.py


def who_preempted(objects: Iterable[Mapping[str, Any]], pod: str, *,
                  events: Iterable[Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """Who preempted `pod` ("namespace/name"), from what the cluster recorded: its DisruptionTarget
    condition and the scheduler's Preempted events (taken from `objects` unless given). None when
    nothing says the scheduler preempted it. See model/who_preempted.py for the record's fields."""
    from .model.who_preempted import events_about, pod_key, preemption_record

    objects = list(objects)
    found = next((o for o in objects if o.get("kind") == "Pod" and pod_key(o) == pod), None)
    mine = events_about(pod, objects if events is None else events)
    return preemption_record(found, mine, objects)


def replay_html(report: Mapping[str, Any], trace: Any, activity: Any = None, *, label: str = "") -> str:
    """The HTML page of one replay: `trace` is what replay() replayed, `activity` the
    replay.activity.ActivityRecorder it was given as listener (simulate mode)."""
    from .render.html import render_html
    from .replay.view import build_view

    return render_html([(label, report, build_view(report, trace, activity))])


def check_html(check_report: Mapping[str, Any], traces: Mapping[str, Any], proposed: Any, *,
               sources: Any = None, baseline: Any = None, config: Any = None, seed: int = 0,
               kubernetes_version: Any = None, feature_gates: Any = None) -> str:
    """The HTML page of a `check`: per trace, the baseline replay above the proposed one."""
    from .check.page import check_page_runs
    from .render.html import render_html

    runs, title = check_page_runs(check_report, traces, proposed, sources=sources, baseline=baseline,
                                  config=config, seed=seed, kubernetes_version=kubernetes_version,
                                  feature_gates=feature_gates)
    return render_html(runs, title=title)


def batch_session(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *,
                  scheduler_name: str = "kube-batch", default_queue: str = "default", seed: int = 0,
                  conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """What one kube-batch session does to this cluster: binds, evicts, pipelined tasks, the pod
    and PodGroup conditions it writes, and why (evictions with their action, preemptor and the
    plugins' votes; jobs' gang state and order keys; queues' shares; pending tasks' node reasons).

    `scheduler_conf` is kube-batch's configuration file as text; None is kube-batch's default.
    `seed` draws kube-batch's random choices (ties between nodes, the start of each map range)."""
    from .batch.scheduler import batch_session as run
    return run(objects, scheduler_conf, scheduler_name=scheduler_name, default_queue=default_queue, seed=seed,
               conf_source=conf_source)


def batch_session_runs(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *, runs: int,
                       scheduler_name: str = "kube-batch", default_queue: str = "default", seed: int = 0,
                       conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """`runs` kube-batch sessions over `objects`, seeds `seed`..`seed + runs - 1` (each one run
    kube-batch can make): each distinct outcome with its share of the runs, and the evictions per
    job and per queue as p5/p50/p95 over the runs."""
    from .batch.runs import session_runs
    return session_runs(objects, scheduler_conf, runs=runs, seed=seed, scheduler_name=scheduler_name,
                        default_queue=default_queue, conf_source=conf_source)


def explain_batch(objects: Iterable[Mapping[str, Any]], pods: list[str], scheduler_conf: str | None = None, *,
                  scheduler_name: str = "kube-batch", seed: int = 0,
                  conf_source: str = "scheduler configuration") -> list[dict[str, Any]]:
    """The story of each pod ("namespace/name") that kube-batch schedules, from one session over
    `objects`: what happens to it and to every task of its job, and for an evicted pod, which
    action evicted it, for whom, and which plugins made it eligible."""
    from .batch.scheduler import batch_session as run
    from .batch.story import explain_task
    result = run(objects, scheduler_conf, scheduler_name=scheduler_name, seed=seed, conf_source=conf_source)
    return [explain_task(result, key, scheduler_name) for key in pods]


def preemption_history(objects: Iterable[Mapping[str, Any]] = (), *,
                       trace_events: Iterable[Mapping[str, Any]] | None = None, now: float | None = None,
                       since: float | None = None, namespace: str | None = None,
                       pods_visible: Callable[[str], bool] | None = None, events_read: bool = True,
                       source: str = "", notes: Iterable[str] = (), checked: bool = False) -> dict[str, Any]:
    """What got preempted (`history`): the scheduler's Preempted Events, victims' DisruptionTarget
    conditions and preemptors' nominations, and kube-batch's Evict Events, joined into one row per
    victim and preemptor, and grouped into preemptions. From the objects of one instant (a live
    read, a snapshot) or from every version a trace recorded (`trace_events`, {"ts", "type",
    "object"}). `since` seconds before `now` (default: the trace's last event) bound the rows;
    `namespace` keeps one namespace's victims; `checked`: the objects come from an API server, their
    shapes need no check (else a bad one is an InputError naming it). See history/build.py."""
    from .history import build_history, observe_objects, observe_trace

    obs = observe_trace(trace_events) if trace_events is not None else \
        observe_objects(_items(objects), checked=checked)
    if now is None:
        now = obs.last_time
    return build_history(obs, now=now, since=since, namespace=namespace, pods_visible=pods_visible,
                         events_read=events_read, source=source, notes=notes)
from .plan.api import plan  # noqa: E402,F401 - plan(objects, manifests, scale, ...) -> report, see plan/api.py
from .plan.capacity import plan_max  # noqa: E402,F401 - plan_max(objects, manifest, ...) -> report, see plan/capacity.py
