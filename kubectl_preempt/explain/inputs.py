"""explain's inputs: the cluster built from what was read, the release that decides, and the pods
named as kubectl names them (namespace/name, NAME in -n, pod/NAME, podgroup/NS/NAME)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..errors import InputError, UsageError, quote
from ..framework.config import SchedulerConfig
from ..framework.podgroupstate import workload_notes
from ..framework.versions import (FROM_LIVE, FROM_SNAPSHOT, KubernetesVersion, Resolved, apply_feature_gates,
                                  kubelet_versions, resolve_kubernetes_version)
from ..io.snapshot import ignored_note, load_config, load_manifests, pod_key
from ..model.cluster import Cluster
from ..model.selectors import LabelSelector
from .request import POD_GROUP_PREFIX, pending_pods




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
    from ..model.workload import is_workload_object, scheduling_group
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
