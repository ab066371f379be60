"""PersistentVolumeClaims in a v1.36 pod-group cycle and in a replay: VolumeBinding's Reserve
assumes the volume FindPodVolumes matched to a member's unbound WaitForFirstConsumer claim
(binder.go AssumePodVolumes: the PV bound to the claim in the binder's assume cache), so the next
members cannot take it; the cycle's unreserveAndForget reverts it (RevertAssumedPodVolumes); and
a replayed binding makes it true (BindPodVolumes, then the PV controller binds the two)."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.versions import V1_36_2, apply_feature_gates
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.replay.api import replay
from kubectl_preempt.scheduler.schedule_one_podgroup import BIND, FAILURE
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_gang, make_node, make_pod, make_pv, make_pvc, make_storage_class
from tests.replay.helpers import ev, trace

LOCAL = make_storage_class("local")  # no provisioner, WaitForFirstConsumer


def members(claims: list[str]) -> list[dict[str, Any]]:
    return [make_gang("db", len(claims), namespace="default", priority=100)] + [
        make_pod(f"db-{i}").priority(100).req(cpu="1", memory="1Gi").in_pod_group("db").pvc(c).obj()
        for i, c in enumerate(claims)]


def scheduler(objs: list[dict[str, Any]]) -> Scheduler:
    v = apply_feature_gates(V1_36_2, {"GenericWorkload": True, "GangScheduling": True})
    return Scheduler(Cluster.from_objects(objs), default_config(v))


def cycle(s: Scheduler) -> Any:
    pods = sorted((p for p in s.cluster.pods.values() if not p.node_name), key=lambda p: p.name)
    return s.schedule_pod_group("default/db", pods)


def test_a_member_does_not_get_the_volume_an_earlier_member_assumed() -> None:
    # one local volume on node-a: db-0 takes it, db-1's claim finds none (without Reserve both
    # members matched pv-a and the gang was placed)
    objs = [make_node("node-a").obj(), make_node("node-b").obj(), LOCAL,
            make_pv("pv-a", storage_class="local", hostname="node-a"),
            make_pvc("d0", storage_class="local"), make_pvc("d1", storage_class="local")] + members(["d0", "d1"])
    s = scheduler(objs)
    r = cycle(s)
    assert [m.action for m in r.members] == [FAILURE, FAILURE]
    assert [m.suggested_host for m in r.members] == ["node-a", ""]
    assert "didn't find available persistent volumes to bind" in r.members[1].message
    assert not s.volume_assumptions  # reverted with the cycle


def test_members_each_get_a_volume_of_their_own() -> None:
    objs = [make_node("node-a").obj(), make_node("node-b").obj(), LOCAL,
            make_pv("pv-a", storage_class="local", hostname="node-a"),
            make_pv("pv-b", storage_class="local", hostname="node-b"),
            make_pvc("d0", storage_class="local"), make_pvc("d1", storage_class="local")] + members(["d0", "d1"])
    s = scheduler(objs)
    r = cycle(s)
    assert [m.action for m in r.members] == [BIND, BIND]
    assert sorted(m.suggested_host for m in r.members) == ["node-a", "node-b"]
    assert not s.volume_assumptions


def test_a_replayed_binding_binds_the_volume_to_the_claim() -> None:
    # p1 takes pv-a (BindPodVolumes, the PV controller): pv-a Bound to d1, d1 bound to pv-a; p2's
    # claim then finds no volume on the only node, where without the binding it took pv-a too
    pv = make_pv("pv-a", storage_class="local", hostname="node-a")
    tr = trace(ev(0, "ADDED", make_node("node-a").alloc(cpu="8", memory="8Gi").obj()), ev(0, "ADDED", LOCAL),
               ev(0, "ADDED", pv), ev(0, "ADDED", make_pvc("d1", storage_class="local")),
               ev(0, "ADDED", make_pvc("d2", storage_class="local")),
               ev(1, "ADDED", make_pod("p1").req(cpu="1").pvc("d1").obj()),
               ev(2, "ADDED", make_pod("p2").req(cpu="1").pvc("d2").obj()), end=30)
    report = replay(tr, kubernetes_version="v1.34")
    assert [p["pod"] for p in report["summary"]["neverScheduled"]] == ["default/p2"]
    assert "didn't find available persistent volumes to bind" in report["summary"]["neverScheduled"][0]["lastMessage"]
