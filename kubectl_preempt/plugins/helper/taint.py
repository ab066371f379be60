"""Taints and tolerations: helper.DoNotScheduleTaintsFilterFunc, and the matching of
component-helpers' TolerationsTolerateTaint / FindMatchingUntoleratedTaint with the semantics
of core/v1 Toleration.ToleratesTaint."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"
TOLERATION_OP_EQUAL = "Equal"
TOLERATION_OP_EXISTS = "Exists"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"

Taint = Mapping[str, Any]
Toleration = Mapping[str, Any]


def do_not_schedule_taints_filter(taint: Taint) -> bool:
    """mirrors DoNotScheduleTaintsFilterFunc: the effects a pod must tolerate to be placed."""
    effect = taint.get("effect") or ""
    return effect == TAINT_EFFECT_NO_SCHEDULE or effect == TAINT_EFFECT_NO_EXECUTE


def toleration_tolerates_taint(t: Toleration, taint: Taint) -> bool:
    """mirrors Toleration.ToleratesTaint: an empty effect matches every effect, an empty key every
    key; operator Exists matches any value, Equal (or no operator) needs the same value."""
    effect = t.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = t.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = t.get("operator") or ""
    if op == "" or op == TOLERATION_OP_EQUAL:
        return (t.get("value") or "") == (taint.get("value") or "")
    if op == TOLERATION_OP_EXISTS:
        return True
    return False


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """mirrors TolerationsTolerateTaint"""
    for t in tolerations:
        if toleration_tolerates_taint(t, taint):
            return True
    return False


def find_matching_untolerated_taint(taints: Sequence[Taint], tolerations: Sequence[Toleration],
                                    inclusion_filter: Callable[[Taint], bool] | None = None) -> Taint | None:
    """mirrors FindMatchingUntoleratedTaint: the first taint passing the filter that no toleration
    tolerates, or None."""
    for taint in taints:
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None
