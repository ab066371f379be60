"""Two replays of one trace compared pod by pod."""
from __future__ import annotations

import pytest

from kubectl_preempt.check import diff as d
from kubectl_preempt.check.diff import PodOutcome, diff_outcomes, pod_changes, totals
from kubectl_preempt.model.objects import Pod
from tests.builders import make_pod


def o(**kw) -> PodOutcome:
    base = {"key": "ns/p", "uid": "u", "priority": 10, "priority_class": "c"}
    base.update(kw)
    return PodOutcome(**base)


VICTIM_A = dict(preempted_by="ns/a", preempted_on="n1", preempted_at=5.0)
VICTIM_B = dict(preempted_by="ns/b", preempted_on="n1", preempted_at=5.0)
VICTIM_A_N2 = dict(preempted_by="ns/a", preempted_on="n2", preempted_at=5.0)


@pytest.mark.parametrize("base, prop, changes", [
    (None, o(**VICTIM_A), [d.NEWLY_PREEMPTED]),
    (o(**VICTIM_A), None, [d.NO_LONGER_PREEMPTED]),
    (o(**VICTIM_A), o(**VICTIM_B), [d.DIFFERENT_PREEMPTOR]),
    (o(**VICTIM_A), o(**VICTIM_A_N2), [d.DIFFERENT_PREEMPTOR]),
    (o(**VICTIM_A), o(**VICTIM_A), []),
    (o(node="n1", bound_at=1.0), o(last_message="0/1 nodes are available"), [d.NEWLY_UNSCHEDULABLE]),
    (o(node="n1", bound_at=1.0), None, [d.NEWLY_UNSCHEDULABLE]),
    (o(last_message="0/1 nodes are available"), o(node="n1", bound_at=1.0), [d.NEWLY_SCHEDULED]),
    (o(node="n1"), o(node="n2"), [d.DIFFERENT_NODE]),
    (o(node="n1"), o(node="n1"), []),
    (o(node="n1"), o(node="n2", **VICTIM_A_N2), [d.NEWLY_PREEMPTED, d.DIFFERENT_NODE]),
    (o(last_message="x"), o(last_message="y"), []),
    (o(deleted="deleted"), o(deleted="deleted"), []),
], ids=[
    "a victim only with the proposed classes is newly preempted",
    "a victim only with the baseline is no longer preempted",
    "a victim of another preemptor",
    "a victim of the same preemptor on another node",
    "the same victim of the same preemptor is no change",
    "scheduled before and pending after is newly unschedulable",
    "scheduled before and never tried after is newly unschedulable",
    "pending before and scheduled after is newly scheduled",
    "scheduled on another node",
    "scheduled on the same node is no change",
    "scheduled elsewhere and then preempted there is two changes",
    "pending in both with other messages is no change",
    "deleted before scheduling in both is no change",
])
def test_pod_changes(base, prop, changes) -> None:
    assert pod_changes(base, prop) == changes


def test_entries_put_the_most_serious_change_first_then_pods_by_name() -> None:
    base = {"u1": o(key="z/late", uid="u1", node="n1"), "u2": o(key="a/first", uid="u2", node="n1"),
            "u3": o(key="m/victim", uid="u3")}
    prop = {"u1": o(key="z/late", uid="u1", node="n2"), "u2": o(key="a/first", uid="u2", node="n3"),
            "u3": o(key="m/victim", uid="u3", **VICTIM_A)}
    entries = diff_outcomes(base, prop)
    assert [e["pod"] for e in entries] == ["m/victim", "a/first", "z/late"]
    assert entries[0]["namespace"] == "m"
    assert entries[0]["proposed"] == {"outcome": d.PREEMPTED, "priority": 10, "preemptedBy": "ns/a", "node": "n1",
                                      "time": "1970-01-01T00:00:05Z"}


def test_a_side_without_events_is_running_or_still_pending() -> None:
    [victim] = diff_outcomes({}, {"u": o(**VICTIM_A)})
    assert victim["baseline"] == {"outcome": d.RUNNING, "priority": 10}
    [late] = diff_outcomes({"u": o(node="n1")}, {})
    assert late["proposed"] == {"outcome": d.PENDING}


def test_totals_count_each_change_and_each_pod_once() -> None:
    entries = [{"changes": [d.NEWLY_PREEMPTED, d.DIFFERENT_NODE]}, {"changes": [d.NEWLY_PREEMPTED]}]
    t = totals(entries)
    assert t[d.NEWLY_PREEMPTED] == 2 and t[d.DIFFERENT_NODE] == 1 and t["podsChanged"] == 2
    assert t[d.NO_LONGER_PREEMPTED] == 0


def test_the_recorder_keeps_each_pods_latest_facts() -> None:
    rec = d.OutcomeRecorder()
    pod = Pod(make_pod("web").priority(5).obj())
    other = Pod(make_pod("big").priority(50).obj())
    rec.unschedulable(1.0, pod, "0/1 nodes are available: 1 Insufficient cpu.")
    rec.nominated(2.0, pod, "n1")
    rec.bound(3.0, pod, "n1")
    rec.preempted(9.0, pod, other, "n1")
    rec.deleted(39.0, pod, "preempted")
    out = rec.pods[pod.uid]
    assert (out.node, out.preempted_by, out.last_message, out.deleted) == ("n1", "default/big", "", "")
    assert out.outcome == d.PREEMPTED
    gone = Pod(make_pod("gone").obj())
    rec.unschedulable(1.0, gone, "no")
    rec.deleted(2.0, gone, "deleted")
    assert rec.pods[gone.uid].outcome == d.DELETED


def test_a_pod_running_from_the_start_that_ends_is_running_with_its_end() -> None:
    rec = d.OutcomeRecorder()
    pod = Pod(make_pod("etl").priority(5).on("n1").obj())
    rec.deleted(60.0, pod, "completed")
    out = rec.pods[pod.uid]
    assert out.outcome == d.RUNNING and (out.ended, out.deleted) == ("completed", "")
    assert out.to_dict() == {"outcome": d.RUNNING, "priority": 5, "ended": "completed",
                             "endedAt": "1970-01-01T00:01:00Z"}


def test_a_victim_going_after_its_grace_period_stays_a_victim() -> None:
    rec = d.OutcomeRecorder()
    pod = Pod(make_pod("etl").priority(5).on("n1").obj())
    rec.preempted(10.0, pod, Pod(make_pod("big").obj()), "n1")
    rec.deleted(40.0, pod, "preempted")
    assert rec.pods[pod.uid].outcome == d.PREEMPTED and "ended" not in rec.pods[pod.uid].to_dict()
