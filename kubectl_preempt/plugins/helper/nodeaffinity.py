"""Node selectors as component-helpers/scheduling/corev1/nodeaffinity parses and matches them.

Terms are compiled once (a pod's are kept in its PodInfo). A term that fails to parse (an
unknown operator, In with no values, Gt with a non-integer, an invalid key or value, a field
requirement without exactly one value) never matches, as upstream's LazyErrorNodeSelector
skips it; an empty term is dropped, so a selector whose terms are all empty matches no node.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ...framework.podinfo import derived
from ...model.objects import Node, Pod
from ...model.selectors import is_qualified_name, is_valid_label_value

OBJECT_NAME_FIELD = "metadata.name"

_INT64 = re.compile(r"[+-]?[0-9]+")
_LABEL_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def parse_int64(s: Any) -> int | None:
    """strconv.ParseInt(s, 10, 64), or None where Go returns an error."""
    if not isinstance(s, str) or not _INT64.fullmatch(s):
        return None
    v = int(s)
    return v if -(2**63) <= v < 2**63 else None


class LabelRequirement:
    """labels.Requirement as labels.NewRequirement builds it (see new_requirement)."""

    __slots__ = ("key", "op", "values", "number")

    def __init__(self, key: str, op: str, values: frozenset, number: int | None) -> None:
        self.key = key
        self.op = op
        self.values = values
        self.number = number

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.op
        if op == "In":
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == "NotIn":
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        v = labels.get(self.key)
        if v is None:
            return False
        n = parse_int64(v)
        if n is None:
            return False
        return n > self.number if op == "Gt" else n < self.number  # type: ignore[operator]


def new_requirement(key: Any, op: str, values: Sequence[Any] | None) -> LabelRequirement | None:
    """mirrors labels.NewRequirement: the requirement, or None where it returns an error.

    Equals (what metav1.LabelSelectorAsSelector makes of matchLabels) takes one value and is
    kept as In: Requirement.Matches treats the two alike."""
    vals = tuple(values or ())
    if not is_qualified_name(key):
        return None
    number = None
    if op in ("In", "NotIn"):
        if not vals:
            return None
    elif op in ("Exists", "DoesNotExist"):
        if vals:
            return None
    elif op in ("Gt", "Lt"):
        if len(vals) != 1:
            return None
        number = parse_int64(vals[0])
        if number is None:
            return None
    elif op == "Equals":
        if len(vals) != 1:
            return None
        op = "In"
    else:
        return None
    if not all(is_valid_label_value(v) for v in vals):
        return None
    return LabelRequirement(key, op, frozenset(vals), number)


def _label_requirement(expr: Mapping[str, Any]) -> LabelRequirement | None:
    """mirrors the conversion in nodeSelectorRequirementsAsSelector: None where it fails."""
    op = expr.get("operator") or ""
    if op not in _LABEL_OPS:
        return None
    return new_requirement(expr.get("key") or "", op, expr.get("values"))


class NodeSelectorTerm:
    """mirrors nodeSelectorTerm: label requirements ANDed with field requirements."""

    __slots__ = ("label_reqs", "field_reqs", "valid")

    def __init__(self, term: Mapping[str, Any]) -> None:
        self.valid = True
        self.label_reqs: tuple[LabelRequirement, ...] | None = None
        self.field_reqs: tuple[tuple[str, bool, str], ...] | None = None
        exprs = term.get("matchExpressions") or ()
        if exprs:
            reqs = []
            for e in exprs:
                r = _label_requirement(e)
                if r is None:
                    self.valid = False
                else:
                    reqs.append(r)
            self.label_reqs = tuple(reqs)
        fields = term.get("matchFields") or ()
        if fields:
            freqs = []
            for e in fields:
                op = e.get("operator") or ""
                values = list(e.get("values") or ())
                # nodeSelectorRequirementsAsFieldSelector: In/NotIn with exactly one value
                if op not in ("In", "NotIn") or len(values) != 1:
                    self.valid = False
                    continue
                freqs.append((e.get("key") or "", op == "In", values[0]))
            self.field_reqs = tuple(freqs)

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if not self.valid:
            return False
        if self.label_reqs is not None:
            for r in self.label_reqs:
                if not r.matches(labels):
                    return False
        if self.field_reqs is not None and node_name:
            for key, equal, value in self.field_reqs:
                # fields.Set.Get: a field other than metadata.name reads as ""
                got = node_name if key == OBJECT_NAME_FIELD else ""
                if (got == value) != equal:
                    return False
        return True


def is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


class NodeSelector:
    """mirrors LazyErrorNodeSelector: terms ORed; empty terms dropped; unparsable terms never match."""

    __slots__ = ("terms", "valid")

    def __init__(self, selector: Mapping[str, Any]) -> None:
        self.terms = tuple(NodeSelectorTerm(t) for t in selector.get("nodeSelectorTerms") or ()
                           if not is_empty_term(t))
        self.valid = all(t.valid for t in self.terms)

    def matches(self, node: Node) -> bool:
        labels, name = node.labels, node.name
        for t in self.terms:
            if t.matches(labels, name):
                return True
        return False


class PreferredSchedulingTerms:
    """mirrors PreferredSchedulingTerms: the sum of the weights of the terms a node matches."""

    __slots__ = ("terms",)

    def __init__(self, terms: Sequence[tuple[NodeSelectorTerm, int]]) -> None:
        self.terms = tuple(terms)

    @classmethod
    def parse(cls, raw: Sequence[Mapping[str, Any]]) -> "PreferredSchedulingTerms | None":
        """NewPreferredSchedulingTerms; None where upstream returns an error."""
        out = []
        for t in raw or ():
            weight = t.get("weight") or 0
            pref = t.get("preference") or {}
            if weight == 0 or is_empty_term(pref):
                continue
            term = NodeSelectorTerm(pref)
            if not term.valid:
                return None
            out.append((term, int(weight)))
        return cls(out)

    def score(self, node: Node) -> int:
        labels, name = node.labels, node.name
        total = 0
        for term, weight in self.terms:
            if term.matches(labels, name):
                total += weight
        return total


class RequiredNodeAffinity:
    """mirrors GetRequiredNodeAffinity: spec.nodeSelector ANDed with the required node affinity."""

    __slots__ = ("node_selector_labels", "node_selector")

    def __init__(self, pod: Pod) -> None:
        ns = pod.spec.get("nodeSelector") or {}
        self.node_selector_labels: tuple[tuple[str, str], ...] | None = tuple(ns.items()) if ns else None
        na = (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        self.node_selector = NodeSelector(req) if req is not None else None

    def matches(self, node: Node) -> bool:
        if self.node_selector_labels is not None:
            labels = node.labels
            for k, v in self.node_selector_labels:
                # labels.SelectorFromSet: the label must be present with this value
                got = labels.get(k)
                if got is None or got != v:
                    return False
        if self.node_selector is not None:
            return self.node_selector.matches(node)
        return True


def required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """The pod's RequiredNodeAffinity (GetRequiredNodeAffinity), compiled once per pod and kept in
    its PodInfo."""
    return derived(pod, "required_node_affinity", RequiredNodeAffinity)
