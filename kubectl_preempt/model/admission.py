"""What the API server does to a pod on creation that the scheduler then relies on.

A manifest given with -f was never admitted: before it is explained it gets what admission
would have given it, priority from its class and, for pod (anti-)affinity terms, the
matchLabelKeys / mismatchLabelKeys merged into the label selector.
"""
from __future__ import annotations

import copy
from typing import Any, Mapping

from .objects import Pod, PriorityClass
from .priority import resolve


def merge_label_keys(raw: dict[str, Any]) -> None:
    """mirrors the pod strategy's applyMatchLabelKeysAndMismatchLabelKeys (v1.34, on by default)."""
    labels = (raw.get("metadata") or {}).get("labels") or {}
    affinity = (raw.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        block = affinity.get(kind) or {}
        terms = list(block.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [w.get("podAffinityTerm") or {} for w in block.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
        for term in terms:
            match_keys = term.get("matchLabelKeys") or []
            mismatch_keys = term.get("mismatchLabelKeys") or []
            # a nil selector selects nothing; nothing to narrow
            if (not match_keys and not mismatch_keys) or term.get("labelSelector") is None:
                continue
            exprs = term["labelSelector"].setdefault("matchExpressions", [])
            for key in match_keys:
                if key in labels:
                    exprs.append({"key": key, "operator": "In", "values": [labels[key]]})
            for key in mismatch_keys:
                if key in labels:
                    exprs.append({"key": key, "operator": "NotIn", "values": [labels[key]]})


def admit(raw: Mapping[str, Any], classes: dict[str, PriorityClass]) -> Pod:
    """A pending pod made from a manifest as the API server would store it."""
    obj = copy.deepcopy(dict(raw))
    spec = obj.setdefault("spec", {})
    spec.pop("nodeName", None)
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    merge_label_keys(obj)
    pod = Pod(obj)
    resolve(pod, classes, force=not pod.has_priority)
    return pod
