"""The volume binder's assume caches (framework/plugins/volumebinding/binder.go pvCache and
pvcCache, over util/assumecache).

VolumeBinding's Reserve (AssumePodVolumes) writes into them what its PreBind is about to make
true: each PersistentVolume it matched to one of the pod's unbound WaitForFirstConsumer claims,
bound to that claim (claimRef), and each claim left to dynamic provisioning, annotated with the
node it was given (volume.kubernetes.io/selected-node). Every later FindPodVolumes reads the
assumed objects in place of the informers': a volume assumed for one claim is not another's to
take. Unreserve (RevertAssumedPodVolumes) restores them; a binding writes them for real and they
leave the cache. One cache serves every profile of a scheduler, as the binder does.
"""
from __future__ import annotations

from typing import Any, Mapping


class VolumeAssumeCache:
    """PV name -> the assumed PV, "namespace/name" -> the assumed PVC; by pod UID, what it assumed."""

    def __init__(self) -> None:
        self.pvs: dict[str, Mapping[str, Any]] = {}
        self.pvcs: dict[str, Mapping[str, Any]] = {}
        self._by_pod: dict[str, tuple[list[str], list[str]]] = {}

    def assume(self, pod_uid: str, pvs: Mapping[str, Mapping[str, Any]], pvcs: Mapping[str, Mapping[str, Any]]) -> None:
        """AssumePodVolumes: the pod's assumed volumes (by name) and claims (by namespace/name)."""
        self.revert(pod_uid)
        self.pvs.update(pvs)
        self.pvcs.update(pvcs)
        self._by_pod[pod_uid] = (list(pvs), list(pvcs))

    def revert(self, pod_uid: str) -> None:
        """RevertAssumedPodVolumes (Unreserve), or the binding made them true (they leave)."""
        got = self._by_pod.pop(pod_uid, None)
        if got is None:
            return
        for name in got[0]:
            self.pvs.pop(name, None)
        for key in got[1]:
            self.pvcs.pop(key, None)

    def assumed_by(self, pod_uid: str) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
        """The PVs and PVCs the pod's Reserve assumed (what its PreBind writes)."""
        got = self._by_pod.get(pod_uid)
        if got is None:
            return [], []
        return [self.pvs[n] for n in got[0] if n in self.pvs], [self.pvcs[k] for k in got[1] if k in self.pvcs]

    def held(self) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
        """What is assumed, as a value a remembered answer compares (the scheduler's world())."""
        if not self._by_pod:
            return ()
        return tuple(sorted((uid, tuple(v), tuple(c)) for uid, (v, c) in self._by_pod.items()))

    def __bool__(self) -> bool:
        return bool(self.pvs or self.pvcs)
