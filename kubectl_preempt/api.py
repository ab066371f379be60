"""Entry points of the library: plain data in, plain data out, nothing printed."""
from __future__ import annotations

import difflib
import functools
import os
import re
import time
from datetime import datetime, timezone
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import ClusterError, InputError, UsageError, quote
from .explain.document import build_document
from .framework.config import SchedulerConfig, parse_config
from .framework.randomness import RandomSource
from .framework.snapshot import Snapshot
from .io.snapshot import ANN_SERVER_VERSION
from .framework.versions import (FROM_LIVE, FROM_SNAPSHOT, KubernetesVersion, Resolved, apply_feature_gates,
                                 kubelet_versions, resolve_kubernetes_version)
from .model.bulk import long_work
from .model.cluster import Cluster
from .model.admission import admit
from .model.objects import Pod
from .scheduler.scheduler import Scheduler


def _long_work(request: Callable[..., Any]) -> Callable[..., Any]:
    """A request that may run long, under the process's one garbage-collector policy
    (model/bulk.py long_work): applied here, once, and nowhere below."""
    @functools.wraps(request)
    def run(*args: Any, **kwargs: Any) -> Any:
        with long_work():
            return request(*args, **kwargs)
    return run


def data_server_version(objects: Any) -> str | None:
    """The server version the objects were read from, where they say it: a captured List's
    `kubectl-preempt/server-version` annotation (the List itself, or load_snapshot's result)."""
    v = getattr(objects, "server_version", None)
    if v is not None:
        return str(v)
    if isinstance(objects, Mapping):
        if "objects" in objects and isinstance(objects.get("kubernetesVersion"), str):
            return objects["kubernetesVersion"]  # a conformance case: the release that recorded it
        ann = (objects.get("metadata") or {}).get("annotations") or {}
        v = ann.get(ANN_SERVER_VERSION)
        return str(v) if v is not None else None
    return None


def scheduler_version(objects: Any = None,
                      kubernetes_version: str | KubernetesVersion | Resolved | None = None) -> Resolved:
    """Which kube-scheduler release decides, where that came from, and a note when it is not the
    one the data names (resolve_kubernetes_version: the flag, the snapshot's server version, its
    nodes' newest kubelet, else the newest imitated)."""
    return resolve_kubernetes_version(kubernetes_version, data_server_version(objects),
                                      data_source="the snapshot", kubelets=_kubelets(objects))


