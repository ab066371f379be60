"""NodePorts: a pod's host ports must be free on the node (mirrors nodeports/node_ports.go).

Unschedulable, not Unresolvable: evicting the pod holding the port frees it.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits, PreFilterResult
from ...framework.status import SUCCESS, Code, Status
from ...framework.podinfo import container_host_ports, pod_info
from ...framework.types import HostPortInfo, NodeInfo, host_ports
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers

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


class NodePorts(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors NodePorts.SignPod (v1.35+): the pod's host ports (HostPortsSigner)."""
        return [(signers.HOST_PORTS_SIGNER, signers.host_ports_signer(pod))], SUCCESS

    # since v1.34 PreFilter reads schedutil.GetHostPorts (sidecars' ports too); before,
    # getContainerPorts: the containers' alone (new())
    sidecar_host_ports = True
    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors NodePorts.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors NodePorts.EventsToRegister (SchedulerQueueingHints on): a node added needs no hint
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE), self.is_schedulable_after_pod_deleted),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD))]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterPodDeleted: a deleted pod bound or nominated to a node whose
        host ports conflict with the pod's (v1.33 and before: the containers' ports, as Fits reads
        them; v1.34 on: the sidecars' too, GetHostPorts)."""
        if old is None or (not old.node_name and not old.nominated_node_name):
            return False
        ports = host_ports if self.sidecar_host_ports else (lambda p: container_host_ports(p.spec))
        in_use = HostPortInfo()
        for ip, protocol, port in ports(old):
            in_use.add(ip, protocol, port)
        if not in_use:
            return False
        return any(in_use.check_conflict(ip, protocol, port) for ip, protocol, port in ports(pod))

    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter reads nothing of the pod but its spec and namespace (scheduler/schedule_one.py
        skips PreFilter for a remembered failure only when no plugin reads more)."""
        return False

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        ports = host_ports(pod) if self.sidecar_host_ports else container_host_ports(pod.spec)
        if not ports:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads the node's used host ports: pods without host ports add none
        (NodeInfo counts schedutil.GetHostPorts, a superset of the containers' ports) (scheduler/fast/preemption.py)."""
        return not any((p.info or pod_info(p)).host_ports for p in others)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            want = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not fits_ports(want, node_info):
            return Status(Code.Unschedulable, ERR_REASON)
        return SUCCESS



def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> NodePorts:
    plugin = NodePorts()
    plugin.sidecar_host_ports = version.at_least(34)
    for_release(plugin, version)
    return plugin
