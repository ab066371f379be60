"""Pod groups in a replay (replay/podgroups.py): a gang's members enter one cycle together and bind
together, a gang that can never fit waits without spinning the replay, a workload-aware preemption
is a row of the PodGroup on node "cluster" whose calls hold the group, and the queue's rules for a
group's members (scheduler/backend/queue.py pop_specific, group_member)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.scheduler.backend.queue import BACKOFF, ERROR_BACKOFF, IN_FLIGHT, SchedulingQueue
from tests.builders import make_gang, make_node, make_pod

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener

from .helpers import START, at, ev, trace


class Log(Listener):
    def __init__(self) -> None:
        self.binds: dict[str, tuple[float, str]] = {}

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.binds[pod.key] = (t, node)

GATES = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}


def nodes(n: int) -> list[dict[str, Any]]:
    return [ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="4", memory="16Gi").obj()) for i in range(1, n + 1)]


def member(name: str, group: str, cpu: str, prio: int = 1000) -> dict[str, Any]:
    return make_pod(name).ns("gang").priority(prio).req(cpu=cpu, memory="1Gi").in_pod_group(group).obj()


def run(tr: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], Log]:
    log = Log()
    return replay(tr, listener=log, kubernetes_version="v1.36", feature_gates=GATES, **kw), log


def test_a_gangs_members_bind_together_once_the_last_of_them_arrives() -> None:
    """gangscheduling.go PreEnqueue holds members until minCount exist; the one that completes the
    gang starts the cycle (addPodToSchedulingQueue's UnscheduledPodAdd moves the others in)."""
    tr = trace(*nodes(2), ev(0, "ADDED", make_gang("train", 3, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), ev(2, "ADDED", member("t-1", "train", "2")),
               ev(3, "ADDED", member("t-2", "train", "2")), end=30)
    report, log = run(tr)
    assert {k: round(t - START, 3) for k, (t, _) in log.binds.items()} == {"gang/t-0": 3, "gang/t-1": 3, "gang/t-2": 3}
    assert report["preemptions"] == []


def test_a_gang_that_never_fits_waits_without_a_decision_and_the_replay_ends() -> None:
    """A group whose cycles fail alike is set aside until something changes (the real scheduler
    retries it from backoffQ whenever idle); nothing binds, nothing is preempted."""
    tr = trace(*nodes(2), ev(0, "ADDED", make_gang("huge", 3, namespace="gang", priority=1000)),
               *[ev(1, "ADDED", member(f"h-{i}", "huge", "3")) for i in range(3)], end=600)
    report, log = run(tr)
    assert log.binds == {} and report["preemptions"] == []
    assert sorted(p["pod"] for p in report["summary"]["neverScheduled"]) == ["gang/h-0", "gang/h-1", "gang/h-2"]


def test_a_workload_aware_preemption_is_a_row_of_the_pod_group_on_the_cluster() -> None:
    tr = trace(*nodes(2),
               *[ev(0, "ADDED", make_pod(f"f{i}").ns("batch").priority(10).req(cpu="2", memory="1Gi")
                    .on(f"n{i % 2 + 1}").set("spec.terminationGracePeriodSeconds", 5).obj()) for i in range(4)],
               ev(0, "ADDED", make_gang("train", 2, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), ev(1, "ADDED", member("t-1", "train", "2")), end=60)
    report, log = run(tr)
    first, again = report["preemptions"]
    assert (first["preemptor"], first["node"], first["podGroup"]) == ("gang/train", "cluster", True)
    assert len(first["victims"]) == 2 and all(d["unitKind"] == "Pod" for d in first["victimDetails"])
    # the first victim gone, the group is tried again while the other still terminates: no
    # nomination held its room, so it preempts again (choosing the one already going: no new call)
    assert again["victims"] == [first["victims"][1]] and again["victimDetails"][0]["alreadyTerminating"]
    # the members wait for the victims and bind once they are gone (grace period 5 s)
    assert {k for k in log.binds} == {"gang/t-0", "gang/t-1"}
    assert all(t - START > 6 for t, _ in log.binds.values())


def test_pop_specific_takes_a_member_from_backoff_and_leaves_a_gated_one() -> None:
    """scheduling_queue.go PopSpecificPod: activated, then popped; one its PreEnqueue holds stays."""
    held: set[str] = set()
    q = SchedulingQueue(lambda: 10.0, pre_enqueue=lambda p: (p.name not in held, "Gang" if p.name in held else ""))
    a, b = Pod(make_pod("a").obj()), Pod(make_pod("b").obj())
    for p in (a, b):
        info = q.add(p)
        got = q.pop()
        assert got is info
        q.add_unschedulable_if_not_present(info, {"NodeResourcesFit"}, group_member=True)
        assert info.where == BACKOFF  # a group's member is retried after its backoff, never parked on events
    assert q.pop_specific(a).where == IN_FLIGHT
    info = q.infos[b.uid]
    q.add_unschedulable_if_not_present(q.pop_specific(b), set(), group_member=True)
    assert info.where == ERROR_BACKOFF  # no rejecting plugin (the group's failure): an error's backoff
    q.add_unschedulable_if_not_present(q.pop_specific(b), set(), group_member=True)
    held.add("b")
    q.add_unschedulable_if_not_present(q.pop_specific(b), set(), group_member=True)
    assert info.where == "unschedulable" and info.gating_plugin == "Gang"  # held at PreEnqueue on its way back
    assert q.pop_specific(b) is None


def test_follow_reports_a_workload_aware_preemption_by_its_pod_group() -> None:
    tr = trace(*nodes(1),
               *[ev(0, "ADDED", make_pod(f"f{i}").ns("batch").priority(10).req(cpu="2", memory="1Gi").on("n1").obj())
                 for i in range(2)],
               ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")]
    assert (row["preemptor"], row["node"], row["time"]) == ("gang/train", "cluster", at(1))
    assert row["replayed"]["node"] == "cluster" and len(row["replayed"]["victims"]) == 1


def _preempted_event(victim: str, group: str, t: float) -> dict[str, Any]:
    """The scheduler's Preempted event of a workload-aware preemption (executor.go: related to
    the PodGroup, "Preempted by podgroup <uid> on node cluster")."""
    return ev(t, "ADDED", {"apiVersion": "v1", "kind": "Event",
                           "metadata": {"name": f"{victim}.1", "namespace": "batch"},
                           "reason": "Preempted", "message": f"Preempted by podgroup uid-pg-gang-{group} on node cluster",
                           "involvedObject": {"kind": "Pod", "namespace": "batch", "name": victim, "uid": f"uid-{victim}"},
                           "related": {"kind": "PodGroup", "namespace": "gang", "name": group}})


def _tied_fillers() -> list[dict[str, Any]]:
    # two fillers of equal priority, size and start on n1: which one goes is a Go map's order
    return [ev(0, "ADDED", make_pod(f"f{i}").ns("batch").priority(10).req(cpu="2", memory="1Gi").on("n1")
               .start_time("2026-03-01T09:00:00Z").obj()) for i in range(2)]


def test_follow_agrees_when_the_search_makes_the_recorded_choice_for_some_order_of_tied_units() -> None:
    """podgrouppreemption.go ranges its units from a map: the recording's victim (f1) is not the
    replay's own order's, but one the search makes; the row agrees and names the recorded one."""
    tr = trace(*nodes(1), *_tied_fillers(), ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), _preempted_event("f1", "train", 1.05), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")]
    assert row["agrees"] is True and row["differences"] == []
    assert row["victims"] == ["batch/f1"]
    assert ["batch/f1"] in row["replayed"]["victimAlternatives"]


def _victim_condition(victim: str, t: float) -> dict[str, Any]:
    """A workload-aware preemption's victim as the recording shows it without Events: its
    DisruptionTarget condition (executor.go PreemptPod: "<scheduler>: preempting to accommodate a
    higher priority podgroup"), which names no group."""
    return ev(t, "MODIFIED", make_pod(victim).ns("batch").priority(10).req(cpu="2", memory="1Gi").on("n1")
              .start_time("2026-03-01T09:00:00Z")
              .set("status.conditions", [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                                          "message": "default-scheduler: preempting to accommodate a higher priority "
                                                     "podgroup"}]).obj())


def test_follow_without_events_takes_the_recorded_choice_from_the_victims_conditions() -> None:
    """A trace recorded without Events (record skips a kind it may not read): the victims'
    DisruptionTarget conditions are the recording's choice. They name no group, so a burst of them
    is any group's whose search makes exactly that choice (follow_choice), here f1 of two tied fillers."""
    tr = trace(*nodes(1), *_tied_fillers(), ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), _victim_condition("f1", 1.03), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")]
    assert row["agrees"] is True and row["differences"] == []
    assert row["victims"] == ["batch/f1"]


def test_follow_with_events_keeps_their_attribution_over_the_conditions() -> None:
    # the same victim with its Event: the Event's group decides, as before; the condition adds no burst
    tr = trace(*nodes(1), *_tied_fillers(), ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), _victim_condition("f1", 1.03),
               _preempted_event("f1", "train", 1.05), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")]
    assert row["agrees"] is True and row["victims"] == ["batch/f1"]


def test_follow_differs_when_no_recorded_burst_is_a_choice_the_search_makes() -> None:
    # the recording shows both fillers evicted at once, where one makes room: not this cycle's choice
    tr = trace(*nodes(1), *_tied_fillers(), ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), _preempted_event("f0", "train", 1.05),
               _preempted_event("f1", "train", 1.06), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")][:1]
    assert (row["verdict"], row["agrees"]) == ("differs", False) and "no burst" in row["differences"][0]
    assert row["victims"] == row["replayed"]["victims"]


def test_a_pod_groups_follow_rows_carry_a_verdict_the_table_and_summary_count() -> None:
    # the recorded victim f1 is another order's choice than the replay's own (f0): tied, as a
    # pod's row whose recorded node the replay finds equally possible; counted as explained
    from kubectl_preempt.render.replay import render_replay

    tr = trace(*nodes(1), *_tied_fillers(), ev(0, "ADDED", make_gang("train", 1, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("t-0", "train", "2")), _preempted_event("f1", "train", 1.05), end=10)
    report = replay(tr, mode="follow", kubernetes_version="v1.36", feature_gates=GATES)
    [row] = [p for p in report["preemptions"] if p.get("podGroup")]
    own = row["replayed"]["victims"]
    assert row["verdict"] == ("agrees" if own == ["batch/f1"] else "tied")
    s = report["summary"]
    assert s["explained"] == 1 and s["agree"] + s["tied"] == 1 and s["notExplained"] == 0
    text = render_replay(report)
    assert "not explained" not in text


def test_a_pod_groups_victims_leave_as_the_trace_measured_pods_like_them_leaving() -> None:
    """A workload-aware preemption's victims leave as a pod's victims do (replay/preemption_calls.py,
    controllers.LeaveTimes): after the time the trace measured pods like them taking from their
    delete call to leaving (here 1 s in namespace batch, grace 5), not all at the end of one grace
    period; the gang binds as soon as they are gone."""
    old = make_pod("old").ns("batch").priority(10).req(cpu="1", memory="1Gi").on("n3") \
        .set("spec.terminationGracePeriodSeconds", 5).obj()
    going = make_pod("old").ns("batch").priority(10).req(cpu="1", memory="1Gi").on("n3") \
        .set("spec.terminationGracePeriodSeconds", 5).set("metadata.deletionTimestamp", at(7)) \
        .set("metadata.deletionGracePeriodSeconds", 5).obj()
    tr = trace(*nodes(2), ev(0, "ADDED", make_node("n3").alloc(cpu="1", memory="16Gi").obj()),
               ev(0, "ADDED", old), ev(2, "MODIFIED", going), ev(3, "DELETED", going),
               *[ev(0, "ADDED", make_pod(f"f{i}").ns("batch").priority(10).req(cpu="2", memory="1Gi")
                    .on(f"n{i % 2 + 1}").set("spec.terminationGracePeriodSeconds", 5).obj()) for i in range(4)],
               ev(0, "ADDED", make_gang("train", 2, namespace="gang", priority=1000)),
               ev(10, "ADDED", member("t-0", "train", "2")), ev(10, "ADDED", member("t-1", "train", "2")), end=60)
    report, log = run(tr)
    first = report["preemptions"][0]
    assert [(d["leavesAfterSeconds"], d["leaveFigure"]) for d in first["victimDetails"]] == [(1.0, "namespace batch")] * 2
    assert {k for k in log.binds} == {"gang/t-0", "gang/t-1"}
    assert all(10 < t - START < 12 for t, _ in log.binds.values())


def test_a_pod_groups_preemption_holds_it_until_its_last_victims_deletion_is_seen() -> None:
    """executor.go isRunningPreemption: the group stays in `preempting` while its last victim
    (lastVictimsPendingPreemption) has no deletionTimestamp, so the release plan_calls places before
    the last victim's calls moves to that victim's delete, the delete first at that instant."""
    from kubectl_preempt.scheduler.backend.api_dispatcher import plan_calls
    preemptor = Pod(make_pod("train").ns("gang").obj())
    victims = [Pod(make_pod(f"v{i}").ns("batch").on("n1").obj()) for i in range(3)]
    calls = plan_calls(preemptor, victims, [], 0.0, 0.1)
    assert [c.what for c in calls if c.at < 0.35].count("release") == 1  # before the last victim's calls
    held = plan_calls(preemptor, victims, [], 0.0, 0.1, release_after_last_delete=True)
    assert [(c.what, c.pod.name, round(c.at, 3)) for c in held][-2:] == [("delete", "v2", 0.4), ("release", "train", 0.4)]
    assert sorted((c.what, c.pod.name) for c in held) == sorted((c.what, c.pod.name) for c in calls)
    assert plan_calls(preemptor, [], [], 0.0, 0.1, release_after_last_delete=True) == []


def _row(preemptor: str, node: str, *victims: str) -> dict[str, Any]:
    return {"preemptor": preemptor, "node": node, "victims": list(victims),
            "victimDetails": [{"pod": v} for v in victims]}


@pytest.mark.parametrize("decisions, entries", [
    pytest.param([(0, "a", "n1", "v1"), (8, "a", "n1", "v2"), (16, "a", "n1", "v3")],
                 [("a", "n1", 3, ["v1", "v2", "v3"])],
                 id="decisions each within 10 s of the one before are one entry, however long the chain"),
    pytest.param([(0, "a", "n1", "v1"), (10.5, "a", "n1", "v2")],
                 [("a", "n1", 1, ["v1"]), ("a", "n1", 1, ["v2"])],
                 id="a decision more than 10 s after the entry's last starts a new entry"),
    pytest.param([(0, "a", "n1", "v1"), (1, "a", "n2", "v2"), (2, "b", "n1", "v1")],
                 [("a", "n1", 1, ["v1"]), ("a", "n2", 1, ["v2"]), ("b", "n1", 1, ["v1"])],
                 id="another node or another preemptor is another entry"),
])
def test_a_members_decisions_merge_as_the_clusters_record_merges_them(decisions, entries) -> None:
    from kubectl_preempt.replay.podgroups import Repeats
    rep, rows = Repeats(), []
    for t, who, node, victim in decisions:
        row = _row(who, node, victim)
        if not rep.merge(row, t):
            rows.append(row)
    assert [(r["preemptor"], r["node"], r["schedulerDecisions"], r["victims"]) for r in rows] == entries


# replay/podgroups.py Spin.set_aside: a cycle that changed nothing sets aside only the members the
# queue would hand out again; one FailureHandler parked in unschedulablePods (here gated by
# DefaultPreemption's PreEnqueue while its own preemption's calls run, with no rejecting plugin of
# its own) stays parked when the cluster changes, as upstream's queue leaves it
# (scheduling_queue.go moveToBackoffQ, default_preemption.go isPodSchedulableAfterPodDeletion).
SPIN_CASES = [
    pytest.param(set(), {"a": BACKOFF, "b": ERROR_BACKOFF},
                 id="members waiting out their backoff are set aside and come back to their backoff"),
    pytest.param({"b"}, {"a": BACKOFF, "b": "unschedulable"},
                 id="a member gated at PreEnqueue stays parked in unschedulablePods when the cluster changes"),
]


@pytest.mark.parametrize("gated,after", SPIN_CASES)
def test_a_spinning_groups_members_set_aside(gated: set[str], after: dict[str, str]) -> None:
    from kubectl_preempt.replay.podgroups import Spin
    held: set[str] = set()
    q = SchedulingQueue(lambda: 10.0, pre_enqueue=lambda p: (p.name not in held,
                                                             "DefaultPreemption" if p.name in held else ""))
    infos = {}
    for name, plugins in (("a", {"NodeResourcesFit"}), ("b", set())):
        info = infos[name] = q.add(Pod(make_pod(name).obj()))
        assert q.pop() is info
        held.update(gated & {name})
        q.add_unschedulable_if_not_present(info, plugins, group_member=True)
    world = [0]
    spin = Spin(lambda: world[0])
    spin.set_aside("gang/g", q, infos.values())
    assert {n: i.where for n, i in infos.items()} == {"a": IN_FLIGHT, "b": after["b"] if gated else IN_FLIGHT}
    held.clear()  # its preemption's calls are done: PreEnqueue would let it through now
    world[0] += 1  # the cluster changed
    spin.release(q)
    assert {n: i.where for n, i in infos.items()} == after


def test_members_whose_own_preemptions_still_run_when_they_come_back_all_park() -> None:
    """WorkloadAwarePreemption off, a gang that cannot fit (three 3-cpu members, two 4-cpu nodes):
    h-2 and h-0 preempt on n1 and n2 inside the group's cycle, h-1 finds no node. Back in the
    queue (schedule_one.go handleSchedulingFailure: the group's failure is no FitError, so no
    rejecting plugin) h-2 and h-0 are held at PreEnqueue while their preemptions run
    (default_preemption.go PreEnqueue; executor.go isRunningPreemption: until the last victim's
    deletion is seen) and land in unschedulablePods (scheduling_queue.go moveToBackoffQ). h-1's
    next cycle, after the first cycle's status patches, finds them still held (PopSpecificPod
    leaves a gated pod) and preempts alone, and is parked the same way (h-2, which completed the
    gang, entered the queue first and leads the first cycle: podGroupInfoForPod's order). The
    victims' deletions requeue none of them (isPodSchedulableAfterPodDeletion: QueueSkip), so nothing more is
    decided after h-1's cycle: three preemptions, none again."""
    lows = [ev(0, "ADDED", make_pod(f"low-{n}-{i}").ns("batch").priority(10).req(cpu="1", memory="1Gi")
               .on(n).start_time("2026-03-01T09:00:00Z").set("spec.terminationGracePeriodSeconds", 5).obj())
            for n in ("n1", "n2") for i in range(4)]
    tr = trace(*nodes(2), *lows, ev(0, "ADDED", make_gang("huge", 3, namespace="gang", priority=1000)),
               *[ev(1, "ADDED", member(f"h-{i}", "huge", "3")) for i in range(3)], end=120)
    report = replay(tr, kubernetes_version="v1.36", feature_gates={"GenericWorkload": True, "GangScheduling": True})
    rows = [(p["preemptor"], p["node"], p["time"]) for p in report["preemptions"]]
    # h-2 completed the gang, so it was the first to enter the queue (addPodToSchedulingQueue)
    assert [r[0] for r in rows] == ["gang/h-2", "gang/h-0", "gang/h-1"]
    # h-1's cycle follows the first cycle's three status patches (45 ms each)
    assert [r[2] for r in rows] == [at(1), at(1), at(1.135)]
    summary = report["summary"]
    assert summary["decisions"] == 4  # the first cycle's three members, then h-1 alone
    parked = {p["pod"]: p["queue"] for p in summary["neverScheduled"]}
    assert parked == {f"gang/h-{i}": "unschedulable" for i in range(3)}


class _Bounded(Log):
    """Fails the replay once it has decided more than `most` members: a replay that would not end."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.left = most

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Any = None) -> None:
        self.left -= 1
        assert self.left > 0, f"still deciding {pod.key} at +{t - START:.3f}s: the replay does not end"


def test_two_groups_that_only_repeat_themselves_do_not_let_each_other_back_for_ever() -> None:
    """Two gangs, each with one member that fits (and waits at Permit) and one that needs room held
    by pods already terminating: each cycle's workload-aware preemption picks those pods again
    (no new victim), the fitting member stays nominated where it fitted, nothing changes. Each
    cycle takes its fitting member's nomination out of the nominator and puts it back
    (schedule_one_podgroup.py assumeAndReserve, then unreserveAndForget), which changes nothing:
    the other group, set aside until the cluster changes (replay/podgroups.py Spin), must stay
    aside. Before, the nominator's version counted as a change and the two groups let each
    other back at one instant for ever, from b's first cycles at +2 s. The low pod arriving at +5 s
    finds the nominated members holding both nodes' room: it stays pending."""
    def going(name: str, node: str) -> dict[str, Any]:
        return (make_pod(name).ns("batch").priority(10).req(cpu="3", memory="1Gi").on(node)
                .set("spec.terminationGracePeriodSeconds", 300).terminating("2026-01-01T00:00:00Z").obj())

    tr = trace(*nodes(2), ev(0, "ADDED", going("v1", "n1")), ev(0, "ADDED", going("v2", "n2")),
               ev(0, "ADDED", make_gang("a", 2, namespace="gang", priority=1000)),
               ev(0, "ADDED", make_gang("b", 2, namespace="gang", priority=1000)),
               ev(1, "ADDED", member("a-0", "a", "1")), ev(1, "ADDED", member("a-1", "a", "3")),
               ev(2, "ADDED", member("b-0", "b", "1")), ev(2, "ADDED", member("b-1", "b", "3")),
               ev(5, "ADDED", make_pod("x").ns("batch").priority(10).req(cpu="100m", memory="1Gi").obj()), end=600)
    log = _Bounded(100)
    report = replay(tr, listener=log, kubernetes_version="v1.36", feature_gates=GATES)
    assert log.binds == {}
    pending = {p["pod"]: p["nominatedNode"] for p in report["summary"]["neverScheduled"]}
    assert pending == {"gang/a-0": "n1", "gang/a-1": None, "gang/b-0": "n2", "gang/b-1": None, "batch/x": None}
    # every preemption picks pods already going: no delete call, no new victim
    assert report["preemptions"] and all(d["alreadyTerminating"] for p in report["preemptions"]
                                         for d in p["victimDetails"])


def test_members_the_cycle_stopped_before_are_retried_not_dropped() -> None:
    """schedule_one_podgroup.go: podGroupSchedulingDefaultAlgorithm stops at the first member whose
    cycle ends in an error; submitPodGroupAlgorithmResult still runs FailureHandler for every
    queued member, those never reached with the group's status, so they are retried: once the
    erring member is gone, the others bind together."""
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sc-nomode"},
          "provisioner": "example.com/p"}  # no volumeBindingMode: VolumeBinding's PreFilter errs
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "gang",
                                                                          "uid": "pvc-1"},
           "spec": {"storageClassName": "sc-nomode", "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Pending"}}
    erring = member("m1", "g", "1", prio=200)
    erring["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    tr = trace(*nodes(1), ev(0, "ADDED", make_gang("g", 2, namespace="gang", priority=100)),
               ev(0, "ADDED", sc), ev(0, "ADDED", pvc),
               ev(0, "ADDED", member("m0", "g", "1", prio=300)), ev(0, "ADDED", erring),
               ev(0, "ADDED", member("m2", "g", "1", prio=100)),
               ev(30, "DELETED", erring), end=60)
    _, log = run(tr)
    assert {k: round(t - START, 3) for k, (t, _) in log.binds.items()} == {"gang/m0": 30, "gang/m2": 30}


@pytest.mark.parametrize("release, gates, noted", [
    ("v1.36", [], True),
    ("v1.36", ["--feature-gates", "GenericWorkload=true"], False),
    ("v1.34", [], False),
])
def test_replay_notes_once_that_pods_naming_pod_groups_are_replayed_alone_with_generic_workload_off(
        tmp_path: Path, release: str, gates: list[str], noted: bool) -> None:
    # schedule_one.go ScheduleOne: without GenericWorkload a pod naming a PodGroup is scheduled by
    # scheduleOnePod, as any pod; v1.34's types have no such field at all (nothing to say)
    from kubectl_preempt.io.trace import write_trace
    from tests.conftest import run_cli

    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_gang("train", 2, namespace="ml", priority=10)]
    evs = [ev(0, "ADDED", o) for o in objs]
    evs += [ev(1, "ADDED", make_pod(f"w-{i}").ns("ml").req(cpu="1").in_pod_group("train").obj()) for i in range(2)]
    t = trace(*evs, end=10)
    write_trace(str(tmp_path / "g.jsonl"), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace",
                                            "startTime": t["header"]["startTime"]}, t["events"])
    run = run_cli(["replay", "g.jsonl", "--kubernetes-version", release, *gates, "-o", "json"], cwd=tmp_path)
    assert run.code == 0, run.err
    notes = [line for line in run.err.splitlines() if "GenericWorkload off" in line]
    assert notes == (["note: g.jsonl: 2 pods name PodGroup ml/train, which kube-scheduler v1.36.2 does not read with "
                      "GenericWorkload off: each is replayed alone, as any pod (--feature-gates "
                      "GenericWorkload=true,GangScheduling=true schedules them as gangs)"] if noted else [])
