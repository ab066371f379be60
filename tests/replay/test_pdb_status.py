"""Simulate mode: a PDB's status moves as the disruption controller and the API server move it
(issue 26): recomputed only when the PDB or a pod it covers changes (DisruptionController.trySync,
its pod and PDB handlers), the recorded status standing until then; an eviction through the
Eviction API written into the budget at once (EvictionREST.checkAndDecrement), and the pod it lists
in status.disruptedPods counted as disrupted until DeletionTimeout (2 minutes) passes."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod

from .helpers import at, ev, trace


def _pdb(allowed: int, disrupted: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
            "status": {"disruptionsAllowed": allowed, "disruptedPods": disrupted or {}}}


def _nodes() -> list[dict[str, Any]]:
    return [ev(0, "ADDED", make_node(n).alloc(cpu="2", memory="8Gi").label("pool", "a").obj()) for n in ("n1", "n2")]


def _high(name: str, t: float) -> dict[str, Any]:
    return ev(t, "ADDED", make_pod(name).priority(1000).req(cpu="2").node_selector(pool="a").obj())


def test_the_recorded_pdb_status_stands_until_the_pdb_or_a_covered_pod_changes() -> None:
    # `guarded` has no controller and its PDB says maxUnavailable 1: the disruption controller
    # would count it for nothing (getExpectedScale) and allow 0, but the recorded status allows 1
    # and nothing has changed since: the preemption at 1 sees 1, evicts `guarded` (the lowest
    # victim) without a violation. Once it is going, the PDB is recomputed: 0.
    tr = trace(
        *_nodes(),
        ev(0, "ADDED", _pdb(1, maxUnavailable=1)),
        ev(0, "ADDED", make_pod("guarded").label("app", "web").priority(10).req(cpu="2").running("n1").obj()),
        ev(0, "ADDED", make_pod("free").priority(20).req(cpu="2").running("n2").obj()),
        _high("high", 1),
        end=60)
    report = replay(tr)
    [p] = report["preemptions"]
    assert (p["node"], p["victims"]) == ("n1", ["default/guarded"])
    assert p["victimDetails"][0]["pdbViolation"] is False


def _evicted_trace(deleted: bool) -> dict[str, Any]:
    """web-0 (n3) and web-1 (n1) behind a PDB with minAvailable 1; at 5 a drain evicts web-0: the
    API server writes the PDB (disruptionsAllowed 0, web-0 in disruptedPods), then deletes web-0
    (`deleted`; otherwise its deletion never comes through)."""
    web0 = make_pod("web-0").label("app", "web").priority(10).req(cpu="2").running("n3")
    events = [
        *_nodes(),
        ev(0, "ADDED", make_node("n3").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", _pdb(1, minAvailable=1)),
        ev(0, "ADDED", web0.obj()),
        ev(0, "ADDED", make_pod("web-1").label("app", "web").priority(10).req(cpu="2").running("n1").obj()),
        ev(0, "ADDED", make_pod("other").priority(20).req(cpu="2").running("n2").obj()),
        ev(5, "MODIFIED", _pdb(0, {"web-0": at(5)}, minAvailable=1)),
    ]
    if deleted:
        events.append(ev(5.02, "MODIFIED", web0.set("metadata.deletionTimestamp", at(35)).set("status.conditions", [
            {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI"}]).obj()))
    return trace(*events, end=300)


def test_an_eviction_is_written_into_the_budget_at_once() -> None:
    # high arrives between the API server's write and the disruption controller's next sync:
    # the budget is spent, so evicting web-1 would violate it; `other` goes instead
    tr = _evicted_trace(deleted=True)
    tr["events"].insert(-1, _high("high", 5.01))
    [p] = replay(tr)["preemptions"]
    assert p["time"] == at(5.01)
    assert (p["node"], p["victims"]) == ("n2", ["default/other"])


def test_a_pod_listed_in_disrupted_pods_counts_as_disrupted_until_the_deletion_timeout() -> None:
    # web-0's deletion never comes: the controller counts it as disrupted for 2 minutes (web-1
    # protected, `other` evicted at 60), then drops the entry and allows 1 again (web-1 evicted
    # at 200 without a violation)
    tr = _evicted_trace(deleted=False)
    tr["events"][-1:-1] = [_high("high", 60), _high("late", 200)]
    first, second = replay(tr)["preemptions"]
    assert (first["node"], first["victims"], first["why"]["pdbViolations"]) == ("n2", ["default/other"], 0)
    assert (second["node"], second["victims"]) == ("n1", ["default/web-1"])
    assert second["victimDetails"][0]["pdbViolation"] is False


def _ready(builder: Any) -> dict[str, Any]:
    return builder.set("status.conditions", [{"type": "Ready", "status": "True"}]).obj()


def _readiness_trace(hi_at: float) -> dict[str, Any]:
    """web-1 (n1, started 5 s after `other` on n2) behind a PDB with minAvailable 1; web-2 comes at
    10 and only n3 holds it. `hi` at `hi_at` preempts web-1 or `other`: the PDB decides, and the
    start times break the tie for n1. `k`, bound by another scheduler at 1 and written Running 1 s
    later, is the trace's kubelet: a pod turns Running and Ready 1 s after its binding."""
    def web(name: str) -> Any:
        return make_pod(name).label("app", "web").priority(10)
    return trace(
        *_nodes(),
        ev(0, "ADDED", make_node("n3").alloc(cpu="1", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n4").alloc(cpu="1", memory="8Gi").obj()),
        ev(0, "ADDED", _pdb(0, minAvailable=1)),
        ev(0, "ADDED", _ready(web("web-1").req(cpu="2").running("n1").start_time("2026-03-01T09:00:05Z"))),
        ev(0, "ADDED", _ready(make_pod("other").priority(10).req(cpu="2").running("n2")
                              .start_time("2026-03-01T09:00:00Z"))),
        ev(0.5, "ADDED", make_pod("k").scheduler("other-scheduler").req(cpu="1").obj()),
        ev(1, "MODIFIED", make_pod("k").scheduler("other-scheduler").req(cpu="1").on("n4").obj()),
        ev(2, "MODIFIED", _ready(make_pod("k").scheduler("other-scheduler").req(cpu="1").running("n4"))),
        ev(10, "ADDED", web("web-2").req(cpu="500m").obj()),
        ev(hi_at, "ADDED", make_pod("hi").priority(1000).req(cpu="2").obj()),
        end=60)


def test_a_pod_counts_towards_its_pdb_once_it_is_ready() -> None:
    # disruption.go countHealthyPods counts a pod only when podutil.IsPodReady: web-2, bound at 10,
    # is Ready when its kubelet writes it Running, 1 s later. At 10.5 the PDB allows 0 (web-1
    # alone is healthy): evicting web-1 would violate it, so `hi` takes n2
    [p] = replay(_readiness_trace(10.5))["preemptions"]
    assert (p["node"], p["victims"]) == ("n2", ["default/other"])
    # at 12 web-2 is Ready, the PDB allows 1: no violation either way, and the latest start time
    # (pickOneNodeForPreemption's last step) takes n1
    [p] = replay(_readiness_trace(12))["preemptions"]
    assert (p["node"], p["victims"]) == ("n1", ["default/web-1"])
    assert p["victimDetails"][0]["pdbViolation"] is False


def test_a_pod_bound_before_the_trace_counts_as_healthy_once_its_kubelet_says_ready() -> None:
    """A trace that starts while pods are bound but not ready (record started during a rollout):
    the kubelet's recorded status write makes web-0 Ready, and the disruption controller counts it
    healthy (disruption.go countHealthyPods, podutil.IsPodReady): its PDB (minAvailable 0) allows 1,
    so evicting it violates nothing, and hi takes it, the later started of the two pods on n1. The
    replay did not bind web-0, so the recording's status is its kubelet's. Before, the write was
    not applied, web-0 never became Ready, the PDB allowed 0 and `other` went instead. (w, bound
    during the trace and Running a second later, gives the replay its kubelets' delay.)"""
    web0 = make_pod("web-0").label("app", "web").priority(10).req(cpu="2").created(at(-60))
    bound = web0.obj()
    bound["spec"]["nodeName"] = "n1"
    bound["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}
    ready = web0.running("n1").start_time(at(1)).set("status.conditions", [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]).obj()
    w = make_pod("w").priority(1).req(cpu="1")
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="1", memory="8Gi").obj()),
        ev(0, "ADDED", _pdb(0, minAvailable=0)),
        ev(0, "ADDED", bound),
        ev(0, "ADDED", make_pod("other").priority(10).req(cpu="2").running("n1").start_time(at(-50)).set(
            "status.conditions", [{"type": "Ready", "status": "True"}]).obj()),
        ev(1, "MODIFIED", ready),
        ev(2, "ADDED", w.obj()), ev(2.1, "MODIFIED", w.on("n2").obj()),
        ev(3.1, "MODIFIED", w.on("n2").set("status.phase", "Running").obj()),
        ev(10, "ADDED", make_pod("hi").priority(1000).req(cpu="2").obj()),
        end=60)
    [p] = replay(tr)["preemptions"]
    assert (p["node"], p["victims"]) == ("n1", ["default/web-0"])
    assert p["victimDetails"][0]["pdbViolation"] is False
