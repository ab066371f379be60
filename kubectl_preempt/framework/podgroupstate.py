"""The runtime state of a pod group: which of its pods the scheduler knows, and which of them are
unscheduled, assumed or assigned (backend/cache/podgroupstate.go podGroupStateData), and the
pod groups a scheduler reads (the PodGroup lister, over the cluster's objects).

The cache keeps one state per group, live (the informers' pods: AddPodGroupMember on every pod
of the group, pending or bound, RemovePodGroupMember when it is deleted); a pod-group scheduling
cycle works on a copy taken with its snapshot (podGroupStateSnapshot), where the members it
places are assumed and forgotten again. Ours is built from the cluster's pods (`states_of`) for
the live view and copied for a cycle (`PodGroupState.copy`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import quote
from ..model.objects import Pod
from ..model.workload import PodGroup, group_name_of, pod_groups_of

if TYPE_CHECKING:
    from .versions import KubernetesVersion


class PodGroupState:
    """mirrors podGroupStateData: the group's pods by uid (in the order the cache learnt them),
    and the unscheduled, assumed and assigned among them."""

    __slots__ = ("all_pods", "unscheduled", "assumed", "assigned")

    def __init__(self) -> None:
        self.all_pods: dict[str, Pod] = {}
        self.unscheduled: dict[str, None] = {}  # an ordered set
        self.assumed: dict[str, Pod] = {}
        self.assigned: dict[str, None] = {}

    def add_pod(self, pod: Pod) -> None:
        # mirrors addPod: assigned when it has a node, else unscheduled
        self.all_pods[pod.uid] = pod
        if pod.node_name:
            self.assigned[pod.uid] = None
        else:
            self.unscheduled[pod.uid] = None

    def assume_pod(self, pod: Pod) -> None:
        # mirrors assumePod: a pod the cache does not know is ignored
        stored = self.all_pods.get(pod.uid)
        if stored is None:
            return
        if stored.node_name:
            self.assigned[pod.uid] = None
        else:
            self.assumed[pod.uid] = pod
        self.unscheduled.pop(pod.uid, None)

    def forget_pod(self, uid: str) -> None:
        # mirrors forgetPod
        pod = self.all_pods.get(uid)
        if pod is None:
            return
        self.assumed.pop(uid, None)
        if pod.node_name:
            self.assigned[uid] = None
        else:
            self.unscheduled[uid] = None

    def all_pods_count(self) -> int:
        return len(self.all_pods)

    def scheduled_pods_count(self) -> int:
        # mirrors scheduledPodsCount: assumed or assigned
        return len(self.assumed) + len(self.assigned)

    def unscheduled_pods(self) -> list[Pod]:
        """mirrors UnscheduledPods (upstream's is a map: callers order what they take from it)."""
        return [self.all_pods[uid] for uid in self.unscheduled]

    def copy(self) -> "PodGroupState":
        # mirrors podGroupState.snapshot: what a pod-group cycle changes stays in its copy
        c = PodGroupState()
        c.all_pods = dict(self.all_pods)
        c.unscheduled = dict(self.unscheduled)
        c.assumed = dict(self.assumed)
        c.assigned = dict(self.assigned)
        return c

    def __repr__(self) -> str:
        return (f"PodGroupState(all={len(self.all_pods)}, unscheduled={len(self.unscheduled)}, "
                f"assumed={len(self.assumed)}, assigned={len(self.assigned)})")


def group_key_of(pod: Pod, minor: int) -> str:
    """namespace/name of the pod group a pod belongs to as the release reads it, "" for none."""
    name = group_name_of(pod.spec, minor)
    return f"{pod.namespace}/{name}" if name else ""


def states_of(pods: Iterable[Pod], minor: int) -> dict[str, PodGroupState]:
    """The cache's pod group states, by namespace/name, from the pods it knows (every pod that
    names a group, pending or bound; mirrors AddPodGroupMember)."""
    out: dict[str, PodGroupState] = {}
    for p in pods:
        key = group_key_of(p, minor)
        if not key:
            continue
        st = out.get(key)
        if st is None:
            st = out[key] = PodGroupState()
        st.add_pod(p)
    return out


class PodGroupLister:
    """The pod groups a release's scheduler reads (PodGroups().Lister()), by namespace/name, built
    from the cluster's objects of those kinds and kept while those lists are the same
    (framework/listers.py)."""

    def __init__(self, listers: Any, minor: int) -> None:
        self._listers = listers
        self._minor = minor

    def _index(self) -> Mapping[str, PodGroup]:
        cluster = self._listers.cluster
        if cluster is None:
            return {}
        extra = getattr(cluster, "extra", None) or {}

        def build() -> Mapping[str, PodGroup]:
            return pod_groups_of(list(extra.get("PodGroup") or ()) + list(extra.get("Workload") or ()), self._minor)

        return self._listers.kept(("PodGroup", "Workload"), f"pod groups v1.{self._minor}", build)

    def get(self, namespace: str, name: str) -> PodGroup | None:
        idx = self._index()
        got = idx.get(f"{namespace}/{name}")
        if got is None and self._minor == 35 and name.count("/") == 2:
            # v1.35: a replica of a Workload's pod group is its pod group, once per replica key
            wl, group, replica = name.split("/")
            base = idx.get(f"{namespace}/{wl}/{group}")
            if base is not None:
                workload = next((o for o in (getattr(self._listers.cluster, "extra", {}) or {}).get("Workload") or ()
                                 if (o.get("metadata") or {}).get("name") == wl
                                 and ((o.get("metadata") or {}).get("namespace") or "default") == namespace), None)
                if workload is not None:
                    groups = (workload.get("spec") or {}).get("podGroups") or []
                    i = next(k for k, g in enumerate(groups) if g.get("name") == group)
                    got = PodGroup.of_workload(workload, i, replica)
        return got

    def list(self) -> list[PodGroup]:
        return list(self._index().values())


def groups_read_by_no_one(pods: Iterable[Pod], version: "KubernetesVersion") -> list[str]:
    """One note per pod group that pending pods name while GenericWorkload is off (alpha, off by
    default in v1.35 and v1.36): the scheduler then never looks for a pod's group (schedule_one.go
    ScheduleOne takes scheduleOnePodGroup only with the gate; scheduler.go New makes no PodGroup
    lister without it), so each such pod is decided alone, as any pod. Said so that a gang's
    per-pod verdicts read as what that scheduler does, with the gates that decide its group."""
    from ..model.workload import pods_of_missing_groups
    out = []
    # every group the pending pods name: with the gate off, none is read
    for key, keys in pods_of_missing_groups(pods, (), version.minor).items():
        more = f" and {len(keys) - 1} more" if len(keys) > 1 else ""
        ns, name = key.split("/", 1)
        what = (f"PodGroup {key}" if version.minor >= 36 else
                f"pod group {quote(name.split('/')[1])} of Workload {ns}/{name.split('/')[0]}")
        out.append(f"{keys[0]}{more} name {what}, which kube-scheduler {version.name} does not read with "
                   f"GenericWorkload off: each is decided alone, as any pod (--feature-gates "
                   f"GenericWorkload=true,GangScheduling=true schedules it as a gang)")
    return out


def pods_in_groups_read_by_no_one(pods: Iterable[Mapping[str, Any]], version: "KubernetesVersion") -> str | None:
    """replay's note when pods of a trace name pod groups that the release reads only with
    GenericWorkload, and the gate is off (groups_read_by_no_one, for a trace's Pod objects as they
    come: any that ever names one); None otherwise."""
    if version.minor < 35 or version.features.enable_generic_workload:
        return None
    members: dict[str, set[str]] = {}
    for o in pods:
        spec, md = o.get("spec"), o.get("metadata")
        if not isinstance(spec, Mapping) or not isinstance(md, Mapping):
            continue
        name = group_name_of(spec, version.minor)
        if name:
            ns = md.get("namespace") or "default"
            members.setdefault(f"{ns}/{name}", set()).add(f"{ns}/{md.get('name')}")
    if not members:
        return None
    names = list(members)
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    kind = "PodGroup" if version.minor >= 36 else "pod group"
    what = f"{kind}{'s' if len(names) > 1 else ''} {shown}"
    pods_n = sum(len(v) for v in members.values())
    return (f"{pods_n} pod{'s' if pods_n != 1 else ''} name {what}, which kube-scheduler {version.name} does "
            f"not read with GenericWorkload off: each is replayed alone, as any pod (--feature-gates "
            f"GenericWorkload=true,GangScheduling=true schedules them as gangs)")


def workload_notes(objects: Sequence[Mapping[str, Any]], pods: Iterable[Pod], version: "KubernetesVersion") -> list[str]:
    """The scheduling.k8s.io objects checked against the release (a Workload or PodGroup of another
    release's API version is refused, naming both) and one note per pod group pods name that is
    not there: GangScheduling's PreEnqueue holds them until it appears (v1.36), or, without that
    gate, the group's cycle runs without its PodGroup (it cannot preempt: runWorkloadAwarePreemption
    needs the object)."""
    from ..model.workload import pods_of_missing_groups, refuse_other_release
    refuse_other_release(objects, version.name, version.minor)
    if version.minor >= 35 and not version.features.enable_generic_workload:
        return groups_read_by_no_one(pods, version)
    if version.minor == 35 and version.features.enable_generic_workload:
        from ..model.workload import v1_35_missing_workload_notes
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
