"""Label selectors, with upstream's matching semantics (node selectors: plugins/helper/nodeaffinity)."""
from __future__ import annotations

import re
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

    def single_label(self) -> tuple[str, str] | None:
        """(key, value) when the selector is exactly one matchLabels pair: it matches the labels
        whose value at key is that value (a scan over every pod of a snapshot tests that inline)."""
        if self.nothing or self.exprs or len(self.match_labels) != 1:
            return None
        return self.match_labels[0]

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


def parse_selector(text: str) -> LabelSelector:
    """A label selector as kubectl's -l reads it (apimachinery pkg/labels/selector.go Parse):
    comma-separated requirements that must all hold: `key=value` or `key==value`, `key!=value`
    (also true where the key is missing, as upstream's NotEquals), `key in (a,b)`,
    `key notin (a,b)` (true where the key is missing), `key` (exists), `!key` (does not exist).
    The empty selector matches every pod. Raises InputError naming the flag."""
    terms: list[str] = []
    depth, start = 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    exprs: list[dict[str, Any]] = []
    for raw in terms:
        term = raw.strip()
        if not term:
            if text.strip():
                raise InputError(f"empty requirement in selector {quote(text)}", field="--selector")
            continue
        exprs.append(_requirement(term, text))
    sel = LabelSelector({})
    sel.exprs = tuple((e["key"], e["operator"], frozenset(e["values"])) for e in exprs)
    return sel


# apimachinery's label rules (pkg/api/validate/content kube.go IsLabelKey, IsLabelValue; dns.go
# IsDNS1123Subdomain), which labels.NewRequirement applies to every key and value of a selector and
# the node-affinity helper to node selector terms (plugins/helper/nodeaffinity.py)
DNS1123_SUBDOMAIN_FMT = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_DNS1123_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN_FMT)
_LABEL_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
# what a label name and a label value are made of, in IsLabelKey's and IsLabelValue's words
_LABEL_CHARS = ("consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character")


def label_key_error(key: str) -> str | None:
    """IsLabelKey's first complaint about `key` (an optional DNS subdomain prefix and '/', then a
    name of at most 63 bytes), or None when it is a valid label key."""
    parts = key.split("/")
    if len(parts) > 2:
        return (f"a valid label key must {_LABEL_CHARS} with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')")
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix.encode()) > 253:
            return "prefix part must be no more than 253 bytes"
        if not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                    "characters, '-' or '.', and must start and end with an alphanumeric character")
    name = parts[-1]
    if not name:
        return "name part must be non-empty"
    if len(name.encode()) > 63:
        return "name part must be no more than 63 bytes"
    if not _LABEL_NAME.fullmatch(name):
        return f"name part must {_LABEL_CHARS}"
    return None


def label_value_error(value: str) -> str | None:
    """IsLabelValue's first complaint about `value` (empty, or at most 63 bytes of a label name's
    characters), or None."""
    if len(value.encode()) > 63:
        return "must be no more than 63 bytes"
    if value and not _LABEL_NAME.fullmatch(value):
        return f"a valid label must be an empty string or {_LABEL_CHARS}"
    return None


def is_qualified_name(key: Any) -> bool:
    """validation.IsQualifiedName: [prefix/]name, prefix a DNS subdomain."""
    return isinstance(key, str) and label_key_error(key) is None


def is_valid_label_value(value: Any) -> bool:
    return isinstance(value, str) and label_value_error(value) is None


def _requirement(term: str, text: str) -> dict[str, Any]:
    req = _parsed_requirement(term, text)
    # labels.NewRequirement: the key, then each value of an operator that has values
    why = label_key_error(req["key"])
    if why is not None:
        raise InputError(f"invalid label key {quote(req['key'])}: {why} in selector {quote(text)}",
                         field="--selector")
    for v in req["values"]:
        why = label_value_error(v)
        if why is not None:
            raise InputError(f"invalid label value {quote(v)}: {why} in selector {quote(text)}", field="--selector")
    return req


def _parsed_requirement(term: str, text: str) -> dict[str, Any]:
    def bad(why: str) -> InputError:
        return InputError(f"{why} in selector {quote(text)}", field="--selector")

    m = re.fullmatch(r"\s*(\S+?)\s+(in|notin)\s*\((.*)\)\s*", term)
    if m:
        values = [v.strip() for v in m.group(3).split(",")]
        if not m.group(3).strip():
            raise bad(f"no values for {m.group(1)} {m.group(2)}")
        return {"key": m.group(1), "operator": "In" if m.group(2) == "in" else "NotIn", "values": values}
    m = re.fullmatch(r"\s*([^=!<>\s]+)\s*(==|!=|=)\s*([^=!<>\s,]*)\s*", term)
    if m:
        return {"key": m.group(1), "operator": "NotIn" if m.group(2) == "!=" else "In", "values": [m.group(3)]}
    m = re.fullmatch(r"\s*(!?)\s*([^=!<>\s(),]+)\s*", term)
    if m:
        return {"key": m.group(2), "operator": "DoesNotExist" if m.group(1) else "Exists", "values": []}
    raise bad(f"cannot read {quote(term)}")
