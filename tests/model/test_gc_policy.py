"""The process's one garbage-collector policy (model/bulk.py): applied once, by the API layer,
and leaving a library caller's collector as it found it."""
from __future__ import annotations

import gc
import pathlib
import re

import pytest

from kubectl_preempt import api
from kubectl_preempt.model.bulk import YOUNG_THRESHOLD, decision_work, long_work
from tests.builders import make_node, make_pod
from tests.replay.helpers import ev, trace

PACKAGE = pathlib.Path(api.__file__).parent


@pytest.fixture
def clean_collector():
    was_threshold, was_frozen = gc.get_threshold(), gc.get_freeze_count()
    gc.unfreeze()
    yield
    gc.set_threshold(*was_threshold)
    if was_frozen:
        gc.freeze()


def test_long_work_tunes_the_collector_and_restores_it(clean_collector) -> None:
    gc.set_threshold(700, 10, 10)
    with long_work():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert gc.get_freeze_count() > 0  # what existed at the start is out of the collector's walks
        with long_work():  # a nested request (check replays traces) changes nothing further
            assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_long_work_restores_the_collector_when_the_request_fails(clean_collector) -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError):
        with long_work():
            raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0
    with long_work():  # and the next request is the outermost again
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)


def test_a_replay_through_the_api_runs_under_the_policy(clean_collector) -> None:
    gc.set_threshold(700, 10, 10)
    seen: list[tuple[int, int, int]] = []

    class Watch:
        def __call__(self, decision: dict) -> None:
            seen.append(gc.get_threshold())

    t = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="1", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("low").priority(0).req(cpu="1").start_time("2026-03-01T09:00:00Z").on("n1").obj()),
        ev(1, "ADDED", make_pod("high").priority(100).req(cpu="1").obj()),
        end=30,
    )
    report = api.replay(t, on_decision=Watch())
    assert report["summary"]["preemptions"] == 1
    assert seen and all(th == (YOUNG_THRESHOLD, 10, 10) for th in seen)
    assert gc.get_threshold() == (700, 10, 10)


def test_only_model_bulk_and_the_api_layer_touch_the_collector() -> None:
    """One policy: no layer below the API tunes the collector on its own (they used to stack:
    a replay's engine, its simulation and the CLI each set thresholds or froze the heap)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "model/bulk.py":
            continue
        text = path.read_text()
        if re.search(r"\bgc\.(set_threshold|freeze|unfreeze|disable|enable)\(", text):
            offenders.append(rel)
        if rel != "api.py" and re.search(r"\b(long|decision)_work\(", text):
            offenders.append(rel)
    assert offenders == []


def test_an_explain_through_the_api_raises_the_young_threshold_and_leaves_the_frozen_heap_frozen(clean_collector) -> None:
    # explain's loader freezes the snapshot it reads (model/bulk.py bulk_allocation); the request
    # then runs with young collections every YOUNG_THRESHOLD allocations, and on the way out the
    # thresholds come back and what the loader froze stays frozen
    gc.set_threshold(700, 10, 10)
    cluster = api.Cluster.from_objects([
        make_node("n1").alloc(cpu="1", memory="8Gi").obj(),
        make_pod("low").priority(0).req(cpu="1").start_time("2026-03-01T09:00:00Z").on("n1").obj(),
        make_pod("high").priority(100).req(cpu="1").obj(),
    ])
    gc.freeze()
    frozen = gc.get_freeze_count()
    seen: list[tuple[int, int, int]] = []
    from kubectl_preempt.scheduler.scheduler import Scheduler
    real = Scheduler.schedule

    def watch(self, *args, **kwargs):
        seen.append(gc.get_threshold())
        return real(self, *args, **kwargs)

    Scheduler.schedule = watch  # type: ignore[method-assign]
    try:
        doc = api.explain(cluster, "default/high")
    finally:
        Scheduler.schedule = real  # type: ignore[method-assign]
    assert doc["outcome"] == "Preempted"
    assert seen and all(th == (YOUNG_THRESHOLD, 10, 10) for th in seen)
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() >= frozen


def test_decision_work_inside_long_work_changes_nothing(clean_collector) -> None:
    gc.set_threshold(700, 10, 10)
    with long_work():
        with decision_work():
            assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (700, 10, 10)
