"""VolumeRestrictions: in-tree disks that cannot be shared on one node, and ReadWriteOncePod
claims already in use (framework/plugins/volumerestrictions).

A ReadWriteOncePod claim in use by any scheduled pod makes every node Unschedulable (not
Unresolvable): preemption may evict the pod holding the claim, which the PreFilter extensions
(add_pod/remove_pod) account for in its dry runs.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.podinfo import derived
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from .. import names
from ..volumeutil.helpers import READ_WRITE_ONCE_POD
from ..volumeutil.index import PVC_RESOURCE, not_found, storage_index
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers

NAME = names.VOLUME_RESTRICTIONS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod")
# the wording before v1.34 (volume_restrictions.go ErrReasonReadWriteOncePodConflict, changed by
# kubernetes/kubernetes#129145)
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_V1_33 = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode")

# volume sources that needsRestrictionsCheck looks at
_DISK_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
_ERR_NO_STATE = f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState'


class PreFilterState:
    """The pod's ReadWriteOncePod claim names and how many references to them scheduled pods hold."""

    __slots__ = ("read_write_once_pod_pvcs", "conflicting_pvc_ref_count")

    def __init__(self, pvcs: frozenset[str], count: int) -> None:
        self.read_write_once_pod_pvcs = pvcs
        self.conflicting_pvc_ref_count = count

    def conflicting_refs_of(self, pod: Pod) -> int:
        # mirrors conflictingPVCRefCountForPod: by claim name only, as upstream does
        return sum(1 for claim in _claim_names(pod) if claim in self.read_write_once_pod_pvcs)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * self.conflicting_refs_of(pod)

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


def _claim_names(pod: Pod) -> list[str]:
    """claim_names_of the pod, kept in its PodInfo."""
    return derived(pod, "claim_names", claim_names_of)


def claim_names_of(pod: Pod) -> list[str]:
    """The claim names of the pod's PVC volumes, in spec order."""
    return [v["persistentVolumeClaim"].get("claimName") or ""
            for v in pod.spec.get("volumes") or () if v.get("persistentVolumeClaim") is not None]


def _disks(pod: Pod) -> list[Mapping[str, Any]]:
    """restricted_disks_of the pod, kept in its PodInfo."""
    return derived(pod, "restricted_disks", restricted_disks_of)


def restricted_disks_of(pod: Pod) -> list[Mapping[str, Any]]:
    """The pod's volumes that needsRestrictionsCheck selects."""
    return [v for v in pod.spec.get("volumes") or () if any(v.get(s) is not None for s in _DISK_SOURCES)]


def _have_overlap(a: list, b: list) -> bool:
    return bool(set(a or ()) & set(b or ()))


