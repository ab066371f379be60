"""A preemption decision in the replay and its API calls: the victims' DisruptionTarget
patches and deletions, the cleared nominations, the preemptor's nominated node through the API,
made at once or on the API dispatcher's clock with asynchronous preemption (mirrors
framework/preemption/preemption.go prepareCandidate / prepareCandidateAsync and
schedule_one.go handleSchedulingFailure's nomination patch). A mixin of Simulation
(replay/simulate.py): its state lives there.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..framework.config import SchedulerConfig
from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..preemption.podgroup_preemption import CLUSTER
from ..scheduler.backend.api_dispatcher import Call, api_calls_async, plan_calls, plan_sync_calls
from ..scheduler.schedule_one import CycleResult
from .batch import KUBE_SCHEDULER_ACTION, BatchScheduler
from .controllers import LeaveTimes, WorkloadControllers
from .engine import PRIORITY_INTERNAL, Engine
from .eventhandlers import EventHandler
from .preemption_summary import decision_case, preemption_summary
from .state import ReplayState, format_time, grace_period


class AllPodsAlreadyDeleted:
    """v1.34.1 prepareCandidateAsync (framework/preemption/preemption.go) `allPodsAlreadyDeleted`:
    true until a victim's PreemptPod succeeds (its delete call, or the rejection of a victim waiting
    at Permit); the goroutine ends when the last victim's PreemptPod returns (that victim is
    called after all the others), and its deferred Activate moves the preemptor to activeQ when
    no call succeeded. v1.33 has no such rule, and v1.35 dropped it with the executor's
    lastVictimsPendingPreemption."""

    __slots__ = ("last", "found", "done")

    def __init__(self, last: str) -> None:
        self.last = last  # the uid of the victim called last
        self.found = False
        self.done = False

    def ended(self, victim: str, *, found: bool) -> bool:
        """A victim's PreemptPod returned (`found`: it succeeded). True when this ends the
        goroutine: the last victim's, the first time."""
        self.found = self.found or found
        if victim != self.last or self.done:
            return False
        self.done = True
        return True


