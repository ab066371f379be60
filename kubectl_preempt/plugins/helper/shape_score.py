"""mirrors helper.FunctionShape and BuildBrokenLinearFunction"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from .gomath import go_div


class FunctionShapePoint(NamedTuple):
    utilization: int
    score: int


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """The piecewise-linear function through the points (sorted by utilization), flat outside them,
    interpolated with int64 arithmetic."""
    points = tuple(shape)

    def f(p: int) -> int:
        for i, pt in enumerate(points):
            if p <= pt.utilization:
                if i == 0:
                    return points[0].score
                prev = points[i - 1]
                return prev.score + go_div((pt.score - prev.score) * (p - prev.utilization),
                                           pt.utilization - prev.utilization)
        return points[-1].score

    return f
