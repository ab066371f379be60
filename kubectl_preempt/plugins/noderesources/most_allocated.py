"""mirrors noderesources/most_allocated.go: favour nodes that are already fuller (bin packing)."""
from __future__ import annotations

from typing import Callable, Sequence

from ...framework.interface import MAX_NODE_SCORE
from ..helper.gomath import go_div
from .resource_allocation import ResourceSpec, weighted_average_scorer


def most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return go_div(requested * MAX_NODE_SCORE, capacity)


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Callable[[list[int], list[int]], int]:
    return weighted_average_scorer(resources, most_requested_score)
