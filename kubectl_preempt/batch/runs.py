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
import math
from typing import Any, Iterable, Mapping, Sequence

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


def nearest_rank(values: Sequence[int], q: float) -> int:
    s = sorted(values)
    return s[min(max(1, math.ceil(q / 100 * len(s))), len(s)) - 1]


def _stat(values: Sequence[int]) -> dict[str, int]:
    return {"p5": nearest_rank(values, 5), "p50": nearest_rank(values, 50), "p95": nearest_rank(values, 95),
            "min": min(values), "max": max(values)}


def _per_run_stat(per_run: Sequence[Mapping[str, int]]) -> dict[str, dict[str, int]]:
    # a run that evicted nothing of a job counts 0 for it
    keys = sorted({k for counts in per_run for k in counts})
    return {k: _stat([c.get(k, 0) for c in per_run]) for k in keys}


def distribution(results: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, Any]:
    """The distribution of the sessions `results` (run k drawn with seed `seed + k`)."""
    n = len(results)
    if n == 0:
        raise ValueError("a distribution needs at least one run")
    groups: dict[str, dict[str, Any]] = {}
    by_job: list[dict[str, int]] = []
    by_queue: list[dict[str, int]] = []
    for k, r in enumerate(results):
        o = outcome(r)
        key = json.dumps(o, sort_keys=True)
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"runs": 0, "firstSeed": seed + k, **o}
        g["runs"] += 1
        jobs: dict[str, int] = {}
        queues: dict[str, int] = {}
        for e in r.get("evictions") or ():
            jobs[e["job"]] = jobs.get(e["job"], 0) + 1
            if e.get("queue"):
                queues[e["queue"]] = queues.get(e["queue"], 0) + 1
        by_job.append(jobs)
        by_queue.append(queues)
    outcomes = sorted(groups.values(), key=lambda g: (-g["runs"], g["firstSeed"]))
    for g in outcomes:
        g["share"] = round(g["runs"] / n, 4)
    return {
        "runs": n,
        "seeds": [seed, seed + n - 1],
        "percentiles": "nearest-rank",
        "outcomes": [{"share": g["share"], "runs": g["runs"], "firstSeed": g["firstSeed"],
                      **{f: g[f] for f in OUTCOME_FIELDS}} for g in outcomes],
        "evictions": {
            "total": _stat([sum(j.values()) for j in by_job]),
            "jobs": _per_run_stat(by_job),
            "queues": _per_run_stat(by_queue),
        },
    }


def session_runs(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *, runs: int,
                 seed: int = 0, scheduler_name: str = DEFAULT_SCHEDULER_NAME, default_queue: str = DEFAULT_QUEUE,
                 conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """`runs` sessions over `objects`, seeds `seed`..`seed + runs - 1`, summed up by distribution()."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    objects = list(objects)
    results = [batch_session(objects, scheduler_conf, scheduler_name=scheduler_name, default_queue=default_queue,
                             conf_source=conf_source, seed=seed + k) for k in range(runs)]
    return distribution(results, seed)
