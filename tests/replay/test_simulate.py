"""Simulate mode: the offline scheduler owns every pending pod; victims terminate after their grace
period; nominations are honoured and cleared; the recording's own scheduler actions are left out."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY as L
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pdb, make_pod, make_priority_class

from .helpers import at, ev, seconds, trace


class Log(Listener):
    def __init__(self) -> None:
        self.binds: dict[str, tuple[float, str]] = {}
        self.deletes: dict[str, tuple[float, str]] = {}
        self.nominations: list[tuple[float, str, str]] = []

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.binds[pod.key] = (t, node)

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        self.deletes[pod.key] = (t, reason)

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        self.nominations.append((t, pod.key, node))


def run(tr: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], Log, float]:
    log = Log()
    report = replay(tr, listener=log, **kw)
    from .helpers import START
    return report, log, START


def rel(log_entry: tuple[float, str], start: float) -> tuple[float, str]:
    return (round(log_entry[0] - start, 3), log_entry[1])


def test_victims_hold_their_resources_until_their_grace_period_ends_then_the_preemptor_binds() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("v1").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 20).on("n1").obj()),
        ev(0, "ADDED", make_pod("v2").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 20).on("n1").obj()),
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="3").obj()),
        end=120)
    report, log, start = run(tr)
    [p] = report["preemptions"]
    assert p["time"] == at(5)
    assert p["node"] == "n1"
    assert sorted(p["victims"]) == ["default/v1", "default/v2"]
    # asynchronous preemption: v1's delete call is made at 5 + 2L, v2's at 5 + 4L (see
    # test_async_preemption); each victim is gone its grace period later
    assert rel(log.deletes["default/v1"], start) == (round(25 + 2 * L, 3), "preempted")
    assert rel(log.deletes["default/v2"], start) == (round(25 + 4 * L, 3), "preempted")
    assert rel(log.binds["default/high"], start) == (round(25 + 4 * L, 3), "n1")
    assert report["summary"]["timeToSchedule"]["p50Seconds"] == round(20 + 4 * L, 3)


def test_a_victim_with_no_grace_period_is_gone_at_once() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("v").priority(1).req(cpu="4").set("spec.terminationGracePeriodSeconds", 0).on("n1").obj()),
        ev(3, "ADDED", make_pod("high").priority(1000).req(cpu="3").obj()),
        end=60)
    report, log, start = run(tr)
    # gone at its delete call, one status patch after the decision
    assert rel(log.deletes["default/v"], start) == (round(3 + 2 * L, 3), "preempted")
    assert rel(log.binds["default/high"], start) == (round(3 + 2 * L, 3), "n1")


def test_a_nominated_preemptor_keeps_its_room_from_lower_priority_pods() -> None:
    # n1 has 1 CPU free beside the victim; the preemptor is nominated there and needs 3, so a
    # low-priority pod asking for 1 CPU must wait, as the scheduler counts nominated pods of
    # higher priority as already there
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("v").priority(1).req(cpu="3").set("spec.terminationGracePeriodSeconds", 30).on("n1").obj()),
        ev(1, "ADDED", make_pod("high").priority(1000).req(cpu="3").obj()),
        ev(10, "ADDED", make_pod("small").priority(5).req(cpu="1").obj()),
        end=120)
    report, log, start = run(tr)
    assert rel(log.binds["default/high"], start) == (round(31 + 2 * L, 3), "n1")
    assert rel(log.binds["default/small"], start) == (round(31 + 2 * L, 3), "n1")
    # small fits n1 only once the victim is gone (with high counted there): as upstream, it takes
    # the already terminating victim as its own and is nominated too, with no new eviction
    high, small = report["preemptions"]
    assert (high["preemptor"], small["preemptor"]) == ("default/high", "default/small")
    assert small["time"] == at(10)
    assert small["victimDetails"][0]["alreadyTerminating"] is True
    assert [n[1:] for n in log.nominations] == [("default/high", "n1"), ("default/small", "n1")]


def test_a_higher_priority_preemptor_clears_lower_priority_nominations_on_its_node() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("v").priority(1).req(cpu="4").set("spec.terminationGracePeriodSeconds", 30).on("n1").obj()),
        ev(0, "ADDED", make_pod("mid").priority(100).req(cpu="4").obj()),
        ev(1, "ADDED", make_pod("top").priority(1000).req(cpu="4").obj()),
        end=120)
    report, log, start = run(tr)
    first, second = report["preemptions"]
    assert (first["preemptor"], first["victims"]) == ("default/mid", ["default/v"])
    # the victim is already terminating: top takes it over and clears mid's nomination
    assert second["preemptor"] == "default/top"
    assert second["why"]["clearedNominations"] == ["default/mid"]
    assert second["victimDetails"][0]["alreadyTerminating"] is True
    assert rel(log.binds["default/top"], start) == (round(30 + 2 * L, 3), "n1")
    assert "default/mid" not in log.binds
    never = report["summary"]["neverScheduled"]
    assert [n["pod"] for n in never] == ["default/mid"]
    assert never[0]["nominatedNode"] is None


def test_recorded_bindings_and_scheduler_deletions_are_left_out() -> None:
    pod = make_pod("web").priority(10).req(cpu="1")
    victim = make_pod("old").priority(1).req(cpu="1").on("n2")
    preempted = victim.set("metadata.deletionTimestamp", at(3)).set("status.conditions", [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]).obj()
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="1", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("old").priority(1).req(cpu="1").on("n2").obj()),
        ev(1, "ADDED", pod.obj()),
        ev(2, "MODIFIED", make_pod("web").priority(10).req(cpu="1").on("n2").obj()),
        ev(3, "MODIFIED", preempted),
        ev(33, "DELETED", preempted),
        end=60)
    report, log, start = run(tr)
    # bound by the replay at creation, on the node it scores best (the empty n1), not at 2 on n2
    assert rel(log.binds["default/web"], start) == (1.0, "n1")
    assert "default/old" not in log.deletes


def test_a_deletion_by_a_user_frees_room_for_a_waiting_pod() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("busy").priority(100).req(cpu="3").on("n1").obj()),
        ev(1, "ADDED", make_pod("wait").priority(100).req(cpu="2").obj()),
        ev(40, "DELETED", make_pod("busy").priority(100).req(cpu="3").on("n1").obj()),
        end=120)
    report, log, start = run(tr)
    assert report["preemptions"] == []
    assert rel(log.binds["default/wait"], start) == (40.0, "n1")
    assert report["summary"]["unschedulableAttempts"] == 1


def test_a_job_runs_in_the_replay_as_long_as_it_ran_in_the_recording() -> None:
    job = make_pod("job").priority(100).req(cpu="4")
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("hog").priority(100).req(cpu="4").on("n1").obj()),
        ev(1, "ADDED", job.obj()),
        # the recording had room elsewhere: the job ran from 2 to 12 (10 s)
        ev(2, "MODIFIED", make_pod("job").priority(100).req(cpu="4").on("n9").obj()),
        ev(12, "MODIFIED", make_pod("job").priority(100).req(cpu="4").on("n9").set("status.phase", "Succeeded").obj()),
        ev(50, "DELETED", make_pod("hog").priority(100).req(cpu="4").on("n1").obj()),
        end=200)
    report, log, start = run(tr)
    assert rel(log.binds["default/job"], start) == (50.0, "n1")
    assert rel(log.deletes["default/job"], start) == (60.0, "completed")


def test_what_if_priority_classes_apply_to_pods_created_during_the_trace() -> None:
    def objects(created_at: float) -> list[dict[str, Any]]:
        return [
            ev(0, "ADDED", make_priority_class("batch", 100)),
            ev(0, "ADDED", make_priority_class("web", 500)),
            ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
            ev(0, "ADDED", make_pod("web-0").priority(500).priority_class("web").req(cpu="4")
               .set("spec.terminationGracePeriodSeconds", 0).on("n1").obj()),
            ev(created_at, "ADDED", make_pod("etl").priority(100).priority_class("batch").req(cpu="2").obj()),
        ]

    recorded = replay(trace(*objects(1), end=60))
    assert recorded["preemptions"] == []
    proposed = [make_priority_class("batch", 1000)]
    what_if = replay(trace(*objects(1), end=60), priority_classes=proposed)
    [p] = what_if["preemptions"]
    assert (p["preemptor"], p["priority"], p["victims"]) == ("default/etl", 1000, ["default/web-0"])
    assert what_if["whatIf"]["priorityClasses"][0] == {"name": "batch", "value": 1000, "globalDefault": False,
                                                       "preemptionPolicy": "PreemptLowerPriority"}
    # a pod that already existed at the start keeps its recorded priority...
    existing = replay(trace(*objects(0), end=60), priority_classes=proposed)
    assert existing["preemptions"] == []
    # ...unless asked to re-resolve it
    reresolved = replay(trace(*objects(0), end=60), priority_classes=proposed, reresolve_existing=True)
    assert [p["preemptor"] for p in reresolved["preemptions"]] == ["default/etl"]


def test_pdb_status_follows_the_replayed_pods() -> None:
    # two serving pods behind a PDB with minAvailable 2: once one is evicted the other is protected
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", {**make_pdb("web", {"matchLabels": {"app": "web"}}, 1),
                        "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1}}),
        ev(0, "ADDED", make_pod("web-0").label("app", "web").priority(1).req(cpu="2").on("n1").obj()),
        ev(0, "ADDED", make_pod("web-1").label("app", "web").priority(1).req(cpu="2").on("n2").obj()),
        ev(1, "ADDED", make_pod("a").priority(100).req(cpu="2").obj()),
        ev(2, "ADDED", make_pod("b").priority(100).req(cpu="2").obj()),
        end=120)
    report, log, start = run(tr)
    a, b = report["preemptions"]
    assert a["victimDetails"][0]["pdbViolation"] is False
    # after web-0 went, disruptionsAllowed is 0: the second eviction violates the budget
    assert b["victimDetails"][0]["pdbViolation"] is True
    assert b["why"]["pdbViolations"] == 1


def test_the_report_counts_preemptions_by_class_and_namespace() -> None:
    tr = trace(
        ev(0, "ADDED", make_priority_class("low", 1)),
        ev(0, "ADDED", make_priority_class("high", 1000)),
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("b1").ns("batch").priority(1).priority_class("low").req(cpu="1")
           .set("spec.terminationGracePeriodSeconds", 0).on("n1").obj()),
        ev(0, "ADDED", make_pod("b2").ns("batch").priority(1).priority_class("low").req(cpu="1")
           .set("spec.terminationGracePeriodSeconds", 0).on("n1").obj()),
        ev(1, "ADDED", make_pod("s1").ns("shop").priority(1000).priority_class("high").req(cpu="1").obj()),
        ev(2, "ADDED", make_pod("s2").ns("shop").priority(1000).priority_class("high").req(cpu="1").obj()),
        ev(3, "ADDED", make_pod("s3").ns("shop").priority(1000).priority_class("high").req(cpu="1").obj()),
        end=60)
    s = replay(tr)["summary"]
    assert s["byPriorityClass"] == [{"priorityClass": "high", "preemptions": 2, "victims": 2}]
    assert s["victimsByPriorityClass"] == [{"priorityClass": "low", "victims": 2}]
    assert {r["namespace"]: (r["preemptions"], r["podsEvicted"]) for r in s["byNamespace"]} == {
        "batch": (0, 2), "shop": (2, 0)}
    assert [n["pod"] for n in s["neverScheduled"]] == ["shop/s3"]
    assert s["neverScheduled"][0]["lastMessage"].startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_a_node_added_during_the_trace_takes_a_waiting_pod() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="1", memory="8Gi").obj()),
        ev(1, "ADDED", make_pod("big").req(cpu="8").obj()),
        ev(20, "ADDED", make_node("n2").alloc(cpu="16", memory="8Gi").obj()),
        end=60)
    report, log, start = run(tr)
    assert rel(log.binds["default/big"], start) == (20.0, "n2")


def test_a_replay_is_reproducible() -> None:
    def tr() -> dict[str, Any]:
        evs = [ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="2", memory="8Gi").obj()) for i in range(4)]
        evs += [ev(0, "ADDED", make_pod(f"low-{i}").priority(1).req(cpu="1").on(f"n{i % 4}").obj()) for i in range(8)]
        evs += [ev(1 + i, "ADDED", make_pod(f"high-{i}").priority(10).req(cpu="2").obj()) for i in range(5)]
        return trace(*evs, end=100)

    assert replay(tr()) == replay(tr())
    assert seconds(replay(tr())["preemptions"][0]["time"]) == 1.0


def test_pods_the_replay_placed_on_a_deleted_node_are_deleted_with_it() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(1, "ADDED", make_pod("a").req(cpu="1").obj()),
        ev(10, "DELETED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(20, "ADDED", make_node("n2").alloc(cpu="4", memory="8Gi").obj()),
        end=60)
    report, log, start = run(tr)
    assert rel(log.deletes["default/a"], start) == (10.0, "node deleted")
    assert report["summary"]["podsNeverScheduled"] == 0


def test_a_new_pod_of_the_same_name_replaces_the_old_one() -> None:
    old = make_pod("db-0").uid("uid-old").req(cpu="3")
    new = make_pod("db-0").uid("uid-new").req(cpu="3")
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("hog").req(cpu="4").on("n1").obj()),
        ev(1, "ADDED", old.obj()),
        ev(5, "ADDED", new.obj()),
        ev(9, "DELETED", make_pod("hog").req(cpu="4").on("n1").obj()),
        end=60)
    report, log, start = run(tr)
    assert rel(log.deletes["default/db-0"], start) == (5.0, "replaced")
    assert rel(log.binds["default/db-0"], start) == (9.0, "n1")
    assert report["summary"]["scheduled"] == 1 and report["summary"]["podsNeverScheduled"] == 0
