"""Workloads: which controller owns a pod, as `kubectl get` and the disruption controller see it.

A pod's workload is its owning Deployment (through its ReplicaSet), StatefulSet, Job or
ReplicationController, written `namespace/name`; a pod no controller owns is its own workload.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

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
        return f"{ns}/{meta.get('name') or ''}"
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
