"""NodePorts: a pod's host ports must be free on the node (mirrors nodeports/node_ports.go).

Unschedulable, not Unresolvable: evicting the pod holding the port frees it.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import PreFilterResult
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, host_ports
from ...model.objects import Pod
from .. import names

NAME = names.NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(want_ports: Sequence[tuple[str, str, int]], node_info: NodeInfo) -> bool:
    """mirrors fitsPorts"""
    used = node_info.used_ports
    if not used:
        return True
    for ip, protocol, port in want_ports:
        if used.check_conflict(ip, protocol, port):
            return False
    return True


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """mirrors Fits"""
    return fits_ports(host_ports(pod), node_info)


class NodePorts:
    name = NAME
    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter"})

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        ports = host_ports(pod)
        if not ports:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, Status()

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            want = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not fits_ports(want, node_info):
            return Status(Code.Unschedulable, ERR_REASON)
        return Status()


def new(args: Mapping[str, Any], handle: Any) -> NodePorts:
    return NodePorts()
