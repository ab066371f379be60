"""Pods waiting at Permit, in the replay: v1.35's gang members (GangScheduling, no pod-group cycle).

kube-scheduler v1.35.6 schedules each member of a gang alone. Once its cycle chose a node, the pod
is assumed there (it holds the node's room in the cache), Reserve counts it assumed in its gang
(plugins/gangscheduling GangSchedulingV135), and Permit makes it wait (schedule_one.go
schedulingCycle, then the binding cycle's WaitOnPermit) until minCount of the gang are assumed or
bound; the member that completes the quorum allows every waiting one, and they all bind. When the
gang's deadline passes first (five minutes from the first member at Permit), each waiting member
is rejected (waiting_pods_map.go: "rejected due to timeout after waiting 5m0s at plugin
GangScheduling"), unreserved and forgotten (handleBindingCycleError), the others hear an
AssignedPodDelete, and it goes back to the queue as unschedulable by GangScheduling.

A mixin of Simulation: its state lives there (`waiting_on_permit`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..framework import events as ev
from ..framework.diagnosis import Diagnosis, fit_error_message
from ..framework.status import Code, Status
from ..model.objects import Pod
from ..plugins import names
from ..plugins.gangscheduling import timeout_rejection
from ..scheduler.backend.queue import QueuedPodInfo


@dataclass
class WaitingPod:
    """A pod assumed on its node and held at Permit (runtime waitingPod)."""

    info: QueuedPodInfo   # the queue's record of it, in flight while it waits
    pod: Pod              # the pod as the queue popped it
    assumed: Pod          # its view on the node while it waits
    node: str
    since: float
    timeout: float


class PermitWaits:
    """Simulation's pods waiting at Permit (its fields are Simulation's)."""

    engine: Any
    state: Any
    queue: Any
    handler: Any
    listener: Any
    last_failure: dict[str, str]
    last_failure_fields: dict[str, dict[str, Any]]
    waiting_on_permit: dict[str, WaitingPod]
    rejected_by_preemption: set[tuple[str, str]]  # (preemptor uid, victim uid) rejected at Permit

    def _has_permit_stage(self, pod: Pod) -> bool:
        """Whether the pod's profile has Permit plugins, at which a placed pod may wait (v1.35's
        GangScheduling), keeping what its Reserve took meanwhile (DynamicResources' devices in
        flight); without them the replay binds a placed pod at once, and PreBind writes at that
        instant what Reserve would have held."""
        fwk = self.state.scheduler.framework_for(pod)
        return fwk is not None and bool(fwk.points["permit"])

    def _reserve_and_permit(self, p: QueuedPodInfo, node: str) -> None:
        """mirrors schedulingCycle after assume (Reserve, Permit) and the binding cycle's WaitOnPermit."""
        pod = p.pod
        now = self.engine.now
        sched = self.state.scheduler
        answer = sched.reserve_and_permit(pod, node, now)
        if answer.activate:
            # Permit's handle.Activate: the gang's unscheduled members (not those waiting here)
            self.queue.activate([q for q in answer.activate if q.uid not in self.waiting_on_permit])
        status = answer.status
        if status.is_success():
            self.queue.done(pod)
            self._bind(pod, node, p.attempts)  # type: ignore[attr-defined]
            sched.bound(pod)
            # waitingPod.Allow on every assumed member of the gang: their binding cycles go on
            for uid in answer.allowed:
                w = self.waiting_on_permit.pop(uid, None)
                if w is not None:
                    self._allow(w)
            return
        if status.code == Code.Wait:
            assumed = Pod(pod.raw)
            assumed.priority, assumed.preemption_policy, assumed.has_priority = \
                pod.priority, pod.preemption_policy, True
            assumed.node_name = node
            assumed.nominated_node_name = ""
            self.state.replace_pod(pod, assumed)
            self.waiting_on_permit[pod.uid] = w = WaitingPod(p, pod, assumed, node, now, answer.timeout)
            self.engine.schedule(now + answer.timeout, lambda: self._permit_timed_out(pod.uid, w),
                                 name=f"Permit timeout {pod.key}")
            return
        # Reserve or Permit failed at once: handleSchedulingFailure (Unreserve already ran)
        self._permit_failure(p, pod, node, status)

    def _current(self, w: WaitingPod) -> Pod | None:
        """The waiting pod's view in the replay now, back off its node; None once it was deleted."""
        cur = self.state.pods_by_uid.get(w.pod.uid)
        if cur is None:
            return None
        if cur is w.assumed:
            self.state.replace_pod(w.assumed, w.pod)
            return w.pod
        return cur

    def _allow(self, w: WaitingPod) -> None:
        pod = self._current(w)
        if pod is None or pod.node_name:
            return
        self.queue.done(pod)
        self._bind(pod, w.node, w.info.attempts)  # type: ignore[attr-defined]
        self.state.scheduler.bound(pod)

    def _permit_timed_out(self, uid: str, w: WaitingPod) -> None:
        if self.waiting_on_permit.get(uid) is not w:
            return  # allowed, or deleted, meanwhile
        del self.waiting_on_permit[uid]
        pod = self._current(w)
        sched = self.state.scheduler
        if pod is None:
            sched.unreserve(w.pod, w.node)
            return
        rejected = Status(Code.Unschedulable, timeout_rejection(w.timeout), plugin=names.GANG_SCHEDULING)
        # handleBindingCycleError: Unreserve, ForgetPod, then AssignedPodDelete for the others
        sched.unreserve(pod, w.node)
        self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, w.assumed, None,
                                                 lambda q: q.uid != uid)
        self._permit_failure(w.info, pod, w.node, rejected)
        self._kick()  # type: ignore[attr-defined]

    def _preempt_waiting_pod(self, preemptor: Pod, victim: Pod) -> bool:
        """mirrors the Evaluator's PreemptPod for a victim that waits at Permit: the waiting pod is
        rejected ("preempted", by DefaultPreemption) instead of patched and deleted; it goes back
        to the queue and frees its node. True when `victim` is (or was, for this preemptor) such a
        pod: none of the preemption's calls reach it."""
        key = (preemptor.uid, victim.uid)
        if key in self.rejected_by_preemption:
            return True
        w = self.waiting_on_permit.pop(victim.uid, None)
        if w is None:
            return False
        self.rejected_by_preemption.add(key)
        pod = self._current(w)
        self.state.scheduler.unreserve(w.pod, w.node)
        if pod is None:
            return True
        self.queue.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, w.assumed, None,
                                                 lambda q: q.uid != victim.uid)
        self._permit_failure(w.info, pod, w.node,
                             Status(Code.Unschedulable, "preempted", plugin=names.DEFAULT_PREEMPTION))
        return True

    def _permit_failure(self, p: QueuedPodInfo, pod: Pod, node: str, status: Status) -> None:
        """FailureHandler for a pod Permit (or Reserve) turned down on `node`: a rejection is a
        FitError over that one node (schedule_one.go bindingCycle), anything else an error."""
        if status.is_rejected():
            d = Diagnosis()
            d.node_to_status.set(node, status)
            d.add_plugin_status(status)
            message = fit_error_message(1, d)
            plugins = {status.plugin} if status.plugin else set()
        else:
            message, plugins = status.message(), set()
        self.last_failure[pod.uid] = message
        self.last_failure_fields[pod.uid] = {}
        if self.listener is not None:
            self.listener.unschedulable(self.engine.now, pod, message, {})
        self.queue.add_unschedulable_if_not_present(p, plugins, ())