class PreemptionCalls:
    """Simulation's preemptions and their API calls (its fields are Simulation's)."""

    engine: Engine
    state: ReplayState
    config: SchedulerConfig
    config_raw: Mapping[str, Any] | None
    handler: EventHandler
    controllers: WorkloadControllers
    batch: BatchScheduler | None
    listener: Any
    on_decision: Callable[[dict[str, Any]], None] | None
    leave_times: LeaveTimes
    _replica_sets: Any
    preemptions: list[dict[str, Any]]
    enqueued_at: dict[str, float]
    evicted: dict[str, dict[str, Any]]
    async_preemption: bool
    api_latency: float
    # each call's time drawn (simulate.py _api_latency_draw), or None: each takes api_latency
    api_latency_draw: Callable[[], float] | None
    preempting: set[str]
    waiting_on_permit: dict[str, Any]  # replay/permit_waits.py: pods waiting at Permit
    _deletes_pending: dict[str, int]
    decided_before_deletes: int
    _deleted_by_call: dict[str, dict[str, Any] | None]
    _leave_after: dict[str, float]

    def _set_nomination(self, pod: Pod, node: str, *, event: bool = True) -> None:
        """The scheduler sets (or clears) the pod's nominated node: in its nominator at once, and
        through the API (handleSchedulingFailure's status patch). The other pending pods hear of
        it only when that patch comes back through the watch (updatePodInSchedulingQueue), one
        API call later: until then a nomination moved off a node requeues no one. `event` False:
        no requeue at all (the pod is being bound)."""
        prev = self.handler.nominate_pod(pod, node, requeue=False)
        if not event or not prev or prev == node:
            return
        if self.api_latency <= 0:
            self.handler.nomination_changed(pod, prev, node)
            return
        self.engine.schedule(self.engine.now + self.api_latency,
                             lambda: self._nomination_delivered(pod, prev, node),
                             priority=PRIORITY_INTERNAL, name=f"nominatedNodeName {pod.key}")

    def _nomination_delivered(self, pod: Pod, prev: str, node: str) -> None:
        self.handler.nomination_changed(pod, prev, node)
        self._kick()

    def _preempt(self, pod: Pod, res: CycleResult, details: PreemptionRecord, attempts: int, *,
                 nominate: bool = True, repeats: Any = None) -> None:
        """`nominate` False: the caller sets the nomination (a pod group's member: its group's
        cycle says); `repeats`: merges the decision into an earlier one of the same pod on the same
        node, as the cluster's record counts them (replay/podgroups.py Repeats)."""
        now = self.engine.now
        sel = details.selected
        assert sel is not None
        node = sel.name
        if self._deletes_pending.get(pod.uid):
            self.decided_before_deletes += 1
        if self.on_decision is not None:
            self.on_decision(self._decision_case(pod, res, details))
        record = self._preemption_record(pod, res, details, attempts)
        if repeats is None or not repeats.merge(record, now):
            self.preemptions.append(record)
        details_of = {d["pod"]: d for d in record["victimDetails"]}
        evicting: list[Pod] = []
        for victim in sel.victims:
            if victim.terminating:
                continue  # already going: no delete call
            if victim.uid in self.evicted:
                # an earlier decision's delete call for it is still in flight (asynchronous
                # preemption released the preemptor before it): this decision evicts no one new
                details_of[victim.key]["alreadyEvicting"] = True
                continue
            self.evicted[victim.uid] = {"pod": victim.key, "by": pod.key, "time": now, "node": node}
            self._plan_leave(victim, details_of.get(victim.key))
            evicting.append(victim)
        if self.listener is not None:
            self.listener.preempting(now, pod, node, evicting)
        cleared = [p for p in details.cleared_nominations if p.nominated_node_name == node]
        gone: AllPodsAlreadyDeleted | None = None
        if self.async_preemption:
            # v1.35+: held until the last victim's delete (plan_calls). A last victim waiting at
            # Permit gets no call (PreemptPod rejects it), so prepareCandidateAsync ends, and the
            # preemptor is released, before that rejection frees its node: the release stays before it
            skip = self.config.version.at_least(34)
            last = next((v for v in reversed(sel.victims) if not (skip and v.terminating)), None)
            hold = self.config.version.at_least(35) and last is not None and last.uid not in self.waiting_on_permit
            calls = plan_calls(pod, sel.victims, cleared, now, self.api_latency,
                               clears_wait=not api_calls_async(self.config), release_after_last_delete=hold,
                               draw=self.api_latency_draw, skip_terminating=skip)
            if calls:
                self.preempting.add(pod.uid)
                if self.config.version.minor == 34 and last is not None:
                    gone = AllPodsAlreadyDeleted(last.uid)
        else:
            calls = plan_sync_calls(pod, sel.victims, cleared, now, skip_terminating=self.config.version.at_least(34))
        deletes = sum(1 for c in calls if c.what == "delete")
        if deletes and self.async_preemption:
            self._deletes_pending[pod.uid] = self._deletes_pending.get(pod.uid, 0) + deletes
        for call in calls:
            if call.at <= now and not self.async_preemption:
                self._api_call(call, pod, node, kick=False)
            else:
                self.engine.schedule(call.at, lambda c=call: self._api_call(c, pod, node, gone=gone),
                                     priority=PRIORITY_INTERNAL, name=f"{call.what} {call.pod.key}")
        if nominate and pod.nominated_node_name != node:
            self._set_nomination(pod, node)
        if nominate and self.listener is not None:
            self.listener.nominated(now, pod, node)

    def _plan_leave(self, victim: Pod, detail: dict[str, Any] | None) -> None:
        """A victim its preemption will delete: when it leaves after its delete call, as the trace
        measured pods like it leaving (controllers.LeaveTimes), written in its victimDetails entry
        with which figure says so."""
        self._deleted_by_call[victim.uid] = detail
        if detail is not None:
            after, level, whose = self.leave_times.after(victim, grace_period(victim), self._replica_sets)
            self._leave_after[victim.uid] = after
            detail["leavesAfterSeconds"] = round(after, 3)
            detail["leaveFigure"] = f"{level} {whose}" if whose else level

    def _api_call(self, call: Call, preemptor: Pod, node: str, kick: bool = True,
                  gone: AllPodsAlreadyDeleted | None = None) -> None:
        """One API call of a preemption reaches the cluster (see async_preemption). `gone`: what
        v1.34.1's goroutine knows of its victims' calls (AllPodsAlreadyDeleted)."""
        now = self.engine.now
        if call.what == "release":
            self.preempting.discard(call.pod.uid)
            return
        if call.what == "delete" and preemptor.uid in self._deletes_pending:
            left = self._deletes_pending[preemptor.uid] - 1
            if left > 0:
                self._deletes_pending[preemptor.uid] = left
            else:
                del self._deletes_pending[preemptor.uid]
        cur = self.state.pods_by_uid.get(call.pod.uid)
        if cur is None:
            # gone already: the call meets NotFound, and the victim's PreemptPod returns
            if gone is not None and gone.ended(call.pod.uid, found=False):
                self._activate_if_all_gone(gone, preemptor)
            return
        if call.what in ("patch", "delete") and self._preempt_waiting_pod(preemptor, cur):  # type: ignore[attr-defined]
            # a victim waiting at Permit is rejected, not patched nor deleted (replay/permit_waits.py)
            if gone is not None:
                gone.ended(call.pod.uid, found=True)
            if kick:
                self._kick()
            return
        if gone is not None and call.what == "delete":
            # deleted, or already being deleted: either way the call succeeds
            gone.ended(call.pod.uid, found=True)
        if call.what == "clearNomination":
            if cur.nominated_node_name == node:
                self._set_nomination(cur, "")
        elif call.what == "patch":
            # executor.go PreemptPod: a PodGroup's preemption (node "cluster") says podgroup
            self.state.mark_disruption_target(cur, now, preemptor, "podgroup" if node == CLUSTER else "pod")
        elif call.what == "delete" and not cur.terminating:
            self.state.mark_terminating(cur, now, preempted=False)
            self.controllers.terminating(cur)
            detail = self._deleted_by_call.pop(cur.uid, None)
            if detail is not None:
                # when the delete call was made: the victim is gone its grace period later
                detail["deletionTimestamp"] = format_time(now)
            if self.listener is not None:
                self.listener.preempted(now, cur, preemptor, node)
            after = self._leave_after.pop(cur.uid, None)
            self._delete_at(cur, now + (grace_period(cur) if after is None else after), "preempted")
        if kick:
            self._kick()

    def _activate_if_all_gone(self, gone: AllPodsAlreadyDeleted, preemptor: Pod) -> None:
        """v1.34.1 prepareCandidateAsync's deferred Activate: every victim's call met NotFound, so
        the preemptor may have missed the Pod/Delete events that requeue it (they came while
        DefaultPreemption's PreEnqueue held it); it goes to activeQ now."""
        if gone.found:
            return
        self.queue.activate([preemptor])  # type: ignore[attr-defined]
        self._kick()

    def _preemption_record(self, pod: Pod, res: CycleResult, details: PreemptionRecord, attempts: int) -> dict[str, Any]:
        now = self.engine.now
        rec = preemption_summary(pod, res, details, now)
        if self.batch is not None:
            # beside kube-batch's evictions: which scheduler, which of its parts
            rec = {"time": rec.pop("time"), "scheduler": pod.scheduler_name, "action": KUBE_SCHEDULER_ACTION, **rec}
        rec["attempt"] = attempts
        rec["waitedSeconds"] = round(now - self.enqueued_at.get(pod.uid, now), 3)
        return rec

    def _decision_case(self, pod: Pod, res: CycleResult, details: PreemptionRecord) -> dict[str, Any]:
        return decision_case(self.state, self.config_raw, pod, res, details, len(self.preemptions) + 1,
                             self.engine.now)
