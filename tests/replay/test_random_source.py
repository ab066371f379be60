"""One random source per run (framework/randomness.py): the scheduler's three random choices
(selectHost, GetOffsetAndNumCandidates' offset, pickOneNodeForPreemption's Go-map order) come from
the run's RandomSource, made once per run; without a generator every choice is fixed; and the
same seeds give the same draws as before the source was one object (the digests below were taken
from the replay reports of the three-channel code, commit c294b0a)."""
from __future__ import annotations

import hashlib
import random

import orjson
import pytest

from kubectl_preempt.framework.randomness import FIXED, RandomSource
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.runs import run_random_source, run_rng, run_seed
from tests.builders import make_node, make_pod

from .helpers import ev, trace
from .test_runs import tied_trace


def hosts_trace() -> dict:
    """Six equal empty nodes and eight pods that fit anywhere: every binding picks among nodes
    tied on score."""
    evs = [ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="4", memory="8Gi").obj()) for i in range(6)]
    evs += [ev(5 + i, "ADDED", make_pod(f"p{i}").req(cpu="1").obj()) for i in range(8)]
    return trace(*evs, end=60)


def _digest(report: dict) -> str:
    return hashlib.sha256(orjson.dumps(report, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


PINNED = {
    ('hosts', 0, 1): '306255d5a38a0d1b',
    ('hosts', 0, 2): 'c56541f9c4772d4c',
    ('hosts', 0, 5): '183edc20c847300b',
    ('hosts', 3, 1): 'b4346210edaa00d1',
    ('hosts', 3, 2): 'c5de8ba1fef1d7c2',
    ('hosts', 3, 5): '3866cea01005b14c',
    ('tied', 0, 1): '16b0dadfdf08b88c',
    ('tied', 0, 2): 'd87345e4815cf225',
    ('tied', 0, 5): 'd56c78b8f334814d',
    ('tied', 3, 1): 'a111026b86682d91',
    ('tied', 3, 2): '0b63b0ed7b09d255',
    ('tied', 3, 5): '7dd63d3a1dcc3577',
}


@pytest.mark.parametrize("name,seed,run", sorted(PINNED), ids=lambda v: str(v))
def test_the_same_seeds_give_the_same_draws_as_before(name: str, seed: int, run: int) -> None:
    tr = {"tied": tied_trace, "hosts": hosts_trace}[name]()
    assert _digest(replay(tr, seed=seed, run=run)) == PINNED[(name, seed, run)]


def test_without_a_generator_every_choice_is_fixed() -> None:
    src = RandomSource()
    assert not src.draws
    assert [src.select_host(["b", "a", "c"]) for _ in range(5)] == ["b"] * 5
    assert [src.pick_tied(["c", "a"]) for _ in range(5)] == ["c"] * 5
    assert src.candidate_offset(100) == 0
    assert FIXED.candidate_offset(7) == 0 and FIXED.select_host(["x", "y"]) == "x"


def test_a_seed_without_a_generator_fixes_the_offset_and_keeps_the_first_of_each_tie() -> None:
    src = RandomSource(5)
    # the seed's offset, the same at every cycle (explain --seed 5)
    assert {src.candidate_offset(1000) for _ in range(5)} == {random.Random(5).randrange(1000)}
    assert src.select_host(["b", "a"]) == "b" and src.pick_tied(["b", "a"]) == "b"


def test_a_single_replay_with_a_seed_draws_its_hosts_from_a_stream_of_that_seed() -> None:
    src = RandomSource.for_replay(5)
    ref = random.Random(5)
    nodes = [f"n{i}" for i in range(9)]
    assert [src.select_host(nodes) for _ in range(20)] == [ref.choice(nodes) for _ in range(20)]
    assert not src.draws and src.pick_tied(nodes) == "n0"
    assert RandomSource.for_replay(0).hosts is None


def test_a_run_with_a_generator_draws_every_choice_from_it_in_order() -> None:
    src = run_random_source(3, 4)
    seed = run_seed(3, 4)
    assert src.draws and seed is not None
    ref = random.Random(seed)
    nodes = [f"n{i}" for i in range(11)]
    got = []
    want = []
    for _ in range(10):
        got += [src.select_host(nodes), src.candidate_offset(50), src.pick_tied(nodes)]
        want += [ref.choice(nodes), ref.randrange(50), ref.choice(nodes)]
    assert got == want
    # run 1 has no generator: a single replay's choices
    assert not run_random_source(3, 1).draws and run_rng(3, 1) is None


def test_the_scheduler_hands_its_one_source_to_every_framework_and_plugin() -> None:
    from kubectl_preempt.framework.config import parse_config
    from kubectl_preempt.model.cluster import Cluster
    from kubectl_preempt.scheduler.scheduler import Scheduler

    src = RandomSource(9)
    cfg = parse_config({"profiles": [{"schedulerName": "a"}, {"schedulerName": "b"}]})
    sched = Scheduler(Cluster(), cfg, random_source=src)
    for name in ("a", "b"):
        fwk = sched.framework_for_profile(name)
        assert fwk is not None and fwk.random_source is src
        pl = fwk.plugins["DefaultPreemption"]
        assert pl.handle.random_source is src
        assert pl.get_offset_and_num_candidates(1000)[0] == random.Random(9).randrange(1000)
    assert Scheduler(Cluster()).random_source is FIXED


def test_a_tie_on_score_is_drawn_differently_by_different_runs() -> None:
    # run 1 is the single replay (every host the first tied); later runs draw their own hosts
    assert _digest(replay(hosts_trace(), run=1)) == _digest(replay(hosts_trace()))
    placements = set()
    for k in range(2, 6):
        report = replay(hosts_trace(), run=k)
        report.pop("run")
        placements.add(_digest(report))
    assert len(placements) > 1
