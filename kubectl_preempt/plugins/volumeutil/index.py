"""The storage objects of a snapshot, indexed once per scheduling cycle.

Upstream's plugins read informer listers; ours read `cluster.extra[kind]` lists of raw dicts.
The index is built lazily, kind by kind, the first time a plugin of the cycle asks, and kept in
the CycleState so that every volume plugin, every node and every preemption dry run of the cycle
share it. A cycle of a pod without volumes builds nothing. The by-name dictionaries are also
kept by the framework's listers (framework/listers.py) and reused by later cycles while the kind's
list is the same list object of the same length (replay swaps in a new list on every change).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, TypeVar

from ...framework.listers import Listers
from . import csitranslation
from .helpers import BETA_STORAGE_CLASS_ANNOTATION, CompiledNodeSelector, name_of

T = TypeVar("T")

STATE_KEY = "kubectl-preempt/StorageIndex"

# the qualified resource names apierrors.NewNotFound puts in "<resource> "<name>" not found"
PVC_RESOURCE = "persistentvolumeclaim"
PV_RESOURCE = "persistentvolume"
STORAGE_CLASS_RESOURCE = "storageclass.storage.k8s.io"


def _kept(listers: Listers | None, kinds: tuple[str, ...], tag: str, build: Callable[[], T]) -> T:
    """The index kept by the framework's listers (framework/listers.py), or built afresh without."""
    return build() if listers is None else listers.kept(kinds, tag, build)


def not_found(resource: str, name: str) -> str:
    """The text of a lister's NotFound error (apierrors.NewNotFound)."""
    return f'{resource} "{name}" not found'