def _kubelets(objects: Any) -> Iterable[tuple[str, Any]]:
    """(node, kubeletVersion) of the nodes among `objects` (a Cluster, a List, a case, a list), read
    only when the release is not named otherwise."""
    if isinstance(objects, Cluster):
        # the decoded nodes' own status (the raw objects' kinds are known): one look per node
        return ((name, info["kubeletVersion"]) for name, n in objects.nodes.items()
                if type(info := n.status.get("nodeInfo")) is dict and "kubeletVersion" in info)
    items = _items(objects)
    return kubelet_versions(items) if isinstance(items, (list, tuple)) else ()


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
    the objects name (a captured List's server-version annotation), else the minor of the nodes'
    newest kubelet (a lower bound), else the newest imitated release. The document's
    `schedulerVersion` says which decided, `schedulerVersionFrom` where that came from. `feature_gates` ("PodLevelResources=true,..." or a
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
    resolved = scheduler_version(objects, kubernetes_version)
    version = apply_feature_gates(resolved.version, feature_gates)
    cluster = _cluster(objects)
    cfg = _config(config, version)
    pods = list(pods)
    for raw in extra_pods:
        p = admit(raw, cluster.priority_classes)
        cluster.pods[p.key] = p
        if p.key not in pods:
            pods.append(p.key)
    base: Scheduler | None = None
    # explain's one random source: no generator, every choice fixed, the offset by the seed
    random_source = RandomSource(seed)
    out = []
    for key in pods:
        if key.startswith(POD_GROUP_PREFIX) or _group_member(cluster, cfg, key):
            # a pod group (podgroup/NS/NAME), or a member of one: its group's cycle
            if base is None:
                base = Scheduler(cluster, cfg, random_source=random_source, snapshot=snapshot)
            out.append(_explain_pod_group(base, key, version))
            if progress is not None:
                progress(1)
            continue
        if "/" not in key:
            raise InputError(f"pod {quote(key)} must be namespace/name", field="pod")
        pod = cluster.pod(key)
        if pod.node_name:
            # a bound pod is explained as if it were pending again: its node is freed of it and
            # it asks for no node by name
            sched = Scheduler(cluster, cfg, random_source=random_source, snapshot=Snapshot.from_cluster(
                cluster, exclude=[key], counting=version.node_counting))
            pod = _as_pending(pod)
        else:
            if base is None:
                base = Scheduler(cluster, cfg, random_source=random_source, snapshot=snapshot)
            sched = base
        res = sched.schedule(pod)
        nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
        doc = build_document(res, nominated)
        gates = version.gates_document()
        out.append({"pod": doc.pop("pod"), "schedulerVersion": version.name, "schedulerVersionFrom": resolved.source,
                    **gates, **doc})
        if progress is not None:
            progress(1)
    return out


POD_GROUP_PREFIX = "podgroup/"


def _group_member(cluster: Cluster, cfg: SchedulerConfig, key: str) -> bool:
    """A pending pod of a pod group, which v1.36 with GenericWorkload schedules in its group's cycle."""
    from .framework.podgroupstate import group_key_of
    v = cfg.version
    pod = cluster.pods.get(key)
    return (pod is not None and not pod.node_name and v.minor >= 36 and v.features.enable_generic_workload
            and bool(group_key_of(pod, v.minor)))


def _explain_pod_group(sched: Scheduler, key: str, version: KubernetesVersion) -> dict[str, Any]:
    """The pod-group cycle of a group (podgroup/NS/NAME) or of a member's group, over the group's
    pending members (not being deleted) in the order the cycle tries them: priority, then creation
    (a snapshot holds no queue: the first attempts follow the creations)."""
    from .explain.podgroup import member_document, pod_group_document
    from .framework.podgroupstate import group_key_of
    from .scheduler.schedule_one_podgroup import order_members
    cluster = sched.cluster
    if key.startswith(POD_GROUP_PREFIX):
        group, focus = key[len(POD_GROUP_PREFIX):], None
    else:
        group, focus = group_key_of(cluster.pods[key], version.minor), key
    if not sched.pod_group_cycles:
        raise InputError(f"{key}: pod groups are scheduled in their own cycle only by kube-scheduler v1.36 with "
                         "the GenericWorkload gate (--feature-gates GenericWorkload=true)", field="pod")
    gates = {"featureGates": dict(version.gates)} if version.gates else {}
    if focus is not None:
        pod = cluster.pods[focus]
        fwk = sched.framework_for(pod)
        if fwk is not None and not sched.pre_enqueue(fwk, pod).is_success():
            # held before any cycle (GangScheduling: its group or enough of its pods not there yet)
            res = sched.schedule(pod)
            nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
            doc = build_document(res, nominated)
            return {"pod": doc.pop("pod"), "schedulerVersion": version.name, **gates, **doc}
    members = [p for p in cluster.pods.values() if not p.node_name and not p.terminating
               and group_key_of(p, version.minor) == group]
    if not members:
        raise InputError(f"pod group {group} has no pending pods to schedule", field="pod")
    members = order_members(members, lambda p: (p.metadata.get("creationTimestamp") or "", p.name))
    result = sched.schedule_pod_group(group, members)
    nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
    if focus is None:
        doc = pod_group_document(result)
        return {"podGroup": doc.pop("podGroup"), "kind": "PodGroupExplanation", "schedulerVersion": version.name,
                **gates, **doc}
    doc = member_document(result, focus, nominated)
    return {"pod": doc.pop("pod"), "schedulerVersion": version.name, **gates, **doc}


from .replay.api import replay as _replay  # noqa: E402
from .check.api import check as _check  # noqa: E402

replay = _long_work(_replay)  # replay(events, ...) -> report, see replay/api.py
check = _long_work(_check)  # check(traces, proposed, ...) -> gate result, see check/api.py


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
                       source: str = "", notes: Iterable[str] = (), checked: bool = False,
                       server_version: str | None = None,
                       kubernetes_version: str | KubernetesVersion | None = None) -> dict[str, Any]:
    """What got preempted (`history`): the scheduler's Preempted Events, victims' DisruptionTarget
    conditions and preemptors' nominations, and kube-batch's Evict Events, joined into one row per
    victim and preemptor, and grouped into preemptions. From the objects of one instant (a live
    read, a snapshot) or from every version a trace recorded (`trace_events`, {"ts", "type",
    "object"}). `since` seconds before `now` (default: the trace's last event) bound the rows;
    `namespace` keeps one namespace's victims; `checked`: the objects come from an API server, their
    shapes need no check (else a bad one is an InputError naming it). The kube-scheduler release
    that wrote them (`kubernetes_version`, else the one `server_version`, the API server's, picks:
    resolve_kubernetes_version) says whether a nomination alone shows a preemption (not with
    NominatedNodeNameForExpectation, on from v1.35). See history/build.py."""
    from .history import build_history, observe_objects, observe_trace

    if trace_events is not None:
        trace_events = list(trace_events)
        items = [e.get("object") or {} for e in trace_events]
    else:
        items = list(_items(objects))
    resolved = resolve_kubernetes_version(kubernetes_version, server_version, data_source=source or "the data",
                                          kubelets=kubelet_versions(items))
    release = resolved.version
    if resolved.note:  # the release is never guessed in silence
        notes = [*notes, resolved.note.removeprefix("note: ")]

    obs = observe_trace(trace_events) if trace_events is not None else observe_objects(items, checked=checked)
    if now is None:
        now = obs.last_time
    return build_history(obs, now=now, since=since, namespace=namespace, pods_visible=pods_visible,
                         events_read=events_read, source=source, notes=notes,
                         nominations_name_preemptors=not release.gate_enabled("NominatedNodeNameForExpectation"))
from .plan.api import plan as _plan  # noqa: E402
from .plan.capacity import plan_max as _plan_max  # noqa: E402

plan = _long_work(_plan)  # plan(objects, manifests, scale, ...) -> report, see plan/api.py
plan_max = _long_work(_plan_max)  # plan_max(objects, manifest, ...) -> report, see plan/capacity.py


# --- the command line's door ----------------------------------------------------------------------
# cli/ parses flags, calls what stands here and renders: it imports nothing else of the package but
# api, render and errors (tests/test_layering.py). What it reads (files, traces, the live cluster)
# and what it resolves (releases, clusters, pods, PriorityClass files) is done or named here.
from .check.policy import DEFAULT_FAIL_ON, FAIL_ON, Policy  # noqa: E402,F401 - check's --fail-on rules
from .framework.versions import (DEFAULT, SUPPORTED, parse_feature_gates,  # noqa: E402,F401
                                 resolve_kubernetes_version)
from .io import live  # noqa: E402,F401 - the live cluster's reads (capture, record, history, completion)
from .io.files import STDOUT, is_private, prepare_directory, refuse_link, write_atomic  # noqa: E402,F401
from .io.proposals import TRACE_SUFFIXES, expand, load_priority_classes  # noqa: E402,F401
from .io.record import record  # noqa: E402,F401 - record(...) a trace from the live cluster, see io/record.py
from .io import bundled  # noqa: E402,F401 - traces/ and examples/, in every install
from .io import kinds  # noqa: E402 - what a file given to the wrong flag is
from .io.snapshot import (decode_documents, display_name, ignored_kinds, ignored_note, load_config,  # noqa: E402,F401
                          load_config_document, load_manifests, load_objects, pod_key, read_bytes)
from .io.trace import Trace, read_trace  # noqa: E402,F401
from .model import limits  # noqa: E402,F401 - the input limits the flags override (--max-input-size, ...)
from .model.rfc3339 import format_seconds, parse_seconds  # noqa: E402,F401
from .model.selectors import LabelSelector, parse_selector  # noqa: E402,F401
from .scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY  # noqa: E402,F401 - --api-latency's default
from .version import KUBERNETES_VERSION, KUBERNETES_VERSIONS, __version__  # noqa: E402,F401


# --- explain's request: the cluster read, the release, the pods named ---------------------------

@dataclass
class ExplainInputs:
    """What `explain` decides against: the cluster built from what was read, the release that
    decides (with its feature gates), the scheduler configuration and the manifests of pods not
    created yet."""
    cluster: Cluster
    version: KubernetesVersion
    config: SchedulerConfig | None
    extra: list[dict]
    # the release picked, with the gates set, and where it came from (explain_pods' kubernetes_version)
    resolved: Resolved


def explain_inputs(objects: Sequence[Mapping[str, Any]], source: str, *, data_version: str | None,
                   data_source: str, kubernetes_version: str | None = None,
                   feature_gates: Mapping[str, bool] | None = None, config: str | None = None,
                   manifests: Sequence[str] = (), namespace: str | None = None,
                   also_read: Sequence[str] = (), note: Callable[[str], None] | None = None,
                   live_data: bool = False) -> ExplainInputs:
    """Build what explain() needs from the objects read from `source` (a snapshot's name or the
    live context): `also_read` are kinds read beside the scheduler's own (kube-batch's Queues and
    PodGroups), not noted as ignored. `note` hears, in order, what is worth knowing on the way (kinds
    ignored, the cluster's notes); an error raised half-way comes after the notes made before it.
    The note on the release picked (when the data names none, or another) is in `resolved.note`."""
    say = note if note is not None else (lambda _text: None)
    # Preempted events (capture keeps them) say who preempted a pod: read, not ignored
    ignored = ignored_note([o for o in objects if o.get("kind") not in also_read and o.get("kind") != "Event"])
    if ignored:
        say(f"{source}: {ignored}")
    try:
        resolved = resolve_kubernetes_version(kubernetes_version, data_version, data_source=data_source,
                                              data_kind=FROM_LIVE if live_data else FROM_SNAPSHOT,
                                              kubelets=kubelet_versions(objects))
    except UsageError:
        raise
    except InputError as e:  # a node's kubeletVersion: named with the file
        raise e.located(source=source) from None
    # the note on the release picked is the caller's to say once kube-scheduler has decided (an
    # error on the way is then the one line said): ExplainInputs.resolved.note
    version = apply_feature_gates(resolved.version, feature_gates)
    cfg = load_config(config) if config else None
    extra: list[dict] = []
    for path in manifests:
        extra.extend(load_manifests(path, namespace))
    try:
        cluster = Cluster.from_objects(objects)
        for text in workload_notes(cluster.extra.get("PodGroup", []) + cluster.extra.get("Workload", []),
                                   cluster.pods.values(), version):
            cluster.notes.append(text)
    except InputError as e:
        raise e.located(source=source) from None
    for text in cluster.notes:
        say(f"note: {source}: {text}")
    return ExplainInputs(cluster, version, cfg, extra, Resolved(version, resolved.note, resolved.source))


def workload_notes(objects: Sequence[Mapping[str, Any]], pods: Iterable[Pod], version: KubernetesVersion) -> list[str]:
    """The scheduling.k8s.io objects checked against the release (a Workload or PodGroup of another
    release's API version is refused, naming both) and one note per pod group pods name that is
    not there: GangScheduling's PreEnqueue holds them until it appears (v1.36), or, without that
    gate, the group's cycle runs without its PodGroup (it cannot preempt: runWorkloadAwarePreemption
    needs the object)."""
    from .model.workload import pod_groups_of, pods_of_missing_groups, refuse_other_release
    refuse_other_release(objects, version.name, version.minor)
    if version.minor == 35 and version.features.enable_generic_workload:
        from .model.workload import v1_35_missing_workload_notes
        return v1_35_missing_workload_notes(objects, pods, version.features.enable_gang_scheduling)
    if version.minor < 36 or not version.features.enable_generic_workload:
        return []
    groups = pod_groups_of(objects, version.minor)
    out = []
    for key, keys in pods_of_missing_groups(pods, groups, version.minor).items():
        more = f" and {len(keys) - 1} more" if len(keys) > 1 else ""
        held = (f"GangScheduling holds them at PreEnqueue (waiting for pods's pod group "
                f"{quote(key.split('/', 1)[1])} to appear in scheduling queue)"
                if version.features.enable_gang_scheduling else
                "their group's cycle runs without it, and cannot preempt")
        out.append(f"{keys[0]}{more} name PodGroup {key}, which is not there: {held}")
    return out


NOTHING_TO_EXPLAIN = "name the pods to explain, or give -f MANIFEST, -n NAMESPACE, -l SELECTOR or -A"


def pods_to_explain(cluster: Cluster, pods: Sequence[str], namespace: str | None, all_namespaces: bool,
                    extra_keys: set[str], config: SchedulerConfig | None, source: str,
                    selector: LabelSelector | None = None) -> list[str]:
    """The keys of the pods `explain` explains: those named (namespace/name, or name in
    `namespace`), else the pending pods of `namespace` (every namespace with `all_namespaces`) that
    one of the scheduler's profiles handles, matching `selector`."""
    if pods:
        return [_resolve_pod(cluster, p, namespace, extra_keys, source) for p in pods]
    if extra_keys:
        return []
    if namespace is None and not all_namespaces:
        raise UsageError(NOTHING_TO_EXPLAIN)
    schedulers = ({p.scheduler_name for p in config.profiles} if config is not None else {"default-scheduler"})
    # the pods the scheduler would try: pending, not being deleted, handled by one of its profiles
    return [key for key in pending_pods(cluster, namespace)
            if not cluster.pods[key].terminating and cluster.pods[key].scheduler_name in schedulers
            and (selector is None or selector.matches(cluster.pods[key].labels))]


POD_GROUP_TYPES = ("podgroup/", "podgroups/", "podgroup.scheduling.k8s.io/", "podgroups.scheduling.k8s.io/")


def _resolve_pod_group(cluster: Cluster, arg: str, namespace: str | None, source: str) -> str:
    """podgroup/NAME (in -n NAMESPACE) or podgroup/NS/NAME -> "podgroup/NS/NAME": a PodGroup the
    snapshot holds, or one its pods name."""
    from .model.workload import is_workload_object, scheduling_group
    rest = arg.split("/", 1)[1]
    if rest.count("/") > 1 or not rest or rest.startswith("/") or rest.endswith("/"):
        raise UsageError(f"{quote(arg)} is neither podgroup/NAME nor podgroup/NAMESPACE/NAME")
    key = rest if "/" in rest else f"{namespace or 'default'}/{rest}"
    ns, name = key.split("/", 1)
    known = any(is_workload_object(o) and o.get("kind") == "PodGroup"
                and ((o.get("metadata") or {}).get("namespace") or "default") == ns
                and (o.get("metadata") or {}).get("name") == name for o in cluster.extra.get("PodGroup") or ())
    if not known and not any(p.namespace == ns and scheduling_group(p.spec) == name for p in cluster.pods.values()):
        raise InputError(f"podgroup {key} not found (neither a PodGroup nor pods naming it)", source=source)
    return POD_GROUP_PREFIX + key


def _resolve_pod(cluster: Cluster, arg: str, namespace: str | None, extra_keys: set[str], source: str) -> str:
    if arg.lower().startswith(POD_GROUP_TYPES):
        return _resolve_pod_group(cluster, arg, namespace, source)
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


def check_requests(cluster: Cluster, keys: Sequence[str], objects: Sequence[Mapping[str, Any]], source: str) -> None:
    """A pending pod's requests are parsed only when it is scheduled: check them before, so that a
    bad quantity is reported with the item it sits in, as the loader reports bound pods'."""
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


# --- naming pods as kubectl does -------------------------------------------------------------------

# the resource types (and kubectl's short names) a user may put before a name by habit
# (`kubectl logs deployment/checkout`); explain reads Pods only. kubectl's own `pod/`, `pods/`
# and `po/` prefixes are accepted and dropped.
POD_PREFIXES = ("pod/", "pods/", "po/")
OTHER_TYPES = {
    "deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
    "replicaset": "ReplicaSet", "replicasets": "ReplicaSet", "rs": "ReplicaSet",
    "statefulset": "StatefulSet", "statefulsets": "StatefulSet", "sts": "StatefulSet",
    "daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
    "job": "Job", "jobs": "Job", "cronjob": "CronJob", "cronjobs": "CronJob", "cj": "CronJob",
    "replicationcontroller": "ReplicationController", "replicationcontrollers": "ReplicationController",
    "rc": "ReplicationController", "service": "Service", "services": "Service", "svc": "Service",
    "node": "Node", "nodes": "Node", "no": "Node", "namespace": "Namespace", "namespaces": "Namespace",
    "poddisruptionbudget": "PodDisruptionBudget", "poddisruptionbudgets": "PodDisruptionBudget",
    "pdb": "PodDisruptionBudget", "priorityclass": "PriorityClass", "priorityclasses": "PriorityClass",
    "pc": "PriorityClass", "persistentvolumeclaim": "PersistentVolumeClaim",
    "persistentvolumeclaims": "PersistentVolumeClaim", "pvc": "PersistentVolumeClaim",
}


def strip_pod_prefix(arg: str) -> str:
    """`pod/web-0` -> `web-0`, as kubectl reads TYPE/NAME for pods."""
    for prefix in POD_PREFIXES:
        if arg.startswith(prefix):
            return arg[len(prefix):]
    return arg


def other_type(arg: str) -> str | None:
    """The kind `arg` names when it is TYPE/NAME of something other than a Pod (`deployment/checkout`,
    `deployments.apps/checkout`), else None. A namespace name is a DNS label: no dot in it."""
    head, sep, _ = arg.partition("/")
    if not sep:
        return None
    head = head.lower()
    if head in OTHER_TYPES:
        return OTHER_TYPES[head]
    if "." in head:
        return OTHER_TYPES.get(head.split(".", 1)[0], head)
    return None


# --- replay's and check's requests: traces read, each with the release that replays it ----------

from .replay.api import scheduler_version as _replay_scheduler_version  # noqa: E402


def bundled_trace(name: str) -> str:
    """The path of a trace bundled with every install (the repository's traces/NAME, io/bundled.py)."""
    return str(bundled.path(f"traces/{name}"))


def bundled_file(relative: str) -> str:
    """The path of a file bundled with every install, by its path in the repository
    (`examples/cluster.json`)."""
    return str(bundled.path(relative))


def read_replay_trace(path: str, *, kubernetes_version: str | None = None,
                      feature_gates: Mapping[str, bool] | None = None,
                      note: Callable[[str], None] | None = None) -> tuple[Trace, KubernetesVersion]:
    """The trace at `path` and the release that replays it: the one the trace was recorded from
    unless `kubernetes_version` says, with `feature_gates` checked against it (refused here, as
    kube-scheduler refuses them at start). `note` hears the trace's notes, then the release's when
    it is not the one the trace names."""
    say = note if note is not None else (lambda _text: None)
    tr = read_trace(path)
    for n in tr.notes:
        say(f"note: {n}")
    picked = _replay_scheduler_version(tr, kubernetes_version)
    if picked.note:
        say(picked.note)
    return tr, apply_feature_gates(picked.version, feature_gates)


def load_priority_class_files(paths: Iterable[str]) -> list[dict]:
    """The PriorityClasses of replay's --priorityclasses files: any other kind is refused."""
    classes: list[dict] = []
    for f in paths:
        objs = load_objects(f)
        bad = [o.get("kind") for o in objs if o.get("kind") != "PriorityClass"]
        if bad:
            raise InputError(f"expected PriorityClass objects only, found {bad[0]}", source=f)
        classes.extend(objs)
    return classes


def decision_case_writer(directory: str, *, overwrite: bool,
                         private: bool) -> tuple[Callable[[dict[str, Any]], None], list[str]]:
    """--dump-decisions: a function writing each decision's conformance case into `directory`
    (made ready here: empty or new unless `overwrite`), and the list of the files it wrote."""
    prepare_directory(directory, overwrite=overwrite, private=private, field="--dump-decisions")
    written: list[str] = []

    def write(case: dict[str, Any]) -> None:
        path = os.path.join(directory, f"{case['name']}.json")
        write_atomic(path, live.serialize(case, path), private=private, field="--dump-decisions")
        written.append(path)

    return write, written


@dataclass
class CheckInputs:
    """What `check` compares: the traces by name, the proposed classes (with the file each came
    from), the baseline classes when given, the scheduler configuration, and the notes on them."""
    traces: dict[str, Trace]
    classes: list[dict]
    sources: Any
    baseline: list[dict] | None
    config: Any
    notes: list[str]


def check_inputs(trace_paths: Sequence[str], proposed: Sequence[str], *, baseline: Sequence[str] | None = None,
                 config: str | None = None, kubernetes_version: str | None = None,
                 feature_gates: Mapping[str, bool] | None = None) -> CheckInputs:
    """Read everything `check` needs before any replay: the traces (directories expanded), the
    proposed and baseline PriorityClass files, the configuration. Each trace's release is picked
    and the feature gates checked against it here, so that a refusal comes before any replay."""
    notes: list[str] = []
    traces: dict[str, Trace] = {}
    for path in expand(trace_paths, TRACE_SUFFIXES, "traces", recursive=False):
        tr = read_trace(path)
        notes += [f"note: {n}" for n in tr.notes]
        traces[tr.source or path] = tr
        # each trace is replayed by the release it was recorded from, unless one is asked for
        picked = _replay_scheduler_version(tr, kubernetes_version)
        if picked.note:
            notes.append(f"{tr.source or path}: {picked.note}")
        # refused before any replay, as kube-scheduler refuses them at start
        apply_feature_gates(picked.version, feature_gates)

    classes, sources, skipped = load_priority_classes(proposed)
    others = ", ".join(f"{k} ({n})" for k, n in skipped.items())
    if not classes:
        raise InputError("no PriorityClass in " + ", ".join(proposed) + (f" (only {others})" if others else ""),
                         field="--proposed")
    if skipped:
        notes.append(f"note: --proposed: skipped {others}: only PriorityClasses are checked")
    base = None
    if baseline:
        base, _, _ = load_priority_classes(baseline)
    cfg = load_config_document(config) if config else None
    return CheckInputs(traces, classes, sources, base, cfg, notes)


# --- history's request: a trace, a snapshot or the live cluster, read into one document ---------

def history_request(namespace: str | None, since: float | None, default_since: float, *,
                    snapshot: str | None = None, trace: str | None = None, context_namespace: bool = False,
                    context: str | None = None, kubeconfig: str | None = None, request_timeout: str | None = None,
                    progress: Callable[[str], None] | None = None,
                    kubernetes_version: str | None = None) -> tuple[dict[str, Any], str]:
    """`history`'s document from a recorded trace (every version it recorded), a snapshot (the
    `default_since` seconds before its capture unless `since`), or else the live cluster (the
    context's namespace with `context_namespace`); and the refusal to report once it is shown (a
    live read that could read pods or Events but not both), else ""."""
    refusal = ""
    tr = read_trace(trace if trace is not None else snapshot, require=("Pod", "Event")) \
        if (trace or snapshot) is not None else None
    if snapshot is not None and tr is not None and tr.form != "snapshot":
        # as every command's --snapshot: a recording read as a snapshot would show its first
        # instant's pods against its later Events (preemptors <none>); --trace reads all of it
        kinds.wrong_kind(kinds.TRACE, kinds.SNAPSHOT, display_name(snapshot))
    if trace is not None and tr is not None:
        if tr.form == "snapshot":  # a snapshot given as --trace: a trace of one instant
            snapshot, trace = trace, None
        else:
            recorded = ((tr.header.get("recorder") or {}).get("kinds")) or ()
            events_read = "Event" in recorded or any((e.get("object") or {}).get("kind") == "Event" for e in tr.events)
            notes = list(tr.notes)
            if not events_read:
                notes.append(f"{display_name(trace)}: recorded without Events: victims are found by their "
                             "DisruptionTarget condition, preemptors by their nomination at the same instant")
            doc = preemption_history(trace_events=tr.events, since=since, namespace=namespace,
                                     events_read=events_read, source=display_name(trace), notes=notes,
                                     server_version=((tr.header.get("source") or {}).get("serverVersion")),
                                     kubernetes_version=kubernetes_version)
    if snapshot is not None and tr is not None:
        objects = [e.get("object") or {} for e in tr.events]
        # the reader's note on a snapshot ("replayed as a trace of one instant") is replay's; history
        # reads a snapshot as the hour before its capture, which its window says
        notes = [] if tr.form == "snapshot" else list(tr.notes)
        doc = preemption_history(objects, now=tr.start, since=since if since else default_since,
                                 namespace=namespace, source=display_name(snapshot), notes=notes,
                                 server_version=_captured_server_version(snapshot), kubernetes_version=kubernetes_version)
    elif trace is None:
        doc, refusal = _live_history(namespace, context_namespace, since if since else default_since, context,
                                     kubeconfig, request_timeout, progress, kubernetes_version)
    return doc, refusal


def _live_history(namespace: str | None, context_namespace: bool, since: float, context: str | None,
                  kubeconfig: str | None, request_timeout: str | None,
                  progress: Callable[[str], None] | None,
                  kubernetes_version: str | None = None) -> tuple[dict[str, Any], str]:
    """Read the live cluster; the document, and the refusal to report once it is printed."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        if context_namespace:
            namespace = conn.namespace
        cluster = live.LiveCluster(conn, progress=progress)
        read = live.read_history(cluster, namespace)
        server = cluster.server_version()
    finally:
        conn.close()
    if not read.events_read and not read.pods_read:
        raise ClusterError(f"{read.events_refused}; and {read.pods_refused}")
    notes = list(read.notes)
    refusal = ""
    if not read.events_read:
        notes.append("no Events could be read: listing the victims the pods' DisruptionTarget conditions show "
                     "(preemptors from their nominations)")
        refusal = read.events_refused
    elif not read.pods_read:
        notes.append("no pods could be read: listing the victims the Events name (preemptors named by the Events)")
        refusal = read.pods_refused + ": the pods' conditions and nominations could not be read"
    doc = preemption_history(read.objects, now=time.time(), since=since, namespace=namespace,
                             pods_visible=read.pods_visible, events_read=read.events_read, checked=True,
                             source=f"context {conn.context}" if conn.context else "in-cluster", notes=notes,
                             server_version=server, kubernetes_version=kubernetes_version)
    return doc, refusal


# --- plan's request: the cluster (a snapshot or the live one) and the manifests to create -------

_CAPTURED_AT = re.compile(rb"""kubectl-preempt/captured-at["']?\s*:\s*["']?([0-9][0-9T:.\-+Z]+)""")
_CAPTURED_SERVER_VERSION = re.compile(rb"""kubectl-preempt/server-version["']?\s*:\s*["']?(v?[0-9][0-9A-Za-z.\-+]*)""")


def _captured_at(path: str) -> str | None:
    """The captured-at annotation of a snapshot `capture` wrote."""
    return _captured(path, _CAPTURED_AT)


def _captured_server_version(path: str) -> str | None:
    """The server-version annotation of a snapshot `capture` wrote."""
    return _captured(path, _CAPTURED_SERVER_VERSION)


def _captured(path: str, pattern: re.Pattern[bytes]) -> str | None:
    """An annotation of a snapshot `capture` wrote, found in its bytes (a List's metadata may come
    after its items, so the whole file is searched, at C speed)."""
    if path == "-":
        return None
    try:
        m = pattern.search(read_bytes(path))
    except InputError:
        return None
    return m.group(1).decode() if m else None


def _plan_manifests(paths: Sequence[str]) -> list[tuple[str, str, Any]]:
    out = []
    for path in paths:
        name = display_name(path)
        objs = load_objects(path)
        for i, obj in enumerate(objs):
            out.append((name, f"items[{i}]" if len(objs) > 1 else "", obj))
    return out


@dataclass
class PlanInputs:
    """What `plan` plans against: the manifests to create (file, item, object), the cluster's
    objects and where they came from (and when captured), whether what is made from them is private,
    the release that decides and the scheduler configuration."""
    manifests: list[tuple[str, str, Any]]
    objects: list[dict]
    source: str
    captured_at: str | None
    private: bool
    version: Resolved           # the release picked, with the gates set, and where it came from
    config: Any


def plan_inputs(manifest_paths: Sequence[str], snapshot: str | None, *, context: str | None = None,
                kubeconfig: str | None = None, request_timeout: str | None = None,
                kubernetes_version: str | None = None, config: str | None = None,
                note: Callable[[str], None] | None = None,
                feature_gates: Mapping[str, bool] | None = None) -> PlanInputs:
    """Read what `plan` needs: the manifests, then the snapshot, or without one the live cluster
    (read as `capture` reads it, lists only, unredacted: names are what is planned). `note` hears,
    in order, the live read's notes, the kinds ignored, and the release picked when it is not the
    one the data names."""
    say = note if note is not None else (lambda _text: None)
    manifests = _plan_manifests(manifest_paths)
    if snapshot is None:
        doc, notes = live.capture(kubeconfig, context, None, request_timeout, redact=False)
        for n in notes:
            say(f"note: {n}")
        objects = doc["items"]
        ann = doc["metadata"]["annotations"]
        source, captured_at = f"context {ann.get(live.ANN_CONTEXT)}", ann.get(live.ANN_CAPTURED_AT)
        private = True
    else:
        source = display_name(snapshot)
        objects = load_objects(snapshot)
        captured_at = _captured_at(snapshot)
        private = is_private(snapshot)
    ignored = ignored_note([o for o in objects if o.get("kind") not in ("Event", "Deployment", "Job")])
    if ignored:
        say(f"{source}: {ignored}")
    # the release the data names: a captured List's server-version annotation, or the live server's;
    # else its nodes' newest kubelet, else the newest imitated (with a note)
    try:
        resolved = scheduler_version(objects if snapshot is not None else doc, kubernetes_version)
    except UsageError:
        raise
    except InputError as e:
        raise e.located(source=source) from None
    if resolved.note:
        say(resolved.note)
    cfg = load_config_document(config) if config else None
    # --feature-gates are checked against the release picked, and carried by it
    version = apply_feature_gates(resolved.version, feature_gates)
    return PlanInputs(manifests, objects, source, captured_at, private, replace(resolved, version=version), cfg)


# --- version's request ------------------------------------------------------------------------------

def server_version_info(context: str | None = None, kubeconfig: str | None = None,
                        request_timeout: str | None = None) -> dict[str, Any]:
    """The API server's /version (gitVersion, ...), read through the context as kubectl version
    reads it; a ClusterError when it cannot be reached."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        return live.LiveCluster(conn).version_info()
    finally:
        conn.close()


# --- completion's reads of the live cluster (the shell waits: the caller bounds the time) -------

kubeconfig_paths = live.kubeconfig_paths  # the kubeconfig files kubectl would read, for --context's names


def live_pod_names(context: str | None, kubeconfig: str | None, request_timeout: str | None,
                   namespace: str | None) -> tuple[str, list[str]]:
    """The namespace read (`namespace`, else the context's when None) and the names of its pods."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        target = conn.namespace if namespace is None else namespace
        items = live.LiveCluster(conn).list(live.SPECS_BY_KIND["Pod"], target)
        return target, [(o.get("metadata") or {}).get("name") or "" for o in items]
    finally:
        conn.close()


def live_namespace_names(context: str | None, kubeconfig: str | None, request_timeout: str | None) -> list[str]:
    """The names of the cluster's namespaces, sorted."""
    conn = live.connect(kubeconfig, context, request_timeout)
    try:
        items = live.LiveCluster(conn).list(live.SPECS_BY_KIND["Namespace"])
        return sorted((o.get("metadata") or {}).get("name") or "" for o in items)
    finally:
        conn.close()


# --- explain's live read: the cluster, and what it recorded of the named pods' preemption -------

def pod_arg_key(arg: str, namespace: str | None) -> str | None:
    """namespace/name of a POD argument (kubectl's pod/ and pods/ prefixes dropped; a bare name in
    `namespace`), or None when it names no pod that way."""
    for prefix in ("pod/", "pods/"):
        if arg.startswith(prefix):
            arg = arg[len(prefix):]
    if arg.count("/") == 1 and not arg.startswith("/") and not arg.endswith("/"):
        return arg
    if "/" not in arg and namespace:
        return f"{namespace}/{arg}"
    return None


@dataclass
class LiveExplainRead:
    """What `explain` reads of the live cluster: its objects, where from, the namespace (-n, else
    the context's when pods are named), the POD arguments left to explain, the preemption records
    of the named pods (key -> record), those whose record is the whole answer (gone: False, still on
    their node: True), the refusal to read nodes if any, and the server's version when asked."""
    objects: list[dict]
    source: str
    namespace: str | None
    pods: list[str]
    records: dict[str, dict[str, Any]]
    record_only: dict[str, bool]
    nodes_refused: ClusterError | None
    server_version: str | None = None


def live_explain_read(context: str | None, kubeconfig: str | None, request_timeout: str | None,
                      namespace: str | None, all_namespaces: bool, pods: Sequence[str], manifests: Sequence[str], *,
                      server_version: bool = False, current_namespace: bool = False,
                      progress: Callable[[str], None] | None = None, progress_done: Callable[[], None] | None = None,
                      note: Callable[[str], None] | None = None) -> LiveExplainRead:
    """Read the cluster and the preemption records of the named pods, then close the connection.
    With `server_version`, also the server's version (which kube-scheduler release to imitate).
    `progress` hears the lists' reading, `progress_done` once they are read; `note` hears what could
    not be read (refusals, kinds not served), unless the nodes could not be read and no record is
    shown: without nodes there is no verdict, the refusal alone is the answer."""
    say = note if note is not None else (lambda _text: None)
    with live.open_session(kubeconfig, context, request_timeout, progress=progress) as session:
        # named pods, manifests and a label selector (`-l`, as kubectl's) default to the context's namespace
        if namespace is None and not all_namespaces and (pods or manifests or current_namespace):
            namespace = session.namespace
        keys = {arg: pod_arg_key(arg, None if all_namespaces else namespace) for arg in pods}
        # with access to one namespace only, the pods asked about say which one to read
        named = {k.partition("/")[0] for k in keys.values() if k}
        fallback = next(iter(named)) if len(named) == 1 else namespace
        try:
            objects, notes = session.fetch(fallback)
        finally:
            if progress_done is not None:
                progress_done()
        heard = [f"note: {n}" for n in notes]
        by_key = {live.pod_key(o): o for o in objects if o.get("kind") == "Pod"}
        records: dict[str, dict[str, Any]] = {}
        for key in dict.fromkeys(k for k in keys.values() if k):
            record, record_notes = session.who_preempted(key)
            heard.extend(f"note: {key}: {n}" for n in record_notes)
            if record is not None:
                records[key] = record
        record_only: dict[str, bool] = {}
        for k in records:
            pod = by_key.get(k)
            if pod is None or (pod.get("spec") or {}).get("nodeName") or \
                    (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                record_only[k] = pod is not None
        kept = [arg for arg, k in keys.items() if k not in record_only]
        nodes_refused = session.nodes_refused()
        if nodes_refused is None or records:
            for n in heard:
                say(n)
        source = f"context {session.conn.context}" if session.conn.context else "in-cluster"
        out = LiveExplainRead(objects, source, namespace, kept, records, record_only, nodes_refused)
        if server_version:
            out.server_version = session.cluster.server_version()
    return out


# --- session's request: the snapshot, kube-batch's configuration, one session or many ----------

from .replay.batch import BATCH_KINDS  # noqa: E402 - the kinds kube-batch reads besides the scheduler's


def read_scheduler_conf(path: str | None) -> tuple[str | None, str]:
    """kube-batch's configuration file's text and its name for errors (None: kube-batch's default)."""
    if path is None:
        return None, "kube-batch's default configuration"
    name = display_name(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", source=name) from None
    kinds.wrong_kind(_batch_conf_kind(data, name), kinds.BATCH_CONFIG, name)
    return text, name


def _batch_conf_kind(data: bytes, name: str) -> str | None:
    """What a file given as kube-batch's configuration is, when it is another input (a snapshot,
    a trace, a KubeSchedulerConfiguration): kube-batch's own parser would only say `unknown action ""`.
    A file that does not parse is left to that parser's words."""
    what = kinds.first_line_kind(data)
    if what is not None:
        return what
    try:
        docs = decode_documents(data, name)
    except InputError:
        return None
    return kinds.document_kind(docs[0][1]) if docs else None


def require_batch_pods(objects: Sequence[Mapping[str, Any]], scheduler_name: str, source: str) -> None:
    """A session schedules the pods that name kube-batch (its --scheduler-name): a snapshot without
    any has nothing for it to do, and empty tables would read as "kube-batch did nothing"."""
    names: dict[str, int] = {}
    for o in objects:
        if o.get("kind") == "Pod":
            name = (o.get("spec") or {}).get("schedulerName") or "default-scheduler"
            names[name] = names.get(name, 0) + 1
    if scheduler_name in names:
        return
    held = ", ".join(f"{k} ({n})" for k, n in sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))
    raise InputError(f"no pod has schedulerName {scheduler_name} ("
                     + (f"the pods name {held}" if names else "no pods at all")
                     + "): give the name of the pods kube-batch schedules with --batch-scheduler-name",
                     source=source)


def session_request(snapshot: str, scheduler_conf: str | None = None, *, scheduler_name: str = "kube-batch",
                    default_queue: str = "default", seed: int = 0, runs: int = 1,
                    note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """`kubectl preempt session`: the snapshot file read, kube-batch's pods required, its
    configuration file read (None: its default), then one session (batch_session) or, `runs` > 1,
    their distribution (batch_session_runs). `note` hears the kinds the session ignores; an input
    error without a file of its own is located in the snapshot."""
    source = display_name(snapshot)
    objects = load_objects(snapshot)
    require_batch_pods(objects, scheduler_name, source)
    text, conf_name = read_scheduler_conf(scheduler_conf)
    ignored = {k: n for k, n in ignored_kinds(objects).items() if k not in BATCH_KINDS}
    if ignored and note is not None:
        note(f"{source}: ignored " + ", ".join(f"{k} ({n})" for k, n in ignored.items()))
    try:
        if runs > 1:
            return batch_session_runs(objects, text, runs=runs, scheduler_name=scheduler_name,
                                      default_queue=default_queue, seed=seed, conf_source=conf_name)
        return batch_session(objects, text, scheduler_name=scheduler_name, default_queue=default_queue, seed=seed,
                             conf_source=conf_name)
    except InputError as e:
        raise (e if e.source else e.located(source=source)) from None


# --- capture's and record's requests: the live cluster into a file ------------------------------

_SUMMARY_KINDS = (("Node", "node", "nodes"), ("Pod", "pod", "pods"), ("PodDisruptionBudget", "PDB", "PDBs"),
                  ("PriorityClass", "PriorityClass", "PriorityClasses"))


def default_snapshot_filename(context: str | None, now: Any) -> str:
    """capture's file when none is named: snapshot-<context>-<UTC time>.json.gz."""
    # context names may be ARNs or URLs ("arn:aws:eks:...:cluster/prod"): keep a file name plain
    ctx = re.sub(r"[^A-Za-z0-9._-]+", "_", context or "in-cluster").strip("_") or "cluster"
    return f"snapshot-{ctx}-{now.astimezone(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.json.gz"


def snapshot_summary(doc: Mapping[str, Any]) -> str:
    """A snapshot's object counts in a few words: nodes, pods, PDBs, PriorityClasses, the rest."""
    counts: dict[str, int] = {}
    for item in doc.get("items") or ():
        counts[item.get("kind")] = counts.get(item.get("kind"), 0) + 1
    parts = []
    for kind, one, many in _SUMMARY_KINDS:
        n = counts.pop(kind, 0)
        parts.append(f"{n:,} {one if n == 1 else many}")
    rest = sum(counts.values())
    if rest:
        parts.append(f"{rest:,} other objects")
    return ", ".join(parts)


def snapshot_context(doc: Mapping[str, Any]) -> str | None:
    """The context a snapshot was captured from (its annotation)."""
    return ((doc.get("metadata") or {}).get("annotations") or {}).get(live.ANN_CONTEXT)


@dataclass
class Captured:
    """What capture wrote: where, a summary of its objects, whether redacted, the server's version."""
    path: str
    summary: str
    redacted: bool
    server_version: str


def capture_snapshot(output_file: str | None, *, kubeconfig: str | None = None, context: str | None = None,
                     namespace: str | None = None, request_timeout: str | None = None, redact: bool = True,
                     chunk_size: int = live.DEFAULT_CHUNK_SIZE, progress: Any = None,
                     progress_done: Callable[[], None] | None = None,
                     note: Callable[[str], None] | None = None) -> Captured:
    """`kubectl preempt capture`: the live cluster listed (io/live.py capture), its notes told to
    `note` (after `progress_done`), then the snapshot written to `output_file` (None: a timestamped
    file named by default_snapshot_filename; "-": standard output). Unredacted: readable by its owner only."""
    now = datetime.now(timezone.utc)
    try:
        doc, notes = live.capture(kubeconfig, context, namespace, request_timeout, redact=redact,
                                  progress=progress, chunk_size=chunk_size, now=now)
    finally:
        if progress_done is not None:
            progress_done()
    path = output_file or default_snapshot_filename(snapshot_context(doc), now)
    if note is not None:
        for n in notes:
            note(n)
    live.write_document(doc, path, private=not redact)
    return Captured(path, snapshot_summary(doc), redact, doc["metadata"]["annotations"][live.ANN_SERVER_VERSION])


def record_duration(duration: str | None) -> float | None:
    """record's --duration in seconds (None: until stopped); refused when not longer than 0."""
    if duration is None:
        return None
    seconds = live.parse_request_timeout(duration, field="--duration")
    if seconds is None:
        raise UsageError(f"{quote(duration)} must be longer than 0", field="--duration")
    return seconds


def record_summary(stats: Any, output_file: str) -> str:
    """What a recording wrote, in one line: objects at the start, events, re-lists, per kind, why it ended."""
    where = "standard output" if output_file == "-" else output_file
    kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(stats.per_kind.items()))
    return (f"wrote {where}: {stats.initial_objects:,} objects at the start, "
            f"{stats.events - stats.initial_objects:,} events over {int(stats.ended - stats.started)}s"
            + (f", {stats.relists} re-list(s) after 410 Gone" if stats.relists else "")
            + f" ({kinds}); ended: {stats.reason or 'done'}")
