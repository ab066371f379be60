"""mirrors noderesources/least_allocated.go: favour nodes with more room left."""
from __future__ import annotations

from typing import Callable, Sequence

from ...framework.interface import MAX_NODE_SCORE
from ..helper.gomath import go_div
from .resource_allocation import ResourceSpec, weighted_average_scorer


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Callable[[list[int], list[int]], int]:
    if [r.weight for r in resources] == [1, 1]:
        def two(requested: list[int], allocatable: list[int]) -> int:
            # weighted_average_scorer over two resources of weight 1, inline: every value is
            # non-negative, so // truncates as Go's int64 division does
            total = count = 0
            a = allocatable[0]
            if a:
                r = requested[0]
                total += (a - r) * MAX_NODE_SCORE // a if r <= a else 0
                count += 1
            a = allocatable[1]
            if a:
                r = requested[1]
                total += (a - r) * MAX_NODE_SCORE // a if r <= a else 0
                count += 1
            return total // count if count else 0
        return two
    return weighted_average_scorer(resources, least_requested_score)
