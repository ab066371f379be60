"""Figures over many runs (replay, check, plan and session --runs), as nearest-rank percentiles.

p of a list of N values is the smallest value with at least p% of the values at or below it (the
ceil(p/100*N)-th smallest), so every figure is a value some run really had. A Histogram keeps a
count per distinct value instead of the values, so that a figure over N runs costs memory for the
values that occur, not for N: the runs are folded as they finish.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

STAT_KEYS = ("p5", "p50", "p95", "min", "max")


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0 < q <= 100) of a non-empty list, nearest-rank."""
    s = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(s)))
    return s[min(rank, len(s)) - 1]


def stat(values: Sequence[float]) -> dict[str, float]:
    """{"p5", "p50", "p95", "min", "max"} of one figure over the runs."""
    if not values:
        return {k: 0 for k in STAT_KEYS}
    s = sorted(values)
    return {"p5": nearest_rank(s, 5), "p50": nearest_rank(s, 50), "p95": nearest_rank(s, 95),
            "min": s[0], "max": s[-1]}


def stat_of_counts(counts: Mapping[float, int]) -> dict[str, float]:
    """`stat` of the multiset whose value v occurs counts[v] times: the same figures, from a
    histogram whose size is the number of distinct values, not of runs."""
    n = sum(counts.values())
    if not n:
        return {k: 0 for k in STAT_KEYS}
    values = sorted(v for v, c in counts.items() if c)
    out: dict[str, float] = {"min": values[0], "max": values[-1]}
    for key, q in (("p5", 5), ("p50", 50), ("p95", 95)):
        rank = min(max(1, math.ceil(q / 100 * n)), n)
        seen = 0
        for v in values:
            seen += counts[v]
            if seen >= rank:
                out[key] = v
                break
    return {k: out[k] for k in STAT_KEYS}


class Histogram:
    """One figure over the runs, as a count per value (bounded by how many values occur)."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: dict[float, int] = {}

    def add(self, value: float, times: int = 1) -> None:
        self.counts[value] = self.counts.get(value, 0) + times

    def stat(self, zeros: int = 0) -> dict[str, float]:
        """The figure's STAT; `zeros` more runs counted 0 (runs that lacked the key)."""
        if zeros:
            counts = dict(self.counts)
            counts[0] = counts.get(0, 0) + zeros
            return stat_of_counts(counts)
        return stat_of_counts(self.counts)


class KeyedHistograms:
    """One Histogram per key (a PriorityClass, a namespace, a workload); a run without the key
    counts 0 for it, as `_counts_stat` of every run's counts would."""

    def __init__(self) -> None:
        self.by_key: dict[str, Histogram] = {}
        self.runs = 0

    def add(self, counts: Mapping[str, int]) -> None:
        self.runs += 1
        for k, n in counts.items():
            self.by_key.setdefault(k, Histogram()).add(n)

    def stats(self) -> dict[str, dict[str, float]]:
        return {k: h.stat(zeros=self.runs - sum(h.counts.values())) for k, h in sorted(self.by_key.items())}


