"""mirrors helper.DefaultNormalizeScore"""
from __future__ import annotations

from typing import Any, Sequence

from ...framework.interface import MAX_NODE_SCORE, NodeScore
from ...framework.status import SUCCESS, Status
from .gomath import go_div


def default_normalize_score(max_priority: int, reverse: bool, scores: Sequence[NodeScore]) -> Status:
    """Scale scores to [0, max_priority] by the highest one; `reverse` turns the scale over.

    When every score is 0 the scores stay 0, or all become max_priority when reversed.
    """
    for s, v in zip(scores, default_normalize_values(max_priority, reverse, [s.score for s in scores])):
        s.score = v
    return SUCCESS


def default_normalize_values(max_priority: int, reverse: bool, values: list[int]) -> list[int]:
    """DefaultNormalizeScore on the plain scores, in node order (the framework's fast form of
    NormalizeScore, without a NodeScore object per node). `values` is the caller's own list: it may
    be given back."""
    # a column of zeros (no node has an intolerable taint, none a preferred term: most cycles) is
    # found by count, which compares by identity first, before max compares every value
    n = len(values)
    max_count = 0 if values.count(0) == n else max(0, max(values, default=0))
    if max_count == 0:
        return [max_priority] * n if reverse else values
    if reverse:
        return [max_priority - go_div(max_priority * v, max_count) for v in values]
    return [go_div(max_priority * v, max_count) for v in values]


class DefaultNormalized:
    """The score extensions of a plugin whose NormalizeScore is one call of
    helper.DefaultNormalizeScore(framework.MaxNodeScore, reverse, scores): NodeAffinity (not
    reversed), TaintToleration (reversed: fewer intolerable taints score higher),
    DynamicResources. `normalize_reverse` is that call's `reverse`."""

    normalize_reverse = False

    def score_extensions(self) -> Any:
        return self

    def normalize_score(self, state: Any, pod: Any, scores: list[NodeScore]) -> Status:
        return default_normalize_score(MAX_NODE_SCORE, self.normalize_reverse, scores)

    def normalize_values(self, state: Any, pod: Any, values: list[int]) -> list[int]:
        return default_normalize_values(MAX_NODE_SCORE, self.normalize_reverse, values)
