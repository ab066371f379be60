"""Label selectors and node selector terms, with upstream's matching semantics."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InputError


class LabelSelector:
    """metav1.LabelSelector converted as LabelSelectorAsSelector does.

    A missing selector (None) selects nothing; an empty one selects everything.
    """

    __slots__ = ("match_labels", "exprs", "nothing")

    def __init__(self, sel: Mapping[str, Any] | None) -> None:
        self.nothing = sel is None
        sel = sel or {}
        self.match_labels = tuple((sel.get("matchLabels") or {}).items())
        exprs = []
        for e in sel.get("matchExpressions") or ():
            op = e.get("operator")
            if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
                raise InputError(f"{op!r} is not a valid label selector operator", field="matchExpressions.operator")
            exprs.append((e.get("key"), op, frozenset(e.get("values") or ())))
        self.exprs = tuple(exprs)

    @property
    def empty(self) -> bool:
        return not self.nothing and not self.match_labels and not self.exprs

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for k, v in self.match_labels:
            if labels.get(k) != v:
                return False
        for key, op, values in self.exprs:
            if op == "In":
                if key not in labels or labels[key] not in values:
                    return False
            elif op == "NotIn":
                if key in labels and labels[key] in values:
                    return False
            elif op == "Exists":
                if key not in labels:
                    return False
            elif key in labels:  # DoesNotExist
                return False
        return True

    def with_requirements(self, extra: list[tuple[str, str, frozenset]]) -> "LabelSelector":
        """A copy with more requirements ANDed in (matchLabelKeys / mismatchLabelKeys)."""
        out = LabelSelector.__new__(LabelSelector)
        out.nothing = self.nothing
        out.match_labels = self.match_labels
        out.exprs = self.exprs + tuple(extra)
        return out


def _match_node_requirement(req: Mapping[str, Any], value: str | None, present: bool) -> bool:
    op = req.get("operator")
    values = req.get("values") or []
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        if not present or len(values) != 1:
            return False
        try:
            lhs, rhs = int(value), int(values[0])
        except (TypeError, ValueError):
            return False
        return lhs > rhs if op == "Gt" else lhs < rhs
    return False


def node_selector_term_matches(term: Mapping[str, Any], node_name: str, labels: Mapping[str, str]) -> bool:
    """One NodeSelectorTerm: all its expressions and fields must match; an empty term matches nothing."""
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False
    for req in exprs:
        key = req.get("key")
        if not _match_node_requirement(req, labels.get(key), key in labels):
            return False
    for req in fields:
        if req.get("key") != "metadata.name":
            return False
        if not _match_node_requirement(req, node_name, True):
            return False
    return True


def node_selector_matches(selector: Mapping[str, Any] | None, node_name: str, labels: Mapping[str, str]) -> bool:
    """A NodeSelector: terms are ORed."""
    if selector is None:
        return True
    return any(node_selector_term_matches(t, node_name, labels) for t in selector.get("nodeSelectorTerms") or [])
