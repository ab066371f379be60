"""`session --runs N`: one kube-batch session drawn N times, and what the draws give.

kube-batch's session is random (each `range` over a Go map starts at a random slot, SelectBestNode
draws among the top-scored nodes), so one run is one draw. Run k (0-based) is
`batch_session(..., seed=seed + k)`, each from its own generator: N independent sessions, as N
runs of kube-batch over a fresh cache would be. The distribution says each distinct outcome (the
five fields the kube-batch corpus compares: binds, evicts, pipelined, podConditions, podGroups)
with its share of the runs, and how many tasks each job and each queue lost to evictions, as
nearest-rank percentiles over the runs (a figure some run really had).
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from ..model.limits import check_runs
from ..model.stats import Histogram, KeyedHistograms
from .scheduler import DEFAULT_QUEUE, DEFAULT_SCHEDULER_NAME, batch_session

OUTCOME_FIELDS = ("binds", "evicts", "pipelined", "podConditions", "podGroups")


def _group_text(g: Any) -> str:
    """A PodGroup's status as the corpus writes it: "phase=P running=N; Type=Status Reason: message"."""
    if isinstance(g, str):
        return g
    conds = "; ".join(f"{c['type']}={c['status']} {c.get('reason', '')}: {c.get('message', '')}"
                      for c in g.get("conditions") or [])
    return f"phase={g.get('phase')} running={g.get('running')}; {conds}"


def outcome(result: Mapping[str, Any]) -> dict[str, Any]:
    """The five fields of a session's result that make its outcome."""
    return {
        "binds": dict(sorted((result.get("binds") or {}).items())),
        "evicts": sorted(result.get("evicts") or []),
        "pipelined": dict(sorted((result.get("pipelined") or {}).items())),
        "podConditions": dict(sorted((result.get("podConditions") or {}).items())),
        "podGroups": {k: _group_text(v) for k, v in sorted((result.get("podGroups") or {}).items())},
    }


class SessionRuns:
    """The sessions of `session --runs N` folded one at a time, run k drawn with seed `seed + k`:
    each distinct outcome with its count, and the tasks evicted per job and per queue as counts
    per value. What it keeps grows with the distinct outcomes and values, not with N."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.runs = 0
        self.groups: dict[str, dict[str, Any]] = {}
        self.total = Histogram()
        self.by_job = KeyedHistograms()
        self.by_queue = KeyedHistograms()

    def add(self, result: Mapping[str, Any]) -> None:
        o = outcome(result)
        key = json.dumps(o, sort_keys=True)
        g = self.groups.get(key)
        if g is None:
            g = self.groups[key] = {"runs": 0, "firstSeed": self.seed + self.runs, **o}
        g["runs"] += 1
        self.runs += 1
        jobs: dict[str, int] = {}
        queues: dict[str, int] = {}
        for e in result.get("evictions") or ():
            jobs[e["job"]] = jobs.get(e["job"], 0) + 1
            if e.get("queue"):
                queues[e["queue"]] = queues.get(e["queue"], 0) + 1
        self.total.add(sum(jobs.values()))
        # a run that evicted nothing of a job counts 0 for it
        self.by_job.add(jobs)
        self.by_queue.add(queues)

    def result(self) -> dict[str, Any]:
        n = self.runs
        if n == 0:
            raise ValueError("a distribution needs at least one run")
        outcomes = sorted(self.groups.values(), key=lambda g: (-g["runs"], g["firstSeed"]))
        return {
            "runs": n,
            "seeds": [self.seed, self.seed + n - 1],
            "percentiles": "nearest-rank",
            "outcomes": [{"share": round(g["runs"] / n, 4), "runs": g["runs"], "firstSeed": g["firstSeed"],
                          **{f: g[f] for f in OUTCOME_FIELDS}} for g in outcomes],
            "evictions": {
                "total": self.total.stat(),
                "jobs": self.by_job.stats(),
                "queues": self.by_queue.stats(),
            },
        }


def distribution(results: Iterable[Mapping[str, Any]], seed: int = 0) -> dict[str, Any]:
    """The distribution of the sessions `results` (run k drawn with seed `seed + k`)."""
    folded = SessionRuns(seed)
    for r in results:
        folded.add(r)
    return folded.result()


def session_runs(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *, runs: int,
                 seed: int = 0, scheduler_name: str = DEFAULT_SCHEDULER_NAME, default_queue: str = DEFAULT_QUEUE,
                 conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """`runs` sessions over `objects`, seeds `seed`..`seed + runs - 1`, summed up by distribution()."""
    check_runs(runs)
    objects = list(objects)
    folded = SessionRuns(seed)
    for k in range(runs):  # each session folded as it ends: memory does not grow with N
        folded.add(batch_session(objects, scheduler_conf, scheduler_name=scheduler_name,
                                 default_queue=default_queue, conf_source=conf_source, seed=seed + k))
    return folded.result()
