"""Every memory off changes nothing a user sees: the conformance corpus (explain), the real-cluster
traces of both rounds and the v1.36 ones with their gangs (replay, follow and simulate), the
benchmark traces at small scale (replay), the kube-batch corpus's sessions and `plan --max` give
byte-identical documents with every memory on (the default) and with every memory off
(model/memory.py MEMORY.off(): the scheduler's equivalence cache with its failed cycles and
preemption dry runs, the pods' requests and resources, quantities, times, the compiled fast pass of
the object checks, kube-batch's caches). Upstream remembers none of these: each answer the memory
gives must be the one computed afresh.

Each off run starts from emptied memories and must leave every one of them empty (a memory that
keeps an answer with the switch off is caught), and every module-level cache of the package must be
registered with the switch (a new one that forgets to is caught)."""
from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.model.memory import MEMORY
from kubectl_preempt.model.resources import _REQUESTS_CACHE
from kubectl_preempt.replay.api import replay
from tests.corpus import case_files, case_name, corpus_path, load_json

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "kubectl_preempt"
CASES = case_files("cases", "cases-real")
TRACES = sorted(corpus_path("realcluster").glob("*.jsonl.gz"))
TRACES_V2 = sorted(corpus_path("realcluster/v2").glob("*.jsonl.gz"))
# a real v1.36.2 scheduler's traces, gangs included: replayed as that release with the truth's gates
TRACES_V136 = sorted(corpus_path("realcluster/v136").glob("*.jsonl.gz"))
BATCH_CASES = case_files("batch/cases")
BATCH_SEEDS = range(3)


def _bytes(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _kept_while_off(before: set[str], run: Callable[[], Any]) -> tuple[Any, dict[str, int]]:
    """run() with every memory off, and what any memory holds after it: the process-wide ones,
    and the per-run ones it built (`before`: the per-run memories alive before it)."""
    with MEMORY.off():
        got = run()
        process_wide = set(MEMORY.names())
        kept = {name: n for name, n in MEMORY.sizes().items() if n and (name in process_wide or name not in before)}
    return got, kept


def _on_and_off(run: Callable[[], Any]) -> tuple[bytes, bytes]:
    on = _bytes(run())
    # the off run starts from nothing remembered, so an answer read from a memory despite the
    # switch would have to be one kept while it was off: caught below
    MEMORY.forget()
    gc.collect()
    off, kept = _kept_while_off(set(MEMORY.sizes()), run)
    assert kept == {}, f"memories kept answers with every memory off: {kept}"
    assert MEMORY.on
    return on, _bytes(off)


# --- the switch ----------------------------------------------------------------------------------

def test_the_switch_bypasses_the_process_wide_memories_and_leaves_them_as_they_were() -> None:
    from kubectl_preempt.model.resources import pod_requests
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    other = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}
    pod_requests(spec, {})
    kept = dict(_REQUESTS_CACHE)
    assert kept
    with MEMORY.off():
        assert not MEMORY.on
        pod_requests(spec, {})
        pod_requests(other, {})
        assert _REQUESTS_CACHE == kept  # nothing kept while off, nothing dropped either
    assert MEMORY.on
    assert _REQUESTS_CACHE == kept


def test_the_switch_is_restored_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError):
        with MEMORY.off():
            raise RuntimeError("boom")
    assert MEMORY.on


def test_a_remembered_function_is_called_afresh_with_every_memory_off() -> None:
    from kubectl_preempt.model.memory import Memory, remembered
    calls = []

    @remembered("tests.test_memo_off double", 4)
    def double(x: int) -> int:
        calls.append(x)
        return 2 * x
    try:
        assert double(2) == 4 and double(2) == 4
        assert calls == [2]
        with MEMORY.off():
            assert double(2) == 4
        assert calls == [2, 2]
        assert MEMORY.sizes()["tests.test_memo_off double"] == 1
    finally:
        MEMORY._stores.pop("tests.test_memo_off double")
    with pytest.raises(ValueError):
        m = Memory()
        m.register("x", {})
        m.register("x", {})


def test_a_remembered_function_tells_equal_values_of_other_types_apart() -> None:
    from kubectl_preempt.batch.plugins.nodeorder import _allocatable_values
    from kubectl_preempt.errors import InputError
    assert _allocatable_values(1, None) == (1000, 0)
    with pytest.raises(InputError):
        _allocatable_values(True, None)  # not 1: a boolean is no quantity


