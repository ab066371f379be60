"""What happens to a pod's PersistentVolumeClaims when the replayed scheduler binds it, so that a
volume one pod got is not given to the next.

- volumebinding/binder.go BindPodVolumes (VolumeBinding's PreBind): each volume FindPodVolumes
  matched to one of the pod's unbound WaitForFirstConsumer claims gets its claimRef on that claim
  (GetBindVolumeToClaim), each claim left to provisioning the selected-node annotation; the
  assumed objects leave the binder's cache.
- pkg/controller/volume/persistentvolume (syncVolume, syncClaim): a volume whose claimRef names a
  claim is bound to it: the volume Bound, the claim's volumeName set, bind-completed, Bound.

Dynamic provisioning itself (the external provisioner creating a volume) is not imitated: the
claim keeps its selected node and stays unbound. A recording's own volume and claim updates,
applied as they come, set what they recorded.
"""
from __future__ import annotations

import copy
from typing import Any

from ..model.objects import Pod
from ..plugins import names
from ..plugins.volumeutil.helpers import ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, annotations
from .dra_claims import prebind_plugin
from .timeline import TraceEvent

PV, PVC = "PersistentVolume", "PersistentVolumeClaim"


def bind_volumes(handler: Any, pod: Pod, node_name: str, now: float) -> None:
    """PreBind's writes for `pod`, bound to `node_name`, and the PV controller's binding."""
    if not pod.spec.get("volumes"):
        return
    fwk, plugin = prebind_plugin(handler, pod, names.VOLUME_BINDING)
    if plugin is None:
        return
    assumed = fwk.volume_assumptions
    pvs, pvcs = assumed.assumed_by(pod.uid)
    if not pvs and not pvcs:
        found = plugin.volumes_to_bind(pod, node_name)
        if found is None:
            return
        pvs, pvcs = list(found[0].values()), list(found[1].values())
    assumed.revert(pod.uid)
    where = "the replayed scheduler's PreBind and the persistentvolume controller"
    claims = {f"{(o.get('metadata') or {}).get('namespace') or 'default'}/{(o.get('metadata') or {}).get('name')}": o
              for o in (handler.state.cluster.extra or {}).get(PVC) or ()}
    for pv in pvs:
        ref = (pv.get("spec") or {}).get("claimRef") or {}
        new_pv = copy.deepcopy(dict(pv))
        new_pv.setdefault("status", {})["phase"] = "Bound"
        handler.set_object(PV, TraceEvent(now, "MODIFIED", new_pv, PV, where))
        claim = claims.get(f"{ref.get('namespace') or 'default'}/{ref.get('name')}")
        if claim is None:
            continue
        new_claim = copy.deepcopy(dict(claim))
        md = new_claim.setdefault("metadata", {})
        md["annotations"] = {**annotations(claim), ANN_BIND_COMPLETED: "yes", ANN_BOUND_BY_CONTROLLER: "yes"}
        new_claim.setdefault("spec", {})["volumeName"] = (pv.get("metadata") or {}).get("name")
        new_claim.setdefault("status", {})["phase"] = "Bound"
        handler.set_object(PVC, TraceEvent(now, "MODIFIED", new_claim, PVC, where))
    for claim in pvcs:
        handler.set_object(PVC, TraceEvent(now, "MODIFIED", copy.deepcopy(dict(claim)), PVC, where))
