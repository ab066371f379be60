"""Issue 35: a trace is read once. calibrate() walks the events one time and returns every fact
the replay's set-up needs, as a frozen record; each fact agrees with what its own reading says,
and the replay reads them from that record alone."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kubectl_preempt.replay import calibration as cal_module
from kubectl_preempt.replay.calibration import Calibration, api_latency_of, calibrate, status_delay_of
from kubectl_preempt.replay import simulate as simulate_module
from kubectl_preempt.replay.simulate import Simulation
from kubectl_preempt.replay.timeline import normalize
from kubectl_preempt.framework.config import default_config
from tests.builders import make_node, make_pod

from .helpers import ev, trace
from .test_api_latency import latency_trace

RS_OWNER = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f", "uid": "rs1", "controller": True}]


def _replica_set(name: str, deployment: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "ownerReferences": [{"kind": "Deployment", "name": deployment, "controller": True}]},
            "spec": {"replicas": 2}}


def _preempted_event(victim_uid: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "default"},
            "reason": "Preempted", "message": "Preempted by pod 1234 on node n1",
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "v", "uid": victim_uid}}


def _full_trace() -> dict[str, Any]:
    """A bound pod of a Deployment deleted (it leaves 4 s later), a pod created and bound during the
    trace whose kubelet writes Running 1.5 s after the binding, a Preempted Event, and a
    replacement of the deleted pod created by its ReplicaSet."""
    web = make_pod("web-1").set("metadata.ownerReferences", RS_OWNER).set("metadata.uid", "w1") \
        .set("spec.terminationGracePeriodSeconds", 30).req(cpu="1").on("n1")
    new = make_pod("new").set("metadata.uid", "n1p").req(cpu="1")
    repl = make_pod("web-2").set("metadata.ownerReferences", RS_OWNER).set("metadata.uid", "w2").req(cpu="1")
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="8", memory="8Gi").obj()),
           ev(0, "ADDED", _replica_set("web-5d8f", "web")),
           ev(0, "ADDED", web.obj()),
           ev(2, "ADDED", new.obj()),
           ev(3, "MODIFIED", make_pod("new").set("metadata.uid", "n1p").req(cpu="1").on("n1").obj()),
           ev(4.5, "MODIFIED", make_pod("new").set("metadata.uid", "n1p").req(cpu="1").on("n1")
              .set("status.phase", "Running").obj()),
           ev(5, "MODIFIED", web.set("metadata.deletionTimestamp", "2026-03-01T10:00:35Z").obj()),
           ev(5.5, "ADDED", repl.obj()),
           ev(6, "ADDED", _preempted_event("victim-uid")),
           ev(9, "DELETED", web.obj())]
    return trace(*evs, end=20)


def test_one_walk_gives_every_fact_the_replay_reads() -> None:
    tl = normalize(_full_trace())
    c = calibrate(tl)
    assert dict(c.status_delays) == {"n1p": pytest.approx(1.5)}
    assert c.status_delay == pytest.approx(1.5) == status_delay_of(tl.events)
    assert c.recorded_victims == {"victim-uid"}
    assert set(c.replica_sets) == {("default", "web-5d8f")}
    # web-1 left 4 s after its deletion request: a figure for its Deployment's grace period
    assert dict(c.leave.by_workload) == {("default/web", 30.0): (pytest.approx(4.0), 1)}
    assert c.owners_in_trace == {("default", "ReplicaSet", "web-5d8f")}
    [r] = c.replacements
    assert (r.owner, r.creation_uid, r.lost_uid, r.at) == (("default", "ReplicaSet", "web-5d8f"), "w2", "w1", tl.start + 5.5)
    assert c.schedules_any("default-scheduler") and not c.schedules_any("kube-batch")


@pytest.mark.parametrize("victims, expected", [
    pytest.param(5, 0.02, id="five recorded victims: their median gap is the API latency"),
    pytest.param(4, None, id="four recorded victims are too few to say"),
])
def test_the_api_latency_in_the_record_is_the_one_measured_alone(victims: int, expected: float | None) -> None:
    tl = normalize(latency_trace(victims, 0.02))
    measured = calibrate(tl).api_latency
    assert measured == api_latency_of(tl.events)
    assert measured == (pytest.approx(expected) if expected is not None else None)


def test_the_record_is_frozen_and_its_mappings_read_only() -> None:
    c = calibrate(normalize(_full_trace()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.status_delay = 3.0  # type: ignore[misc]
    for mapping in (c.status_delays, c.replica_sets, c.leave.by_workload, c.leave.by_namespace, c.leave.by_grace):
        with pytest.raises(TypeError):
            mapping["x"] = 1  # type: ignore[index]


def test_a_simulation_reads_the_trace_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Setting up a replay walks the events once (calibrate), and the parts that used to scan
    them (LeaveTimes, the workload controllers, kube-batch's check) take the record instead."""
    calls: list[Calibration] = []
    real = cal_module.calibrate

    def counting(tl: Any) -> Calibration:
        calls.append(real(tl))
        return calls[-1]

    monkeypatch.setattr(simulate_module, "calibrate", counting)
    tl = normalize(_full_trace())
    sim = Simulation(tl, default_config())
    assert len(calls) == 1 and sim.calibration is calls[0]
    assert sim.state.status_delays is sim.calibration.status_delays
    assert sim.handler.recorded_victims is sim.calibration.recorded_victims
    assert sim.leave_times.by_workload is sim.calibration.leave.by_workload
    # the recorded replacement of web-1 is known to its controller (the trace holds the ReplicaSet)
    assert sim.controllers.recorded.replacing == {"w2": "w1"}
