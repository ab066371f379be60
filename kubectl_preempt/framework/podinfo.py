"""PodInfo: a pod and what the scheduler derives from it, as kube-scheduler's framework.PodInfo.

Upstream wraps each *v1.Pod in a PodInfo (NewPodInfo / PodInfo.Update) that holds what every cycle
would otherwise re-parse: the pod (anti-)affinity terms. We hold more of the same kind in one typed,
slotted object: each plugin's per-pod derived data (requests, node affinity, tolerations, spread
constraints, volumes, images, ...), the equivalence cache's pod shape and the PDBs that count the pod.

One PodInfo belongs to one Pod object. A Pod object never changes once built: an update of the pod
(a replay event, a binding, a status patch) builds a new Pod, which gets a new PodInfo on first use,
so nothing derived from an old version of a pod survives into its new one.

Each field is computed on first use by the module that owns it (named in the comment beside it) and
kept in the slot; an unset slot reads as AttributeError, which the owner's accessor catches to
compute the value, so a field no cycle asks for costs nothing. Accessors read
`pod.info or pod_info(pod)`: on the hot paths (every node of every cycle) a PodInfo that exists
costs no call.
"""
from __future__ import annotations

from typing import Any

from ..model.objects import Pod


class PodInfo:
    """mirrors framework.PodInfo (and the per-pod part of QueuedPodInfo)."""

    __slots__ = (
        "pod",
        # framework/types.py: what NodeInfo.add_pod counts (calculateResource's neighbours)
        "has_affinity", "has_required_anti_affinity", "pvc_keys", "host_ports",
        # scheduler/equivalence.py: what node-local plugins can read of the pod (pod_shape)
        "shape",
        # plugins/interpodaffinity/terms.py: the parsed (anti-)affinity terms (PodInfo.Update)
        "affinity_terms",
        # plugins/interpodaffinity/plugin.py: the terms' label selectors, for the queueing hints
        "affinity_selectors",
        # plugins/helper/nodeaffinity.py and plugins/nodeaffinity: the compiled node affinity
        "required_node_affinity", "preferred_node_affinity",
        # plugins/noderesources: computePodResourceRequest, and the scorers' request lists per mode
        "fit_request", "score_requests",
        # plugins/tainttoleration: getAllTolerationPreferNoSchedule
        "prefer_no_schedule_tolerations",
        # plugins/podtopologyspread: the pod's own constraints per whenUnsatisfiable action
        "spread_constraints",
        # plugins/volumebinding: (claim name, is ephemeral) per claim-backed volume
        "volume_claims",
        # plugins/volumerestrictions: claim names, and the volumes needsRestrictionsCheck selects
        "claim_names", "restricted_disks",
        # plugins/nodedeclaredfeatures: the node features the pod needs
        "required_features",
        # plugins/imagelocality: normalized image names of init and app containers
        "images",
        # plugins/defaultpreemption: (PDB generation, indexes of the PDBs that count the pod)
        "pdb_matches",
        # batch/: the predicate equivalence key (util/scheduler_helper.py), the v1.16 non-zero
        # requests (api/pod_info.py) and the host ports its predicates read (plugins/predicates.py)
        "batch_shape", "batch_nonzero_request", "batch_host_ports",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


def pod_info(pod: Pod) -> PodInfo:
    """The PodInfo of this Pod object, made on first use (NewPodInfo)."""
    pi: Any = pod.info
    if pi is None:
        pi = pod.info = PodInfo(pod)
    return pi