def test_a_quantity_is_not_taken_from_the_memory_for_an_equal_value_of_another_type() -> None:
    from kubectl_preempt.errors import InputError
    from kubectl_preempt.model.quantity import parse_quantity
    assert parse_quantity(1) == 1
    with pytest.raises(InputError):
        parse_quantity(True)


def test_a_scheduler_built_with_every_memory_off_drops_its_equivalence_cache() -> None:
    from kubectl_preempt.model.cluster import Cluster
    from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache
    from kubectl_preempt.scheduler.scheduler import Scheduler
    assert Scheduler(Cluster(), equivalence=EquivalenceCache()).equivalence is not None
    with MEMORY.off():
        assert Scheduler(Cluster(), equivalence=EquivalenceCache()).equivalence is None


def _preempting_case() -> dict[str, Any]:
    for case_file in CASES:
        case = load_json(case_file)
        if (case.get("expect") or {}).get("outcome") == "Preempted" and not case.get("config"):
            return case
    pytest.fail("no preempting case without a config in the corpus")


def test_a_scheduler_without_an_equivalence_cache_runs_its_cycles_with_every_memory_off() -> None:
    """`equivalence=None` is the switch seen from the scheduler: nothing is read from or kept in
    any memory during its cycle (the process-wide ones emptied first stay empty), and the switch
    is on again once the cycle returns."""
    from kubectl_preempt.framework.snapshot import Snapshot
    from kubectl_preempt.model.cluster import Cluster
    from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache
    from kubectl_preempt.scheduler.scheduler import Scheduler
    case = _preempting_case()
    cluster = Cluster.from_objects(case["objects"])
    pod = cluster.pod(case["pod"])
    plain = Scheduler(cluster, snapshot=Snapshot.build(cluster))
    MEMORY.forget()
    res = plain.schedule(pod)
    assert res.preemption is not None or res.post_filter_status is not None
    assert MEMORY.on
    assert {k: n for k, n in MEMORY.sizes().items() if n and k in MEMORY.names()} == {}
    # the same cycle with a cache: the memories fill (the switch was on all along)
    remembering = Scheduler(cluster, snapshot=Snapshot.build(cluster), equivalence=EquivalenceCache())
    remembering.schedule(pod)
    assert remembering.equivalence.remembered() > 0


# --- the corpus and the traces, with every memory on and off -------------------------------------

