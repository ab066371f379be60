"""Follow mode's pod-group cycles under workload-aware preemption (replay/podgroups.py): which
cycle made a recorded burst of Preempted events, when a cycle chooses only pods already going,
when the scheduler hears a bound pod leave, and what a member's status holds for the next
cycle's FailureHandler."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.follow import Follow
from kubectl_preempt.replay.podgroups import follow_choice, recorded_leaves
from kubectl_preempt.replay.timeline import normalize
from tests.builders import make_node, make_pod

from .helpers import at, ev, trace


@dataclass
class _Pod:
    key: str
    terminating: bool = False


@dataclass
class _Unit:
    pods: list[_Pod]


@dataclass
class _Rec:
    alternatives: list[list[_Unit]]


GOING = _Unit([_Pod("batch/going", terminating=True)])
NEW = _Unit([_Pod("batch/new")])
BURST = (10.30, frozenset({"batch/new"}))
LATENCY = 0.03


def _next_cycle_at(t: float | None):
    """A group whose next cycle starts at `t` (None: none before the burst)."""
    return lambda start, end: t is not None and start < t <= end


@pytest.mark.parametrize("alternatives, next_cycle, want, at", [
    # the burst comes one API call after this cycle: it is this cycle's, decided a call before it
    ([[NEW, GOING], [GOING]], None, [NEW, GOING], 10.27),
    # the group is back for another cycle (a bound pod left, the scheduler free) at least one call
    # before the burst: that cycle made it, this one chose the pods already going
    ([[NEW, GOING], [GOING]], 10.25, [GOING], 10.0),
    # the next cycle comes too late to have made the burst: it is this one's
    ([[NEW, GOING], [GOING]], 10.28, [NEW, GOING], 10.27),
    # this cycle cannot choose only pods already going: it made the burst, whatever comes later
    ([[NEW, GOING]], 10.25, [NEW, GOING], 10.27),
], ids=["burst-follows-this-cycle", "a-later-cycle-made-the-burst", "the-later-cycle-is-too-late",
        "no-choice-of-pods-already-going"])
def test_the_cycle_that_made_a_recorded_burst_is_the_last_one_before_it(alternatives, next_cycle, want, at) -> None:
    matched, when = follow_choice(_Rec(alternatives), 10.0, [BURST], LATENCY, _next_cycle_at(next_cycle))
    assert matched == want
    assert when == pytest.approx(at)


def test_with_no_burst_near_a_cycle_that_can_choose_only_pods_already_going_chose_them() -> None:
    # such a decision makes no call (executor.go prepareCandidateAsync): it leaves no sign
    assert follow_choice(_Rec([[NEW, GOING], [GOING]]), 10.0, [], LATENCY) == ([GOING], 10.0)
    assert follow_choice(_Rec([[NEW, GOING]]), 10.0, [], LATENCY) == (None, 10.0)


@dataclass
class _Ev:
    kind: str
    type: str
    obj: dict[str, Any]
    time: float
    key: str = ""


def _pod_ev(t: float, typ: str, node: str = "", phase: str = "Running") -> _Ev:
    obj = {"metadata": {"uid": "u1", "name": "p"}, "spec": {"nodeName": node} if node else {},
           "status": {"phase": phase}}
    return _Ev("Pod", typ, obj, t)


@pytest.mark.parametrize("events, leaves", [
    # the informer lists only pods that are not terminal: turning Failed is the leave, the later
    # delete of the Failed pod no event
    ([_pod_ev(1, "ADDED", "n1"), _pod_ev(2, "MODIFIED", "n1", "Failed"), _pod_ev(3, "DELETED", "n1", "Failed")], [2]),
    # deleted while running: the delete is the leave
    ([_pod_ev(1, "ADDED", "n1"), _pod_ev(3, "DELETED", "n1")], [3]),
    # a pending pod is not the scheduler cache's: no leave
    ([_pod_ev(1, "ADDED"), _pod_ev(3, "DELETED")], []),
    ([_pod_ev(1, "ADDED", "n1", "Succeeded"), _pod_ev(2, "DELETED", "n1", "Succeeded")], []),
], ids=["failed-then-deleted", "deleted-running", "pending", "terminal-from-the-start"])
def test_a_bound_pod_leaves_the_schedulers_view_when_it_turns_terminal_or_is_deleted(events, leaves) -> None:
    assert recorded_leaves(events) == leaves


def test_follow_keeps_a_pending_pods_recorded_pod_scheduled_condition_for_the_next_status_patch() -> None:
    """schedule_one.go updatePod patches only a changed PodScheduled condition or nomination: the
    recorded scheduler's status patch of a pending pod is what its next FailureHandler compares
    with, though the scheduler does not react to it."""
    cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/1 nodes are available: 1 Insufficient cpu."}
    tl = normalize(trace(ev(0, "ADDED", make_node("n1").alloc(cpu="1", memory="4Gi").obj()),
                         ev(1, "ADDED", make_pod("p").req(cpu="2").obj()),
                         ev(2, "MODIFIED", make_pod("p").req(cpu="2").set("status.conditions", [cond]).obj()),
                         end=10))
    fol = Follow(tl, default_config())
    for e in tl.events[:2]:
        fol.apply(e)
    pod = fol.state.cluster.pods["default/p"]
    assert [c["message"] for c in pod.status.get("conditions") or ()] == [cond["message"]]


def test_a_pod_the_recording_starts_with_leaves_when_its_first_event_shows_it_ended() -> None:
    assert recorded_leaves([_pod_ev(2, "MODIFIED", "n1", "Failed"), _pod_ev(3, "DELETED", "n1", "Failed")]) == [2]


def test_a_gang_members_preemption_under_another_order_of_the_members_moved_in_together_is_tied() -> None:
    """Without workload-aware preemption each member preempts on its own node inside the group's
    cycle, the members taken by priority, then first attempt (podGroupInfoForPod). c completes
    minCount and is tried first; a and b, waiting at PreEnqueue, are moved in after it by one
    event in a Go map's order (movePodsToActiveOrBackoffQueue over unschedulablePods). Victims of
    priority 1, 2, 3 on n1, n2, n3: c takes n1, the next member n2, the last n3. The cluster's b
    preempted on n2: b was moved in before a, an order the replay's own (a first) is not."""
    from tests.builders import make_gang
    gates = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": False}

    def member(name: str) -> Any:
        return make_pod(name).ns("gang").priority(1000).req(cpu="2", memory="1Gi").in_pod_group("g")

    disruption = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                   "message": "default-scheduler: preempting to accommodate a higher priority pod"}]
    low = [make_pod(f"l{i}").ns("batch").priority(i).req(cpu="2", memory="1Gi").on(f"n{i}") for i in (1, 2, 3)]
    tr = trace(*[ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="2", memory="8Gi").obj()) for i in (1, 2, 3)],
               *[ev(0, "ADDED", p.obj()) for p in low],
               ev(0, "ADDED", make_gang("g", 3, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("a").obj()), ev(2, "ADDED", member("b").obj()), ev(3, "ADDED", member("c").obj()),
               ev(3.2, "MODIFIED", low[1].set("metadata.deletionTimestamp", at(3.2))
                  .set("status.conditions", disruption).obj()),
               ev(3.3, "MODIFIED", member("b").nominated("n2").obj()),
               end=20)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=gates)
    [row] = [p for p in report["preemptions"] if p["preemptor"] == "gang/b"]
    assert row["node"] == "n2" and row["victims"] == ["batch/l2"]
    assert row["replayed"]["node"] == "n3"  # the replay's own order: a before b
    assert "n2" in row["replayed"]["tiedNodes"] and row["agrees"] is True, row["differences"]


