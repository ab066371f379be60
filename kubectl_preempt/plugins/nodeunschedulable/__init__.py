"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint (mirrors nodeunschedulable/node_unschedulable.go)."""
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
from ..helper.taint import TAINT_EFFECT_NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE, tolerations_tolerate_taint
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers
from ...framework.versions import DEFAULT, KubernetesVersion

NAME = names.NODE_UNSCHEDULABLE
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

_UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": TAINT_EFFECT_NO_SCHEDULE}


class NodeUnschedulable(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors NodeUnschedulable.SignPod (v1.35+): the pod's tolerations (TolerationsSigner)."""
        return [(signers.TOLERATIONS_SIGNER, signers.tolerations_signer(pod))], SUCCESS

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors NodeUnschedulable.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors NodeUnschedulable.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT), is_schedulable_after_node_change),
                ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION), is_schedulable_after_pod_toleration_change)]

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads the Node object alone, never the node's pods (scheduler/fast/preemption.py)."""
        return True

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not node_info.node.unschedulable:
            return SUCCESS
        if tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return SUCCESS
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)



def is_schedulable_after_node_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterNodeChange: a node added schedulable, or uncordoned (the pod's
    tolerations are not asked)."""
    if new is None:
        return False
    if old is None:
        return not new.unschedulable
    return old.unschedulable and not new.unschedulable


def is_schedulable_after_pod_toleration_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterPodTolerationChange: the pod itself now tolerates the
    unschedulable taint."""
    if new is None or new.uid != pod.uid:
        return False
    return tolerations_tolerate_taint(new.tolerations, {"key": TAINT_NODE_UNSCHEDULABLE, "effect": TAINT_EFFECT_NO_SCHEDULE})


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> NodeUnschedulable:
    plugin = NodeUnschedulable()
    for_release(plugin, version)
    return plugin
