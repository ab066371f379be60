"""mirrors helper/spread.go: the selector default spreading deduces from a pod's workloads."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ...errors import InputError
from ...model.objects import Pod
from ...model.selectors import LabelSelector

# (group, version, kind) of the owners DefaultSelector follows; any other apiVersion (say
# extensions/v1beta1, or apps/v1 for a ReplicationController) is "not a supported controller"
RC_KIND = ("", "v1", "ReplicationController")
RS_KIND = ("apps", "v1", "ReplicaSet")
SS_KIND = ("apps", "v1", "StatefulSet")


def _namespace(obj: Mapping[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"


def get_pod_services(services: Iterable[Mapping[str, Any]], pod: Pod) -> list[Mapping[str, Any]]:
    """mirrors GetPodServices: the pod's namespace's services whose selector matches its labels."""
    out = []
    labels = pod.labels
    for svc in services:
        if _namespace(svc) != pod.namespace:
            continue
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            # a service with a nil selector matches nothing, not everything
            continue
        if all(labels.get(k) == v for k, v in sel.items()):
            out.append(svc)
    return out


def controller_of(pod: Pod) -> Mapping[str, Any] | None:
    """mirrors metav1.GetControllerOfNoCopy."""
    for ref in pod.metadata.get("ownerReferences") or ():
        if ref.get("controller") is True:
            return ref
    return None


def _group_version(api_version: str) -> tuple[str, str] | None:
    # mirrors schema.ParseGroupVersion
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _get(objects: Iterable[Mapping[str, Any]], namespace: str, name: str) -> Mapping[str, Any] | None:
    for o in objects:
        md = o.get("metadata") or {}
        if md.get("name") == name and _namespace(o) == namespace:
            return o
    return None


def _requirements(sel: LabelSelector) -> list[tuple[str, str, frozenset]]:
    # labels.Selector.Requirements of a converted metav1.LabelSelector
    return [(k, "In", frozenset((v,))) for k, v in sel.match_labels] + list(sel.exprs)


def default_selector(pod: Pod, extra: Mapping[str, Iterable[Mapping[str, Any]]]) -> LabelSelector:
    """mirrors DefaultSelector: the union of the selectors of the pod's Services and of its
    controlling ReplicationController, ReplicaSet or StatefulSet. `extra` maps kind to raw
    objects (Cluster.extra)."""
    label_set: dict[str, str] = {}
    # services, RCs, RSs and SSs matching the pod have no conflicting labels: merging is safe
    for svc in get_pod_services(extra.get("Service") or (), pod):
        label_set.update((svc.get("spec") or {}).get("selector") or {})
    selector = LabelSelector({"matchLabels": dict(label_set)})
    owner = controller_of(pod)
    if owner is None:
        return selector
    gv = _group_version(owner.get("apiVersion") or "")
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], owner.get("kind") or "")
    name = owner.get("name") or ""
    if gvk == RC_KIND:
        rc = _get(extra.get("ReplicationController") or (), pod.namespace, name)
        if rc is not None:
            label_set.update((rc.get("spec") or {}).get("selector") or {})
            selector = LabelSelector({"matchLabels": dict(label_set)})
    elif gvk in (RS_KIND, SS_KIND):
        kind = "ReplicaSet" if gvk == RS_KIND else "StatefulSet"
        obj = _get(extra.get(kind) or (), pod.namespace, name)
        if obj is not None:
            raw = (obj.get("spec") or {}).get("selector")
            # a nil selector converts to Nothing(), whose requirements are not usable
            if raw is not None:
                try:
                    other = LabelSelector(raw)
                except InputError:
                    return selector
                reqs = _requirements(other)
                if reqs:
                    selector = selector.with_requirements(reqs)
    return selector
