"""The ReplicaSet controller in simulate mode (issue 26): its creations come in slow-start
batches (manageReplicas -> slowStartBatch), it does not top up what the recording's own
controller is still adding, and a replacement it makes for a pod the cluster evicted too is the
pod the cluster made for it."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY as L
from tests.builders import make_node, make_pod

from .helpers import ev, trace
from .test_controllers import RS, owned, replica_set, rel, run


def _web(name: str, node: str | None = None, cpu: str = "2") -> dict[str, Any]:
    b = make_pod(name).priority(1).req(cpu=cpu).set("spec.terminationGracePeriodSeconds", 0)
    return owned(b.on(node) if node else b)


def test_a_replica_set_creates_its_replacements_in_slow_start_batches() -> None:
    # n1 goes with its three pods (the pod garbage collector); the ReplicaSet makes 3 pods: one,
    # then two more once the first creation returned
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="6", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="6", memory="8Gi").obj()),
        ev(0, "ADDED", replica_set(3)),
        *[ev(0, "ADDED", _web(f"{RS}-{s}", "n1")) for s in ("aaaaa", "bbbbb", "ccccc")],
        ev(10, "DELETED", make_node("n1").alloc(cpu="6", memory="8Gi").obj()),
        end=60)
    report, log = run(tr)
    made = sorted((rel(v)[0], k) for k, v in log.binds.items() if "replay" in k)
    assert made == [(10.1, f"default/{RS}-replay1"), (round(10.1 + L, 3), f"default/{RS}-replay2"),
                    (round(10.1 + L, 3), f"default/{RS}-replay3")]


def test_the_replay_does_not_top_up_what_the_recordings_controller_is_still_adding() -> None:
    # scaled to 4 at 1; the recording's controller (a loaded API server) adds its pods until 3.0:
    # the replay's sync at 2.0 leaves its deficit to them, and applies each as it comes
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="16", memory="8Gi").obj()),
        ev(0, "ADDED", replica_set(0)),
        ev(1, "MODIFIED", replica_set(4)),
        *[ev(t, "ADDED", _web(f"{RS}-{s}")) for t, s in ((1.1, "aaaaa"), (1.5, "bbbbb"), (2.2, "ccccc"), (3.0, "ddddd"))],
        end=60)
    report, log = run(tr)
    assert sorted(log.binds) == [f"default/{RS}-{s}" for s in ("aaaaa", "bbbbb", "ccccc", "ddddd")]
    assert rel(log.binds[f"default/{RS}-ddddd"]) == (3.0, "n1")


def test_a_replacement_for_a_pod_the_cluster_evicted_too_is_the_pod_the_cluster_made() -> None:
    # the replay evicts aaaaa at 5 (its delete call at 5 + 2L); the recorded scheduler evicted it at
    # 5.3 and the recording's ReplicaSet made `zzzzz` for it at 5.6: the replay's replacement, made
    # at 5 + 2L + 0.1, is that pod
    victim = _web(f"{RS}-aaaaa", "n1")
    evicted = {**victim, "metadata": {**victim["metadata"], "deletionTimestamp": "2026-03-01T10:00:05Z"},
               "status": {**victim["status"], "conditions": [
                   {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]}}
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").label("pool", "a").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n3").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", replica_set(2)),
        ev(0, "ADDED", victim),
        ev(0, "ADDED", _web(f"{RS}-bbbbb", "n2")),
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="2").node_selector(pool="a").obj()),
        ev(5.3, "MODIFIED", evicted),
        ev(5.32, "DELETED", evicted),
        ev(5.6, "ADDED", _web(f"{RS}-zzzzz")),
        end=60)
    report, log = run(tr)
    assert [p["victims"] for p in report["preemptions"]] == [[f"default/{RS}-aaaaa"]]
    assert rel(log.binds[f"default/{RS}-zzzzz"]) == (round(5 + 2 * L + 0.1, 3), "n3")
    assert not [k for k in log.binds if "replay" in k]
