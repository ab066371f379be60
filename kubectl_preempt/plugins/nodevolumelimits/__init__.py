"""NodeVolumeLimits: the CSI volumes a node can attach, per driver, from its CSINode's
allocatable counts (framework/plugins/nodevolumelimits/csi.go).

A node's attached volumes are those of its pods plus its VolumeAttachments; the pod's new
volumes are those not already attached. Exceeding a driver's count is Unschedulable: evicting
pods that use other volumes may free room, though VolumeAttachments stay counted.
"""
from __future__ import annotations

import hashlib
from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from ...model.resources import is_attachable_volume
from .. import names
from ..volumeutil import csitranslation
from ..volumeutil.helpers import claim_class, ephemeral_claim_name, volume_is_for_pod
from ..volumeutil.index import PVC_RESOURCE, StorageIndex, not_found, storage_index
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers

NAME = names.NODE_VOLUME_LIMITS

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
ERR_PVC_NO_NAME = "PersistentVolumeClaim had no name"
ERR_LOOKING_UP_PVC = "looking up PVC {}/{}: {}"
ERR_CONVERTING_INLINE = "converting volume({}) from inline to csi: {}"

# upstream draws 32 random characters once per plugin instance; any constant keeps the one
# property that matters: the same unbound claim gets the same handle for every pod of a cycle
RANDOM_VOLUME_ID_PREFIX = "kubectl-preempt-unbound-volume-id"

# isCSIMigrationOn: these are on whenever the node has a CSINode; Portworx (gate GA, on) also
# needs the plugin listed in the CSINode's migrated-plugins annotation; the rest are off
_MIGRATION_ALWAYS_ON = {csitranslation.AWS_EBS, csitranslation.GCE_PD, csitranslation.AZURE_DISK,
                        csitranslation.CINDER}


class _NotFound(Exception):
    pass


class _Error(Exception):
    pass


def is_csi_migration_on(csi_node: Mapping[str, Any] | None, plugin: str, minor: int) -> bool:
    """mirrors isCSIMigrationOn: Portworx needs the CSINode's migrated-plugins annotation to name
    it until v1.35; from v1.36 it is migrated as the others are."""
    if csi_node is None or not plugin:
        return False
    if plugin in _MIGRATION_ALWAYS_ON:
        return True
    if plugin != csitranslation.PORTWORX:
        return False
    return minor >= 36 or plugin in csitranslation.migrated_plugins(csi_node)


def volume_limits(csi_node: Mapping[str, Any] | None) -> dict[str, int]:
    """mirrors getVolumeLimits: driver -> allocatable count, for drivers that publish one."""
    out: dict[str, int] = {}
    if csi_node is None:
        return out
    for d in (csi_node.get("spec") or {}).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[d.get("name") or ""] = int(count)
    return out


CSI_ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"


def csi_attach_limit_key(driver: str) -> str:
    """mirrors volume/util GetCSIAttachLimitKey: the Node allocatable resource that held a CSI
    driver's attach limit (a long driver name: 23 characters and 16 hex digits of its SHA-1)."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= 63:
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + hashlib.sha1(driver.encode()).hexdigest()[:16]
    return CSI_ATTACH_LIMIT_PREFIX + driver


def volume_limits_v1_31(node: Any, csi_node: Mapping[str, Any] | None) -> dict[str, int]:
    """mirrors getVolumeLimits of v1.31 and older: the Node's attachable-volumes-* allocatable,
    overridden by the CSINode's driver counts; by driver (through GetCSIAttachLimitKey)."""
    by_key = {k: v for k, v in node.allocatable.scalar.items() if is_attachable_volume(k)}
    if csi_node is not None:
        for d in (csi_node.get("spec") or {}).get("drivers") or ():
            count = (d.get("allocatable") or {}).get("count")
            if count is not None:
                by_key[csi_attach_limit_key(d.get("name") or "")] = int(count)
    return by_key


