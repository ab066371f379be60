"""A node's pods that a label selector may match, from the node's label index (pods_with_label below)
instead of all of them: the core beside the PreFilter walks over every pod of the snapshot
(PodTopologySpread's countPodsMatchSelector in calPreFilterState, InterPodAffinity's
getIncomingAffinityAntiAffinityCounts).

The answer is a superset of the pods the selector matches, never the answer itself: the plain
function still tests each pod it is given (namespace, deletion, the whole selector), so a pod the
index lets through needlessly costs a test and a pod it left out would be a bug
(tests/scheduler/test_fast_labels.py holds the two to the same counts).

The index is this module's own: built from the node's pods when first asked, one label key at a
time, and kept in the NodeInfo (its `label_index`) with the generation it was built at. Every
change of a node's pods moves its generation (framework/types.py NodeInfo._next_generation), so an
index of another generation is dropped and built again when next asked: NodeInfo.add_pod and
remove_pod keep no index, as upstream's AddPodInfo and RemovePod keep none. A copy of a NodeInfo
(NodeInfo.snapshot, for a dry run) has the same pods and generation and shares the index until
either changes."""
from __future__ import annotations

from typing import Sequence

from ...framework.podinfo import PodInfo
from ...framework.types import NodeInfo
from ...model.selectors import LabelSelector

_NONE: list[PodInfo] = []


class _LabelIndex:
    """A node's pods by label, for one generation of the node."""

    __slots__ = ("generation", "by_key", "by_pair")

    def __init__(self, generation: int, by_pair: dict[tuple[str, str], list[PodInfo]] | None = None) -> None:
        self.generation = generation
        # key -> value -> the PodInfos carrying it, for the keys indexed whole
        self.by_key: dict[str, dict[str, list[PodInfo]]] = {}
        # (key, value) -> the PodInfos carrying that pair, for the pairs asked of a key not
        # indexed whole: a one-off question (an explain's single cycle asks one value of a key
        # per node) walks the pods once and files nothing else
        self.by_pair: dict[tuple[str, str], list[PodInfo]] = {} if by_pair is None else by_pair


def _index_of(ni: NodeInfo) -> _LabelIndex:
    """The node's index at its generation: the one kept, or a new empty one (the pods changed)."""
    index = ni.label_index
    if type(index) is _LabelIndex and index.generation == ni.generation:
        return index
    fresh = ni.label_index = _LabelIndex(ni.generation)
    return fresh


def pods_with_label(ni: NodeInfo, key: str) -> dict[str, list[PodInfo]]:
    """The node's pods by their value of label `key` (those without it left out), in no
    particular order: indexed on the first call for the key at the node's generation. The
    buckets are the index's: callers read them, never change them."""
    index = _index_of(ni)
    by_value = index.by_key.get(key)
    if by_value is None:
        by_value = index.by_key[key] = {}
        for pi in ni.pods:
            v = pi.labels.get(key)
            if v is not None:
                bucket = by_value.get(v)
                if bucket is None:
                    by_value[v] = [pi]
                else:
                    bucket.append(pi)
    return by_value


def pods_with_label_value(ni: NodeInfo, key: str, value: str) -> list[PodInfo]:
    """The node's pods whose label `key` is `value`, in no particular order. The first value
    asked of a key at the node's generation is found by one walk over the pods and kept as a
    pair; a second value of the same key indexes the key whole (pods_with_label), as a replay's
    cycles asking after pods of several apps on an unchanged node would walk it again and again."""
    index = ni.label_index
    if type(index) is _LabelIndex and index.generation == ni.generation:
        by_value = index.by_key.get(key)
        if by_value is not None:
            return by_value.get(value, _NONE)
        by_pair = index.by_pair
        got = by_pair.get((key, value))
        if got is not None:
            return got
        for k, _ in by_pair:
            if k == key:
                return pods_with_label(ni, key).get(value, _NONE)
        got = by_pair[(key, value)] = [pi for pi in ni.pods if pi.labels.get(key) == value]
        return got
    # _index_of's new index, inline and made with its one pair: a PreFilter's count asks this
    # of every node of the snapshot, most of them never asked before
    got = [pi for pi in ni.pods if pi.labels.get(key) == value]
    ni.label_index = _LabelIndex(ni.generation, {(key, value): got})
    return got


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
            return pods_with_label_value(ni, key, value)
        best: Sequence[PodInfo] | None = None
        for key, value in pairs:
            bucket = pods_with_label_value(ni, key, value)
            if not bucket:
                return _NONE
            if best is None or len(bucket) < len(best):
                best = bucket
        return best if best is not None else _NONE
    for key, op, values in selector.exprs:
        if op == "In":
            if len(values) == 1:
                for v in values:
                    return pods_with_label_value(ni, key, v)
            by_value = pods_with_label(ni, key)
            out: list[PodInfo] = []
            for v in values:
                bucket = by_value.get(v)
                if bucket:
                    out += bucket
            return out
    return ni.pods
