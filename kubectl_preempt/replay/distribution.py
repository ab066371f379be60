"""Many runs of one replay, summed up as distributions.

Each run of `replay --runs N` leaves a few facts (its preemptions, each victim with its
PriorityClass, namespace and owning workload, the pods left pending, the waits before binding);
this module turns the facts of N runs into the report's `distribution`. Pure data in and out.

Percentiles are nearest-rank: p of a list of N values is the smallest value with at least p% of
the runs at or below it (the ceil(p/100*N)-th smallest), so every figure is a value some run
really had. With 30 runs, p5 is the 2nd smallest and p95 the 29th.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from ..model.stats import STAT_KEYS, Histogram, KeyedHistograms, nearest_rank, stat, stat_of_counts  # noqa: F401

PERCENTILE_DEFINITION = "nearest-rank"


class Shares:
    """How many runs each pod was in (evicted, left pending): a count per pod of the recording."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def add(self, pods: Iterable[str]) -> None:
        for p in set(pods):
            self.seen[p] = self.seen.get(p, 0) + 1

    def probabilities(self, runs: int) -> dict[str, float]:
        return {p: round(n / runs, 4) for p, n in sorted(self.seen.items(), key=lambda kv: (-kv[1], kv[0]))}


def _counts_stat(per_run: Sequence[Mapping[str, int]]) -> dict[str, dict[str, float]]:
    """One STAT per key; a run without the key counts 0 for it."""
    keyed = KeyedHistograms()
    for counts in per_run:
        keyed.add(counts)
    return keyed.stats()


def _probability(per_run: Sequence[Iterable[str]], runs: int) -> dict[str, float]:
    shares = Shares()
    for pods in per_run:
        shares.add(pods)
    return shares.probabilities(runs)


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


# the percentiles of each run's waits that `timeToSchedule` gives over the runs
_WAIT_PERCENTILES = (("p50Seconds", 50), ("p95Seconds", 95), ("p99Seconds", 99))


class Distribution:
    """The `distribution` of N runs, folded one run's facts at a time (run 1 first): what it keeps
    grows with the distinct values and the pods of the trace, never with N, so `--runs` holds no
    run once it is counted. `result()` is what `distribution(facts)` gives for the same runs."""

    def __init__(self) -> None:
        self.runs = 0
        self.preemptions = Histogram()
        # the first run with each number of preemptions: the median run is one of them
        self.first_with: dict[int, int] = {}
        self.renominations = Histogram()
        self.victims = Histogram()
        self.by_class = KeyedHistograms()
        self.by_namespace = KeyedHistograms()
        self.by_workload = KeyedHistograms()
        self.never_scheduled = Histogram()
        # each run's percentile of its waits, rounded as the report rounds it (rounding keeps the
        # order, so the percentiles of the rounded values are the rounded percentiles)
        self.waits = {label: Histogram() for label, _ in _WAIT_PERCENTILES}
        self.evicted = Shares()
        self.pending = Shares()

    def add(self, facts: Mapping[str, Any]) -> None:
        """One run's facts (see `distribution`), in run order."""
        self.runs += 1
        n = facts["preemptions"]
        self.preemptions.add(n)
        self.first_with.setdefault(n, self.runs)
        self.renominations.add(facts.get("renominations", 0))
        victims = facts["victims"]
        self.victims.add(len(victims))
        self.by_class.add(_count(d["priorityClass"] or "(none)" for d in victims))
        self.by_namespace.add(_count(d["namespace"] for d in victims))
        self.by_workload.add(_count(d["workload"] for d in victims))
        self.never_scheduled.add(len(facts["pending"]))
        waits = facts["waits"]
        if waits:
            s = sorted(waits)
            for label, q in _WAIT_PERCENTILES:
                self.waits[label].add(round(nearest_rank(s, q), 3))
        self.evicted.add(d["pod"] for d in victims if d.get("recorded", True))
        self.pending.add(facts.get("pendingRecorded", facts["pending"]))

    def median_run(self) -> int:
        """The first run whose number of preemptions is the median (nearest-rank)."""
        return self.first_with[self.preemptions.stat()["p50"]]  # type: ignore[index]

    def result(self) -> dict[str, Any]:
        n = self.runs
        return {
            "runs": n,
            "percentiles": PERCENTILE_DEFINITION,
            "medianRun": self.median_run(),
            "preemptions": self.preemptions.stat(),
            "renominations": self.renominations.stat(),
            "victims": self.victims.stat(),
            "victimsByPriorityClass": self.by_class.stats(),
            "victimsByNamespace": self.by_namespace.stats(),
            "victimsByWorkload": self.by_workload.stats(),
            "podsNeverScheduled": self.never_scheduled.stat(),
            "timeToSchedule": {label: self.waits[label].stat() for label, _ in _WAIT_PERCENTILES},
            "evictionProbability": self.evicted.probabilities(n),
            "pendingProbability": self.pending.probabilities(n),
        }


def distribution(facts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The `distribution` of a report from the facts of each run (run 1 first).

    A run's facts: {"preemptions": int (decisions that evicted at least one pod), "renominations":
    int (decisions whose victims were all terminating already), "victims": [{"pod", "priorityClass", "namespace",
    "workload", "recorded"}], "pending": [pod], "waits": [seconds]}. Per-pod probabilities are
    given for pods of the recording only: a pod a controller re-created in one run has a name of
    that run.
    """
    acc = Distribution()
    for f in facts:
        acc.add(f)
    return acc.result()
