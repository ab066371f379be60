"""`check --runs N`: the baseline and the proposal replayed over the same N seeds, paired.

Run k of the baseline and run k of the proposal draw the scheduler's random choices from the same
seed (replay/runs.py), so a difference between them comes from the change, not from the draw. Each
rule of the policy is counted per pair (the pods it flags) and decided on the p95 over the pairs
(nearest-rank): `max-new-victims N` fails when the p95 of the new victims per pair is above N,
every other rule when its p95 is above 0, i.e. when it flags something in more than 5% of the
pairs. A violation lists each pod flagged in any pair with the fraction of pairs flagging it.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Mapping

import orjson

from ..replay.distribution import Distribution, Histogram, Shares
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


class PairedRuns:
    """The pairs of `check --runs N` folded one at a time, run 1 first: per rule what it flags,
    both sides' distributions, each pod's share of the pairs changing it. What it keeps grows with
    the pods and the distinct values, not with N. Pair 1 (the single replays' choices) is kept
    whole: the report's changes and summaries are its."""

    def __init__(self, policy: Policy, trace: str) -> None:
        self.policy = policy
        self.trace = trace
        self.runs = 0
        self.first: Mapping[str, Any] | None = None
        self.rule_names: list[str] = []
        # per rule: the histogram of what it counts per pair, and each flagged key with the first
        # violation that flagged it and the number of pairs flagging it
        self.rule_counts: list[Histogram] = []
        self.rule_seen: list[dict[str, tuple[dict[str, Any], int]]] = []
        self.new_victims = Histogram()
        self.new_victim_pods = Shares()
        self.victims_difference = Histogram()
        self.changed = Shares()
        self.baseline = Distribution()
        self.proposed = Distribution()

    def add(self, pair: Mapping[str, Any]) -> None:
        self.runs += 1
        if self.first is None:
            self.first = pair
        entries = pair["entries"]
        results = evaluate_trace(self.policy, self.trace, entries)
        if not self.rule_names:
            self.rule_names = [r.rule for r in results]
            self.rule_counts = [Histogram() for _ in results]
            self.rule_seen = [{} for _ in results]
        new = [e for e in entries if NEWLY_PREEMPTED in e["changes"]]
        self.new_victims.add(len(new))
        self.new_victim_pods.add(e["pod"] for e in new)
        for i, r in enumerate(results):
            self.rule_counts[i].add(len(r.violations))
            seen = self.rule_seen[i]
            for v in r.violations:
                key = v.get("pod") or v.get("message", "")
                prev = seen.get(key)
                seen[key] = (prev[0] if prev else v, (prev[1] if prev else 0) + 1)
        self.victims_difference.add(pair["proposed"]["victims"] - pair["baseline"]["victims"])
        self.changed.add(e["pod"] for e in entries)
        self.baseline.add(pair["baselineFacts"])
        self.proposed.add(pair["proposedFacts"])

    def rules(self) -> list[RuleResult]:
        """The policy's rules over the pairs: per rule, what it flags in each pair, decided on p95."""
        runs = self.runs
        out: list[RuleResult] = []
        for i, rule in enumerate(self.rule_names):
            r = RuleResult(rule, self.trace)
            if rule.startswith(MAX_NEW_VICTIMS):
                limit = self.policy.max_new_victims or 0
                st = self.new_victims.stat()
                r.summary = (f"new victims per paired run p5 {st['p5']}, p50 {st['p50']}, p95 {st['p95']}, "
                             f"at most {limit} allowed (p95 of {runs} runs)")
                if st["p95"] > limit:
                    pods = list(self.new_victim_pods.probabilities(runs).items())
                    r.violations.append({"pods": [p for p, _ in pods], "probability": dict(pods),
                                         "message": f"p95 of {st['p95']} new victims over {runs} paired runs, more "
                                                    f"than the {limit} allowed: "
                                                    + ", ".join(f"{p} ({100 * v:.0f}% of runs)" for p, v in pods)})
            else:
                st = self.rule_counts[i].stat()
                r.summary = f"{_flagged(rule)} per paired run: p5 {st['p5']}, p50 {st['p50']}, " \
                            f"p95 {st['p95']} ({runs} runs)"
                if st["p95"] > 0:
                    for key, (v, n) in sorted(self.rule_seen[i].items(), key=lambda kv: (-kv[1][1], kv[0])):
                        r.violations.append({**v, "probability": _share(n, runs),
                                             "message": f"{v['message']} ({100 * n / runs:.0f}% of runs)"})
            out.append(r)
        return out

    def report(self) -> dict[str, Any]:
        """What a trace's entry in the check report adds with --runs: the distributions of both
        sides, the paired differences and each pod's probability of changing outcome."""
        return {
            "runs": self.runs,
            "newVictims": self.new_victims.stat(),
            "victimsDifference": self.victims_difference.stat(),
            "changeProbability": self.changed.probabilities(self.runs),
            "baseline": self.baseline.result(),
            "proposed": self.proposed.result(),
        }


def paired_runs(spec: PairSpec, runs: int, policy: Policy, trace: str, *, jobs: int | None = None,
                ray_address: str | None = None, progress: RunProgress | None = None) -> PairedRuns:
    """The `runs` pairs of `spec`, folded as they finish (see PairedRuns)."""
    folded = PairedRuns(policy, trace)
    with contextlib.closing(fan_out(_pair_task, spec, runs, jobs=jobs, ray_address=ray_address,
                                    progress=progress)) as results:
        for raw in results:
            folded.add(orjson.loads(raw))
    return folded


def _share(n: int, runs: int) -> float:
    return round(n / runs, 4)


def _flagged(rule: str) -> str:
    """What a rule counts, in words."""
    if rule.startswith(PROTECT_NAMESPACE):
        return "new victims in " + rule[len(PROTECT_NAMESPACE):].strip()
    return {NEW_VICTIMS: "new victims", UNSCHEDULABLE: "newly unschedulable pods"}.get(rule, "pods changed")
