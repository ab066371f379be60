"""NodeName: a pod that names its node fits only there (mirrors nodename/node_name.go)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers
from ...framework.versions import DEFAULT, KubernetesVersion

NAME = names.NODE_NAME
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """mirrors Fits"""
    return not pod.node_name or pod.node_name == node_info.name


class NodeName(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors NodeName.SignPod (v1.35+): the pod's spec.nodeName."""
        return [(signers.NODE_NAME_SIGNER, pod.spec.get("nodeName") or "")], SUCCESS

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors NodeName.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors NodeName.EventsToRegister (SchedulerQueueingHints on): no hint, a new node may be the one
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD))]

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads the Node object alone, never the node's pods (scheduler/fast/preemption.py)."""
        return True

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not fits(pod, node_info):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON)
        return SUCCESS


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> NodeName:
    plugin = NodeName()
    for_release(plugin, version)
    return plugin