def test_a_groups_choice_made_without_a_write_recorded_just_before_the_cycle_is_undecidable() -> None:
    """A pod-group cycle decides on what its informer delivered: a kubelet's end of a pod recorded
    at the cycle's instant may not have reached it. Here the cluster evicted two of n1's four
    1-cpu fillers (tied: which ones is a Go map's order) for a 2-cpu gang, the choice of a cycle
    that had not seen f0 end; with f0 gone one eviction makes room. The row says the trace cannot
    decide, and names the write."""
    from tests.builders import make_gang
    gates = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}

    def filler(i: int) -> Any:
        return make_pod(f"f{i}").ns("batch").priority(10).req(cpu="1", memory="1Gi").on("n1") \
            .start_time("2026-03-01T09:00:00Z")

    def preempted(victim: str, t: float) -> dict[str, Any]:
        return ev(t, "ADDED", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{victim}.1", "namespace": "batch"},
                               "reason": "Preempted", "message": "Preempted by podgroup uid-pg-gang-g on node cluster",
                               "involvedObject": {"kind": "Pod", "namespace": "batch", "name": victim, "uid": f"uid-{victim}"},
                               "related": {"kind": "PodGroup", "namespace": "gang", "name": "g"}})

    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
               *[ev(0, "ADDED", filler(i).obj()) for i in range(4)],
               ev(0, "ADDED", make_gang("g", 1, namespace="gang", priority=1000)),
               ev(5, "MODIFIED", filler(0).set("status.phase", "Failed").obj()),
               ev(5, "ADDED", make_pod("t-0").ns("gang").priority(1000).req(cpu="2", memory="1Gi").in_pod_group("g").obj()),
               preempted("f1", 5.05), preempted("f2", 5.06), end=20)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=gates)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")][:1]
    assert sorted(row["victims"]) == ["batch/f1", "batch/f2"]
    assert row["agrees"] is None
    assert row["replayed"]["undecidableFromTrace"] == [f"pod batch/f0 on n1 Failed at {at(5)}"]


