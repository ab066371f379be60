"""What happens to a pod's ResourceClaims around the pods the replayed scheduler binds, so that a
device one pod got is not given to the next.

- dynamicresources.go PreBind (bindClaim): each claim the pod's Filter allocated gets its
  allocation in `status.allocation` (the devices, and a node selector of the node), and every
  claim of the pod gets the pod in `status.reservedFor`; the informer then delivers a
  ResourceClaim update.
- pkg/controller/resourceclaim (syncClaim): once the pod is gone, it leaves `reservedFor`, and a
  claim reserved for no pod any more is deallocated (`status.allocation` cleared).

The replay writes them when they happen in its own run (simulate mode); a recording's own claim
updates, applied as they come, set what they recorded.
"""
from __future__ import annotations

import copy
from typing import Any, Mapping

from ..model.objects import Pod, metadata_of
from ..plugins import names
from .timeline import TraceEvent

KIND = "ResourceClaim"


def prebind_plugin(handler: Any, pod: Pod, name: str) -> tuple[Any, Any]:
    """(the pod's framework, its plugin `name`), either None when the pod's profile has none."""
    fwk = handler.state.scheduler.framework_for(pod)
    return fwk, (fwk.plugins.get(name) if fwk is not None else None)


def bind_claims(handler: Any, pod: Pod, node_name: str, now: float) -> None:
    """PreBind's writes for `pod`, bound to `node_name` by the replayed scheduler."""
    if not pod.spec.get("resourceClaims"):
        return
    _, plugin = prebind_plugin(handler, pod, names.DYNAMIC_RESOURCES)
    node = handler.state.cluster.nodes.get(node_name)
    if plugin is None or node is None:
        return
    for claim, allocation in plugin.allocations_to_bind(pod, node):
        new = copy.deepcopy(dict(claim))
        status = new.setdefault("status", {})
        if allocation is not None:
            status["allocation"] = copy.deepcopy(dict(allocation))
        reserved = list(status.get("reservedFor") or [])
        if not any(r.get("uid") == pod.uid for r in reserved):
            reserved.append({"resource": "pods", "name": pod.name, "uid": pod.uid})
        status["reservedFor"] = reserved
        handler.set_object(KIND, TraceEvent(now, "MODIFIED", new, KIND, "the replayed scheduler's PreBind"))


def release_claims(handler: Any, pod: Pod, now: float) -> None:
    """The resourceclaim controller's writes once `pod` is gone: out of every claim's
    reservedFor, and a claim reserved for no pod is deallocated."""
    for claim in list((handler.state.cluster.extra or {}).get(KIND) or ()):
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        if not any(isinstance(r, Mapping) and r.get("uid") == pod.uid for r in reserved):
            continue
        new = copy.deepcopy(dict(claim))
        status = new["status"]
        status["reservedFor"] = [r for r in reserved if not (isinstance(r, Mapping) and r.get("uid") == pod.uid)]
        if not status["reservedFor"]:
            status.pop("reservedFor")
            status.pop("allocation", None)
        where = f"the resourceclaim controller, for {metadata_of(pod.raw).get('name') or pod.name}"
        handler.set_object(KIND, TraceEvent(now, "MODIFIED", new, KIND, where))
