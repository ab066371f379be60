"""A node's pods that a label selector may match, from the node's label index (NodeInfo.pods_with_label)
instead of all of them: the core beside the PreFilter walks over every pod of the snapshot
(PodTopologySpread's countPodsMatchSelector in calPreFilterState, InterPodAffinity's
getIncomingAffinityAntiAffinityCounts).

The answer is a superset of the pods the selector matches, never the answer itself: the plain
function still tests each pod it is given (namespace, deletion, the whole selector), so a pod the
index lets through needlessly costs a test and a pod it left out would be a bug
(tests/scheduler/test_fast_labels.py holds the two to the same counts)."""
from __future__ import annotations

from typing import Sequence

from ...framework.podinfo import PodInfo
from ...framework.types import NodeInfo
from ...model.selectors import LabelSelector

_NONE: list[PodInfo] = []


def pods_maybe_matching(ni: NodeInfo, selector: LabelSelector) -> Sequence[PodInfo]:
    """The node's pods `selector` may match: those carrying one of its matchLabels pairs (the
    rarest), else one of the values of an In requirement (a pod carries one value per key, so the
    buckets are apart), else every pod (a selector of NotIn, Exists or DoesNotExist only, or an
    empty one). A missing selector matches nothing."""
    if selector.nothing:
        return _NONE
    pairs = selector.match_labels
    if pairs:
        if len(pairs) == 1:
            key, value = pairs[0]
            return ni.pods_with_label(key).get(value, _NONE)
        best: Sequence[PodInfo] | None = None
        for key, value in pairs:
            bucket = ni.pods_with_label(key).get(value)
            if bucket is None:
                return _NONE
            if best is None or len(bucket) < len(best):
                best = bucket
        return best if best is not None else _NONE
    for key, op, values in selector.exprs:
        if op == "In":
            by_value = ni.pods_with_label(key)
            if len(values) == 1:
                for v in values:
                    return by_value.get(v, _NONE)
            out: list[PodInfo] = []
            for v in values:
                bucket = by_value.get(v)
                if bucket:
                    out += bucket
            return out
    return ni.pods
