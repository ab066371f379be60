"""mirrors helper.DefaultNormalizeScore"""
from __future__ import annotations

from typing import Sequence

from ...framework.interface import NodeScore
from ...framework.status import Status
from .gomath import go_div


def default_normalize_score(max_priority: int, reverse: bool, scores: Sequence[NodeScore]) -> Status:
    """Scale scores to [0, max_priority] by the highest one; `reverse` turns the scale over.

    When every score is 0 the scores stay 0, or all become max_priority when reversed.
    """
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return Status()
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        s.score = score
    return Status()
