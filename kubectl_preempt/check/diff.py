"""What each pod went through in a replay, and how two replays of one trace differ, pod by pod.

The replay's report lists preemptions; a per-pod diff also needs who got a node where, and who
never did. A Listener on the Simulation records it as it happens: the replay itself is only
read, never changed.

One source of truth: a pod is a victim from the preemption decision that evicts it, the same
decision the report's `preemptions` and `victims` count, not from its delete call, which
asynchronous preemption makes a few API calls later (possibly after the trace's end). And a pod
that preempted in one replay and not in the other, or on other nodes, is a change of its own, so
that every difference in the totals a check shows is some pod's change.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..model.objects import Pod
from ..replay.simulate import Listener
from ..replay.state import format_time

# the per-pod changes, in the order a reader is shown them
NEWLY_PREEMPTED = "newlyPreempted"
NO_LONGER_PREEMPTED = "noLongerPreempted"
NEWLY_UNSCHEDULABLE = "newlyUnschedulable"
NEWLY_SCHEDULED = "newlyScheduled"
DIFFERENT_PREEMPTOR = "differentPreemptor"
DIFFERENT_NODE = "differentNode"
# the pod as a preemptor: the preemption decisions it made (each one counted in `preemptions`)
NEWLY_PREEMPTING = "newlyPreempting"
NO_LONGER_PREEMPTING = "noLongerPreempting"
DIFFERENT_PREEMPTIONS = "differentPreemptions"  # both preempted, on other nodes or another number of times
CHANGES = (NEWLY_PREEMPTED, NO_LONGER_PREEMPTED, NEWLY_UNSCHEDULABLE, NEWLY_SCHEDULED, DIFFERENT_PREEMPTOR,
           DIFFERENT_NODE, NEWLY_PREEMPTING, NO_LONGER_PREEMPTING, DIFFERENT_PREEMPTIONS)

# what happened to a pod over the trace
PREEMPTED = "Preempted"
SCHEDULED = "Scheduled"
UNSCHEDULABLE = "Unschedulable"
DELETED = "Deleted"
RUNNING = "Running"  # on its node from the trace's start, untouched by the replayed scheduler
PENDING = "Pending"  # never tried before the trace ended
NOMINATED = "Nominated"  # preempted others and waited for a node (its nominated node) until the trace ended


@dataclass
class PodOutcome:
    key: str
    uid: str
    priority: int
    priority_class: str
    node: str = ""             # the replayed scheduler's binding
    bound_at: float | None = None
    nominated: str = ""
    preempted_by: str = ""
    preempted_on: str = ""
    preempted_at: float | None = None  # its delete call, or the decision while that call is pending
    deletion_pending: bool = False     # decided, but no delete call had reached it when the trace ended
    preemptions: list[tuple[str, float]] = field(default_factory=list)  # (node, time) of its own decisions
    last_message: str = ""     # the last FitError of a pod that stayed pending
    last_fields: Mapping[str, Any] = field(default_factory=dict)  # the same FitError as data
    deleted: str = ""          # why it went away before any binding ("deleted")
    ended: str = ""            # why it left its node other than as a victim ("completed", "deleted")
    ended_at: float | None = None

    @property
    def outcome(self) -> str:
        if self.preempted_by:
            return PREEMPTED
        if self.node:
            return SCHEDULED
        if self.deleted:
            return DELETED
        if self.last_message:
            return UNSCHEDULABLE
        if self.nominated:
            return NOMINATED
        return RUNNING

    @property
    def ever_scheduled(self) -> bool:
        return bool(self.node)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"outcome": self.outcome, "priority": self.priority}
        if self.preempted_by:
            d["preemptedBy"] = self.preempted_by
            d["node"] = self.preempted_on
            d["time"] = format_time(self.preempted_at) if self.preempted_at is not None else None
            if self.deletion_pending:
                d["deletionPending"] = True
        elif self.node:
            d["node"] = self.node
            d["time"] = format_time(self.bound_at) if self.bound_at is not None else None
        elif self.last_message and not self.deleted:
            d["message"] = self.last_message
            d.update(self.last_fields)
            if self.nominated:
                d["nominatedNode"] = self.nominated
        elif self.nominated and not self.deleted:
            d["nominatedNode"] = self.nominated
        if self.ended and not self.preempted_by:
            d["ended"] = self.ended
            d["endedAt"] = format_time(self.ended_at) if self.ended_at is not None else None
        if self.preemptions:
            d["preemptions"] = [{"node": n, "time": format_time(t)} for n, t in self.preemptions]
        return d


class OutcomeRecorder(Listener):
    """Listens to one Simulation and keeps each pod's outcome, by uid."""

    def __init__(self) -> None:
        self.pods: dict[str, PodOutcome] = {}

    def _get(self, pod: Pod) -> PodOutcome:
        o = self.pods.get(pod.uid)
        if o is None:
            o = self.pods[pod.uid] = PodOutcome(pod.key, pod.uid, pod.priority, pod.priority_class_name)
        else:
            o.priority = pod.priority
        return o

    def bound(self, t: float, pod: Pod, node: str) -> None:
        o = self._get(pod)
        o.node, o.bound_at, o.last_message, o.last_fields = node, t, "", {}

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        self._get(pod).nominated = node

    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None:
        self._get(preemptor).preemptions.append((node, t))
        for v in victims:
            o = self._get(v)
            if not o.preempted_by:
                o.preempted_by, o.preempted_on, o.preempted_at = preemptor.key, node, t
                o.deletion_pending = True

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        # its delete call: the decision made it a victim already (preempting), except where no
        # decision is told (a kube-batch eviction without a preemptor pod)
        o = self._get(victim)
        if not o.preempted_by:
            o.preempted_by, o.preempted_on = preemptor.key, node
        o.preempted_at, o.deletion_pending = t, False

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        o = self._get(pod)
        if o.preempted_by:
            o.deletion_pending = False  # gone before (or after) its delete call
            return  # a victim going after its grace period
        if pod.node_name:
            # it ran (from the trace's start or from its replayed binding) and then ended
            o.ended, o.ended_at = reason, t
        else:
            o.deleted = reason

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None:
        o = self._get(pod)
        o.last_message, o.last_fields = message, fields or {}


