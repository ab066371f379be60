"""The scheduler's equivalence cache changes nothing a user sees: generated traces replayed with
the cache on and off, and with its memo of failed cycles on and off, give byte-identical reports,
in simulate mode (run 1 and a run with its own random choices) and in follow mode."""
from __future__ import annotations

from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings, strategies as st

from kubectl_preempt.replay.api import run_spec
from kubectl_preempt.replay.follow import Follow
from kubectl_preempt.replay.report import follow_report, simulate_report
from kubectl_preempt.replay.runs import run_random_source
from kubectl_preempt.replay.simulate import Simulation
from kubectl_preempt.replay.whatif import PriorityPolicy

T0 = 1_772_359_200.0
CLASSES = [("low", 0), ("mid", 100), ("high", 1000)]
SIZES = [("250m", "256Mi"), ("1", "1Gi"), ("2", "2Gi"), ("3", "4Gi")]


def _ts(t: float) -> str:
    from kubectl_preempt.model.rfc3339 import format_seconds
    return format_seconds(t)


def _node(name: str, cpu: str, zone: str, *, tainted: bool = False, cordoned: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if tainted:
        spec["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    if cordoned:
        spec["unschedulable"] = True
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}",
                         "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
            "spec": spec, "status": {"capacity": dict(alloc), "allocatable": alloc,
                                     "images": [{"names": ["app:1"], "sizeBytes": 300_000_000}] if zone == "a" else []}}


def _pod(name: str, size: int, cls: int, t: float, *, node: str = "", tolerate: bool = False, spread: bool = False,
         selector: str = "", app: str = "web") -> dict[str, Any]:
    cpu, mem = SIZES[size]
    pc, prio = CLASSES[cls]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu, "memory": mem}}}],
                            "schedulerName": "default-scheduler", "priorityClassName": pc, "priority": prio,
                            "terminationGracePeriodSeconds": 0}
    if tolerate:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    if spread:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    if selector:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": selector}
    status: dict[str, Any] = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running", "startTime": _ts(t)}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": _ts(t),
                         "labels": {"app": app}},
            "spec": spec, "status": status}


@st.composite
def traces(draw: st.DrawFn) -> dict[str, Any]:
    events: list[dict[str, Any]] = []

    def ev(t: float, typ: str, obj: dict[str, Any]) -> None:
        events.append({"time": _ts(t), "type": typ, "object": obj})

    for name, value in CLASSES:
        ev(T0, "ADDED", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                         "value": value})
    n_nodes = draw(st.integers(2, 7))
    nodes = {}
    for i in range(n_nodes):
        nodes[f"n{i}"] = dict(cpu=draw(st.sampled_from(["2", "4"])), zone="ab"[i % 2], tainted=draw(st.booleans()))
        ev(T0, "ADDED", _node(f"n{i}", **nodes[f"n{i}"]))
    live: list[str] = []
    for k in range(draw(st.integers(0, 2 * n_nodes))):
        name = f"init-{k}"
        ev(T0, "ADDED", _pod(name, draw(st.integers(0, 2)), draw(st.integers(0, 1)), T0,
                             node=f"n{draw(st.integers(0, n_nodes - 1))}", tolerate=True, app=draw(st.sampled_from(["web", "db"]))))
        live.append(name)
    t = T0 + 1
    seq = 0
    for _ in range(draw(st.integers(1, 30))):
        t += draw(st.sampled_from([0.0, 0.01, 0.5, 3.0]))
        kind = draw(st.sampled_from(["pod", "pod", "pod", "pod", "delete", "cordon", "node"]))
        if kind == "pod":
            seq += 1
            # few shapes, so that the cache answers often
            ev(t, "ADDED", _pod(f"p{seq}", draw(st.integers(0, 3)), draw(st.integers(0, 2)), t,
                                tolerate=draw(st.booleans()), spread=draw(st.integers(0, 4)) == 0,
                                selector=draw(st.sampled_from(["", "", "", "a"])),
                                app=draw(st.sampled_from(["web", "db"]))))
        elif kind == "delete" and live:
            name = live.pop(draw(st.integers(0, len(live) - 1)))
            ev(t, "DELETED", _pod(name, 0, 0, T0, node="n0"))
        elif kind == "cordon":
            name = f"n{draw(st.integers(0, n_nodes - 1))}"
            ev(t, "MODIFIED", _node(name, **nodes[name], cordoned=draw(st.booleans())))
        elif kind == "node":
            name = f"n{len(nodes)}"
            nodes[name] = dict(cpu="4", zone="b", tainted=False)
            ev(t, "ADDED", _node(name, **nodes[name]))
    return {"header": {"startTime": _ts(T0)}, "events": events}


