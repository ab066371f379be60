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
    return weighted_average_scorer(resources, least_requested_score)
