"""replay --runs N: each run draws the scheduler's random choices from its own seed, run 1 is the
single replay, and the report gives distributions that do not depend on the fan-out."""
from __future__ import annotations

import random

import orjson
import pytest

from kubectl_preempt.errors import UsageError
from kubectl_preempt.framework.randomness import RandomSource
from kubectl_preempt.preemption.decision import Candidate
from kubectl_preempt.preemption.evaluator import Evaluator, PreemptionRun
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.distribution import nearest_rank, stat
from kubectl_preempt.replay.runs import run_seed
from tests.builders import make_node, make_pod

from .helpers import ev, trace


def tied_trace(nodes: int = 6) -> dict:
    """`nodes` equal nodes, each full of one low-priority pod; a high-priority pod arrives and
    every node is a candidate, tied after the whole choice chain; then pods that fit anywhere."""
    evs = []
    for i in range(nodes):
        evs.append(ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="4", memory="8Gi").obj()))
        evs.append(ev(0, "ADDED", make_pod(f"low-{i}").priority(1).req(cpu="4").start_time("2026-03-01T09:00:00Z")
                      .set("spec.terminationGracePeriodSeconds", 0).on(f"n{i}").obj()))
    evs.append(ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="3").obj()))
    return trace(*evs, end=60)


def test_run_one_keeps_the_single_replay_choices_and_later_runs_have_seeds_of_their_own() -> None:
    assert run_seed(0, 1) is None
    seeds = {run_seed(0, k) for k in range(2, 30)}
    assert len(seeds) == 28
    assert run_seed(7, 2) != run_seed(0, 2)
    assert run_seed(7, 2) == run_seed(7, 2)


def test_nearest_rank_percentiles_are_values_a_run_had() -> None:
    values = list(range(1, 31))  # 30 runs
    assert nearest_rank(values, 5) == 2
    assert nearest_rank(values, 50) == 15
    assert nearest_rank(values, 95) == 29
    assert stat([3, 1, 2]) == {"p5": 1, "p50": 2, "p95": 3, "min": 1, "max": 3}


def test_the_node_among_candidates_tied_after_the_chain_comes_from_the_run_random_source() -> None:
    class Handle:
        random_source = RandomSource()

    ev_ = Evaluator("DefaultPreemption", Handle(), None)  # type: ignore[arg-type]
    victim = make_pod("v").priority(1).start_time("2026-03-01T09:00:00Z").obj()
    from kubectl_preempt.model.objects import Pod

    cands = {n: Candidate(n, [Pod(victim)], 0) for n in ("a", "b", "c", "d")}
    assert ev_.pick_one_node_for_preemption(dict(cands), PreemptionRun()) == "a"
    ev_.handle.random_source = RandomSource(rng=random.Random(1))
    picks = {ev_.pick_one_node_for_preemption(dict(cands), PreemptionRun()) for _ in range(50)}
    assert picks == {"a", "b", "c", "d"}


def test_runs_report_distributions_and_run_one_is_the_single_replay() -> None:
    tr = tied_trace()
    single = replay(tr)
    many = replay(tr, runs=12, jobs=1)
    dist = many["distribution"]
    assert dist["runs"] == 12
    assert dist["percentiles"] == "nearest-rank"
    # every run preempts once, one victim, but not the same one
    assert dist["preemptions"] == {"p5": 1, "p50": 1, "p95": 1, "min": 1, "max": 1}
    # the ownerless low-0, low-1, ... count as one workload (controllers.counted_workload_of)
    assert dist["victimsByWorkload"]["default/low"] == {"p5": 1, "p50": 1, "p95": 1, "min": 1, "max": 1}
    probs = dist["evictionProbability"]
    assert len(probs) > 1 and sum(probs.values()) == pytest.approx(1.0, abs=1e-3)
    assert set(dist) >= {"victims", "victimsByPriorityClass", "victimsByNamespace", "pendingProbability",
                         "timeToSchedule", "podsNeverScheduled", "medianRun"}
    # run 1 makes the single replay's choices: the first tied node
    assert single["preemptions"][0]["victims"] == ["default/low-0"]
    if many["run"]["run"] == 1:
        assert {k: v for k, v in many.items() if k not in ("run", "distribution")} == single


def test_runs_give_the_same_json_whatever_the_number_of_processes() -> None:
    tr = tied_trace()
    one = orjson.dumps(replay(tr, runs=6, jobs=1))
    two = orjson.dumps(replay(tr, runs=6, jobs=2))
    assert one == two


def test_runs_are_for_simulate_mode_and_need_a_positive_count() -> None:
    tr = tied_trace(2)
    with pytest.raises(UsageError):
        replay(tr, mode="follow", runs=3)
    with pytest.raises(UsageError):
        replay(tr, runs=0)
    with pytest.raises(UsageError):
        replay(tr, runs=2, on_decision=lambda case: None)


def test_one_run_of_a_runs_replay_replays_alone_with_that_run_s_choices() -> None:
    tr = tied_trace()
    alone = {k: replay(tr, run=k) for k in range(1, 6)}
    assert "run" not in alone[1], "run 1 is the single replay, as --runs 1 prints it"
    assert alone[1] == replay(tr)
    for k in range(2, 6):
        assert alone[k]["run"] == {"run": k, "seed": run_seed(0, k)}
    # each run draws its own node among the candidates tied after the chain
    assert len({a["preemptions"][0]["node"] for a in alone.values()}) > 1
    many = replay(tr, runs=5, jobs=1)
    k = many["run"]["run"]
    assert alone[k]["preemptions"] == many["preemptions"]
