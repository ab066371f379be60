"""NodePorts: host ports must be free; 0.0.0.0 conflicts with every address."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import nodeports
from tests.builders import make_node, make_pod


def _run(incoming: Any, *existing: Any):
    pl = nodeports.new({}, None)
    ni = NodeInfo(Node(make_node("n1").obj()), [Pod(p.on("n1").obj()) for p in existing])
    pod = Pod(incoming.obj())
    state = CycleState()
    _, st = pl.pre_filter(state, pod, [ni])
    if st.code == Code.Skip:
        return st
    return pl.filter(state, pod, ni)


@pytest.mark.parametrize("incoming,existing,code", [
    (make_pod("p").host_port(8080), [make_pod("e").host_port(8080)], Code.Unschedulable),
    (make_pod("p").host_port(8080, "UDP"), [make_pod("e").host_port(8080)], Code.Success),
    (make_pod("p").host_port(8080), [make_pod("e").host_port(8081)], Code.Success),
    (make_pod("p").host_port(8080, host_ip="10.0.0.1"), [make_pod("e").host_port(8080, host_ip="10.0.0.2")], Code.Success),
    (make_pod("p").host_port(8080, host_ip="10.0.0.1"), [make_pod("e").host_port(8080)], Code.Unschedulable),
    (make_pod("p").host_port(8080), [make_pod("e").host_port(8080, host_ip="10.0.0.2")], Code.Unschedulable),
    (make_pod("p").host_port(8080), [make_pod("e").set("spec.initContainers", [
        {"name": "proxy", "restartPolicy": "Always", "ports": [{"containerPort": 8080, "hostPort": 8080}]}])],
     Code.Unschedulable),
    (make_pod("p").host_port(8080), [make_pod("e").set("spec.initContainers", [
        {"name": "setup", "ports": [{"containerPort": 8080, "hostPort": 8080}]}])], Code.Success),
], ids=["same TCP port conflicts", "another protocol does not", "another port does not",
        "two specific addresses do not", "a specific address conflicts with 0.0.0.0 in use",
        "0.0.0.0 conflicts with any address in use", "a sidecar's host port is in use",
        "a plain init container's host port is not"])
def test_filter(incoming: Any, existing: list, code: Code) -> None:
    st = _run(incoming, *existing)
    assert st.code == code
    if code == Code.Unschedulable:
        assert st.reasons == [nodeports.ERR_REASON]


def test_pre_filter_skips_a_pod_without_host_ports() -> None:
    _, st = nodeports.new({}, None).pre_filter(CycleState(), Pod(make_pod("p").obj()), [])
    assert st.code == Code.Skip
