"""Many runs of one replay, summed up as distributions.

Each run of `replay --runs N` leaves a few facts (its preemptions, each victim with its
PriorityClass, namespace and owning workload, the pods left pending, the waits before binding);
this module turns the facts of N runs into the report's `distribution`. Pure data in and out.

Percentiles are nearest-rank: p of a list of N values is the smallest value with at least p% of
the runs at or below it (the ceil(p/100*N)-th smallest), so every figure is a value some run
really had. With 30 runs, p5 is the 2nd smallest and p95 the 29th.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

STAT_KEYS = ("p5", "p50", "p95", "min", "max")
PERCENTILE_DEFINITION = "nearest-rank"


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


def _counts_stat(per_run: Sequence[Mapping[str, int]]) -> dict[str, dict[str, float]]:
    """One STAT per key; a run without the key counts 0 for it."""
    keys = sorted({k for counts in per_run for k in counts})
    return {k: stat([counts.get(k, 0) for counts in per_run]) for k in keys}


def _probability(per_run: Sequence[Iterable[str]], runs: int) -> dict[str, float]:
    seen: dict[str, int] = {}
    for pods in per_run:
        for p in set(pods):
            seen[p] = seen.get(p, 0) + 1
    return {p: round(n / runs, 4) for p, n in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))}


def _count(items: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


def median_run(facts: Sequence[Mapping[str, Any]]) -> int:
    """The run (1-based) whose number of preemptions is the median; the first such run."""
    counts = [f["preemptions"] for f in facts]
    mid = nearest_rank(counts, 50)
    return next(i for i, c in enumerate(counts) if c == mid) + 1


def distribution(facts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The `distribution` of a report from the facts of each run (run 1 first).

    A run's facts: {"preemptions": int (decisions that evicted at least one pod), "renominations":
    int (decisions whose victims were all terminating already), "victims": [{"pod", "priorityClass", "namespace",
    "workload", "recorded"}], "pending": [pod], "waits": [seconds]}. Per-pod probabilities are
    given for pods of the recording only: a pod a controller re-created in one run has a name of
    that run.
    """
    n = len(facts)
    victims = [f["victims"] for f in facts]
    waits = [f["waits"] for f in facts]
    tts: dict[str, Any] = {}
    for label, q in (("p50Seconds", 50), ("p95Seconds", 95), ("p99Seconds", 99)):
        per_run = [nearest_rank(w, q) for w in waits if w]
        tts[label] = {k: round(v, 3) for k, v in stat(per_run).items()}
    return {
        "runs": n,
        "percentiles": PERCENTILE_DEFINITION,
        "medianRun": median_run(facts),
        "preemptions": stat([f["preemptions"] for f in facts]),
        "renominations": stat([f.get("renominations", 0) for f in facts]),
        "victims": stat([len(v) for v in victims]),
        "victimsByPriorityClass": _counts_stat([_count(d["priorityClass"] or "(none)" for d in v) for v in victims]),
        "victimsByNamespace": _counts_stat([_count(d["namespace"] for d in v) for v in victims]),
        "victimsByWorkload": _counts_stat([_count(d["workload"] for d in v) for v in victims]),
        "podsNeverScheduled": stat([len(f["pending"]) for f in facts]),
        "timeToSchedule": tts,
        "evictionProbability": _probability([[d["pod"] for d in v if d.get("recorded", True)] for v in victims], n),
        "pendingProbability": _probability([f.get("pendingRecorded", f["pending"]) for f in facts], n),
    }
