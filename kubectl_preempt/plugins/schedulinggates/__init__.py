"""SchedulingGates: a pod with spec.schedulingGates stays out of the active queue until they are
removed (mirrors schedulinggates/scheduling_gates.go)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.status import SUCCESS, Code, Status
from ...model.objects import Pod
from .. import names

NAME = names.SCHEDULING_GATES
ERR_REASON_WAITING = "waiting for scheduling gates: [%s]"  # Go's %v of a []string


class SchedulingGates:
    name = NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # mirrors SchedulingGates.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))]

    def pre_enqueue(self, pod: Pod) -> Status:
        gates = pod.spec.get("schedulingGates") or ()
        if not gates:
            return SUCCESS
        return Status(Code.UnschedulableAndUnresolvable,
                      ERR_REASON_WAITING % " ".join(g.get("name") or "" for g in gates))


def new(args: Mapping[str, Any], handle: Any) -> SchedulingGates:
    return SchedulingGates()
