"""One random source per run (framework/randomness.py): the scheduler's three random choices
(selectHost, GetOffsetAndNumCandidates' offset, pickOneNodeForPreemption's Go-map order) come from
the run's RandomSource, made once per run; without a generator every choice is fixed; and the
same seeds give the same draws as before the source was one object (the digests below were taken
from the replay reports of the three-channel code, commit c294b0a; re-taken when the report's
asyncPreemption gained apiLatencyFrom, checked equal to the old ones without that key)."""
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
    # pinned when these traces (which name no release) were replayed as the default, v1.34.1: they
    # are replayed as v1.34 by flag now, and the fields saying where the release came from are
    # those of then; every other field is the report's own
    assert (report.pop("schedulerVersionFrom"), report["schedulerVersion"]) == ("flag", "v1.34.1")
    report["schedulerVersionSource"] = {"from": "default"}
    return hashlib.sha256(orjson.dumps(report, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


PINNED = {
    ('hosts', 0, 1): '98cac14d488c480e',
    ('hosts', 0, 2): '426e57e34f677526',
    ('hosts', 0, 5): '0bf5825351da9c2d',
    ('hosts', 3, 1): 'b1efa2198601c9e3',
    ('hosts', 3, 2): '372eb719dd936853',
    ('hosts', 3, 5): '71debc5f8239f80b',
    ('tied', 0, 1): '6c3c523598ab87c2',
    ('tied', 0, 2): 'bcf1934de67e6b7c',
    ('tied', 0, 5): '31d574dd030e81fe',
    ('tied', 3, 1): '957518a6456f889a',
    ('tied', 3, 2): 'c207062ccb8f9c7f',
    ('tied', 3, 5): '6302077dcae2f8e1',
}


@pytest.mark.parametrize("name,seed,run", sorted(PINNED), ids=lambda v: str(v))
def test_the_same_seeds_give_the_same_draws_as_before(name: str, seed: int, run: int) -> None:
    tr = {"tied": tied_trace, "hosts": hosts_trace}[name]()
    # the pinned reports are v1.34.1's (these traces name no release)
    assert _digest(replay(tr, seed=seed, run=run, kubernetes_version="v1.34")) == PINNED[(name, seed, run)]


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
    assert _digest(replay(hosts_trace(), run=1, kubernetes_version="v1.34")) == \
        _digest(replay(hosts_trace(), kubernetes_version="v1.34"))
    placements = set()
    for k in range(2, 6):
        report = replay(hosts_trace(), run=k, kubernetes_version="v1.34")
        report.pop("run")
        placements.add(_digest(report))
    assert len(placements) > 1