def test_a_cycle_that_took_only_pods_already_going_waits_for_the_next_change_of_the_cluster() -> None:
    """f0 (going) and f1 tie as victim units; the search's own order takes f1, the recording shows
    no burst, so the cluster's choice was f0, which makes no call (prepareCandidateAsync) and holds
    nothing. Such a cycle changed nothing: the group's members wait until the cluster changes
    (t=2 and t=3, a pending pod each), one cycle per change, whatever the search's own order."""
    from tests.builders import make_gang
    gates = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}

    def filler(name: str) -> dict[str, Any]:
        b = make_pod(name).ns("batch").priority(10).req(cpu="2", memory="1Gi").on("n1") \
            .start_time("2026-03-01T09:00:00Z").set("spec.terminationGracePeriodSeconds", 30)
        if name == "f0":
            b = b.set("metadata.deletionTimestamp", at(30)).set("metadata.deletionGracePeriodSeconds", 30)
        return b.obj()

    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
               ev(0, "ADDED", filler("f0")), ev(0, "ADDED", filler("f1")),
               ev(0, "ADDED", make_gang("g", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", make_pod("t-0").ns("gang").priority(1000).req(cpu="2", memory="1Gi").in_pod_group("g").obj()),
               *[ev(t, "ADDED", make_pod(f"p{t}").ns("batch").priority(5).req(cpu="1", memory="1Gi").obj()) for t in (2, 3)],
               end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=gates)
    rows = [p for p in report["preemptions"] if p.get("podGroup")]
    assert [(p["time"], p["victims"]) for p in rows] == [(at(t), ["batch/f0"]) for t in (1, 2, 3)]
    assert rows[0]["replayed"]["victims"] == ["batch/f1"]  # the search's own order


def test_a_member_that_fitted_while_its_group_waits_on_preemption_is_nominated_before_the_recording_shows_it() -> None:
    """A gang of two: one member fits on n1, the other needs f1 gone from n2, so the group waits on
    its preemption and the member that fitted comes back nominated where it fitted
    (submitPodGroupAlgorithmResult: FailureHandler with the SuggestedHost). FailureHandler puts the
    nomination in the scheduler's nominator at once (handleSchedulingFailure), before the status
    patch the recording would show: here the recording shows none, and the nominator holds it."""
    from tests.builders import make_gang
    from kubectl_preempt.replay.api import run_spec
    from kubectl_preempt.replay.whatif import PriorityPolicy
    gates = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}

    def member(name: str) -> dict[str, Any]:
        return make_pod(name).ns("gang").priority(1000).req(cpu="2", memory="1Gi").in_pod_group("g").obj()

    burst = ev(1.05, "ADDED", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "f1.1", "namespace": "batch"},
                               "reason": "Preempted", "message": "Preempted by podgroup uid-pg-gang-g on node cluster",
                               "involvedObject": {"kind": "Pod", "namespace": "batch", "name": "f1", "uid": "uid-f1"},
                               "related": {"kind": "PodGroup", "namespace": "gang", "name": "g"}})
    tr = trace(*[ev(0, "ADDED", make_node(n).alloc(cpu="2", memory="8Gi").obj()) for n in ("n1", "n2")],
               ev(0, "ADDED", make_pod("f1").ns("batch").priority(10).req(cpu="2", memory="1Gi").on("n2").obj()),
               ev(0, "ADDED", make_gang("g", 2, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("a")), ev(1, "ADDED", member("b")), burst, end=3)
    spec = run_spec(tr, kubernetes_version="v1.36", feature_gates=gates)
    fol = Follow(spec.timeline, spec.config, policy=PriorityPolicy(spec.priority_classes)).run()
    assert [p["victims"] for p in fol.preemptions] == [["batch/f1"]]
    nominated = [p.key for p in fol.state.nominator.nominated_pods_for_node("n1")]
    assert len(nominated) == 1 and fol.state.cluster.pods[nominated[0]].nominated_node_name == "n1"