def pod_changes(base: PodOutcome | None, prop: PodOutcome | None) -> list[str]:
    """The changes between one pod's two outcomes (a missing one: untouched in that replay)."""
    b_victim = bool(base and base.preempted_by)
    p_victim = bool(prop and prop.preempted_by)
    out = []
    if p_victim and not b_victim:
        out.append(NEWLY_PREEMPTED)
    elif b_victim and not p_victim:
        out.append(NO_LONGER_PREEMPTED)
    elif b_victim and p_victim and base and prop and \
            (base.preempted_by, base.preempted_on) != (prop.preempted_by, prop.preempted_on):
        out.append(DIFFERENT_PREEMPTOR)
    b_sched = bool(base and base.ever_scheduled)
    p_sched = bool(prop and prop.ever_scheduled)
    # a pod the replay owns that one run bound and the other never did; a pod running from the
    # start has no binding in either
    if b_sched and not p_sched:
        out.append(NEWLY_UNSCHEDULABLE)
    elif p_sched and not b_sched:
        out.append(NEWLY_SCHEDULED)
    elif b_sched and p_sched and base and prop and base.node != prop.node:
        out.append(DIFFERENT_NODE)
    b_pre = [n for n, _ in base.preemptions] if base else []
    p_pre = [n for n, _ in prop.preemptions] if prop else []
    if p_pre and not b_pre:
        out.append(NEWLY_PREEMPTING)
    elif b_pre and not p_pre:
        out.append(NO_LONGER_PREEMPTING)
    elif b_pre != p_pre:
        out.append(DIFFERENT_PREEMPTIONS)
    return out


def diff_outcomes(baseline: Mapping[str, PodOutcome], proposed: Mapping[str, PodOutcome]) -> list[dict[str, Any]]:
    """One entry per pod whose outcome differs, most serious change first, then by pod."""
    entries = []
    for uid in list(dict.fromkeys([*baseline, *proposed])):
        base, prop = baseline.get(uid), proposed.get(uid)
        changes = pod_changes(base, prop)
        if not changes:
            continue
        either = prop or base
        assert either is not None
        b = base.to_dict() if base else _untouched(either)
        p = prop.to_dict() if prop else _untouched(either)
        entries.append({"pod": either.key, "namespace": either.key.split("/", 1)[0],
                        "priorityClassName": either.priority_class, "changes": changes,
                        "baseline": b, "proposed": p})
    entries.sort(key=lambda e: (min(CHANGES.index(c) for c in e["changes"]), e["pod"]))
    return entries


def _untouched(other: PodOutcome) -> dict[str, Any]:
    """A pod one replay never acted on: running from the start, or (when the other replay bound
    it, so the scheduler owned it) still waiting for its first try when the trace ended."""
    if other.ever_scheduled:
        return {"outcome": PENDING}  # its priority in that replay is not known here
    return {"outcome": RUNNING, "priority": other.priority}  # existing pods keep theirs in both


def totals(entries: list[Mapping[str, Any]]) -> dict[str, int]:
    out = {c: 0 for c in CHANGES}
    for e in entries:
        for c in e["changes"]:
            out[c] += 1
    out["podsChanged"] = len(entries)
    return out


def replay_summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """The few numbers of a replay report a check shows side by side."""
    s = report.get("summary") or {}
    return {"decisions": s.get("decisions", 0), "scheduled": s.get("scheduled", 0),
            "preemptions": s.get("preemptions", 0), "victims": s.get("victims", 0),
            "podsNeverScheduled": s.get("podsNeverScheduled", 0)}


__all__ = ["OutcomeRecorder", "PodOutcome", "diff_outcomes", "pod_changes", "totals", "replay_summary", "CHANGES"]
