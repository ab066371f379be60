"""What the replayed scheduler did, pod by pod, as plain data for the report.

The report says who preempted whom, when and why; the activity adds when each pod was bound,
nominated or went away in the replay, which is what a timeline of the cluster draws.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..model.objects import Pod
from .simulate import Listener
from .state import is_mirror_pod


class ActivityRecorder(Listener):
    """A replay listener (replay.simulate.Listener) keeping the replayed scheduler's bindings,
    preemptions and deletions as plain data for `build_view`."""

    def __init__(self) -> None:
        self.pods: dict[str, dict[str, Any]] = {}
        self.events: list[tuple] = []

    def _pod(self, pod: Pod) -> str:
        if pod.uid not in self.pods:
            self.pods[pod.uid] = pod_info(pod)
        return pod.uid

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.events.append(("bound", t, self._pod(pod), node))

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        self.events.append(("nominated", t, self._pod(pod), node))

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        self.events.append(("preempted", t, self._pod(victim), node, self._pod(preemptor)))

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        self.events.append(("deleted", t, self._pod(pod), reason))

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None:
        self.events.append(("unschedulable", t, self._pod(pod)))

    def activity(self) -> dict[str, Any]:
        """What was recorded, as data: {"pods": {uid: info}, "events": [...]}."""
        return {"pods": dict(self.pods), "events": [list(e) for e in self.events]}


def pod_info(pod: Pod) -> dict[str, Any]:
    """What the page needs of a pod, with the priority the replay resolved (what-if included)."""
    r = pod.resource.resource
    return {"key": pod.key, "namespace": pod.namespace, "priority": pod.priority,
            "priorityClassName": pod.priority_class_name, "milliCPU": r.milli_cpu, "memory": r.memory,
            "scalar": dict(r.scalar), "schedulerName": pod.scheduler_name, "mirror": is_mirror_pod(pod.raw)}


class Tee(Listener):
    """Hands every call on to several listeners."""

    def __init__(self, *listeners: Listener | None) -> None:
        self.listeners = [lst for lst in listeners if lst is not None]

    def bound(self, t: float, pod: Pod, node: str) -> None:
        for lst in self.listeners:
            lst.bound(t, pod, node)

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        for lst in self.listeners:
            lst.nominated(t, pod, node)

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        for lst in self.listeners:
            lst.preempted(t, victim, preemptor, node)

    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None:
        for lst in self.listeners:
            lst.preempting(t, preemptor, node, victims)

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        for lst in self.listeners:
            lst.deleted(t, pod, reason)

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None:
        for lst in self.listeners:
            lst.unschedulable(t, pod, message, fields)
