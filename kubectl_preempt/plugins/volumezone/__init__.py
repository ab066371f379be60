"""VolumeZone: a pod's bound PersistentVolumes carry zone/region labels; the node must be in one
of them (framework/plugins/volumezone). Beta (failure-domain.beta...) and GA topology labels are
both read, and a beta PV label matches the node's GA label.
"""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release
from ..volumeutil.helpers import VOLUME_BINDING_WAIT, claim_class
from ..volumeutil.index import (PV_RESOURCE, PVC_RESOURCE, STORAGE_CLASS_RESOURCE, not_found,
                                storage_index)
from ...framework import batch as signers
from ...framework.versions import DEFAULT, KubernetesVersion

NAME = names.VOLUME_ZONE
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
ERR_PVC_NO_NAME = "PersistentVolumeClaim had no name"
ERR_PVC_NO_PV_NO_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
ERR_PV_NO_NAME = "PersistentVolume had no name"
ERR_BINDING_MODE_NOT_SET = 'VolumeBindingMode not set for StorageClass "{}"'

LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION,
                   LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
_TO_GA = {LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION,
          LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE}
LABEL_MULTI_ZONE_DELIMITER = "__"


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """mirrors volumehelpers.LabelZonesToSet; None when an element is empty (the label is ignored)."""
    out = set()
    for z in value.split(LABEL_MULTI_ZONE_DELIMITER):
        z = z.strip()
        if not z:
            return None
        out.add(z)
    return frozenset(out)


class PVTopology:
    __slots__ = ("pv_name", "key", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset[str]) -> None:
        self.pv_name = pv_name
        self.key = key
        self.values = values


def pv_topologies(pv: Mapping[str, Any]) -> list[PVTopology]:
    """mirrors getPVTopologies."""
    labels = (pv.get("metadata") or {}).get("labels") or {}
    out = []
    for key in TOPOLOGY_LABELS:
        if key in labels:
            values = label_zones_to_set(labels[key])
            if values is not None:
                out.append(PVTopology((pv.get("metadata") or {}).get("name") or "", key, values))
    return out


class VolumeZone(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors VolumeZone.SignPod (v1.35+): the pod's volumes (VolumesSigner)."""
        return [(signers.VOLUMES_SIGNER, signers.volumes_signer(pod))], SUCCESS


    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors VolumeZone.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.STORAGE_CLASS, ev.ADD)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM,
                                                      ev.ADD if self.minor < 31 else ev.ADD | ev.UPDATE)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE))]
        # mirrors VolumeZone.EventsToRegister (SchedulerQueueingHints on); its hints are not
        # modelled: every registered event requeues
        return [ClusterEventWithHint(ClusterEvent(ev.STORAGE_CLASS, ev.ADD)),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD | ev.UPDATE))]

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def _pv_by_pod(self, state: Any, pod: Pod) -> tuple[list[PVTopology], Status]:
        # mirrors getPVbyPod
        out: list[PVTopology] = []
        claims = [v["persistentVolumeClaim"].get("claimName") or ""
                  for v in pod.spec.get("volumes") or () if v.get("persistentVolumeClaim") is not None]
        if not claims:
            return out, SUCCESS
        index = storage_index(state, self.handle)
        for claim in claims:
            if not claim:
                return [], Status(Code.UnschedulableAndUnresolvable, ERR_PVC_NO_NAME)
            pvc = index.pvc(pod.namespace, claim)
            if pvc is None:
                return [], Status(Code.UnschedulableAndUnresolvable, not_found(PVC_RESOURCE, claim))
            pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
            if not pv_name:
                sc_name = claim_class(pvc)
                if not sc_name:
                    return [], Status(Code.UnschedulableAndUnresolvable, ERR_PVC_NO_PV_NO_CLASS)
                sc = index.storage_class(sc_name)
                if sc is None:
                    return [], Status(Code.UnschedulableAndUnresolvable, not_found(STORAGE_CLASS_RESOURCE, sc_name))
                mode = sc.get("volumeBindingMode")
                if mode is None:
                    return [], Status(Code.UnschedulableAndUnresolvable, ERR_BINDING_MODE_NOT_SET.format(sc_name))
                if mode == VOLUME_BINDING_WAIT:
                    continue  # the volume does not exist yet; VolumeBinding checks its topology
                return [], Status(Code.UnschedulableAndUnresolvable, ERR_PV_NO_NAME)
            pv = index.pv(pv_name)
            if pv is None:
                return [], Status(Code.UnschedulableAndUnresolvable, not_found(PV_RESOURCE, pv_name))
            out.extend(pv_topologies(pv))
        return out, SUCCESS

    def pre_filter_reads_labels(self, pod: Any) -> bool:
        """A pod with volumes may name claims after itself (ephemeral volumes): its PreFilter then
        reads more than the spec (scheduler/memo/failed_cycles.py)."""
        return bool(pod.spec.get("volumes"))

    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[None, Status]:
        topologies, status = self._pv_by_pod(state, pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, topologies)
        return None, SUCCESS

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        if not pod.spec.get("volumes"):
            return SUCCESS
        topologies = state.get(PRE_FILTER_STATE_KEY)
        if topologies is None:
            topologies, status = self._pv_by_pod(state, pod)
            if not status.is_success():
                return status
        labels = node_info.node.labels
        # a node without any zone or region label accepts every volume
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return SUCCESS
        for t in topologies:
            v = labels.get(t.key)
            if v is None:
                v = labels.get(_TO_GA.get(t.key, t.key))
            if v is None or v not in t.values:
                return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        return SUCCESS


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> VolumeZone:
    plugin = VolumeZone(handle)
    for_release(plugin, version)
    return plugin
