"""The predicates plugin (pkg/scheduler/plugins/predicates): the kube-scheduler v1.16 predicates
kube-batch runs for a task on a node, first failure wins, with kube-batch's own error texts."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...framework.podinfo import UNSET, container_host_ports, pod_info
from ...plugins.helper.nodeaffinity import required_node_affinity
from ...plugins.helper.taint import (TAINT_EFFECT_NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE,
                                     do_not_schedule_taints_filter, tolerations_tolerate_taint)
from ..api.job_info import TaskInfo
from ..api.node_info import NodeInfo
from ..framework.arguments import get_bool
from .util import pod_affinity_fits
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "predicates"
MEMORY_PRESSURE_PREDICATE = "predicate.MemoryPressureEnable"
DISK_PRESSURE_PREDICATE = "predicate.DiskPressureEnable"
PID_PRESSURE_PREDICATE = "predicate.PIDPressureEnable"

# kube-batch's errors (predicates.go) ...
ERR_TOO_MANY_TASKS = "node <{node}> can not allow more task running on it"
ERR_NODE_CONDITION = "node <{node}> are not available to schedule task <{ns}/{name}>: {reasons}"
ERR_UNSCHEDULABLE = "task <{ns}/{name}> node <{node}> set to unschedulable"
ERR_NODE_SELECTOR = "node <{node}> didn't match task <{ns}/{name}> node selector"
ERR_HOST_PORTS = "node <{node}> didn't have available host ports for task <{ns}/{name}>"
ERR_TAINTS = "task <{ns}/{name}> does not tolerate node <{node}> taints"
ERR_MEMORY_PRESSURE = "node <{node}> are not available to schedule task <{ns}/{name}> due to Memory Pressure"
ERR_DISK_PRESSURE = "node <{node}> are not available to schedule task <{ns}/{name}> due to Disk Pressure"
ERR_PID_PRESSURE = "node <{node}> are not available to schedule task <{ns}/{name}> due to PID Pressure"
# kube-batch passes its arguments in the wrong order here: node name first
ERR_AFFINITY = "task <{node}/{ns}> affinity/anti-affinity failed on node <{name}>"
# ... and the v1.16 predicate failure reasons CheckNodeConditionPredicate reports
ERR_NODE_NOT_READY = "node(s) were not ready"
ERR_NODE_NETWORK_UNAVAILABLE = "node(s) had unavailable network"
ERR_NODE_UNSCHEDULABLE = "node(s) were unschedulable"


def _conditions(node: Any) -> list[dict]:
    return list((node.status.get("conditions") or ()))


def _host_ports(pod: Any) -> list[tuple[str, str, int]]:
    """The (hostIP, protocol, hostPort) of the pod's containers, as v1.16's PodFitsHostPorts
    reads them (schedutil.GetContainerPorts: no init containers), kept in its PodInfo."""
    pi = pod.info or pod_info(pod)
    got = pi.batch_host_ports
    if got is UNSET:
        got = pi.batch_host_ports = container_host_ports(pod.spec)
    return got


def _ports_conflict(a: tuple[str, str, int], b: tuple[str, str, int]) -> bool:
    # mirrors HostPortInfo.CheckConflict: same protocol and port, and the same IP or a wildcard
    if a[1] != b[1] or a[2] != b[2]:
        return False
    return a[0] == b[0] or a[0] == "0.0.0.0" or b[0] == "0.0.0.0"


def _pressure(node: Any, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _conditions(node))


class PredicatesPlugin(Plugin):
    name = PLUGIN_NAME

    def __init__(self, arguments: dict[str, str]) -> None:
        super().__init__(arguments)
        self.memory_pressure = get_bool(arguments, MEMORY_PRESSURE_PREDICATE, False)
        self.disk_pressure = get_bool(arguments, DISK_PRESSURE_PREDICATE, False)
        self.pid_pressure = get_bool(arguments, PID_PRESSURE_PREDICATE, False)

    def on_session_open(self, ssn: "Session") -> None:
        def predicate(task: TaskInfo, node: NodeInfo) -> str | None:
            n = node.node
            pod = task.pod
            f = {"node": node.name, "ns": task.namespace, "name": task.name}
            if node.allocatable.max_task_num <= len(node.tasks):
                return ERR_TOO_MANY_TASKS.format(**f)
            reasons = []
            for c in _conditions(n):
                if c.get("type") == "Ready" and c.get("status") != "True":
                    reasons.append(ERR_NODE_NOT_READY)
                elif c.get("type") == "NetworkUnavailable" and c.get("status") != "False":
                    reasons.append(ERR_NODE_NETWORK_UNAVAILABLE)
            if n.unschedulable:
                reasons.append(ERR_NODE_UNSCHEDULABLE)
            if reasons:
                return ERR_NODE_CONDITION.format(reasons=", ".join(reasons), **f)
            if n.unschedulable and not tolerations_tolerate_taint(
                    pod.tolerations, {"key": TAINT_NODE_UNSCHEDULABLE, "effect": TAINT_EFFECT_NO_SCHEDULE}):
                return ERR_UNSCHEDULABLE.format(**f)
            if not required_node_affinity(pod).matches(n):
                return ERR_NODE_SELECTOR.format(**f)
            wanted = _host_ports(pod)
            if wanted:
                used = [p for t in node.tasks.values() for p in _host_ports(t.pod)]
                if any(_ports_conflict(w, u) for w in wanted for u in used):
                    return ERR_HOST_PORTS.format(**f)
            for taint in n.taints:
                if do_not_schedule_taints_filter(taint) and not tolerations_tolerate_taint(pod.tolerations, taint):
                    return ERR_TAINTS.format(**f)
            if self.memory_pressure and _pressure(n, "MemoryPressure"):
                return ERR_MEMORY_PRESSURE.format(**f)
            if self.disk_pressure and _pressure(n, "DiskPressure"):
                return ERR_DISK_PRESSURE.format(**f)
            if self.pid_pressure and _pressure(n, "PIDPressure"):
                return ERR_PID_PRESSURE.format(**f)
            if not pod_affinity_fits(ssn, pod, node):
                return ERR_AFFINITY.format(**f)
            return None

        ssn.add_predicate_fn(self.name, predicate)
