"""explain's run: what kube-scheduler decides for each pod named, against one cluster state.

`explain_pods` is the core of the `explain` request (explain/door.py) and of the library's
`explain`; the release is resolved once (io/release.py) unless the caller hands one resolved
already (a Resolved), which is then carried, never resolved again.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ..errors import InputError, quote
from ..framework.config import SchedulerConfig, parse_config
from ..framework.randomness import RandomSource
from ..framework.snapshot import Snapshot
from ..framework.versions import KubernetesVersion, Resolved, apply_feature_gates
from ..io.release import data_items, scheduler_version
from ..model.admission import admit
from ..model.cluster import Cluster
from ..model.objects import Pod
from ..scheduler.scheduler import Scheduler
from .document import build_document


def _cluster(objects: Cluster | Iterable[Mapping[str, Any]]) -> Cluster:
    return objects if isinstance(objects, Cluster) else Cluster.from_objects(data_items(objects))


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
                 kubernetes_version: str | KubernetesVersion | Resolved | None = None,
                 snapshot: Snapshot | None = None,
                 feature_gates: str | Mapping[str, bool] | None = None) -> list[dict[str, Any]]:
    """Explain several pods against the same state; each as if it were the next one scheduled.

    `extra_pods` are manifests not in the cluster (what would happen if they were created); their
    priority is resolved from the cluster's PriorityClasses as admission would.
    `kubernetes_version` and `feature_gates` as for explain().
    `snapshot`: `Snapshot.build(objects)` of this very Cluster, unchanged since, for a caller that
    explains against one state more than once and keeps its snapshot; built here otherwise.
    """
    # a request that resolved the release already hands it over: it is carried, not resolved again
    resolved = kubernetes_version if isinstance(kubernetes_version, Resolved) else \
        scheduler_version(objects, kubernetes_version)
    version = apply_feature_gates(resolved.version, feature_gates)
    cluster = _cluster(objects)
    cfg = _config(config, version)
    pods = list(pods)
    for raw in extra_pods:
        p = admit(raw, cluster.priority_classes)
        cluster.pods[p.key] = p
        cluster.version += 1  # taken in: a snapshot built before no longer lists the cluster's pods
        cluster.pod_set_version += 1
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
    from ..framework.podgroupstate import group_key_of
    v = cfg.version
    pod = cluster.pods.get(key)
    return (pod is not None and not pod.node_name and v.minor >= 36 and v.features.enable_generic_workload
            and bool(group_key_of(pod, v.minor)))


def _explain_pod_group(sched: Scheduler, key: str, version: KubernetesVersion) -> dict[str, Any]:
    """The pod-group cycle of a group (podgroup/NS/NAME) or of a member's group, over the group's
    pending members (not being deleted) in the order the cycle tries them: priority, then creation
    (a snapshot holds no queue: the first attempts follow the creations)."""
    from .podgroup import held_document, member_document, pod_group_document, untried_member_document
    from ..framework.podgroupstate import group_key_of
    from ..scheduler.schedule_one_podgroup import order_members
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
        # held before any cycle (GangScheduling: its group or enough of its pods not there yet),
        # or no member of the group's cycle (bound, or being deleted): its own cycle, as any pod's
        if pod.node_name or pod.terminating or (fwk is not None and not sched.pre_enqueue(fwk, pod).is_success()):
            res = sched.schedule(pod)
            nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
            doc = build_document(res, nominated)
            return {"pod": doc.pop("pod"), "schedulerVersion": version.name, **gates, **doc}
    # the group's pods in the scheduling queue: pending, not being deleted, and of a profile
    # (responsibleForPod: no other pod is queued)
    members = [p for p in cluster.pods.values() if not p.node_name and not p.terminating
               and group_key_of(p, version.minor) == group and sched.responsible_for(p)]
    if not members:
        raise InputError(f"pod group {group} has no pending pods to schedule", field="pod")
    members = order_members(members, lambda p: (p.metadata.get("creationTimestamp") or "", p.name))
    # the pods PreEnqueue holds (a gang not there yet, a scheduling gate) never reach the queue's
    # activeQ: the cycle pops the others (podGroupInfoForPod); with none, no cycle runs at all
    fwk = sched.framework_for(members[0])
    held = {p.uid: st for p in members if fwk is not None and not (st := sched.pre_enqueue(fwk, p)).is_success()}
    if held and len(held) == len(members) and focus is None:
        doc = held_document(sched, group, members, held)
        return {"podGroup": doc.pop("podGroup"), "kind": "PodGroupExplanation", "schedulerVersion": version.name,
                **gates, **doc}
    members = [p for p in members if p.uid not in held]
    result = sched.schedule_pod_group(group, members)
    nominated = {n: [p.key for p in ps] for n, ps in sched.nominator.by_node.items()}
    if focus is None:
        doc = pod_group_document(result)
        return {"podGroup": doc.pop("podGroup"), "kind": "PodGroupExplanation", "schedulerVersion": version.name,
                **gates, **doc}
    if result.member(focus) is None:
        doc = untried_member_document(result, cluster.pods[focus])
    else:
        doc = member_document(result, focus, nominated)
    return {"pod": doc.pop("pod"), "schedulerVersion": version.name, **gates, **doc}
