"""Parsed pod (anti-)affinity terms, as framework.PodInfo holds them (framework/types.go).

A pod's terms are parsed once and kept in its PodInfo; the incoming pod's terms get their
namespaceSelector unrolled into namespace names per cycle (merge_namespaces), as upstream's
mergeAffinityTermNamespacesIfNotEmpty does.
"""
from __future__ import annotations

from typing import Any, Mapping

from ...errors import InputError
from ...framework.podinfo import UNSET, PodInfo, pod_info
from ...model.objects import Pod
from ...model.selectors import LabelSelector


# matchLabelKeys / mismatchLabelKeys (MatchLabelKeysInPodAffinity, GA in v1.34) are not read
# here: the kube-apiserver merges them into labelSelector when it admits the pod, and the
# scheduler reads labelSelector only. The conformance corpus (objects loaded without admission)
# confirms it: a term's matchLabelKeys change nothing in the scheduler.

_EMPTY_LABELS: Mapping[str, str] = {}


class AffinityTerm:
    """fwk.AffinityTerm: namespaces, selector, topology key and namespace selector (and weight)."""

    __slots__ = ("namespaces", "selector", "topology_key", "ns_selector", "weight", "ns_nil_match")

    def __init__(self, namespaces: frozenset[str], selector: LabelSelector, topology_key: str,
                 ns_selector: LabelSelector, weight: int = 0) -> None:
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.ns_selector = ns_selector
        self.weight = weight
        # what the namespace selector says when matched against no labels (nsLabels == nil)
        self.ns_nil_match = ns_selector.matches(_EMPTY_LABELS)

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """mirrors AffinityTerm.Matches."""
        if pod.namespace in self.namespaces or self.ns_selector.matches(ns_labels or _EMPTY_LABELS):
            return self.selector.matches(pod.labels)
        return False

    def matches_nil_ns(self, pod: Pod) -> bool:
        """Matches(pod, nil): how the incoming pod's merged terms are matched against other pods."""
        if self.ns_nil_match or pod.namespace in self.namespaces:
            return self.selector.matches(pod.labels)
        return False

    def with_namespaces(self, extra: set[str]) -> "AffinityTerm":
        return AffinityTerm(self.namespaces | extra, self.selector, self.topology_key, self.ns_selector, self.weight)

    def __repr__(self) -> str:
        return f"AffinityTerm({sorted(self.namespaces)}, {self.topology_key!r}, weight={self.weight})"


class PodTerms:
    """The four term lists of a PodInfo; a list that failed to parse is empty, as upstream leaves it nil."""

    __slots__ = ("required_affinity", "required_anti_affinity", "preferred_affinity",
                 "preferred_anti_affinity", "errors")

    def __init__(self) -> None:
        self.required_affinity: list[AffinityTerm] = []
        self.required_anti_affinity: list[AffinityTerm] = []
        self.preferred_affinity: list[AffinityTerm] = []
        self.preferred_anti_affinity: list[AffinityTerm] = []
        self.errors: list[str] = []


def _label_selector(raw: Any) -> LabelSelector:
    # metav1.LabelSelectorAsSelector: nil selects nothing, {} everything (decoded JSON: a dict;
    # isinstance against typing.Mapping is an ABC check, far too slow for every pod)
    if raw is not None and not isinstance(raw, dict):
        raise InputError("label selector must be an object")
    return LabelSelector(raw)


def _new_affinity_term(pod: Pod, term: Mapping[str, Any], weight: int) -> AffinityTerm:
    """mirrors newAffinityTerm."""
    selector = _label_selector(term.get("labelSelector"))
    # mirrors getNamespacesFromPodAffinityTerm
    names = term.get("namespaces") or []
    raw_ns_sel = term.get("namespaceSelector")
    if not names and raw_ns_sel is None:
        namespaces = frozenset((pod.namespace,))
    else:
        namespaces = frozenset(names)
    return AffinityTerm(namespaces, selector, term.get("topologyKey") or "", _label_selector(raw_ns_sel), weight)


def _terms(pod: Pod, raw_terms: Any, weighted: bool) -> list[AffinityTerm]:
    out = []
    for t in raw_terms or ():
        if weighted:
            w = t.get("weight") or 0
            out.append(_new_affinity_term(pod, t.get("podAffinityTerm") or {}, int(w)))
        else:
            out.append(_new_affinity_term(pod, t, 0))
    return out


# shared by every pod without pod (anti-)affinity: most pods, so they cost one lookup
NO_TERMS = PodTerms()


def pod_terms(pod: Pod) -> PodTerms:
    """The pod's parsed terms, kept in its PodInfo (framework.PodInfo.Update)."""
    pi = pod.info or pod_info(pod)
    if not pi.has_affinity:
        # NewPodInfo's own flag: most pods have no terms
        return NO_TERMS
    got = pi.affinity_terms
    return got if got is not UNSET else terms_of(pi)


def terms_of(pi: PodInfo) -> PodTerms:
    """The parsed terms of the pod of this PodInfo, parsed on first use."""
    if not pi.has_affinity:
        return NO_TERMS
    got = pi.affinity_terms
    if got is UNSET:
        got = pi.affinity_terms = parse_terms(pi.pod)
    return got


def parse_terms(pod: Pod) -> PodTerms:
    """The pod's (anti-)affinity terms, parsed (PodInfo.Update); errors are kept with them."""
    affinity = pod.spec.get("affinity")
    pa = affinity.get("podAffinity") if affinity else None
    paa = affinity.get("podAntiAffinity") if affinity else None
    if not pa and not paa:
        return NO_TERMS
    pt = PodTerms()
    pa = pa or {}
    paa = paa or {}
    for attr, where, raw, weighted in (
            ("required_affinity", "requiredAffinityTerms", pa.get("requiredDuringSchedulingIgnoredDuringExecution"), False),
            ("required_anti_affinity", "requiredAntiAffinityTerms", paa.get("requiredDuringSchedulingIgnoredDuringExecution"), False),
            ("preferred_affinity", "preferredAffinityTerms", pa.get("preferredDuringSchedulingIgnoredDuringExecution"), True),
            ("preferred_anti_affinity", "preferredAntiAffinityTerms", paa.get("preferredDuringSchedulingIgnoredDuringExecution"), True)):
        try:
            setattr(pt, attr, _terms(pod, raw, weighted))
        except (InputError, AttributeError, TypeError, ValueError) as e:
            pt.errors.append(f"{where}: {getattr(e, 'detail', e)}")
    return pt


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
