"""How often each outcome of a kube-batch case comes out of our session, against how often kube-batch's
24 recorded runs gave it (tests/corpus/conformance/batch/cases, `expect.counts`).

kube-batch breaks ties at random (every `range` over a Go map, SelectBestNode), so a case is a
distribution, and one seeded run of ours is one draw from it. This script draws many (seeds 0..N-1)
and says, per case with several recorded outcomes:
  rec, sgl   recorded distinct outcomes, and how many of them came out once (singletons / runs is the
             Good-Turing estimate of the mass kube-batch's 24 runs did not see)
  ll         log-likelihood of the recorded counts under our distribution (higher fits better; the sum
             over cases compares two models of the same cases)
  P(rec)     the chance that one run of ours equals a recorded outcome: what the conformance test, which
             compares one run, passes with
  unseen     our mass on outcomes the corpus does not hold
  E[dist]    how many distinct outcomes 24 runs of ours would show, against `rec`
  p_boot     parametric bootstrap: the share of 24-run samples drawn from our distribution whose
             log-likelihood is at most the recorded one (small: the recorded counts are unlikely for us)
  #out       distinct outcomes we produce

    .venv/bin/python -m tests.batch.outcome_distribution --seeds 2000 [--json FILE] [CASE ...]

Not a test: a measurement (seconds per thousand seeds per case), kept so the numbers in the notes can
be made again.
"""
from __future__ import annotations

import argparse
import bisect
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

from kubectl_preempt.batch.scheduler import batch_session
from tests.corpus import COMPARE, case_files, case_name, load_json

RUNS_FIELDS = ("binds", "evicts", "pipelined", "podConditions", "podGroups")


def outcome_key(result: dict[str, Any], group_text: Any) -> str:
    """One outcome as compare_batch sees it (evicts sorted, podGroups as their text)."""
    d = {"binds": dict(result.get("binds") or {}), "evicts": sorted(result.get("evicts") or []),
         "pipelined": dict(result.get("pipelined") or {}),
         "podConditions": dict(result.get("podConditions") or {}),
         "podGroups": {k: group_text(v) for k, v in (result.get("podGroups") or {}).items()}}
    return json.dumps(d, sort_keys=True)


def distribution(case: dict[str, Any], seeds: int, group_text: Any) -> list[int]:
    """How many of the seeds gave each recorded outcome (in the case's order), then the counts of the
    outcomes the corpus does not hold, largest first."""
    recorded = {outcome_key(o, group_text): i for i, o in enumerate(case["expect"]["outcomes"])}
    got: Counter = Counter()
    for seed in range(seeds):
        k = outcome_key(batch_session(case["objects"], case.get("schedulerConf"), seed=seed), group_text)
        got[recorded.get(k, k)] += 1
    n = len(recorded)
    return [got[i] for i in range(n)] + sorted((v for k, v in got.items() if not isinstance(k, int)), reverse=True)


def fit(counts: list[int], full: list[int], seeds: int, rng: random.Random, samples: int = 2000) -> dict[str, float]:
    runs = sum(counts)
    # an outcome kube-batch gave that no seed gave gets half a draw, so the log stays finite
    p = [max(x, 0.5) / seeds for x in full]
    total = sum(p)
    p = [x / total for x in p]
    ll = sum(c * math.log(p[i]) for i, c in enumerate(counts))
    cum = []
    acc = 0.0
    for x in p:
        acc += x
        cum.append(acc)
    worse = 0
    for _ in range(samples):
        drawn: Counter = Counter(min(bisect.bisect(cum, rng.random()), len(p) - 1) for _ in range(runs))
        worse += sum(c * math.log(p[j]) for j, c in drawn.items()) <= ll
    return {"ll": ll, "p_rec": sum(full[:len(counts)]) / seeds, "unseen": sum(full[len(counts):]) / seeds,
            "e_distinct": sum(1 - (1 - x) ** runs for x in p), "p_boot": worse / samples,
            "never": sum(1 for x in full[:len(counts)] if x == 0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case names (default: every case with several recorded outcomes)")
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--json", help="also write the distributions here")
    args = ap.parse_args(argv)
    _group_text = COMPARE._group_text  # the corpus's own text of a PodGroup

    rng = random.Random(1)
    rows: dict[str, Any] = {}
    tot_ll = exp_pass = log_all = 0.0
    print(f"{'case':16} {'rec':>3} {'sgl':>3} {'ll':>8} {'P(rec)':>6} {'unseen':>6} {'E[dist]':>7} {'p_boot':>6} {'#out':>4}")
    for path in case_files("batch/cases"):
        case = load_json(path)
        counts = case["expect"].get("counts") or []
        if (args.cases and case_name(path) not in args.cases) or (not args.cases and len(counts) < 2):
            continue
        full = distribution(case, args.seeds, _group_text)
        f = fit(counts, full, args.seeds, rng)
        rows[case_name(path)] = {"counts": counts, "distribution": full, "seeds": args.seeds, **f}
        tot_ll += f["ll"]
        exp_pass += f["p_rec"]
        log_all += math.log(f["p_rec"]) if f["p_rec"] > 0 else float("-inf")
        never = f" ({f['never']} recorded never drawn)" if f["never"] else ""
        print(f"{case_name(path):16} {len(counts):3} {sum(1 for c in counts if c == 1):3} {f['ll']:8.2f} {f['p_rec']:6.3f} "
              f"{f['unseen']:6.3f} {f['e_distinct']:7.2f} {f['p_boot']:6.3f} {len(full):4}{never}", flush=True)
    print(f"cases={len(rows)} sum_ll={tot_ll:.2f} expected_passing={exp_pass:.2f} "
          f"p_all_pass={math.exp(log_all):.2e}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
