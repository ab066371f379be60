"""The cluster as the replayed scheduler sees it over time: objects, the scheduler's snapshot and
nominator, kept up to date incrementally as bindings, deletions and node changes happen.

Objects handed in (trace events) are never mutated: where the replay changes a pod (binds it,
nominates it, marks it terminating) it changes the pod's view and copies of its dicts.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping

from ..framework.config import SchedulerConfig
from ..framework.podinfo import release
from ..framework.randomness import FIXED, RandomSource
from ..framework.runtime import Nominator
from ..framework.snapshot import Snapshot
from ..model.cluster import Cluster
from ..model.rfc3339 import format_seconds, parse_seconds
from ..model.objects import Node, Pod, PodDisruptionBudget, PriorityClass
from ..preemption.document import grace_period  # noqa: F401 - the replay's parts read it here
from ..scheduler.memo.equivalence import EquivalenceCache
from ..scheduler.scheduler import Scheduler
from ..scheduler.backend.cache import PodOrder

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"



# --- time ------------------------------------------------------------------------------------------

def parse_time(value: Any) -> float | None:
    """RFC 3339 text, a datetime or a number of seconds since the epoch -> seconds since the epoch."""
    return parse_seconds(value)


format_time = format_seconds


def start_time_of(bound_at: float, status_delay: float) -> str:
    """The status.startTime a pod bound at `bound_at` gets: the kubelet's status manager sets it at
    its first status write for the pod (pkg/kubelet/status/status_manager.go
    updateStatusInternal), `status_delay` seconds after the binding, and metav1.Time serialises
    it to whole seconds (RFC 3339, the fraction dropped). Start times of pods started in one
    second are then equal, and victim order (util.MoreImportantPod) and the last step of
    pickOneNodeForPreemption fall to their next criterion. Written at the binding rather than at
    the status write: the replay has no kubelet event in between."""
    return format_seconds(float(math.floor(bound_at + max(status_delay, 0.0))))


# --- pods ------------------------------------------------------------------------------------------

def is_mirror_pod(raw: Mapping[str, Any]) -> bool:
    return MIRROR_POD_ANNOTATION in ((raw.get("metadata") or {}).get("annotations") or {})


def preempted_by_scheduler(raw: Mapping[str, Any]) -> bool:
    """The cluster recorded the scheduler preempting this pod (the DisruptionTarget condition)."""
    for c in (raw.get("status") or {}).get("conditions") or ():
        if c.get("type") == DISRUPTION_TARGET and c.get("reason") == REASON_PREEMPTION_BY_SCHEDULER \
                and c.get("status", "True") == "True":
            return True
    return False


def disruption_target(raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pod's DisruptionTarget condition, whoever set it (the scheduler, an eviction, the taint
    manager, the pod GC), or None."""
    return next((c for c in (raw.get("status") or {}).get("conditions") or ()
                 if isinstance(c, Mapping) and c.get("type") == DISRUPTION_TARGET), None)


