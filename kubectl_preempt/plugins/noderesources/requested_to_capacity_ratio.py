"""mirrors noderesources/requested_to_capacity_ratio.go: a user-given utilization -> score shape."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ...errors import InputError
from ...framework.interface import MAX_NODE_SCORE
from ..helper.gomath import go_div, go_round
from ..helper.shape_score import FunctionShapePoint, build_broken_linear_function
from .resource_allocation import ResourceSpec

MAX_UTILIZATION = 100
# config.MaxCustomPriorityScore: shape scores are 0..10, scaled to 0..100
MAX_CUSTOM_PRIORITY_SCORE = 10


def parse_shape(raw: Any, where: str) -> list[FunctionShapePoint]:
    """mirrors validateFunctionShape, then scales scores as requestedToCapacityRatioScorer does."""
    if not raw:
        raise InputError("at least one point must be specified", field=where)
    points = []
    for i, p in enumerate(raw):
        u, s = (p or {}).get("utilization", 0), (p or {}).get("score", 0)
        if not isinstance(u, int) or not isinstance(s, int):
            raise InputError("utilization and score must be integers", field=f"{where}[{i}]")
        points.append((u, s))
    for i in range(1, len(points)):
        if points[i - 1][0] >= points[i][0]:
            raise InputError(f"{points[i][0]}: values must be sorted in increasing order", field=f"{where}[{i}].utilization")
    for i, (u, s) in enumerate(points):
        if not 0 <= u <= MAX_UTILIZATION:
            raise InputError(f"{u}: not in valid range [0, {MAX_UTILIZATION}]", field=f"{where}[{i}].utilization")
        if not 0 <= s <= MAX_CUSTOM_PRIORITY_SCORE:
            raise InputError(f"{s}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]", field=f"{where}[{i}].score")
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return [FunctionShapePoint(u, s * factor) for u, s in points]


def requested_to_capacity_ratio_scorer(resources: Sequence[ResourceSpec],
                                       shape: Sequence[FunctionShapePoint]) -> Callable[[list[int], list[int]], int]:
    """mirrors buildRequestedToCapacityRatioScorerFunction"""
    raw = build_broken_linear_function(shape)
    weights = [r.weight for r in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(requested * MAX_UTILIZATION, capacity))

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            s = resource_score(requested[i], alloc)
            # a resource scoring 0 does not count towards the average at all
            if s > 0:
                node_score += s * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return score
