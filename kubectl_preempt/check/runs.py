"""`check --runs N`: the baseline and the proposal replayed over the same N seeds, paired.

Run k of the baseline and run k of the proposal draw the scheduler's random choices from the same
seed (replay/runs.py), so a difference between them comes from the change, not from the draw. Each
rule of the policy is counted per pair (the pods it flags) and decided on the p95 over the pairs
(nearest-rank): `max-new-victims N` fails when the p95 of the new victims per pair is above N,
every other rule when its p95 is above 0, i.e. when it flags something in more than 5% of the
pairs. A violation lists each pod flagged in any pair with the fraction of pairs flagging it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import orjson

from ..replay.distribution import distribution, stat
from ..replay.runs import RunProgress, RunSpec, fan_out, simulate_once
from .diff import NEWLY_PREEMPTED, OutcomeRecorder, diff_outcomes, replay_summary
from .policy import (MAX_NEW_VICTIMS, NEW_VICTIMS, PROTECT_NAMESPACE, UNSCHEDULABLE, Policy, RuleResult,
                     evaluate_trace)


@dataclass
class PairSpec:
    baseline: RunSpec
    proposed: RunSpec


def _pair_task(spec: PairSpec, run: int) -> bytes:
    """Run `run` of the baseline and of the proposal, with the same seed, and their per-pod diff."""
    base_rec, prop_rec = OutcomeRecorder(), OutcomeRecorder()
    base_report, base_facts = simulate_once(spec.baseline, run, listener=base_rec)
    prop_report, prop_facts = simulate_once(spec.proposed, run, listener=prop_rec)
    return orjson.dumps({"entries": diff_outcomes(base_rec.pods, prop_rec.pods),
                         "baseline": replay_summary(base_report), "proposed": replay_summary(prop_report),
                         "baselineFacts": base_facts, "proposedFacts": prop_facts})


def paired_runs(spec: PairSpec, runs: int, *, jobs: int | None = None, ray_address: str | None = None,
                progress: RunProgress | None = None) -> list[dict[str, Any]]:
    """Each pair's {"entries", "baseline", "proposed", "baselineFacts", "proposedFacts"}, run 1 first."""
    return [orjson.loads(b) for b in fan_out(_pair_task, spec, runs, jobs=jobs, ray_address=ray_address,
                                             progress=progress)]


def _share(n: int, runs: int) -> float:
    return round(n / runs, 4)


def evaluate_runs(policy: Policy, trace: str, pairs: Sequence[Mapping[str, Any]]) -> list[RuleResult]:
    """The policy's rules over paired runs: per rule, what it flags in each pair, decided on p95."""
    runs = len(pairs)
    per_run = [evaluate_trace(policy, trace, p["entries"]) for p in pairs]
    out: list[RuleResult] = []
    for i, first in enumerate(per_run[0]):
        results = [rules[i] for rules in per_run]
        r = RuleResult(first.rule, trace)
        if first.rule.startswith(MAX_NEW_VICTIMS):
            counts = [sum(1 for e in p["entries"] if NEWLY_PREEMPTED in e["changes"]) for p in pairs]
            limit = policy.max_new_victims or 0
            st = stat(counts)
            r.summary = (f"new victims per paired run p5 {st['p5']}, p50 {st['p50']}, p95 {st['p95']}, "
                         f"at most {limit} allowed (p95 of {runs} runs)")
            if st["p95"] > limit:
                pods = _pods_flagged([[e for e in p["entries"] if NEWLY_PREEMPTED in e["changes"]] for p in pairs])
                r.violations.append({"pods": [p for p, _ in pods], "probability": dict(pods),
                                     "message": f"p95 of {st['p95']} new victims over {runs} paired runs, more than "
                                                f"the {limit} allowed: " + ", ".join(f"{p} ({100 * v:.0f}% of runs)"
                                                                                    for p, v in pods)})
        else:
            counts = [len(x.violations) for x in results]
            st = stat(counts)
            r.summary = f"{_flagged(first.rule)} per paired run: p5 {st['p5']}, p50 {st['p50']}, " \
                        f"p95 {st['p95']} ({runs} runs)"
            if st["p95"] > 0:
                seen: dict[str, tuple[dict[str, Any], int]] = {}
                for x in results:
                    for v in x.violations:
                        key = v.get("pod") or v.get("message", "")
                        prev = seen.get(key)
                        seen[key] = (prev[0] if prev else v, (prev[1] if prev else 0) + 1)
                for key, (v, n) in sorted(seen.items(), key=lambda kv: (-kv[1][1], kv[0])):
                    r.violations.append({**v, "probability": _share(n, runs),
                                         "message": f"{v['message']} ({100 * n / runs:.0f}% of runs)"})
        out.append(r)
    return out


def _flagged(rule: str) -> str:
    """What a rule counts, in words."""
    if rule.startswith(PROTECT_NAMESPACE):
        return "new victims in " + rule[len(PROTECT_NAMESPACE):].strip()
    return {NEW_VICTIMS: "new victims", UNSCHEDULABLE: "newly unschedulable pods"}.get(rule, "pods changed")


def _pods_flagged(per_run: Sequence[Sequence[Mapping[str, Any]]]) -> list[tuple[str, float]]:
    runs = len(per_run)
    seen: dict[str, int] = {}
    for entries in per_run:
        for e in entries:
            seen[e["pod"]] = seen.get(e["pod"], 0) + 1
    return [(p, _share(n, runs)) for p, n in sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))]


def pairs_report(pairs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a trace's entry in the check report adds with --runs: the distributions of both sides,
    the paired differences and each pod's probability of changing outcome."""
    runs = len(pairs)
    new_victims = [sum(1 for e in p["entries"] if NEWLY_PREEMPTED in e["changes"]) for p in pairs]
    diff_victims = [p["proposed"]["victims"] - p["baseline"]["victims"] for p in pairs]
    return {
        "runs": runs,
        "newVictims": stat(new_victims),
        "victimsDifference": stat(diff_victims),
        "changeProbability": dict(_pods_flagged([p["entries"] for p in pairs])),
        "baseline": distribution([p["baselineFacts"] for p in pairs]),
        "proposed": distribution([p["proposedFacts"] for p in pairs]),
    }