def finished(raw: Mapping[str, Any]) -> bool:
    return (raw.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def pod_manifest(pod: Pod) -> dict[str, Any]:
    """The pod as the API would show it now, with the replay's own changes (binding, nomination,
    termination, resolved priority) written back."""
    raw = dict(pod.raw)
    md = dict(pod.metadata)
    spec = dict(pod.spec)
    status = dict(pod.status)
    md["namespace"] = pod.namespace
    spec["priority"] = pod.priority
    spec["preemptionPolicy"] = pod.preemption_policy
    if pod.node_name:
        spec["nodeName"] = pod.node_name
    else:
        spec.pop("nodeName", None)
    if pod.nominated_node_name and not pod.node_name:
        status["nominatedNodeName"] = pod.nominated_node_name
    else:
        status.pop("nominatedNodeName", None)
    if pod.deletion_timestamp:
        md["deletionTimestamp"] = pod.deletion_timestamp
    else:
        md.pop("deletionTimestamp", None)
    raw["apiVersion"] = raw.get("apiVersion") or "v1"
    raw["kind"] = "Pod"
    raw["metadata"], raw["spec"], raw["status"] = md, spec, status
    return raw


def pdb_manifest(pdb: PodDisruptionBudget) -> dict[str, Any]:
    raw = dict(pdb.raw)
    status = dict(raw.get("status") or {})
    status["disruptionsAllowed"] = pdb.disruptions_allowed
    if pdb.disrupted_pods:
        status["disruptedPods"] = dict(pdb.disrupted_pods)
    else:
        status.pop("disruptedPods", None)
    raw["status"] = status
    raw.setdefault("kind", "PodDisruptionBudget")
    raw.setdefault("apiVersion", "policy/v1")
    return raw


def _scaled(value: Any, total: int) -> int | None:
    # mirrors intstr.GetScaledValueFromIntOrPercent with rounding up
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            pct = int(value[:-1])
        except ValueError:
            return None
        return math.ceil(total * pct / 100)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


# --- the state -------------------------------------------------------------------------------------

class ReplayState:
    """Objects, snapshot, nominator and the scheduler over them."""

    def __init__(self, cluster: Cluster, config: SchedulerConfig, *, random_source: RandomSource = FIXED,
                 recompute_pdbs: bool = False, order: PodOrder | None = None) -> None:
        self.cluster = cluster
        self.config = config
        self.recompute_pdbs = recompute_pdbs
        self.pods_by_uid: dict[str, Pod] = {p.uid: p for p in cluster.pods.values()}
        # the scheduler cache's pod order per node: the one given (a trace's reconstructed
        # history, PodOrder.from_history), else the initial lists' order
        self.order = order if order is not None else PodOrder.from_list(cluster.pods.values())
        # each node's pods straight from the order's index (pods_on, as prepare's rebuilds ask
        # it), not one list of every pod grouped again by node
        by_uid = self.pods_by_uid
        self.snapshot = Snapshot.from_cluster(cluster, pods_on=lambda name: self.order.pods_on(name, by_uid))
        self.snapshot_dirty = False
        # while the snapshot waits for a rebuild (a node came, went or moved in the node tree),
        # the nodes whose pods changed meanwhile: every other node's NodeInfo still lists its
        # pods as they are, so the rebuild keeps it without looking (upstream's UpdateSnapshot
        # visits only the NodeInfos whose generation moved)
        self.stale_nodes: set[str] = set()
        # a replay schedules many pods of few shapes over a slowly changing cluster: the
        # equivalence cache pays (explain's single cycle goes without)
        self.scheduler = Scheduler(cluster, config, random_source=random_source, snapshot=self.snapshot, equivalence=EquivalenceCache())
        self.nominator: Nominator = self.scheduler.nominator
        # PDBs whose status the disruption controller recomputes at its next sync: those whose
        # PDB or a covered pod changed since (its pod and PDB handlers enqueue them); at the
        # start, none: the recorded status stands until then
        self.dirty_pdbs: set[str] = set()
        self.pdb_dirty = False
        self.profiles = {p.scheduler_name for p in config.profiles}
        # seconds between a change of the pods and the PDB status the scheduler sees reflecting it
        # (0: at once); the simulation arms the disruption controller's syncs
        self.pdb_lag = 0.0
        # the owners' scale of a PDB's pods (replay/controllers.py), None when one has none
        self.expected_scale: Callable[[list[Pod]], int | None] | None = None
        # seconds from a binding to the kubelet's first status write, which sets startTime: per
        # pod what the trace measured for it, else the trace's median (the simulation sets both,
        # replay/calibration.py). None: the trace shows no
        # kubelet to imitate (a world that writes its own start times, traces/generate.py): the
        # binding instant, as the replay wrote it before
        self.status_delay: float | None = None
        self.status_delays: Mapping[str, float] = {}
        # when each pod the replay bound turns Ready: that first status write sets Running and
        # Ready at once, as the recorded kubelet writes them (only with a kubelet to imitate)
        self.ready_at: dict[str, float] = {}
        # the replay's clock, for readiness at a sync that is given no time (prepare)
        self.clock: Callable[[], float] | None = None
        # moves with every change of a pod or another object (pod_changed, _changed): with the
        # scheduler's world(), what a cycle that would only repeat itself waits to change
        self.changes = 0

    # ---------------------------------------------------------------- readiness before a cycle
    def prepare(self) -> None:
        """Bring the snapshot (and recomputed PDB status) up to date before a scheduling cycle."""
        if self.snapshot_dirty:
            # the unchanged nodes keep their NodeInfos and generations (and the scheduler's
            # equivalence cache what it knows of them)
            by_uid = self.pods_by_uid
            stale = self.stale_nodes
            self.snapshot = Snapshot.from_cluster(self.cluster, previous=self.snapshot,
                                                  pods_on=lambda name: self.order.pods_on(name, by_uid),
                                                  pods_changed=stale)
            self.scheduler.snapshot = self.snapshot
            self.snapshot_dirty = False
            self.stale_nodes = set()
        if self.recompute_pdbs and self.pdb_lag:
            return  # the disruption controller's syncs recompute it, pdb_lag after a change
        if self.pdb_dirty and self.recompute_pdbs:
            self.recompute_pdb_status(only_changed=True)

    def owned(self, pod: Pod) -> bool:
        """A pod this scheduler would schedule: its schedulerName is one of the profiles."""
        return pod.scheduler_name in self.profiles and not is_mirror_pod(pod.raw)

    # ---------------------------------------------------------------- nodes
    def set_node(self, raw: Mapping[str, Any]) -> tuple[Node | None, Node]:
        node = Node(raw)
        old = self.cluster.nodes.get(node.name)
        self.cluster.nodes[node.name] = node
        if old is None:
            self.snapshot_dirty = True
        else:
            ni = self.snapshot.get(node.name)
            if ni is not None and not self.snapshot_dirty and _same_topology(old, node) and old.images == node.images:
                # the node's place in the node tree is unchanged: swap it in place
                ni.set_node(node)
            else:
                self.snapshot_dirty = True
        return old, node

    def delete_node(self, name: str) -> Node | None:
        old = self.cluster.nodes.pop(name, None)
        if old is not None:
            self.snapshot_dirty = True
        return old

    # ---------------------------------------------------------------- pods
    def _node_info_change(self, node: str, change: Callable[[Pod], None], pod: Pod) -> None:
        """A pod's change reaches its node's NodeInfo at once, unless a rebuild of the snapshot
        is due: the node is then noted among those the rebuild reads again (stale_nodes)."""
        if self.snapshot_dirty:
            self.stale_nodes.add(node)
        else:
            change(pod)

    def add_pod(self, pod: Pod) -> None:
        prev = self.cluster.pods.get(pod.key)
        if prev is not None and prev.uid != pod.uid:
            self.remove_pod(prev)
        self._index_pod(pod)

    def _index_pod(self, pod: Pod) -> None:
        """The pod in every index the replay keeps: by key, by uid, its node's info, nominations."""
        self.cluster.pods[pod.key] = pod
        self.cluster.pod_set_version += 1
        self.pods_by_uid[pod.uid] = pod
        if pod.node_name:
            self.order.add(pod.node_name, pod.uid)
            self._node_info_change(pod.node_name, self.snapshot.add_pod, pod)
        if pod.nominated_node_name and not pod.node_name:
            self.nominator.add(pod, pod.nominated_node_name)
        self.pod_changed(pod)

    def remove_pod(self, pod: Pod) -> None:
        cur = self.cluster.pods.get(pod.key)
        if cur is not None and cur.uid == pod.uid:
            del self.cluster.pods[pod.key]
            self.cluster.pod_set_version += 1
        self.pods_by_uid.pop(pod.uid, None)
        self.ready_at.pop(pod.uid, None)
        if pod.node_name:
            self.order.remove(pod.node_name, pod.uid)
            self._node_info_change(pod.node_name, self.snapshot.remove_pod, pod)
        self.nominator.delete(pod)
        release(pod)
        self.pod_changed(pod)

    def replace_pod(self, old: Pod, new: Pod) -> None:
        """A new view of the same pod (labels or spec changed)."""
        if old.node_name:
            self.order.remove(old.node_name, old.uid)
            self._node_info_change(old.node_name, self.snapshot.remove_pod, old)
        self.nominator.delete(old)
        if old is not new:
            release(old)
        self._index_pod(new)

    def touch(self, pod: Pod) -> None:
        """An update of a bound pod that changes nothing the scheduler reads (a status patch):
        the cache still removes and re-adds it, which moves it on its node's list."""
        if pod.node_name:
            self.order.update(pod.node_name, pod.uid)
            self._node_info_change(pod.node_name, self.snapshot.requeue_pod, pod)
        self.pod_changed(pod)

    def bind(self, pod: Pod, node_name: str, now: float) -> None:
        self.nominator.delete(pod)
        pod.nominated_node_name = ""
        pod.node_name = node_name
        status = dict(pod.status)
        status.pop("nominatedNodeName", None)
        status["phase"] = "Running"
        if self.status_delay is None:
            status["startTime"] = format_time(now)
        else:
            status["startTime"] = start_time_of(now, self.status_delays.get(pod.uid, self.status_delay))
        pod.status = status
        pod.phase = "Running"
        if self.status_delay is not None:
            self.ready_at[pod.uid] = now + max(self.status_delays.get(pod.uid, self.status_delay), 0.0)
        self.order.add(node_name, pod.uid)
        self._node_info_change(node_name, self.snapshot.add_pod, pod)
        self.pod_changed(pod)

    def nominate(self, pod: Pod, node_name: str) -> str:
        """Set (or clear, with "") the pod's nominated node; returns the previous one."""
        prev = pod.nominated_node_name
        pod.nominated_node_name = node_name
        if node_name:
            self.nominator.add(pod, node_name)
        else:
            self.nominator.delete(pod)
        return prev

    def mark_disruption_target(self, pod: Pod, now: float, by: Pod | None = None, preemptor_type: str = "pod") -> None:
        """The scheduler's status patch on a victim (PreemptPod): the DisruptionTarget condition,
        naming the preemptor's scheduler and type (`by`: the preemptor, or a member of the
        preempting PodGroup). An update of the pod, so it moves on its node's list as the
        scheduler cache moves it."""
        pod.status = _with_disruption_target(pod, now, by, preemptor_type)
        self.touch(pod)

    def mark_terminating(self, pod: Pod, now: float, *, preempted: bool) -> None:
        """The pod got a deletionTimestamp; it keeps its node's resources until it is gone. An
        update of the pod, so it moves on its node's list as the scheduler cache moves it."""
        self.touch(pod)
        md = dict(pod.metadata)
        md["deletionTimestamp"] = format_time(now)
        pod.metadata = md
        pod.deletion_timestamp = md["deletionTimestamp"]
        if preempted:
            pod.status = _with_disruption_target(pod, now)
        self.pod_changed(pod)

    # ---------------------------------------------------------------- PDBs, classes, the rest
    # Objects other than pods and nodes are swapped in as new lists (never mutated in place) and
    # bump cluster.version. What is derived from them and kept across cycles holds while its list
    # is the same object: the framework's listers (framework/listers.py); replacing cluster.pdbs
    # moves cluster.pdb_generation, which a pod's PDB matches are kept for.
    def _changed(self) -> None:
        self.cluster.version += 1
        self.changes += 1

    def pod_changed(self, pod: Pod) -> None:
        """A pod was added, updated or deleted: the PDBs covering it are recomputed at the
        disruption controller's next sync (mirrors DisruptionController.addPod/updatePod/deletePod
        -> getPdbForPod -> enqueuePdb)."""
        self.changes += 1
        self.pdbs_of(pod)

    def pdbs_of(self, pod: Pod) -> None:
        """The PDBs covering `pod` are synced at the disruption controller's next sync, as after
        any update of it (also a status write that changes nothing the scheduler reads)."""
        if not self.recompute_pdbs or not self.cluster.pdbs:
            return
        for pdb in self.cluster.pdbs:
            if pdb.namespace == pod.namespace and pdb.selector is not None and pdb.selector.matches(pod.labels):
                self.dirty_pdbs.add(pdb.key)
                self.pdb_dirty = True

    def pod_ready(self, pod: Pod, now: float | None) -> bool:
        """mirrors podutil.IsPodReady, as the disruption controller's countHealthyPods asks it: a
        pod the replay bound is Ready once its kubelet's first status write came (ready_at), a
        recorded pod when its Ready condition is True. Without a kubelet in the trace to imitate
        (status_delay None) or a time (`now` None), every bound pod counts, as a trace without
        readiness cannot say otherwise."""
        if self.status_delay is None or now is None:
            return True
        at = self.ready_at.get(pod.uid)
        if at is not None:
            return now >= at
        for c in pod.status.get("conditions") or ():
            if isinstance(c, Mapping) and c.get("type") == "Ready":
                return c.get("status") == "True"
        return False

    def set_pdb(self, raw: Mapping[str, Any]) -> PodDisruptionBudget:
        pdb = PodDisruptionBudget(raw)
        self.cluster.pdbs = [p for p in self.cluster.pdbs if p.key != pdb.key] + [pdb]
        # mirrors DisruptionController.addDb/updateDb: the PDB itself is synced
        self.dirty_pdbs.add(pdb.key)
        self.pdb_dirty = True
        self._changed()
        return pdb

    def evict(self, pdb_key: str, pod_name: str, at: float) -> bool:
        """The Eviction API's write into a PDB covering an evicted pod (mirrors
        EvictionREST.checkAndDecrement: disruptionsAllowed decremented, the pod entered in
        status.disruptedPods at the eviction's time). A pod that is not running (pending in the
        replay) or already terminating is evicted without touching the budget (canIgnorePDB).
        Returns whether the budget was written."""
        pdb = next((p for p in self.cluster.pdbs if p.key == pdb_key), None)
        if pdb is None:
            return False
        pod = self.cluster.pods.get(f"{pdb.namespace}/{pod_name}")
        if pod is None or not pod.node_name or pod.terminating:
            return False
        # the API server refuses at 0; the recording says the eviction went through, so the
        # replay's budget stays at 0 rather than going below
        pdb.disruptions_allowed = max(0, pdb.disruptions_allowed - 1)
        pdb.disrupted_pods = {**pdb.disrupted_pods, pod_name: format_time(at)}
        # which pods a PDB counts depends on disruptedPods: a new list, a new pdb_generation
        self.cluster.pdbs = list(self.cluster.pdbs)
        self.dirty_pdbs.add(pdb.key)
        self.pdb_dirty = True
        return True

    def delete_pdb(self, raw: Mapping[str, Any]) -> None:
        md = raw.get("metadata") or {}
        key = f"{md.get('namespace') or 'default'}/{md.get('name')}"
        self.cluster.pdbs = [p for p in self.cluster.pdbs if p.key != key]
        self._changed()

    def set_priority_class(self, raw: Mapping[str, Any]) -> None:
        pc = PriorityClass(raw)
        self.cluster.priority_classes[pc.name] = pc
        self._changed()

    def delete_priority_class(self, raw: Mapping[str, Any]) -> None:
        self.cluster.priority_classes.pop((raw.get("metadata") or {}).get("name"), None)
        self._changed()

    def set_extra(self, raw: Mapping[str, Any], deleted: bool = False) -> None:
        """An added, changed (deleted=False) or deleted object of a kind kept raw in
        cluster.extra (a Service, a claim, a volume...): it replaces the object of the same
        namespace and name; kinds the cluster does not keep are ignored."""
        kind = raw.get("kind")
        lst = self.cluster.extra.get(kind)
        if lst is None:
            return
        ident = _identity(raw)
        kept = [o for o in lst if _identity(o) != ident]
        if not deleted:
            kept.append(raw)
        self.cluster.extra[kind] = kept
        self._changed()

    def recompute_pdb_status(self, now: float | None = None, *, only_changed: bool = False) -> float | None:
        """disruptionsAllowed as the disruption controller computes it from the replayed pods
        (mirrors DisruptionController.trySync; healthy: bound, Ready and not terminating), for every PDB
        or, `only_changed`, for those whose PDB or covered pods changed since the last sync.
        `now` (None: no clock) expires disruptedPods entries past DeletionTimeout. Returns when a
        kept entry expires, for the controller's recheck (enqueuePdbForRecheck), or None."""
        keys = self.dirty_pdbs if only_changed else {p.key for p in self.cluster.pdbs}
        self.dirty_pdbs = set()
        self.pdb_dirty = False
        if not self.cluster.pdbs or not keys:
            return None
        # the time readiness is judged at: the sync's, else the replay's clock
        ready_now = now if now is not None else (self.clock() if self.clock is not None else None)
        by_ns: dict[str, list[Pod]] = {}
        for p in self.cluster.pods.values():
            by_ns.setdefault(p.namespace, []).append(p)
        recheck: float | None = None
        regenerate = False
        for pdb in self.cluster.pdbs:
            if pdb.key not in keys:
                continue
            spec = pdb.raw.get("spec") or {}
            if pdb.selector is None or ("minAvailable" not in spec and "maxUnavailable" not in spec):
                continue
            matching = [p for p in by_ns.get(pdb.namespace, ()) if pdb.selector.matches(p.labels)]
            disrupted, expires = _disrupted_pod_map(matching, pdb.disrupted_pods, now)
            if expires is not None and (recheck is None or expires < recheck):
                recheck = expires
            if disrupted != dict(pdb.disrupted_pods):
                pdb.disrupted_pods = disrupted
                regenerate = True
            # mirrors countHealthyPods: a pod being deleted, or listed in disruptedPods (its
            # eviction not yet seen through), is not healthy, nor a pod that is not Ready yet
            healthy = sum(1 for p in matching if p.node_name and not p.terminating and p.name not in disrupted
                          and self.pod_ready(p, ready_now))
            # mirrors getExpectedPodCount: an integer minAvailable against every matching pod (a
            # terminating one included), otherwise the owners' scale (expected_scale; without it,
            # the matching pods stand for it)
            min_available = spec.get("minAvailable")
            if "minAvailable" in spec and isinstance(min_available, int) and not isinstance(min_available, bool):
                expected, desired = len(matching), min_available
            else:
                scale = self.expected_scale(matching) if self.expected_scale is not None else len(matching)
                if scale is None:
                    pdb.disruptions_allowed = 0  # no controller with a scale: the controller's failSafe
                    continue
                expected = scale
                if "minAvailable" in spec:
                    desired = _scaled(min_available, expected)
                else:
                    mu = _scaled(spec.get("maxUnavailable"), expected)
                    desired = None if mu is None else max(0, expected - mu)
            if desired is None:
                continue
            pdb.disruptions_allowed = max(0, healthy - desired) if expected > 0 else 0
        if regenerate:
            self.cluster.pdbs = list(self.cluster.pdbs)
        return recheck

    # ---------------------------------------------------------------- the state as objects
    def objects(self) -> list[dict[str, Any]]:
        """Every object, as a snapshot file would hold it now (for a conformance case)."""
        out: list[dict[str, Any]] = []
        for n in self.cluster.nodes.values():
            raw = dict(n.raw)
            raw.setdefault("kind", "Node")
            raw.setdefault("apiVersion", "v1")
            out.append(raw)
        # bound pods node by node in the cache's order, so that explain on these objects lists
        # each node's pods as the replay did (explain keeps a snapshot's order), then the rest
        listed: set[str] = set()
        for p in self.order.pods(self.pods_by_uid):
            if self.cluster.pods.get(p.key) is p:
                listed.add(p.uid)
                out.append(pod_manifest(p))
        for p in self.cluster.pods.values():
            if p.uid not in listed:
                out.append(pod_manifest(p))
        for pdb in self.cluster.pdbs:
            out.append(pdb_manifest(pdb))
        for pc in self.cluster.priority_classes.values():
            raw = dict(pc.raw)
            raw.setdefault("kind", "PriorityClass")
            raw.setdefault("apiVersion", "scheduling.k8s.io/v1")
            out.append(raw)
        for kind, lst in self.cluster.extra.items():
            out.extend(lst)
        return out


# mirrors disruption.DeletionTimeout: how long an evicted pod listed in a PDB's disruptedPods is
# taken as about to be deleted
DELETION_TIMEOUT = 120.0


def _disrupted_pod_map(matching: list[Pod], recorded: Mapping[str, Any], now: float | None
                       ) -> tuple[dict[str, Any], float | None]:
    """mirrors buildDisruptedPodMap: the disruptedPods entries of pods that still exist and are
    not being deleted, unless their DeletionTimeout passed; and the earliest expiry kept."""
    if not recorded:
        return {}, None
    out: dict[str, Any] = {}
    recheck: float | None = None
    for p in matching:
        if p.terminating:
            continue
        value = recorded.get(p.name)
        if value is None:
            continue
        t = parse_time(value)
        if t is None:
            continue
        expires = t + DELETION_TIMEOUT
        if now is not None and expires < now:
            continue  # expected to be deleted but it wasn't: dropped (the NotDeleted event)
        if recheck is None or expires < recheck:
            recheck = expires
        out[p.name] = value
    return out, recheck


def _identity(obj: Mapping[str, Any]) -> tuple[str, str]:
    # a namespaced object without a namespace is in "default", as the plugins' lookups take it;
    # cluster-scoped objects never carry one, so they all share that namespace harmlessly
    md = obj.get("metadata") or {}
    return (md.get("namespace") or "default", md.get("name") or "")


def _same_topology(a: Node, b: Node) -> bool:
    keys = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region")
    return all(a.labels.get(k) == b.labels.get(k) for k in keys)


def build_cluster(objects: Iterable[Mapping[str, Any]]) -> Cluster:
    """A cluster from a timeline's objects, without resolving priorities (the replay decides how).
    Their shapes were checked when the timeline was made (timeline.normalize): not again here."""
    c = Cluster()
    for i, obj in enumerate(objects):
        c.add_object(obj, f"items[{i}]", checked=True)
    return c


def _with_disruption_target(pod: Pod, now: float, by: Pod | None = None, preemptor_type: str = "pod") -> dict:
    """The pod's status with the DisruptionTarget condition the scheduler patches onto a victim
    (PreemptPod: "<the preemptor's schedulerName>: preempting to accommodate a higher priority
    <pod|podgroup>"), replacing any earlier one: a new dict, as an update makes a new object."""
    scheduler = (by or pod).scheduler_name
    return with_disruption_target(pod.status, {
        "type": DISRUPTION_TARGET, "status": "True", "reason": REASON_PREEMPTION_BY_SCHEDULER,
        "message": f"{scheduler}: preempting to accommodate a higher priority {preemptor_type}",
        "lastTransitionTime": format_time(now)})


def with_disruption_target(status: Mapping[str, Any], condition: Mapping[str, Any]) -> dict:
    """`status` with `condition` as its one DisruptionTarget condition: a new dict."""
    conds = [c for c in status.get("conditions") or ()
             if not (isinstance(c, Mapping) and c.get("type") == DISRUPTION_TARGET)]
    return {**status, "conditions": conds + [condition]}