class CSILimits(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors CSILimits.SignPod (v1.35+): the pod's volumes (VolumesSigner)."""
        return [(signers.VOLUMES_SIGNER, signers.volumes_signer(pod))], SUCCESS

    # since v1.32 the node's VolumeAttachments count as attached volumes, and the limits are the
    # CSINode's alone (CSILimits.Filter, getNodeVolumeAttachmentInfo); before, only the pods'
    # volumes count and the Node's attachable-volumes-* allocatable are limits too (new())
    counts_volume_attachments = True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors CSILimits.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.CSI_NODE, ev.ADD)),
                    ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE)),
                    ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD))]
        # mirrors CSILimits.EventsToRegister; its hints are not modelled: every registered event requeues
        return [ClusterEventWithHint(ClusterEvent(ev.CSI_NODE, ev.ADD | ev.UPDATE)),
                ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE)),
                ClusterEventWithHint(ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD)),
                ClusterEventWithHint(ClusterEvent(ev.VOLUME_ATTACHMENT, ev.DELETE))]

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def pre_filter_reads_labels(self, pod: Any) -> bool:
        """A pod with volumes may name claims after itself (ephemeral volumes): its PreFilter then
        reads more than the spec (scheduler/memo/failed_cycles.py)."""
        return bool(pod.spec.get("volumes"))

    def pre_filter(self, state: Any, pod: Pod, nodes: list) -> tuple[None, Status]:
        for v in pod.spec.get("volumes") or ():
            if (v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None
                    or csitranslation.is_inline_migratable(v)):
                return None, SUCCESS
        return None, Status(Code.Skip)

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        if not pod.spec.get("volumes"):
            return SUCCESS
        node = node_info.node
        index = storage_index(state, self.handle)
        csi_node = index.csi_node(node.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(index, pod, csi_node, True, new_volumes)
        except _NotFound as e:
            return Status(Code.UnschedulableAndUnresolvable, str(e))
        except _Error as e:
            return Status.as_error(str(e))
        if not new_volumes:
            return SUCCESS
        if self.counts_volume_attachments:
            limits = volume_limits(csi_node)
        else:
            by_key = volume_limits_v1_31(node, csi_node)
            limits = {driver: by_key[key] for driver in set(new_volumes.values())
                      if (key := csi_attach_limit_key(driver)) in by_key} if by_key else {}
        if not limits:
            return SUCCESS
        attached: dict[str, str] = {}
        try:
            for existing_info in node_info.pods:
                existing = existing_info.pod
                if not existing.spec.get("volumes"):
                    continue
                # the same pods are seen again by preemption's dry runs: once per cycle is enough
                key = ("nodevolumelimits-pod", existing.uid, id(csi_node))
                vols = index.memo.get(key)
                if vols is None:
                    vols = {}
                    self._attachable_volumes(index, existing, csi_node, False, vols)
                    index.memo[key] = vols
                attached.update(vols)
        except (_NotFound, _Error) as e:
            return Status.as_error(str(e))
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        if self.counts_volume_attachments:
            for unique, driver in index.attachments_on(node.name).items():
                if unique not in attached:
                    attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status(Code.Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return SUCCESS

    def _attachable_volumes(self, index: StorageIndex, pod: Pod, csi_node: Mapping[str, Any] | None,
                            new_pod: bool, result: dict[str, str]) -> None:
        """mirrors filterAttachableVolumes: unique volume name -> driver for each CSI volume."""
        for v in pod.spec.get("volumes") or ():
            ephemeral = False
            if v.get("persistentVolumeClaim") is not None:
                claim = v["persistentVolumeClaim"].get("claimName") or ""
            elif v.get("ephemeral") is not None:
                claim = ephemeral_claim_name(pod.name, v.get("name") or "")
                ephemeral = True
            else:
                self._attachable_inline_volume(v, csi_node, result)
                continue
            if not claim:
                raise _Error(ERR_PVC_NO_NAME)
            pvc = index.pvc(pod.namespace, claim)
            if pvc is None:
                if new_pod:
                    raise _NotFound(ERR_LOOKING_UP_PVC.format(pod.namespace, claim, not_found(PVC_RESOURCE, claim)))
                continue
            if ephemeral:
                err = volume_is_for_pod(pod, pvc)
                if err:
                    raise _Error(err)
            driver, handle = self._csi_driver_info(index, csi_node, pod.namespace, claim, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = driver

    def _attachable_inline_volume(self, v: Mapping[str, Any], csi_node: Mapping[str, Any] | None,
                                  result: dict[str, str]) -> None:
        """mirrors checkAttachableInlineVolume."""
        if not csitranslation.is_inline_migratable(v):
            return
        plugin = csitranslation.plugin_name_of_volume(v)
        if not is_csi_migration_on(csi_node, plugin, self.minor):
            return
        try:
            driver, handle = csitranslation.inline_volume_handle(v)
        except csitranslation.TranslationError as e:
            raise _Error(ERR_CONVERTING_INLINE.format(v.get("name") or "", e)) from None
        result[f"{driver}/{handle}"] = driver

    def _csi_driver_info(self, index: StorageIndex, csi_node: Mapping[str, Any] | None, namespace: str,
                         claim: str, pvc: Mapping[str, Any]) -> tuple[str, str]:
        """mirrors getCSIDriverInfo, memoized per claim and CSINode for the cycle."""
        key = ("nodevolumelimits", namespace, claim, id(csi_node))
        hit = index.memo.get(key)
        if hit is not None:
            return hit
        out = self._csi_driver_info_uncached(index, csi_node, namespace, claim, pvc)
        index.memo[key] = out
        return out

    def _csi_driver_info_uncached(self, index: StorageIndex, csi_node: Mapping[str, Any] | None,
                                  namespace: str, claim: str, pvc: Mapping[str, Any]) -> tuple[str, str]:
        pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
        pv = index.pv(pv_name) if pv_name else None
        if pv is None:
            return self._csi_driver_info_from_class(index, csi_node, namespace, claim, pvc)
        csi = (pv.get("spec") or {}).get("csi")
        if csi is not None:
            return csi.get("driver") or "", csi.get("volumeHandle") or ""
        if not csitranslation.is_pv_migratable(pv):
            return "", ""
        plugin = csitranslation.plugin_name_of_pv(pv)
        if not is_csi_migration_on(csi_node, plugin, self.minor):
            return "", ""
        try:
            return csitranslation.pv_volume_handle(pv)
        except csitranslation.TranslationError:
            return "", ""

    def _csi_driver_info_from_class(self, index: StorageIndex, csi_node: Mapping[str, Any] | None,
                                    namespace: str, claim: str, pvc: Mapping[str, Any]) -> tuple[str, str]:
        """mirrors getCSIDriverInfoFromSC: an unbound claim counts against its class's driver."""
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = index.storage_class(sc_name)
        if sc is None:
            return "", ""
        handle = f"{RANDOM_VOLUME_ID_PREFIX}-{namespace}/{(pvc.get('metadata') or {}).get('name') or claim}"
        provisioner = sc.get("provisioner") or ""
        if csitranslation.is_migratable_plugin_by_name(provisioner):
            if not is_csi_migration_on(csi_node, provisioner, self.minor):
                return "", ""
            return csitranslation.csi_name_from_in_tree_name(provisioner), handle
        return provisioner, handle


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> CSILimits:
    plugin = CSILimits(handle)
    plugin.counts_volume_attachments = version.at_least(32)
    for_release(plugin, version)
    return plugin
