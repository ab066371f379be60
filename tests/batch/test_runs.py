"""`session --runs N` (batch/runs.py): N sessions, seeds seed..seed+N-1, summed up as a distribution."""
from __future__ import annotations

import pytest

import kubectl_preempt
from kubectl_preempt.batch.runs import distribution

from .test_gomap import _backfill_case


def _result(evicts: list[tuple[str, str, str]], binds: dict[str, str]) -> dict:
    return {"binds": binds, "evicts": sorted(t for t, _, _ in evicts), "pipelined": {}, "podConditions": {},
            "podGroups": {}, "evictions": [{"task": t, "job": j, "queue": q} for t, j, q in evicts]}


def test_each_distinct_outcome_comes_with_its_share_most_frequent_first() -> None:
    a = _result([("ns/a", "ns/j1", "q1")], {"ns/p": "n1"})
    b = _result([], {"ns/p": "n2"})
    dist = distribution([b, a, a], seed=10)
    assert dist["runs"] == 3 and dist["seeds"] == [10, 12]
    assert [(o["runs"], o["share"], o["firstSeed"]) for o in dist["outcomes"]] == [(2, 0.6667, 11), (1, 0.3333, 10)]
    assert dist["outcomes"][0]["evicts"] == ["ns/a"] and dist["outcomes"][1]["binds"] == {"ns/p": "n2"}
    # per job and per queue: a run that evicted none of the job counts 0 (nearest-rank over 0, 1, 1)
    assert dist["evictions"]["jobs"]["ns/j1"] == {"p5": 0, "p50": 1, "p95": 1, "min": 0, "max": 1}
    assert dist["evictions"]["queues"]["q1"]["p50"] == 1
    assert dist["evictions"]["total"]["max"] == 1


def test_the_same_outcome_with_podgroups_as_text_or_structured_is_one_outcome() -> None:
    structured = {"phase": "Running", "running": 1, "conditions": [
        {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources", "message": "m"}]}
    r1 = {**_result([], {}), "podGroups": {"ns/g": structured}}
    r2 = {**_result([], {}), "podGroups": {"ns/g": "phase=Running running=1; Unschedulable=True NotEnoughResources: m"}}
    assert len(distribution([r1, r2])["outcomes"]) == 1


def test_runs_are_the_sessions_of_consecutive_seeds() -> None:
    objects, conf = _backfill_case()
    dist = kubectl_preempt.batch_session_runs(objects, conf, runs=30, seed=5)
    nodes = [kubectl_preempt.batch_session(objects, conf, seed=s)["binds"]["default/p"] for s in range(5, 35)]
    assert {o["binds"]["default/p"]: o["runs"] for o in dist["outcomes"]} == {n: nodes.count(n) for n in set(nodes)}
    assert dist["evictions"] == {"total": {"p5": 0, "p50": 0, "p95": 0, "min": 0, "max": 0}, "jobs": {}, "queues": {}}


def test_no_runs_is_refused() -> None:
    with pytest.raises(ValueError):
        distribution([])


# --- `session --runs N` on the command line, in every output format ---------------------------

RUNS = ["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf", "examples/kube-batch.conf",
        "--runs", "5"]


def _runs_cli(*args: str):  # noqa: ANN202 - tests.conftest.Run
    from tests.conftest import REPO, run_cli

    run = run_cli([*RUNS, *args], cwd=REPO)
    assert run.code == 0 and "Traceback" not in run.err, run.err
    return run


def test_session_runs_print_their_outcomes_in_every_output_format() -> None:
    import orjson
    import yaml

    doc = orjson.loads(_runs_cli("-o", "json").out)
    assert doc["runs"] == 5 and doc["outcomes"]
    assert yaml.safe_load(_runs_cli("-o", "yaml").out) == doc
    assert _runs_cli("-o", "jsonpath={.runs}").out == "5"
    evicted = list(dict.fromkeys(t for o in doc["outcomes"] for t in o["evicts"]))
    # -o name: each pod evicted in some run, once, as kubectl names a pod
    assert _runs_cli("-o", "name").out.split() == [f"pod/{t.split('/', 1)[1]}" for t in evicted]
    for fmt in ("table", "wide"):
        out = _runs_cli("-o", fmt).out
        assert out.startswith("Runs       5 sessions") and all(t in out for t in evicted)
    # --no-headers: the outcomes' rows, one line each
    lines = _runs_cli("--no-headers").out.splitlines()
    assert len(lines) == len(doc["outcomes"]) and not any("SHARE" in line for line in lines)
