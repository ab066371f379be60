"""What kube-batch hands the v1.16 inter-pod affinity code (pkg/scheduler/plugins/util): the pods
of the session's allocated tasks, each on the node its task holds, and the session's nodes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from ...model.selectors import LabelSelector
from ..api.node_info import NodeInfo
from ..api.types import allocated_status

if TYPE_CHECKING:
    from ..framework.session import Session


def allocated_pods(ssn: "Session") -> Iterator[tuple[Any, str]]:
    """mirrors PodLister.List: (pod, node name) of every task in an allocated status."""
    for job in ssn.jobs.values():
        for status, tasks in job.task_status_index.items():
            if not allocated_status(status):
                continue
            for t in tasks.values():
                yield t.pod, t.node_name


def _terms(pod: Any, kind: str, mode: str) -> list:
    aff = pod.spec.get("affinity")
    if not aff:
        return []
    return list((aff.get(kind) or {}).get(mode) or ())


def required_affinity_terms(pod: Any) -> list:
    return _terms(pod, "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def required_anti_affinity_terms(pod: Any) -> list:
    return _terms(pod, "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def has_pod_affinity(pod: Any) -> bool:
    aff = pod.spec.get("affinity") or {}
    return bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))


def pod_matches_term(target: Any, term_owner: Any, term: dict) -> bool:
    """mirrors PodMatchesTermsNamespaceAndSelector with GetNamespacesFromPodAffinityTerm: the
    term's namespaces (the owner's own when none are listed) and its label selector."""
    namespaces = term.get("namespaces") or [term_owner.namespace]
    if target.namespace not in namespaces:
        return False
    return LabelSelector(term.get("labelSelector")).matches(target.labels)


def same_topology(a: Any, b: Any, key: str) -> bool:
    """mirrors NodesHaveSameTopologyKey"""
    if not key or a is None or b is None:
        return False
    av, bv = a.labels.get(key), b.labels.get(key)
    return av is not None and bv is not None and av == bv


def _anti_affinity_holders(ssn: "Session") -> list[tuple[str, str]]:
    # (job, task) of every task whose pod has required anti-affinity: pods never change, so the
    # list is made once per session; their status and node are read at each check
    got = getattr(ssn, "_anti_affinity_holders", None)
    if got is None:
        got = [(job.uid, t.uid) for job in ssn.jobs.values() for t in job.tasks.values()
               if required_anti_affinity_terms(t.pod)]
        ssn._anti_affinity_holders = got
    return got


def pod_affinity_fits(ssn: "Session", pod: Any, node: NodeInfo) -> bool:
    """mirrors the v1.16 InterPodAffinityMatches without metadata: no existing pod's required
    anti-affinity forbids this node, and the pod's own required terms hold."""
    n = node.node
    # satisfiesExistingPodsAntiAffinity
    for job_uid, task_uid in _anti_affinity_holders(ssn):
        t = ssn.jobs[job_uid].tasks.get(task_uid)
        if t is None or not allocated_status(t.status):
            continue
        existing = t.pod
        other = ssn.nodes.get(t.node_name)
        if other is None:
            continue
        for term in required_anti_affinity_terms(existing):
            key = term.get("topologyKey") or ""
            if (pod_matches_term(pod, existing, term) and key in other.node.labels
                    and n.labels.get(key) == other.node.labels[key]):
                return False
    aff, anti = required_affinity_terms(pod), required_anti_affinity_terms(pod)
    if not aff and not anti:
        return True
    pods = list(allocated_pods(ssn))

    # satisfiesPodsAffinityAntiAffinity
    def any_match(term: dict) -> tuple[bool, bool]:
        exists = False
        for existing, node_name in pods:
            if pod_matches_term(existing, pod, term):
                exists = True
                other = ssn.nodes.get(node_name)
                if other is not None and same_topology(n, other.node, term.get("topologyKey") or ""):
                    return True, True
        return False, exists
    for term in aff:
        matches, exists = any_match(term)
        if not matches:
            if exists or not pod_matches_term(pod, pod, term):
                return False
    for term in anti:
        if any_match(term)[0]:
            return False
    return True