def test_the_conformance_corpus_explains_alike_with_every_memory_off() -> None:
    differ = []
    for case_file in CASES:
        case = load_json(case_file)
        on, off = _on_and_off(lambda: kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config")))
        if on != off:
            differ.append(case_file.name)
    assert differ == []


# both rounds of real-cluster traces (the second round's are a later control plane's)
@pytest.mark.parametrize("trace", TRACES + TRACES_V2, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("mode", ["follow", "simulate"])
def test_the_real_cluster_traces_replay_alike_with_every_memory_off(trace: Path, mode: str) -> None:
    events = read_trace(str(trace))
    on, off = _on_and_off(lambda: replay(events, mode=mode))
    assert on == off


def _truth_gates(trace: Path) -> dict[str, bool]:
    """The scheduler's --feature-gates the trace's truth names (schedulerFeatureGates)."""
    truth = load_json(trace.with_name(trace.name.replace(".jsonl.gz", ".truth.json")))
    pairs = [kv.split("=", 1) for kv in (truth.get("schedulerFeatureGates") or "").split(",") if kv]
    return {k: v == "true" for k, v in pairs}


# the PodGroup cycle, gang scheduling and workload-aware preemption run only under v1.36's gates
@pytest.mark.parametrize("trace", TRACES_V136, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("mode", ["follow", "simulate"])
def test_the_v1_36_traces_replay_alike_with_every_memory_off(trace: Path, mode: str) -> None:
    events = read_trace(str(trace))
    gates = _truth_gates(trace)
    on, off = _on_and_off(lambda: replay(events, mode=mode, kubernetes_version="v1.36", feature_gates=gates))
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


def test_the_kube_batch_corpus_sessions_come_out_alike_with_every_memory_off() -> None:
    differ = []
    for case_file in BATCH_CASES:
        case = load_json(case_file)
        for seed in BATCH_SEEDS:
            on, off = _on_and_off(lambda: kubectl_preempt.batch_session(case["objects"], case.get("schedulerConf"),
                                                                        seed=seed))
            if on != off:
                differ.append(f"{case_name(case_file)} seed {seed}")
    assert differ == []


def test_plan_max_comes_out_alike_with_every_memory_off() -> None:
    """plan --max's copies preempt one after another: its dry runs are remembered (DryRunMemo)."""
    from tests.plan.synthetic import copy_pod, snapshot
    objects = snapshot(40, low_per_node=3, tainted_every=7)
    on, off = _on_and_off(lambda: kubectl_preempt.api.plan_max(objects, ("synthetic", "", copy_pod()), max_count=70))
    assert on == off
    report = orjson.loads(on)
    assert report["preemptions"] > 0  # the dry runs' memory was exercised


# --- every memory is registered ------------------------------------------------------------------

def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


# module-level mutable containers that are not memories: (module, name) -> why
NOT_MEMORIES = {
    ("kubectl_preempt.framework.featuregates", "_PARSED"): "an interning of the constant gate tables",
    ("kubectl_preempt.render.width", "_cut"): "the log of the columns cut in this output, for its note",
    ("kubectl_preempt.render.width", "_left_out"): "the log of the columns left out of this output, for its note",
    ("kubectl_preempt.render.width", "_table_lines"): "this output's table lines, which its note leaves unwrapped",
    ("kubectl_preempt.scheduler.memo.equivalence", "_COUNT"): "the numbers 0, 1, 2, ... (a walk's positions are cut from them), the same whatever was asked",
}
_EMPTY_CONTAINERS = ("dict", "set", "list", "OrderedDict", "defaultdict")


def _module_level_stores(tree: ast.Module) -> list[str]:
    """Names bound at module level to an empty container (`{}`, `set()`, `[]`, `dict()`, ...) that
    the module adds to somewhere: a memory, a registry or a log."""
    names = []
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        empty = (isinstance(value, (ast.Dict, ast.List, ast.Set)) and not getattr(value, "keys", None)
                 and not getattr(value, "elts", None)) or \
                (isinstance(value, ast.Call) and not value.args and not value.keywords
                 and getattr(value.func, "id", getattr(value.func, "attr", None)) in _EMPTY_CONTAINERS)
        if empty:
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    added = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
            added.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.attr in ("add", "append", "extend", "setdefault", "update", "insert"):
            added.add(node.func.value.id)
    return [n for n in names if n in added]


def test_every_module_level_cache_of_the_package_is_registered_with_the_switch() -> None:
    unregistered = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "memory.py" and path.parent.name == "model":
            continue
        tree = ast.parse(path.read_text())
        module = _module_name(path)
        for name in _module_level_stores(tree):
            if (module, name) in NOT_MEMORIES:
                continue
            mod = importlib.import_module(module)
            store = getattr(mod, name)
            if not any(s is store for s in _registered_stores()):
                unregistered.append(f"{module}.{name}")
    assert unregistered == []


def _registered_stores() -> list[Any]:
    """The objects behind the registered memories (a dict's clear is bound to it)."""
    return [clear.__self__ for clear, _ in MEMORY._stores.values() if hasattr(clear, "__self__")]


def test_no_lru_cache_escapes_the_switch() -> None:
    """functools.lru_cache / functools.cache outside model/memory.py would keep answers the switch
    cannot turn off: model/memory.py `remembered` is the package's lru_cache."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "memory.py" and path.parent.name == "model":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache") \
                    and isinstance(node.value, ast.Name) and node.value.id == "functools":
                found.append(str(path.relative_to(ROOT)))
            elif isinstance(node, ast.ImportFrom) and node.module == "functools" \
                    and any(a.name in ("lru_cache", "cache") for a in node.names):
                found.append(str(path.relative_to(ROOT)))
    assert found == []


def test_every_registered_memory_is_named_and_counted() -> None:
    sizes = MEMORY.sizes()
    for name in ("model.resources requests", "model.resources resources", "model.resources resources of other releases",
                 "model.quantity values", "model.rfc3339 times", "model.schema fast passes",
                 "model.schema good pod specs", "model.podshape nodeName texts", "model.schema pod fast passes",
                 "batch.api resource lists", "batch.framework creation times", "batch.scheduler configurations",
                 "batch.plugins.nodeorder allocatable values", "plugins.dynamicresources CEL expressions"):
        assert isinstance(sizes[name], int), name