class StorageIndex:
    """Lookups by name over the snapshot's storage objects; the last object of a name wins."""

    def __init__(self, cluster: Any, listers: Listers | None = None, assumed: Any = None) -> None:
        self._cluster = cluster
        self._listers = listers
        # the volume binder's assumed PVs and PVCs (framework/volumeassume.py), read in place of
        # the listed ones; None or empty: the listed ones alone
        self._assumed = assumed if assumed else None
        self._extra: Mapping[str, list] = getattr(cluster, "extra", None) or {}
        self._pvcs: dict[str, Mapping[str, Any]] | None = None
        self._pvs: dict[str, Mapping[str, Any]] | None = None
        self._pvs_by_class: dict[str, list[Mapping[str, Any]]] | None = None
        self._classes: dict[str, Mapping[str, Any]] | None = None
        self._csi_nodes: dict[str, Mapping[str, Any]] | None = None
        self._csi_drivers: dict[str, Mapping[str, Any]] | None = None
        self._attachments: dict[str, dict[str, str]] | None = None
        self._affinity: dict[tuple[str, bool], CompiledNodeSelector | None] = {}
        # per-cycle memo of derived per-claim data other plugins compute (e.g. CSI driver info)
        self.memo: dict[Any, Any] = {}

    def _by_name(self, kind: str, namespaced: bool = False) -> dict[str, Mapping[str, Any]]:
        def build() -> dict[str, Mapping[str, Any]]:
            out: dict[str, Mapping[str, Any]] = {}
            if namespaced:
                for obj in self._extra.get(kind) or ():
                    md = obj.get("metadata") or {}
                    out[f"{md.get('namespace') or 'default'}/{md.get('name') or ''}"] = obj
            else:
                for obj in self._extra.get(kind) or ():
                    out[(obj.get("metadata") or {}).get("name") or ""] = obj
            return out
        return _kept(self._listers, (kind,), kind, build)

    # ---------------------------------------------------------------- lookups
    def pvc(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        if self._pvcs is None:
            self._pvcs = self._by_name("PersistentVolumeClaim", namespaced=True)
        key = f"{namespace}/{name}"
        if self._assumed is not None and key in self._assumed.pvcs and key in self._pvcs:
            return self._assumed.pvcs[key]
        return self._pvcs.get(key)

    def pv(self, name: str) -> Mapping[str, Any] | None:
        if self._pvs is None:
            self._pvs = self._by_name("PersistentVolume")
        if self._assumed is not None and name in self._assumed.pvs and name in self._pvs:
            return self._assumed.pvs[name]
        return self._pvs.get(name)

    def pvs_of_class(self, class_name: str) -> list[Mapping[str, Any]]:
        """mirrors PVAssumeCache.ListPVs: the PVs whose class (annotation first) is this one."""
        if self._pvs_by_class is None:
            if self._pvs is None:
                self._pvs = self._by_name("PersistentVolume")
            pvs = self._pvs

            def build() -> dict[str, list[Mapping[str, Any]]]:
                by: dict[str, list[Mapping[str, Any]]] = {}
                for pv in pvs.values():
                    # pv_class, inline: the beta annotation wins over the field
                    ann = (pv.get("metadata") or {}).get("annotations")
                    if ann and BETA_STORAGE_CLASS_ANNOTATION in ann:
                        cls = ann[BETA_STORAGE_CLASS_ANNOTATION]
                    else:
                        cls = (pv.get("spec") or {}).get("storageClassName") or ""
                    by.setdefault(cls, []).append(pv)
                return by
            self._pvs_by_class = _kept(self._listers, ("PersistentVolume",), "pvs-by-class", build)
        listed = self._pvs_by_class.get(class_name, [])
        if self._assumed is not None and self._assumed.pvs:
            assumed = self._assumed.pvs
            return [assumed.get(name_of(pv), pv) for pv in listed]
        return listed

    def storage_class(self, name: str) -> Mapping[str, Any] | None:
        if self._classes is None:
            self._classes = self._by_name("StorageClass")
        return self._classes.get(name)

    def csi_node(self, name: str) -> Mapping[str, Any] | None:
        if self._csi_nodes is None:
            self._csi_nodes = self._by_name("CSINode")
        return self._csi_nodes.get(name)

    def csi_driver(self, name: str) -> Mapping[str, Any] | None:
        if self._csi_drivers is None:
            self._csi_drivers = self._by_name("CSIDriver")
        return self._csi_drivers.get(name)

    def storage_capacities(self) -> list[Mapping[str, Any]]:
        return list(self._extra.get("CSIStorageCapacity") or ())

    def attachments_on(self, node_name: str) -> dict[str, str]:
        """mirrors CSILimits.getNodeVolumeAttachmentInfo: unique volume name -> attacher for each
        VolumeAttachment of the node whose PV is a CSI volume."""
        if self._attachments is None:
            self._attachments = _kept(self._listers, ("VolumeAttachment", "PersistentVolume"),
                                      "attachments", self._build_attachments)
        return self._attachments.get(node_name, {})

    def _build_attachments(self) -> dict[str, dict[str, str]]:
        by: dict[str, dict[str, str]] = {}
        for va in self._extra.get("VolumeAttachment") or ():
            vs = va.get("spec") or {}
            attacher = vs.get("attacher") or ""
            pv_name = (vs.get("source") or {}).get("persistentVolumeName")
            if not attacher or pv_name is None:
                continue
            pv = self.pv(pv_name)
            if pv is None:
                continue
            csi = (pv.get("spec") or {}).get("csi")
            if csi is None:
                continue
            by.setdefault(vs.get("nodeName") or "", {})[f"{attacher}/{csi.get('volumeHandle') or ''}"] = attacher
        return by

    # ---------------------------------------------------------------- PV node affinity
    def pv_node_affinity(self, pv: Mapping[str, Any], translated: bool = False) -> CompiledNodeSelector | None:
        """The PV's required node affinity compiled once per cycle; None when it has none.
        With translated=True, the affinity after CSI translation of an in-tree PV (may raise
        csitranslation.TranslationError)."""
        key = (name_of(pv), translated)
        if key in self._affinity:
            return self._affinity[key]
        src = csitranslation.translated_pv(pv) if translated else pv
        na = (src.get("spec") or {}).get("nodeAffinity")
        required = (na or {}).get("required") if na is not None else None
        compiled = CompiledNodeSelector(required) if required is not None else None
        self._affinity[key] = compiled
        return compiled


def storage_index(state: Any, handle: Any) -> StorageIndex:
    """The cycle's index over the handle's cluster, built on first use from the by-name indexes
    the handle's listers keep across cycles."""
    idx = state.get(STATE_KEY) if state is not None else None
    if idx is None:
        idx = StorageIndex(handle.cluster, getattr(handle, "listers", None), getattr(handle, "volume_assumptions", None))
        if state is not None:
            state.write(STATE_KEY, idx)
    return idx
