"""Label selectors, with upstream's matching semantics (node selectors: plugins/helper/nodeaffinity)."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InputError, quote


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
                raise InputError(f"{quote(op)} is not a valid label selector operator", field="matchExpressions.operator")
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
