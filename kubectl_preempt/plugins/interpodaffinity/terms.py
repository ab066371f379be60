"""The incoming pod's terms as InterPodAffinity merges them, and the terms every PodInfo holds
(framework/affinity.py: parsed once when the PodInfo is made, as upstream's PodInfo.Update does).

The incoming pod's terms get their namespaceSelector unrolled into namespace names per cycle
(merge_namespaces), as upstream's mergeAffinityTermNamespacesIfNotEmpty does.
"""
from __future__ import annotations

from typing import Any, Mapping

from ...framework.affinity import NO_TERMS, AffinityTerm, PodTerms, parse_terms
from ...framework.podinfo import PodInfo, pod_info
from ...model.objects import Pod

_EMPTY_LABELS: Mapping[str, str] = {}

__all__ = ["NO_TERMS", "AffinityTerm", "PodTerms", "parse_terms", "pod_terms", "terms_of", "merge_namespaces",
           "namespace_labels", "pod_matches_all_terms"]


def pod_terms(pod: Pod) -> PodTerms:
    """The pod's parsed terms, kept in its PodInfo (framework.PodInfo.Update)."""
    return (pod.info or pod_info(pod)).affinity_terms


def terms_of(pi: PodInfo) -> PodTerms:
    """The parsed terms of the pod of this PodInfo."""
    return pi.affinity_terms


def merge_namespaces(term: AffinityTerm, namespaces: Mapping[str, Mapping[str, Any]]) -> AffinityTerm:
    """mirrors mergeAffinityTermNamespacesIfNotEmpty.

    Upstream passes the term by value: the names of the selected namespaces land in the shared
    Namespaces set, but resetting NamespaceSelector to Nothing() is lost, so the selector stays
    and is later matched against nil labels (see AffinityTerm.matches_nil_ns). We keep that.
    """
    if term.ns_selector.empty:
        return term
    extra = set()
    for name, ns in namespaces.items():
        labels = (ns.get("metadata") or {}).get("labels") or _EMPTY_LABELS
        if term.ns_selector.matches(labels):
            extra.add(name)
    return term.with_namespaces(extra)


def namespace_labels(namespaces: Mapping[str, Mapping[str, Any]], name: str) -> Mapping[str, str] | None:
    """mirrors GetNamespaceLabelsSnapshot: None when the namespace is unknown."""
    ns = namespaces.get(name)
    if ns is None:
        return None
    return (ns.get("metadata") or {}).get("labels") or {}


def pod_matches_all_terms(terms: list[AffinityTerm], pod: Pod) -> bool:
    """mirrors podMatchesAllAffinityTerms (incoming pod's merged terms: nil namespace labels)."""
    if not terms:
        return False
    for t in terms:
        if not t.matches_nil_ns(pod):
            return False
    return True