def _written_by_either(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return not (a.get("readOnly") and b.get("readOnly"))


# isVolumeConflict's checks, per in-tree disk kind: whether two volumes of that kind clash
_CLASHES: tuple[tuple[str, Callable[[Mapping[str, Any], Mapping[str, Any]], bool]], ...] = (
    # GCE PD: the same disk, unless both only read it
    ("gcePersistentDisk", lambda a, b: a.get("pdName") == b.get("pdName") and _written_by_either(a, b)),
    # AWS EBS: the same volume, read-only or not
    ("awsElasticBlockStore", lambda a, b: a.get("volumeID") == b.get("volumeID")),
    # iSCSI: the same IQN, unless both only read it
    ("iscsi", lambda a, b: a.get("iqn") == b.get("iqn") and _written_by_either(a, b)),
    # RBD: overlapping monitors, the same pool and image, unless both only read it (the API server
    # defaults the pool to "rbd"; manifests may not carry it)
    ("rbd", lambda a, b: (_have_overlap(a.get("monitors"), b.get("monitors"))
                          and (a.get("pool") or "rbd") == (b.get("pool") or "rbd")
                          and a.get("image") == b.get("image") and _written_by_either(a, b))),
)


def is_volume_conflict(volume: Mapping[str, Any], existing: Pod) -> bool:
    """mirrors isVolumeConflict: the volume clashes with one of the existing pod's volumes."""
    for disk in _disks(existing):
        for kind, clash in _CLASHES:
            mine, theirs = volume.get(kind), disk.get(kind)
            if mine is not None and theirs is not None and clash(mine, theirs):
                return True
    return False


def _pvc_used_by_pods(snapshot: Any, key: str) -> bool:
    """mirrors Snapshot.IsPVCUsedByPods: a scheduled pod references the claim through a
    persistentVolumeClaim volume (NodeInfo.pvc_ref_counts also counts ephemeral claims, which
    upstream's set does not, hence the check of the pods on a hit)."""
    ns, _, claim = key.partition("/")
    for ni in snapshot.list():
        if key in ni.pvc_ref_counts:
            for pi in ni.pods:
                if pi.pod.namespace == ns and claim in _claim_names(pi.pod):
                    return True
    return False


class VolumeRestrictions(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors VolumeRestrictions.SignPod (v1.35+): the pod's volumes (VolumesSigner)."""
        return [(signers.VOLUMES_SIGNER, signers.volumes_signer(pod))], SUCCESS

    # the ReadWriteOncePod conflict's reason, as the release words it (new())
    rwop_reason = ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors VolumeRestrictions.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM,
                                                      ev.ADD | ev.UPDATE if self.minor < 31 else ev.ADD))]
        # mirrors VolumeRestrictions.EventsToRegister (SchedulerQueueingHints on); its hints are not
        # modelled: every registered event requeues
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE)),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD))]

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def pre_filter_reads_labels(self, pod: Any) -> bool:
        """A pod with volumes may name claims after itself (ephemeral volumes): its PreFilter then
        reads more than the spec (scheduler/memo/failed_cycles.py)."""
        return bool(pod.spec.get("volumes"))

    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[None, Status]:
        if not pod.spec.get("volumes"):
            # neither a disk to check nor a claim (both are volumes): the Skip below, at once
            return None, Status(Code.Skip)
        needs_check = bool(_disks(pod))
        claims = _claim_names(pod)
        rwop: set[str] = set()
        if claims:
            index = storage_index(state, self.handle)
            for claim in claims:
                pvc = index.pvc(pod.namespace, claim)
                if pvc is None:
                    return None, Status(Code.UnschedulableAndUnresolvable, not_found(PVC_RESOURCE, claim))
                if READ_WRITE_ONCE_POD in ((pvc.get("spec") or {}).get("accessModes") or ()):
                    rwop.add((pvc.get("metadata") or {}).get("name") or claim)
        count = sum(1 for claim in rwop if _pvc_used_by_pods(self.handle.snapshot, f"{pod.namespace}/{claim}"))
        if not needs_check and count == 0:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(frozenset(rwop), count))
        return None, SUCCESS

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        return self

    def _state(self, state: Any) -> PreFilterState | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        return s if isinstance(s, PreFilterState) else None

    def add_pod(self, state: Any, pod: Pod, pod_to_add: Pod, node_info: Any) -> Status:
        s = self._state(state)
        if s is None:
            return Status.as_error(_ERR_NO_STATE)
        s.update_with_pod(pod_to_add, 1)
        return SUCCESS

    def remove_pod(self, state: Any, pod: Pod, pod_to_remove: Pod, node_info: Any) -> Status:
        s = self._state(state)
        if s is None:
            return Status.as_error(_ERR_NO_STATE)
        s.update_with_pod(pod_to_remove, -1)
        return SUCCESS

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        # mirrors satisfyVolumeConflicts, then satisfyReadWriteOncePod
        for v in _disks(pod):
            for existing in node_info.pods:
                if is_volume_conflict(v, existing.pod):
                    return Status(Code.Unschedulable, ERR_REASON_DISK_CONFLICT)
        s = self._state(state)
        if s is None:
            return Status.as_error(_ERR_NO_STATE)
        if s.conflicting_pvc_ref_count > 0:
            return Status(Code.Unschedulable, self.rwop_reason)
        return SUCCESS


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> VolumeRestrictions:
    plugin = VolumeRestrictions(handle)
    for_release(plugin, version)
    if not version.at_least(34):
        plugin.rwop_reason = ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_V1_33
    return plugin
