"""Every memory off changes nothing a user sees: the conformance corpus (explain), the real-cluster
traces (replay, follow and simulate) and the benchmark traces at small scale (replay) give
byte-identical documents with every memory on (the default) and with every memory off
(model/memory.py MEMORY.off(): the scheduler's equivalence cache and failed cycles, the pods'
requests and resources, the compiled fast pass of the object checks, kube-batch's caches).
Upstream remembers none of these: each answer the memory gives must be the one computed afresh."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.model.memory import MEMORY
from kubectl_preempt.model.resources import _REQUESTS_CACHE
from kubectl_preempt.replay.api import replay

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CASES = [p for d in ("cases", "cases-real") for p in sorted((SHARED / "conformance" / d).glob("*.json"))]
TRACES = sorted((SHARED / "realcluster").glob("*.jsonl.gz"))


def _bytes(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _on_and_off(run: Callable[[], Any]) -> tuple[bytes, bytes]:
    on = _bytes(run())
    with MEMORY.off():
        off = _bytes(run())
    return on, off


def test_the_switch_empties_and_bypasses_the_process_wide_memories() -> None:
    from kubectl_preempt.model.resources import pod_requests
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    pod_requests(spec, {})
    assert _REQUESTS_CACHE
    with MEMORY.off():
        assert not _REQUESTS_CACHE
        pod_requests(spec, {})
        assert not _REQUESTS_CACHE  # nothing kept while off
    assert MEMORY.on


def test_a_scheduler_built_with_every_memory_off_drops_its_equivalence_cache() -> None:
    from kubectl_preempt.model.cluster import Cluster
    from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache
    from kubectl_preempt.scheduler.scheduler import Scheduler
    assert Scheduler(Cluster(), equivalence=EquivalenceCache()).equivalence is not None
    with MEMORY.off():
        assert Scheduler(Cluster(), equivalence=EquivalenceCache()).equivalence is None


@pytest.mark.skipif(not CASES, reason="../shared/conformance is absent")
def test_the_conformance_corpus_explains_alike_with_every_memory_off() -> None:
    differ = []
    for case_file in CASES:
        case = json.loads(case_file.read_text())
        on, off = _on_and_off(lambda: kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config")))
        if on != off:
            differ.append(case_file.name)
    assert differ == []


@pytest.mark.skipif(not TRACES, reason="../shared/realcluster is absent")
@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("mode", ["follow", "simulate"])
def test_the_real_cluster_traces_replay_alike_with_every_memory_off(trace: Path, mode: str) -> None:
    events = read_trace(str(trace))
    on, off = _on_and_off(lambda: replay(events, mode=mode))
    assert on == off


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_replay", ROOT / "benchmarks" / "bench_replay.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


@pytest.mark.parametrize("workload", ["preemption_async", "mixed_1000"])
def test_the_benchmark_traces_at_small_scale_replay_alike_with_every_memory_off(workload: str) -> None:
    bench = _bench()
    trace, _ = bench.preemption_async(0.02) if workload == "preemption_async" else bench.mixed(40, 2500)
    on, off = _on_and_off(lambda: replay(trace, mode="simulate"))
    assert on == off
