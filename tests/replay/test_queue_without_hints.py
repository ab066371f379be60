"""v1.30 and v1.31 ship SchedulerQueueingHints off, and their replay requeues pods as those
releases do: every registered event's hint is the default one (scheduler.go buildQueueingHintMap),
the plugins register the events of the time before hints (EventsToRegister without
EnableSchedulingQueueHint), a pending pod's own update requeues it when anything but its status
changed (scheduling_queue.go Update, isPodUpdated), a node event moves only the pods the node
would admit (eventhandlers.go preCheckForNode, AdmissionCheck), and an assigned pod's arrival
moves only the pods it may help without a hint (AssignedPodAdded,
getUnschedulablePodsWithMatchingAffinityTerm in v1.30, ...WithCrossTopologyTerm in v1.31)."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework import events as ev
from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.versions import V1_30_1, V1_31_1, V1_32_2, V1_34_1
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.plugins import names
from kubectl_preempt.replay.simulate import Simulation
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.scheduler.backend.queue import ACTIVE, UNSCHEDULABLE
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod

from .helpers import ev as event, trace


def _node(name: str, cpu: str = "4") -> Any:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods="110")


def _hog(name: str = "hog", node: str = "n1", cpu: str = "3") -> Any:
    # another scheduler's pod: the replayed scheduler never moves it
    return make_pod(name).req(cpu=cpu).scheduler("other-scheduler").on(node)


def _waiting(version: Any, *extra: dict) -> Simulation:
    """A replay of `version` where pod p (2 cpu) found no room on n1 and waits in the pool."""
    objs = [event(0, "ADDED", _node("n1").obj()), event(0, "ADDED", _hog().obj()),
            event(1, "ADDED", make_pod("p").req(cpu="2").obj()), *extra]
    sim = Simulation(normalize(trace(*objs, end=20)), parse_config(None, version=version), workloads=False).run()
    assert sim.queue.where(sim.state.cluster.pods["default/p"]) == UNSCHEDULABLE
    return sim


def _apply(sim: Simulation, obj: dict, typ: str = "ADDED") -> None:
    objs = [event(0, "ADDED", _node("n1").obj()), event(19, typ, obj)]
    sim.handler.apply(normalize(trace(*objs, end=20)).events[-2])


def _where(sim: Simulation, key: str = "default/p") -> str:
    return sim.queue.where(sim.state.cluster.pods[key])


# --- buildQueueingHintMap and the plugins' events ---------------------------------------------------

@pytest.mark.parametrize("version, hinted", [(V1_30_1, False), (V1_31_1, False), (V1_32_2, True), (V1_34_1, True)],
                         ids=lambda v: getattr(v, "name", str(v)))
def test_without_queueing_hints_every_registration_takes_the_default_hint(version: Any, hinted: bool) -> None:
    hints = Scheduler(Cluster(), parse_config(None, version=version)).queueing_hints()["default-scheduler"]
    regs = [h for lst in hints.by_resource.values() for _, _, h in lst]
    assert any(h is not None for h in regs) is hinted


def _actions(version: Any, plugin: str, resource: str) -> int:
    hints = Scheduler(Cluster(), parse_config(None, version=version)).queueing_hints()["default-scheduler"]
    out = 0
    for a, p, _ in hints.by_resource.get(resource, []):
        out |= a if p == plugin else 0
    return out


def test_the_plugins_register_the_events_of_their_release() -> None:
    # TaintToleration and NodeAffinity: every node update before hints, only their kinds after
    assert _actions(V1_30_1, names.TAINT_TOLERATION, ev.NODE) == ev.ADD | ev.UPDATE
    assert _actions(V1_34_1, names.TAINT_TOLERATION, ev.NODE) == ev.ADD | ev.UPDATE_NODE_TAINT
    assert _actions(V1_31_1, names.NODE_AFFINITY, ev.NODE) == ev.ADD | ev.UPDATE
    # SchedulingGates registers nothing without hints (its pod is requeued by its own update)
    assert _actions(V1_31_1, names.SCHEDULING_GATES, ev.POD) == 0
    assert _actions(V1_34_1, names.SCHEDULING_GATES, ev.POD) == ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    # InterPodAffinity and PodTopologySpread: every pod event in v1.30, three kinds from v1.31
    for plugin in (names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD):
        assert _actions(V1_30_1, plugin, ev.POD) == ev.ALL
        assert _actions(V1_31_1, plugin, ev.POD) == ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE


# --- Update --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, where", [(V1_30_1, ACTIVE), (V1_31_1, ACTIVE), (V1_34_1, UNSCHEDULABLE)],
                         ids=["v1.30", "v1.31", "v1.34"])
def test_a_pending_pods_annotation_requeues_it_only_without_hints(version: Any, where: str) -> None:
    sim = _waiting(version)
    _apply(sim, make_pod("p").req(cpu="2").set("metadata.annotations", {"note": "x"}).obj(), "MODIFIED")
    assert _where(sim) == where


# --- preCheckForNode -------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, where", [(V1_30_1, UNSCHEDULABLE), (V1_31_1, UNSCHEDULABLE), (V1_34_1, ACTIVE)],
                         ids=["v1.30", "v1.31", "v1.34"])
def test_a_new_node_with_a_taint_the_pod_does_not_tolerate_moves_it_only_from_v1_32(version: Any, where: str) -> None:
    # the pod lacked cpu (NodeResourcesFit): a big node arrives, tainted NoSchedule; v1.34's Fit
    # hint sees room, v1.30's pre-check sees the taint
    sim = _waiting(version)
    _apply(sim, _node("n2", cpu="8").taint("dedicated", "gpu").obj())
    assert _where(sim) == where


@pytest.mark.parametrize("cpu, where", [("8", ACTIVE), ("1", UNSCHEDULABLE)], ids=["room", "too small"])
def test_v1_30_moves_a_pod_on_a_new_node_the_kubelet_would_admit_it_to(cpu: str, where: str) -> None:
    sim = _waiting(V1_30_1)
    _apply(sim, _node("n2", cpu=cpu).obj())
    assert _where(sim) == where


# --- AssignedPodAdded ---------------------------------------------------------------------------------------

def _rejected_by(sim: Simulation, plugin: str) -> None:
    """p waits as if `plugin` had rejected it (as the pool holds a pod after a failed cycle)."""
    p = sim.queue.info(sim.state.cluster.pods["default/p"])
    p.unschedulable_plugins = {plugin}


@pytest.mark.parametrize("version, where", [(V1_30_1, UNSCHEDULABLE), (V1_31_1, ACTIVE)], ids=["v1.30", "v1.31"])
def test_an_assigned_pod_in_its_namespace_moves_a_pod_spreading_rejected_from_v1_31(version: Any, where: str) -> None:
    sim = _waiting(version)
    _rejected_by(sim, names.POD_TOPOLOGY_SPREAD)
    _apply(sim, _hog("other", "n1", cpu="100m").obj())
    assert _where(sim) == where


@pytest.mark.parametrize("app, where", [("cache", ACTIVE), ("web", UNSCHEDULABLE)])
def test_v1_30_moves_on_an_assigned_pod_only_the_pods_whose_required_affinity_it_matches(app: str, where: str) -> None:
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    objs = [event(0, "ADDED", _node("n1").obj()), event(0, "ADDED", _hog().obj()),
            event(1, "ADDED", make_pod("p").req(cpu="2").affinity(affinity).obj())]
    sim = Simulation(normalize(trace(*objs, end=20)), parse_config(None, version=V1_30_1), workloads=False).run()
    _rejected_by(sim, names.INTER_POD_AFFINITY)
    _apply(sim, _hog("other", "n1", cpu="100m").labels(app=app).obj())
    assert _where(sim) == where
