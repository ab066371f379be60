"""Workloads: which controller owns a pod, as `kubectl get` and the disruption controller see it.

A pod's workload is its owning Deployment (through its ReplicaSet), StatefulSet, Job or
ReplicationController, written `namespace/name`; a pod no controller owns is its own workload
(workload_of), except in what a replay's report counts (counted_workload_of).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

POD_TEMPLATE_HASH = "pod-template-hash"


def controller_ref(meta: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ownerReference with controller: true (metav1.GetControllerOf), or None."""
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


def replica_set_index(replica_sets: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """ReplicaSets by (namespace, name)."""
    out: dict[tuple[str, str], Mapping[str, Any]] = {}
    for rs in replica_sets:
        md = rs.get("metadata") or {}
        out[(md.get("namespace") or "default", md.get("name") or "")] = rs
    return out


def workload_of(meta: Mapping[str, Any], replica_sets: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """`namespace/name` of the workload owning a pod with this metadata.

    A ReplicaSet's pod belongs to the Deployment owning the ReplicaSet; when the trace does not hold
    the ReplicaSet, the Deployment's name is the ReplicaSet's without its pod-template-hash suffix,
    as the Deployment controller names them."""
    ns = meta.get("namespace") or "default"
    ref = controller_ref(meta)
    if ref is None:
        # a pod no controller owns, of a scheduling.k8s.io PodGroup (a gang's bare pods): its group
        group = meta.get("podGroup")
        return f"{ns}/{group}" if group else f"{ns}/{meta.get('name') or ''}"
    kind, name = ref.get("kind") or "", ref.get("name") or ""
    if kind == "ReplicaSet":
        rs = replica_sets.get((ns, name))
        if rs is not None:
            owner = controller_ref(rs.get("metadata") or {})
            if owner is not None and owner.get("kind") == "Deployment":
                return f"{ns}/{owner.get('name')}"
            return f"{ns}/{name}"
        h = (meta.get("labels") or {}).get(POD_TEMPLATE_HASH)
        if h and name.endswith("-" + h):
            return f"{ns}/{name[:-len(h) - 1]}"
    return f"{ns}/{name}"


# the largest ordinal getParentNameAndOrdinal takes (strconv.ParseInt with bitSize 32)
_MAX_INT32 = (1 << 31) - 1


def parent_and_ordinal(name: str) -> tuple[str, int] | None:
    """A pod name read as the StatefulSet controller reads its pods' names, NAME-ORDINAL
    (statefulset/stateful_set_utils.go getParentNameAndOrdinal: `(.*)-([0-9]+)$`, the ordinal a
    32-bit integer); None for a name not so made, or with an empty NAME."""
    parent, dash, ordinal = name.rpartition("-")
    if not (parent and dash and ordinal.isascii() and ordinal.isdigit()):
        return None
    n = int(ordinal)
    return (parent, n) if n <= _MAX_INT32 else None


def counted_workload_of(meta: Mapping[str, Any], replica_sets: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """The workload a replay's report counts a pod under (victimsByWorkload): workload_of's, but a
    pod that no controller owns and no PodGroup claims counts with its siblings: under the prefix
    its name was generated from (metadata.generateName, less its last "-"), else, named
    NAME-ORDINAL (parent_and_ordinal), under NAME. Pods a script or a test made in a loop
    (`stress-0` .. `stress-9`, or ten `generateName: stress-`) are one workload to whoever reads
    the counts, not ten. What the replay does with such a pod keeps it apart (LeaveTimes: its own
    deletion is the best figure of its own)."""
    if controller_ref(meta) is None and not meta.get("podGroup"):
        ns = meta.get("namespace") or "default"
        generated = meta.get("generateName")
        prefix = generated.removesuffix("-") if isinstance(generated, str) else ""
        if prefix:
            return f"{ns}/{prefix}"
        split = parent_and_ordinal(meta.get("name") or "")
        if split is not None:
            return f"{ns}/{split[0]}"
    return workload_of(meta, replica_sets)


# --------------------------------------------------------------------------------- leaving
#
# A deleted pod keeps its node's room until the kubelet ends it: it sends SIGTERM, waits for the
# containers to exit or for the grace period to end (kuberuntime killContainer), then writes the
# terminal phase (kubelet SyncTerminatingPod), from which the scheduler's informer drops the pod,
# and the pod is removed. A real application usually exits before its grace period, and the
# kubelet starts the period when it sees the deletion: request time + grace is only an upper bound.
# The trace says how long such pods take: each recorded deletion of a bound pod that ends in a
# terminal status or a removal is one figure, from the request (the first version with a
# deletionTimestamp) to the end, at most the grace period.

LEAVE_WORKLOAD = "workload"
LEAVE_NAMESPACE = "namespace"
LEAVE_CLUSTER = "cluster"
LEAVE_GRACE_PERIOD = "gracePeriod"


@dataclass(frozen=True)
class LeaveFigures:
    """Median seconds (and how many deletions) from a deletion request to the pod leaving, as the
    trace measured them (replay/calibration.py): per (workload, grace period), per (namespace,
    grace period), per grace period."""

    by_workload: Mapping[tuple[str, float], tuple[float, int]]
    by_namespace: Mapping[tuple[str, float], tuple[float, int]]
    by_grace: Mapping[float, tuple[float, int]]


class LeaveTimes:
    """How long after its deletion request a pod leaves, as the trace measured it: per owning
    workload, else per namespace, else over the cluster, each among pods of the same grace period
    (a figure measured under another grace period says nothing of this one); the grace period
    when the trace measured none."""

    def __init__(self, figures: LeaveFigures) -> None:
        # measured once, with the trace's other facts (replay/calibration.py _Leaving)
        self.by_workload = figures.by_workload
        self.by_namespace = figures.by_namespace
        self.by_grace = figures.by_grace
        self.used: dict[str, int] = {}

    def after(self, pod: Any, grace: float, replica_sets: Mapping[tuple[str, str], Mapping[str, Any]]
              ) -> tuple[float, str, str]:
        """(seconds from the deletion request to the pod leaving, which figure: LEAVE_*, and whose)."""
        wl = workload_of(pod.metadata, replica_sets)
        for figures, key, level, whose in ((self.by_workload, (wl, grace), LEAVE_WORKLOAD, wl),
                                           (self.by_namespace, (pod.namespace, grace), LEAVE_NAMESPACE, pod.namespace),
                                           (self.by_grace, grace, LEAVE_CLUSTER, "")):
            got = figures.get(key)
            if got is not None:
                self.used[level] = self.used.get(level, 0) + 1
                return min(got[0], grace), level, whose
        self.used[LEAVE_GRACE_PERIOD] = self.used.get(LEAVE_GRACE_PERIOD, 0) + 1
        return grace, LEAVE_GRACE_PERIOD, ""

    def report(self) -> dict[str, Any]:
        """The figures measured, and how many of the replay's deletions used each kind."""
        return {
            "measuredByWorkload": [{"workload": wl, "gracePeriodSeconds": g, "deletions": n,
                                    "medianSeconds": round(m, 3)}
                                   for (wl, g), (m, n) in sorted(self.by_workload.items())],
            "used": {level: self.used.get(level, 0)
                     for level in (LEAVE_WORKLOAD, LEAVE_NAMESPACE, LEAVE_CLUSTER, LEAVE_GRACE_PERIOD)},
        }


# --------------------------------------------------------------------------------- simulate mode
#
# In simulate mode the replayed scheduler evicts other pods than the recorded one did. The
# controllers owning them react as kube-controller-manager's do:
#
# - ReplicaSet and ReplicationController (syncReplicaSet / manageReplicas): a pod with a
#   deletionTimestamp no longer counts as active, so a replacement is created at once (after the
#   controller's reaction time). When the trace holds the owner, the replay keeps as many active
#   pods as its spec.replicas says: a recorded creation is applied only while the replay has fewer.
# - StatefulSet: the pod is re-created under the same name once the old one is gone; a recorded
#   creation is applied only when the replay holds no pod of that name.
# - Job (syncJob / manageJob, podReplacementPolicy TerminatingOrFailed): a deleted pod counts as
#   failed at once; replacements are created once the pod failure back-off has passed since the
#   last failure (10 s, doubled per failure since the last success, at most 10 min), the failure
#   time moving to when the pod is gone if that comes first.
# - Owners the trace does not hold (a Job is never recorded; a ReplicaSet may not be): each
#   recorded creation is matched to the loss it answers (the owner's earliest pod the recording
#   deleted and had not replaced yet). It is applied when the replay lost that pod too, and left
#   out when the replay kept it. A pod the replay loses is replaced by that recorded creation when
#   the recording has one still to come, and by the replay's own controller otherwise.
#
# Numbers measured on ../shared/realcluster (kube-controller-manager v1.36): a ReplicaSet's
# replacement appeared 0.01 to 0.57 s (median about 0.1 s) after its pod got a deletionTimestamp;
# a Job's 10 s after the pod's failure; a PDB's status reflected a preemption 0.03 to 0.36 s
# (median 0.08 s) after the scheduler's decision.

DISRUPTION_CONTROLLER_DELAY = 0.08  # seconds from a change of the pods to the PDB status showing it
REPLICA_SET_DELAY = 0.1          # seconds from a pod's deletion to its ReplicaSet's replacement
STATEFUL_SET_DELAY = 0.1         # seconds from a pod being gone to its StatefulSet re-creating it
RESYNC_DELAY = 1.0               # an owner's spec changed: the replay checks its count after this
JOB_POD_FAILURE_BACKOFF = 10.0   # DefaultJobPodFailureBackOff
JOB_MAX_POD_FAILURE_BACKOFF = 600.0  # MaxJobPodFailureBackOff
BURST_REPLICAS = 500             # replicaset.BurstReplicas: at most this many creations per sync
SLOW_START_INITIAL_BATCH_SIZE = 1  # controller.SlowStartInitialBatchSize
OWNER_KINDS = ("ReplicaSet", "ReplicationController", "StatefulSet")
CONTROLLED_KINDS = OWNER_KINDS + ("Job",)
# reasons a pod leaves the replay (replay/simulate.py) that are not a loss to its workload
NOT_A_LOSS = ("completed", "replaced", "scaled down")


def job_backoff(failures: int) -> float:
    """mirrors getRemainingTimeForFailuresCount: 10 s doubled per failure after the first, at most 10 min."""
    d = JOB_POD_FAILURE_BACKOFF
    for _ in range(1, failures):
        d *= 2
        if d >= JOB_MAX_POD_FAILURE_BACKOFF:
            return JOB_MAX_POD_FAILURE_BACKOFF
    return d


OwnerKey = tuple  # (namespace, kind, name)


def owner_key(meta: Mapping[str, Any]) -> OwnerKey | None:
    """The controller (of the kinds modelled here) owning a pod with this metadata, or None."""
    ref = controller_ref(meta)
    if ref is None or ref.get("kind") not in CONTROLLED_KINDS:
        return None
    return (meta.get("namespace") or "default", ref.get("kind"), ref.get("name") or "")


def pod_uid(meta: Mapping[str, Any]) -> str:
    return meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


@dataclass(frozen=True)
class Replacement:
    """A recorded creation matched to the recorded loss of its owner it answers."""

    owner: OwnerKey
    creation_uid: str
    creation: Mapping[str, Any]
    at: float
    lost_uid: str


class RecordedReplacements:
    """Which recorded creation answers which recorded loss: per owner, creations are matched in
    order to the pods the recording lost and had not replaced yet. For owners the trace does not
    hold (`counted` left out) it decides which recorded creations the replay applies; for those it
    holds, which recorded pod a replacement of the replay's own can be (`replacement_of`)."""

    def __init__(self, replacements: Iterable[Replacement], counted: set[OwnerKey]) -> None:
        self.replaces: dict[str, str] = {}               # creation uid -> the lost pod's uid
        self.replaced_at: dict[str, float] = {}          # lost pod's uid -> when its replacement came
        self.replacement_of: dict[str, Mapping[str, Any]] = {}  # lost pod's uid -> the creation (counted owners)
        self.replacing: dict[str, str] = {}              # that creation's uid -> the lost pod's uid
        # the matching itself is the trace's (replay/calibration.py _Replacements)
        for r in replacements:
            if r.owner in counted:
                self.replacement_of[r.lost_uid] = r.creation
                self.replacing[r.creation_uid] = r.lost_uid
            else:
                self.replaces[r.creation_uid] = r.lost_uid
                self.replaced_at[r.lost_uid] = r.at


class _Owner:
    """What the replay knows of one owning controller."""

    __slots__ = ("key", "replicas", "pods", "template", "owed", "owed_templates", "failures", "last_failure",
                 "sync_at", "created", "missing", "recorded_active", "expect_until")

    def __init__(self, key: OwnerKey) -> None:
        self.key = key
        self.replicas: int | None = None      # spec.replicas when the trace holds the owner
        self.pods: set[str] = set()           # uids of the replay's pods it owns (pruned lazily)
        self.template: Mapping[str, Any] | None = None  # the last pod seen: what a new one looks like
        self.owed: list[str] = []             # lost pods (uids) the replay's controller replaces
        # each owed pod as it was: a Job re-creates the very pod lost (an Indexed Job's replacement
        # has the lost pod's completion index: manageJob's firstPendingIndexes, one pod per index)
        self.owed_templates: dict[str, Mapping[str, Any]] = {}
        self.failures = 0                     # Job: failures since the last success
        self.last_failure = 0.0
        self.sync_at: float | None = None     # when a sync is armed
        self.created = 0                      # pods this replay created for it (names)
        self.missing: dict[str, Mapping[str, Any]] = {}  # StatefulSet: names to re-create
        self.recorded_active: set[str] = set()  # uids of the recording's active pods of it
        self.expect_until = 0.0               # the end of its creations' slow-start batches


class Host(Protocol):
    """What the controllers need of the simulation running them (replay/simulate.py)."""

    def now(self) -> float: ...
    def at(self, t: float, fn: Callable[[], None], name: str) -> None: ...
    def pod_by_uid(self, uid: str) -> Any: ...
    def pod_by_key(self, key: str) -> Any: ...
    def create_pod(self, raw: Mapping[str, Any]) -> None: ...
    def delete_pod(self, pod: Any) -> None: ...


class WorkloadControllers:
    """ReplicaSet, ReplicationController, StatefulSet and Job controllers for simulate mode."""

    def __init__(self, host: Host, pods: Iterable[Any], owners: Mapping[str, Sequence[Mapping[str, Any]]],
                 replacements: Sequence[Replacement] = (), owners_in_trace: Iterable[OwnerKey] = (), *,
                 enabled: bool = True,
                 api_latency: float = 0.0) -> None:
        self.host = host
        self.enabled = enabled
        # seconds one API call takes: one slow-start batch of creations after another
        self.api_latency = api_latency
        self.owners: dict[OwnerKey, _Owner] = {}
        self.created: set[str] = set()         # keys of pods this replay created
        self.lost: set[str] = set()            # uids of pods the replay deleted or lost
        self.replaced: set[str] = set()        # uids of lost pods whose replacement exists
        # a recorded replacement left out (uid) -> the pod the replay kept in its place (uid)
        self.kept_for: dict[str, str] = {}
        for kind in OWNER_KINDS:
            for raw in owners.get(kind) or ():
                self._set_replicas(kind, raw, deleted=False)
        # owners the trace holds: their replica counts are known; the recording's creations of
        # the others are matched to the losses they answer
        counted = set(self.owners) | set(owners_in_trace)
        self.recorded = RecordedReplacements(replacements, counted)
        for pod in pods:
            key = owner_key(pod.metadata)
            if key is not None:
                o = self._owner(key)
                o.pods.add(pod.uid)
                o.template = pod.raw
                if not pod.deletion_timestamp and pod.phase not in ("Succeeded", "Failed"):
                    o.recorded_active.add(pod.uid)

    def _owner(self, key: OwnerKey) -> _Owner:
        o = self.owners.get(key)
        if o is None:
            o = self.owners[key] = _Owner(key)
        return o

    def active(self, o: _Owner) -> list[Any]:
        """mirrors controller.FilterActivePods: not terminating, not finished."""
        out = []
        for uid in list(o.pods):
            p = self.host.pod_by_uid(uid)
            if p is None:
                o.pods.discard(uid)
            elif not p.deletion_timestamp and p.phase not in ("Succeeded", "Failed"):
                out.append(p)
        return out

    # ------------------------------------------------------------------ the recording
    def owner_event(self, kind: str, raw: Mapping[str, Any], deleted: bool) -> None:
        """A recorded ReplicaSet, ReplicationController or StatefulSet: its spec.replicas."""
        if not self.enabled:
            return
        key = self._set_replicas(kind, raw, deleted)
        if not deleted:
            self._arm(self._owner(key), self.host.now() + RESYNC_DELAY)

    def _set_replicas(self, kind: str, raw: Mapping[str, Any], deleted: bool) -> OwnerKey:
        md = raw.get("metadata") or {}
        key = (md.get("namespace") or "default", kind, md.get("name") or "")
        o = self._owner(key)
        if deleted:
            o.replicas = None
        else:
            r = (raw.get("spec") or {}).get("replicas", 1)
            o.replicas = r if isinstance(r, int) and not isinstance(r, bool) else 1
        return key

    def recorded_pod(self, event_type: str, raw: Mapping[str, Any]) -> None:
        """Every recorded Pod event: the recording's own count of each owner's active pods (what
        its controller sees), so the replay knows when that controller is still adding pods."""
        if not self.enabled:
            return
        md = raw.get("metadata") or {}
        key = owner_key(md)
        if key is None:
            return
        o = self._owner(key)  # kept whether or not the owner's scale is known yet
        uid = pod_uid(md)
        if event_type == "DELETED" or md.get("deletionTimestamp") or \
                (raw.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            o.recorded_active.discard(uid)
        else:
            o.recorded_active.add(uid)

    def admit(self, raw: Mapping[str, Any]) -> bool:
        """Whether a pod the recording creates is created in the replay too: not when it replaces a
        pod the replay kept, or one the replay replaced already."""
        if not self.enabled:
            return True
        md = raw.get("metadata") or {}
        key = owner_key(md)
        if key is None:
            return True
        o = self._owner(key)
        o.template = raw
        if key[1] == "StatefulSet":
            return self.host.pod_by_key(f"{key[0]}/{md.get('name')}") is None
        if o.replicas is not None:
            if len(self.active(o)) >= o.replicas:
                return False
            lost = self.recorded.replacing.get(pod_uid(md))
            if lost is not None:
                self.replaced.add(lost)  # the replay's own replacement of it is this one
            return True
        gone = self.recorded.replaces.get(pod_uid(md))
        if gone is None:
            return True  # not a replacement: a new workload's pods, a scale-up
        if gone in self.lost and gone not in self.replaced:
            self.replaced.add(gone)
            return True
        if gone not in self.lost:
            self.kept_for[pod_uid(md)] = gone
        return False

    def kept_in_place_of(self, uid: str) -> str | None:
        """The pod the replay kept where the recording has `uid` instead: a recorded replacement of
        it left out (admit). What the recording's controller later does to its pod (a ReplicaSet's
        scale-down deleting it: replica_set.go manageReplicas, one of the pods it holds) it does to
        the one the replay's ReplicaSet holds in its place."""
        return self.kept_for.get(uid)

    def deleted_in_place_of(self, uid: str) -> None:
        """The pod kept in `uid`'s place goes as the recording deletes `uid`: the recording's
        replacement of `uid`, if one follows (a person's delete; a scale-down makes none), is
        then the replay's replacement of it (admit)."""
        self.lost.add(uid)

    def added(self, pod: Any) -> None:
        """A pod the replay now holds (a recorded creation it applied)."""
        key = owner_key(pod.metadata)
        if key is not None:
            self._owner(key).pods.add(pod.uid)

    # ------------------------------------------------------------------ what the replay did
    def terminating(self, pod: Any) -> None:
        """The replay preempted `pod`: it has a deletionTimestamp now."""
        if not self.enabled:
            return
        key = owner_key(pod.metadata)
        if key is not None and key[1] != "StatefulSet":
            self._lose(self._owner(key), pod)

    def gone(self, pod: Any, reason: str) -> None:
        """`pod` left the replay (deleted, its node deleted, completed...)."""
        if not self.enabled:
            return
        key = owner_key(pod.metadata)
        if key is None:
            return
        o = self._owner(key)
        o.pods.discard(pod.uid)
        if reason in NOT_A_LOSS:
            if key[1] == "Job" and reason == "completed":
                o.failures = 0  # a success: the back-off starts over
            return
        if key[1] == "StatefulSet":
            o.missing[pod.name] = pod.raw
            self._arm(o, self.host.now() + STATEFUL_SET_DELAY)
        elif reason == "deleted":
            self._deleted_as_recorded(o, pod)
        elif pod.uid not in self.lost:
            self._lose(o, pod)
        elif key[1] == "Job" and pod.uid in o.owed:
            # the failed pod's status now has its finish time: the back-off counts from it
            # (backoff_utils.go getFinishedTime reads the containers' finish time first; the
            # shared real-cluster traces show the replacement at that time plus the back-off,
            # not at the deletion's request time plus it)
            o.last_failure = max(o.last_failure, self.host.now())
            self._arm(o, o.last_failure + job_backoff(o.failures))

    def recorded_deletion(self, pod: Any) -> None:
        """The recording deletes `pod` (a person, a controller, a drain): the replay applies it, and
        the recording's own controller answers it, with a replacement or, for a scale-down, none."""
        if not self.enabled:
            return
        key = owner_key(pod.metadata)
        if key is not None and key[1] != "StatefulSet":
            self._deleted_as_recorded(self._owner(key), pod)

    def _deleted_as_recorded(self, o: _Owner, pod: Any) -> None:
        if pod.uid in self.lost:
            return
        self.lost.add(pod.uid)
        o.template = pod.raw
        if o.replicas is not None:
            self._arm(o, self.host.now() + REPLICA_SET_DELAY)

    def _lose(self, o: _Owner, pod: Any) -> None:
        if pod.uid in self.lost:
            return
        self.lost.add(pod.uid)
        o.template = pod.raw
        now = self.host.now()
        if o.key[1] == "Job":
            o.failures += 1
            o.last_failure = now
        if o.replicas is not None:
            self._arm(o, now + REPLICA_SET_DELAY)
            return
        if self.recorded.replaced_at.get(pod.uid, -1.0) >= now:
            return  # the recording replaced this very pod later: that creation stands for it
        o.owed.append(pod.uid)
        o.owed_templates[pod.uid] = pod.raw
        self._arm(o, now + (job_backoff(o.failures) if o.key[1] == "Job" else REPLICA_SET_DELAY))

    # ------------------------------------------------------------------ syncs
    def _arm(self, o: _Owner, at: float) -> None:
        if o.key[1] != "Job" and o.sync_at is not None and self.host.now() <= o.sync_at <= at:
            return  # a sync is coming sooner; it counts everything
        o.sync_at = at
        self.host.at(at, lambda: self._sync(o, at), f"sync {o.key[1]} {o.key[0]}/{o.key[2]}")

    def _sync(self, o: _Owner, armed_for: float) -> None:
        if o.sync_at != armed_for:
            return  # re-armed since: that sync decides
        o.sync_at = None
        kind = o.key[1]
        if kind == "StatefulSet":
            self._sync_stateful_set(o)
            return
        if o.replicas is None:
            if kind == "Job":
                due = o.last_failure + job_backoff(o.failures)
                if self.host.now() + 1e-9 < due:
                    self._arm(o, due)
                    return
            owed, o.owed = o.owed, []
            for uid in owed:
                tpl = o.owed_templates.pop(uid, None)
                if uid not in self.replaced:
                    self.replaced.add(uid)
                    self._create(o, template=tpl)
            return
        now = self.host.now()
        if now + 1e-9 < o.expect_until:
            # mirrors SatisfiedExpectations: no new sync until its creations are all seen
            self._arm(o, o.expect_until)
            return
        active = self.active(o)
        diff = len(active) - o.replicas
        if diff < 0:
            # the recording's controller is still adding pods for its own deficit (a scale-up, a
            # replacement): the replay's deficit, as far as the recording's goes, is left to those
            # creations, applied as they come (admit); the replay makes only the rest
            recorded_deficit = max(0, o.replicas - len(o.recorded_active))
            self._create_slow_start(o, min(-diff - min(recorded_deficit, -diff), BURST_REPLICAS))
        if diff > 0:
            # mirrors getPodsToDelete's ranking, roughly: the replay's own pods first, then pods not
            # yet on a node, then the newest
            ranked = sorted(active, key=lambda p: (p.key not in self.created, bool(p.node_name),
                                                   -(_created_at(p)), p.key))
            for p in ranked[:diff]:
                self.host.delete_pod(p)

    def _create_slow_start(self, o: _Owner, count: int) -> None:
        """mirrors manageReplicas -> slowStartBatch: batches of 1, 2, 4... creations, each batch
        once the one before it returned (one API call's latency). Each creation is, when the
        recording has one, the recorded replacement of a pod the replay lost too (its name and
        uid, so a victim the cluster evicted as well is replaced by the pod the cluster made)."""
        if count <= 0:
            return
        now = self.host.now()
        batch, left, t = SLOW_START_INITIAL_BATCH_SIZE, count, now
        while left > 0:
            size = min(batch, left)
            if t <= now:
                for _ in range(size):
                    self._create_replacement(o)
            else:
                self.host.at(t, lambda n=size: [self._create_replacement(o) for _ in range(n)],
                             f"create {o.key[1]} {o.key[0]}/{o.key[2]}")
            left -= size
            batch *= 2
            t += self.api_latency
        o.expect_until = t - self.api_latency

    def _create_replacement(self, o: _Owner) -> None:
        for uid in sorted(self.lost):
            raw = self.recorded.replacement_of.get(uid)
            if raw is None or uid in self.replaced:
                continue
            md = raw.get("metadata") or {}
            if owner_key(md) != o.key or self.host.pod_by_uid(pod_uid(md)) is not None:
                continue
            self.replaced.add(uid)
            from .state import format_time

            new = {**raw, "metadata": {**md, "creationTimestamp": format_time(self.host.now())}}
            o.pods.add(pod_uid(md))
            self.host.create_pod(new)
            return
        self._create(o)

    def _sync_stateful_set(self, o: _Owner) -> None:
        missing, o.missing = o.missing, {}
        for name, raw in sorted(missing.items()):
            ordinal = name.rsplit("-", 1)[-1]
            if o.replicas is not None and ordinal.isdigit() and int(ordinal) >= o.replicas:
                continue  # scaled down meanwhile
            if self.host.pod_by_key(f"{o.key[0]}/{name}") is None:
                o.template = raw
                self._create(o, name=name)

    def _create(self, o: _Owner, name: str | None = None, template: Mapping[str, Any] | None = None) -> None:
        from .state import format_time

        tpl = template if template is not None else o.template
        if tpl is None:
            return
        md = tpl.get("metadata") or {}
        ns = md.get("namespace") or "default"
        now = self.host.now()
        o.created += 1
        if name is None:
            base = md.get("generateName") or f"{o.key[2]}-"
            name = f"{base}replay{o.created}"
            while self.host.pod_by_key(f"{ns}/{name}") is not None:
                o.created += 1
                name = f"{base}replay{o.created}"
        new_md = {k: v for k, v in md.items()
                  if k in ("generateName", "labels", "annotations", "ownerReferences")}
        # the same uid for the same creation in two replays of one trace (check compares by uid)
        new_md.update(name=name, namespace=ns, uid=f"replay-{o.key[1]}-{ns}-{o.key[2]}-{o.created}",
                      creationTimestamp=format_time(now))
        # admission resolves priority and preemptionPolicy from the class, as for any new pod
        spec = {k: v for k, v in (tpl.get("spec") or {}).items()
                if k not in ("nodeName", "priority", "preemptionPolicy")}
        raw = {"apiVersion": "v1", "kind": "Pod", "metadata": new_md, "spec": spec, "status": {"phase": "Pending"}}
        self.created.add(f"{ns}/{name}")
        o.pods.add(new_md["uid"])
        self.host.create_pod(raw)

    # ------------------------------------------------------------------ disruption controller
    def expected_scale(self, pods: Iterable[Any]) -> int | None:
        """mirrors DisruptionController.getExpectedScale: the sum of the scales of the controllers
        of `pods`, each counted once; a pod no controller owns counts for nothing (its
        unmanagedPods); None when a pod's controller has no scale the replay knows (upstream's
        "found no controllers" error: the controller's failSafe then allows no disruption). A
        Deployment is not in a trace: the spec.replicas of its ReplicaSets stand for its scale."""
        total = 0
        seen: set[tuple] = set()
        for p in pods:
            ref = controller_ref(p.metadata)
            if ref is None:
                continue
            if ref.get("kind") not in OWNER_KINDS:
                return None
            key = (p.namespace, ref.get("kind"), ref.get("name") or "")
            if key in seen:
                continue
            seen.add(key)
            o = self.owners.get(key)
            if o is None or o.replicas is None:
                return None
            total += o.replicas
        return total


def _created_at(p: Any) -> float:
    from .state import parse_time

    return parse_time(p.metadata.get("creationTimestamp")) or 0.0
