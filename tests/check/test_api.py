"""check(): validation, two replays and the verdict, on small traces."""
from __future__ import annotations

import pytest

from kubectl_preempt.check.api import check
from kubectl_preempt.check.policy import Policy
from kubectl_preempt.errors import InputError

from tests.builders import make_priority_class

from .scenarios import cache_trace, created, node, pc, preempt_trace, running, trace


def changes(report: dict, trace: int = 0) -> list[tuple[str, list[str]]]:
    return [(e["pod"], e["changes"]) for e in report["traces"][trace]["changes"]]


def failing(report: dict) -> list[str]:
    return [r["rule"] for r in report["rules"] if not r["passed"]]


def test_lowering_the_preemptors_class_saves_its_victim_and_strands_it() -> None:
    r = check({"t": preempt_trace()}, [pc("serving", 50)])
    assert changes(r) == [("batch/low-1", ["noLongerPreempted"]), ("shop/web", ["newlyUnschedulable", "noLongerPreempting"])]
    assert failing(r) == ["unschedulable"] and not r["passed"]
    t = r["traces"][0]
    assert (t["baseline"]["preemptions"], t["proposed"]["preemptions"]) == (1, 0)
    assert t["totals"]["podsChanged"] == 2 and r["totals"]["noLongerPreempted"] == 1


def test_raising_a_class_above_a_running_one_makes_a_new_victim() -> None:
    r = check({"t": cache_trace()}, [pc("jobs", 800)], policy=Policy.from_options(protect_namespaces=["shop"]))
    assert changes(r) == [("shop/cache-0", ["newlyPreempted"]), ("batch/job", ["newlyScheduled", "newlyPreempting"])]
    assert failing(r) == ["protect-namespace shop"]
    e = r["traces"][0]["changes"][0]
    assert e["proposed"]["preemptedBy"] == "batch/job" and e["baseline"]["outcome"] == "Running"


def test_pods_existing_at_the_start_keep_their_priority_until_recreated() -> None:
    r = check({"t": cache_trace()}, [pc("jobs", 800)])
    [rc] = r["traces"][0]["recreated"]
    assert rc["priorityClass"] == "jobs" and rc["changes"] == {"value": [300, 800]}
    assert rc["podsKeepingOldPriority"] == ["batch/old-job"] and rc["podCount"] == 1
    assert rc["updateError"].endswith("value: Forbidden: may not be changed in an update.")
    [note] = [f for f in r["validation"]["findings"] if f["rule"] == "recreate"]
    assert note["severity"] == "warning" and note["traces"] == ["t"]


def test_an_unchanged_proposal_passes_with_no_changes() -> None:
    r = check({"t": cache_trace()}, [pc("jobs", 300), pc("brand-new", 10)])
    assert r["passed"] and r["violations"] == 0 and changes(r) == []
    assert r["traces"][0]["recreated"] == []


def test_a_refused_class_fails_and_is_left_out_of_the_proposed_replay() -> None:
    r = check({"t": preempt_trace()}, [pc("serving", 2_000_000_000)])
    assert failing(r) == ["validation"]
    assert changes(r) == []  # the class is never created: the replay runs with the recorded one
    assert [c["valid"] for c in r["proposed"]] == [False]


def test_a_second_default_is_refused_per_trace_and_not_replayed() -> None:
    r = check({"a": preempt_trace(), "b": cache_trace()}, [pc("d1", 1, True), pc("d2", 2, True)])
    [f] = [f for f in r["validation"]["findings"] if f["rule"] == "global-default"]
    assert f["priorityClass"] == "d2" and f["traces"] == ["a", "b"]
    assert [t["rejected"] for t in r["traces"]] == [["d2"], ["d2"]]


def test_a_baseline_is_the_whole_set_before_and_leaving_a_class_out_deletes_it() -> None:
    base = [pc("batch", 100), pc("serving", 1000), pc("legacy", 5)]
    r = check({"t": preempt_trace()}, [pc("batch", 100), pc("serving", 1000)], baseline=base)
    assert r["passed"] and changes(r) == []
    [f] = [f for f in r["validation"]["findings"] if f["rule"] == "removed"]
    assert f["priorityClass"] == "legacy" and "no PriorityClass with name legacy was found" in f["message"]
    assert r["traces"][0]["removed"] == [{"priorityClass": "legacy", "podCount": 0}]


def test_against_a_baseline_a_change_is_measured_from_it() -> None:
    base = [pc("batch", 100), pc("serving", 1000)]
    r = check({"t": preempt_trace()}, [pc("batch", 100), pc("serving", 50)], baseline=base)
    assert changes(r) == [("batch/low-1", ["noLongerPreempted"]), ("shop/web", ["newlyUnschedulable", "noLongerPreempting"])]
    [rc] = r["traces"][0]["recreated"]
    assert rc["changes"] == {"value": [1000, 50]}


def test_several_traces_each_get_their_rules_and_the_totals_add_up() -> None:
    r = check({"a": preempt_trace(), "b": cache_trace()}, [pc("serving", 50), pc("jobs", 800)],
              policy=Policy.from_options(["any-change"]))
    assert [(x["rule"], x.get("trace")) for x in r["rules"]] == [("validation", None), ("any-change", "a"),
                                                                 ("any-change", "b")]
    assert r["totals"]["podsChanged"] == 4 and r["violations"] == 4


def test_the_report_is_plain_data_with_the_policy_in_it() -> None:
    r = check({"t": preempt_trace()}, [pc("serving", 1000)], policy=Policy.from_options(max_new_victims=2))
    assert (r["apiVersion"], r["kind"]) == ("kubectl-preempt/v1", "CheckReport")
    assert r["policy"] == {"failOn": [], "protectNamespaces": [], "maxNewVictims": 2}


def test_a_broken_trace_is_bad_input() -> None:
    with pytest.raises(InputError):
        check({"t": [{"time": "yesterday", "type": "ADDED", "object": {}}]}, [pc("a", 1)])


def test_a_recorded_nomination_for_expectation_is_no_preemption_on_either_side() -> None:
    # v1.36 (NominatedNodeNameForExpectation): shop/web fits on n1, the recorded scheduler nominates
    # it there while it waits at PreBind, then binds it; check replays its own scheduler on both
    # sides and counts no preemption from the recorded nomination
    web = created("web", "shop", "serving", 1000, "1")
    nominated = {**web, "status": {"nominatedNodeName": "n1"}}
    bound = {**web, "spec": {**web["spec"], "nodeName": "n1"}, "status": {"phase": "Running"}}
    tr = trace([node(), make_priority_class("batch", 100), make_priority_class("serving", 1000),
             running("low-0", "batch", "batch", 100, "2")],
            [(5, "ADDED", web), (5.1, "MODIFIED", nominated), (5.4, "MODIFIED", bound)])
    r = check({"t": tr}, [pc("serving", 900)], kubernetes_version="v1.36")
    t = r["traces"][0]
    assert (t["baseline"]["preemptions"], t["proposed"]["preemptions"]) == (0, 0)
    assert changes(r) == []