def _simulate(trace: dict[str, Any], run: int, cache: bool, failed_cycles: bool = True) -> bytes:
    spec = run_spec(trace)
    sim = Simulation(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes),
                     random_source=run_random_source(spec.seed, run))
    if not cache:
        sim.state.scheduler.equivalence = None
    elif not failed_cycles:
        sim.state.scheduler.equivalence.failed_cycles = None
    return orjson.dumps(simulate_report(sim.run(), what_if=spec.what_if), option=orjson.OPT_SORT_KEYS)


def _follow(trace: dict[str, Any], cache: bool, failed_cycles: bool = True) -> bytes:
    spec = run_spec(trace)
    f = Follow(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes))
    if not cache:
        f.state.scheduler.equivalence = None
    elif not failed_cycles:
        f.state.scheduler.equivalence.failed_cycles = None
    return orjson.dumps(follow_report(f.run(), what_if=spec.what_if), option=orjson.OPT_SORT_KEYS)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(traces())
def test_a_replay_reports_the_same_with_the_cache_on_and_off(trace: dict[str, Any]) -> None:
    for run in (1, 2):
        on = _simulate(trace, run, cache=True)
        assert on == _simulate(trace, run, cache=False)
        assert on == _simulate(trace, run, cache=True, failed_cycles=False)
    on = _follow(trace, cache=True)
    assert on == _follow(trace, cache=False)
    assert on == _follow(trace, cache=True, failed_cycles=False)


def test_the_cache_is_on_in_a_replay_and_answers_there() -> None:
    """Not a vacuous comparison: in a replay the cache is on, and identical pods are answered from it."""
    trace = {"header": {"startTime": _ts(T0)}, "events": [
        {"time": _ts(T0), "type": "ADDED", "object": _node(f"n{i}", "4", "a")} for i in range(5)] + [
        {"time": _ts(T0 + 1 + k), "type": "ADDED", "object": _pod(f"p{k}", 0, 0, T0 + 1 + k)} for k in range(6)]}
    spec = run_spec(trace)
    sim = Simulation(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes))
    cache = sim.state.scheduler.equivalence
    assert cache is not None
    computed = []
    from kubectl_preempt.scheduler.memo import equivalence

    # NodeAnswers.compute is the one place answers are made (the filter walk and the score core
    # read the others in place, by position)
    real_compute = equivalence.NodeAnswers.compute

    def counting_compute(self: equivalence.NodeAnswers, k: int, ni: Any, compute: Any) -> Any:
        computed.append(ni.node.name)
        return real_compute(self, k, ni, compute)

    equivalence.NodeAnswers.compute = counting_compute  # type: ignore[method-assign]
    try:
        report = simulate_report(sim.run(), what_if=spec.what_if)
    finally:
        equivalence.NodeAnswers.compute = real_compute  # type: ignore[method-assign]
    assert report["summary"]["scheduled"] == 6
    # six pods of one shape on five nodes: each cycle recomputes the one node the last bind changed
    # (filters and scores), not all five
    assert 0 < len(computed) < 6 * 5 * 2


def test_failed_cycles_are_given_back_only_on_an_unchanged_world() -> None:
    """Not a vacuous comparison either: pods that fit nowhere, tried one after another with nothing
    changed in between, are answered from the memo of failed cycles, and say what a cycle says."""
    events = [{"time": _ts(T0), "type": "ADDED", "object": _node(f"n{i}", "2", "a")} for i in range(3)]
    # six pods too big for any node, created at one instant: each fails on the same cluster
    events += [{"time": _ts(T0 + 1), "type": "ADDED", "object": _pod(f"big{k}", 3, 0, T0 + 1, app=f"a{k}")}
               for k in range(6)]
    trace = {"header": {"startTime": _ts(T0)}, "events": events}
    spec = run_spec(trace)
    sim = Simulation(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes))
    memo = sim.state.scheduler.equivalence.failed_cycles
    report = simulate_report(sim.run(), what_if=spec.what_if)
    assert report["summary"]["unschedulableAttempts"] == 6
    assert memo.hits >= 5  # the first failure runs, the others (labels differ, shape not) are recalled
    assert report == simulate_report(_without_memo(spec).run(), what_if=spec.what_if)


def _without_memo(spec: Any) -> Simulation:
    sim = Simulation(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes))
    sim.state.scheduler.equivalence.failed_cycles = None
    return sim
