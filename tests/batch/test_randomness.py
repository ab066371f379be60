"""A kube-batch session draws every random choice from the RandomSource it is handed
(framework/randomness.py): each Go map's range start and key hashes (batch/util/gomap.py) and
SelectBestNode's rand.Intn. Nothing is drawn through module state, so sessions run side by side
in threads each give their own seed's result."""
from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.batch.framework.session import Session
from kubectl_preempt.framework.randomness import RandomSource
from tests.builders import make_node, make_pod, make_pod_group, make_queue

BATCH = Path(__file__).resolve().parents[2] / "kubectl_preempt" / "batch"
ROUNDS = 6  # sessions per thread


def _cluster(nodes: int, groups: int, tasks: int) -> list[dict[str, Any]]:
    """`nodes` equal nodes and `groups` gangs of `tasks` one-cpu tasks in two queues: every node
    ties, so where each task lands is the session's draw (kube-batch's default configuration:
    allocate, backfill)."""
    objs: list[dict[str, Any]] = [make_node(f"n{i:02d}").alloc(cpu="4", memory="8Gi", pods="110").obj()
                                  for i in range(nodes)]
    objs += [make_queue("q0"), make_queue("q1")]
    for g in range(groups):
        objs.append(make_pod_group(f"g{g}", 1, f"q{g % 2}"))
        objs += [make_pod(f"g{g}-{t}").group(f"g{g}").req(cpu="1", memory="1Gi").obj() for t in range(tasks)]
    return objs


SIZES = [
    pytest.param(3, 2, 3, id="small maps only: each range a rotation of its slots"),
    pytest.param(12, 3, 10, id="maps of more than 8 entries: tables laid out by each key's random hash"),
]


@pytest.mark.parametrize("nodes,groups,tasks", SIZES)
def test_two_sessions_in_parallel_threads_each_give_their_own_seeds_result(nodes: int, groups: int,
                                                                            tasks: int) -> None:
    objects = _cluster(nodes, groups, tasks)
    seeds = (1, 2)
    alone = {s: kubectl_preempt.batch_session(objects, seed=s) for s in seeds}
    assert alone[1]["binds"] != alone[2]["binds"]  # the two seeds draw apart: a mix-up would show
    got: dict[int, list[dict[str, Any]]] = {s: [] for s in seeds}
    start = threading.Barrier(len(seeds))
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            start.wait()
            for _ in range(ROUNDS):
                got[seed].append(kubectl_preempt.batch_session(objects, seed=seed))
        except BaseException as e:  # noqa: BLE001 - reported by the test thread below
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads take turns every few bytecodes: the sessions interleave
    try:
        threads = [threading.Thread(target=work, args=(s,)) for s in seeds]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    for s in seeds:
        assert len(got[s]) == ROUNDS
        assert all(r == alone[s] for r in got[s]), f"seed {s}: a session in a thread gave another result"


def test_a_session_without_a_generator_is_refused() -> None:
    # kube-batch has no fixed mode: every session ranges Go maps from a random start
    with pytest.raises(ValueError, match="needs a generator"):
        Session(None, [], RandomSource(0))  # type: ignore[arg-type]


def _module_draws(path: Path) -> list[str]:
    """Calls in `path` that draw from (or make) a generator of the random module itself:
    `random.random()`, `random.choice(...)`, `random.Random(...)`, ... (a type annotation
    `random.Random` is no call)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "random":
            out.append(f"{path.relative_to(BATCH.parent)}:{node.lineno} random.{node.func.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            out.append(f"{path.relative_to(BATCH.parent)}:{node.lineno} from random import ...")
    return out


def test_no_module_of_kube_batchs_port_draws_from_a_generator_it_was_not_handed() -> None:
    draws = [d for path in sorted(BATCH.rglob("*.py")) for d in _module_draws(path)]
    assert not draws, draws
