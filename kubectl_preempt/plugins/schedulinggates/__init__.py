"""SchedulingGates: a pod with spec.schedulingGates stays out of the active queue until they are
removed (mirrors schedulinggates/scheduling_gates.go)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.status import SUCCESS, Code, Status
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release

NAME = names.SCHEDULING_GATES
ERR_REASON_WAITING = "waiting for scheduling gates: [%s]"  # Go's %v of a []string


class SchedulingGates(QueueingHintFeatures):
    name = NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors SchedulingGates.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return []
        # mirrors SchedulingGates.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))]

    def pre_enqueue(self, pod: Pod) -> Status:
        gates = pod.spec.get("schedulingGates") or ()
        if not gates:
            return SUCCESS
        return Status(Code.UnschedulableAndUnresolvable,
                      ERR_REASON_WAITING % " ".join(g.get("name") or "" for g in gates))


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> SchedulingGates:
    plugin = SchedulingGates()
    for_release(plugin, version)
    return plugin
