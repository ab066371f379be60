"""k8s.io/component-helpers/storage/{volume,ephemeral} and the selector semantics they rely on.

PersistentVolume node affinity is matched as volume.CheckNodeAffinity does: through
nodeaffinity.LazyErrorNodeSelector with a node that has labels and no name, so a term whose
only requirements are matchFields matches every node, and a term with an invalid requirement
never matches.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from ...model.objects import metadata_of
from ...model.quantity import parse_quantity
from ..helper.nodeaffinity import LabelRequirement, NodeSelector, new_requirement

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
VOLUME_BINDING_WAIT = "WaitForFirstConsumer"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
CLAIM_LOST = "Lost"
VOLUME_AVAILABLE = "Available"
FILESYSTEM = "Filesystem"


# ------------------------------------------------------------------ metadata
def spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("spec") or {}


def name_of(obj: Mapping[str, Any]) -> str:
    return metadata_of(obj).get("name") or ""


def namespace_of(obj: Mapping[str, Any]) -> str:
    return metadata_of(obj).get("namespace") or "default"


def annotations(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return metadata_of(obj).get("annotations") or {}


def is_controlled_by(obj: Mapping[str, Any], owner_uid: str) -> bool:
    # mirrors metav1.IsControlledBy: the one controller reference names the owner's UID
    for ref in metadata_of(obj).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref.get("uid") == owner_uid
    return False


# ------------------------------------------------------------------ claims and volumes
def claim_class(pvc: Mapping[str, Any]) -> str:
    """mirrors GetPersistentVolumeClaimClass: the beta annotation wins over the field."""
    ann = annotations(pvc)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pvc).get("storageClassName") or ""


def pv_class(pv: Mapping[str, Any]) -> str:
    """mirrors GetPersistentVolumeClass."""
    ann = annotations(pv)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pv).get("storageClassName") or ""


def ephemeral_claim_name(pod_name: str, volume_name: str) -> str:
    """mirrors ephemeral.VolumeClaimName."""
    return f"{pod_name}-{volume_name}"


def volume_is_for_pod(pod: Any, pvc: Mapping[str, Any]) -> str | None:
    """mirrors ephemeral.VolumeIsForPod: the error text, or None when the pod owns the claim."""
    if namespace_of(pvc) != pod.namespace or not is_controlled_by(pvc, pod.uid):
        return (f"PVC {namespace_of(pvc)}/{name_of(pvc)} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")
    return None


def storage_request(obj_spec: Mapping[str, Any], where: str) -> Fraction:
    """spec.resources.requests.storage of a claim, exactly; zero when absent."""
    q = ((obj_spec.get("resources") or {}).get("requests") or {}).get("storage")
    return parse_quantity(q, field=where) if q is not None else Fraction(0)


def pv_capacity(pv: Mapping[str, Any]) -> Fraction:
    q = (spec(pv).get("capacity") or {}).get("storage")
    return parse_quantity(q, field=f"PersistentVolume {name_of(pv)} spec.capacity.storage") if q is not None else Fraction(0)


def check_volume_mode_mismatches(pvc_spec: Mapping[str, Any], pv_spec: Mapping[str, Any]) -> bool:
    """mirrors CheckVolumeModeMismatches: a missing mode is Filesystem."""
    return (pvc_spec.get("volumeMode") or FILESYSTEM) != (pv_spec.get("volumeMode") or FILESYSTEM)


def check_access_modes(pvc: Mapping[str, Any], pv: Mapping[str, Any]) -> bool:
    """mirrors CheckAccessModes: every mode the claim asks for, the volume offers."""
    offered = set(spec(pv).get("accessModes") or ())
    return all(m in offered for m in spec(pvc).get("accessModes") or ())


# ------------------------------------------------------------------ selectors
class CompiledNodeSelector:
    """A v1.NodeSelector as volume.CheckNodeAffinity matches it: nodeaffinity's
    LazyErrorNodeSelector handed a node with labels and no name, so matchFields never narrow a term."""

    __slots__ = ("selector",)

    def __init__(self, selector: Mapping[str, Any] | None) -> None:
        self.selector = NodeSelector(selector or {})

    def matches(self, labels: Mapping[str, str]) -> bool:
        for term in self.selector.terms:
            if term.matches(labels, ""):
                return True
        return False


def compile_label_selector(sel: Mapping[str, Any] | None) -> tuple[LabelRequirement, ...] | None:
    """mirrors metav1.LabelSelectorAsSelector for a non-nil selector: the requirements, or None
    when one does not validate. An empty selector gives no requirements (matches everything)."""
    out: list[LabelRequirement] = []
    for k, v in ((sel or {}).get("matchLabels") or {}).items():
        r = new_requirement(k, "Equals", (v,))
        if r is None:
            return None
        out.append(r)
    for e in (sel or {}).get("matchExpressions") or ():
        op = e.get("operator")
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return None
        r = new_requirement(e.get("key"), op, e.get("values") or ())
        if r is None:
            return None
        out.append(r)
    return tuple(out)


def label_selector_matches(reqs: tuple[LabelRequirement, ...], labels: Mapping[str, str]) -> bool:
    return all(r.matches(labels) for r in reqs)


def match_topology_selector_terms(terms: Sequence[Mapping[str, Any]] | None, labels: Mapping[str, str]) -> bool:
    """mirrors v1helper.MatchTopologySelectorTerms: no terms match everything; empty terms nothing."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        reqs = [new_requirement(e.get("key"), "In", e.get("values") or ()) for e in exprs]
        if any(r is None for r in reqs):
            continue
        if all(r.matches(labels) for r in reqs):  # type: ignore[union-attr]
            return True
    return False
