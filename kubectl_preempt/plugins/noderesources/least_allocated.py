"""mirrors noderesources/least_allocated.go: favour nodes with more room left."""
from __future__ import annotations

from typing import Callable, Sequence

from ...framework.interface import MAX_NODE_SCORE
from ..helper.gomath import go_div
from .resource_allocation import ResourceSpec


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Callable[[list[int], list[int]], int]:
    weights = [r.weight for r in resources]

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, alloc in enumerate(allocatable):
            if alloc == 0:
                continue
            node_score += least_requested_score(requested[i], alloc) * weights[i]
            weight_sum += weights[i]
        return go_div(node_score, weight_sum) if weight_sum else 0

    return score
