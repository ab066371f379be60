"""Pod (anti-)affinity terms as framework.PodInfo holds them, parsed once when a PodInfo is made
(framework/types.go AffinityTerm, WeightedAffinityTerm, getAffinityTerms, newAffinityTerm, called
from PodInfo.Update): InterPodAffinity reads them from every PodInfo of PodsWithAffinity and
PodsWithRequiredAntiAffinity, as upstream's plugin does."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InputError
from ..model.objects import Pod
from ..model.selectors import LabelSelector


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


# shared by every pod without pod (anti-)affinity: most pods
NO_TERMS = PodTerms()


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
