"""The gate's rules on a trace's per-pod differences."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.check import diff as d
from kubectl_preempt.check import policy as p
from kubectl_preempt.check.policy import Policy, evaluate_trace, evaluate_validation
from kubectl_preempt.errors import UsageError


def entry(pod: str, *changes: str) -> dict[str, Any]:
    return {"pod": pod, "namespace": pod.split("/")[0], "changes": list(changes),
            "baseline": {"outcome": "Scheduled", "node": "n1", "priority": 10},
            "proposed": {"outcome": "Preempted", "preemptedBy": "x/big", "node": "n1", "priority": 10,
                         "message": "0/1 nodes are available: 1 Insufficient cpu."}}


VICTIM_SHOP = entry("shop/cache-0", d.NEWLY_PREEMPTED)
VICTIM_BATCH = entry("batch/etl-1", d.NEWLY_PREEMPTED)
LOST_NODE = entry("shop/web", d.NEWLY_UNSCHEDULABLE)
MOVED = entry("shop/api", d.DIFFERENT_NODE)
SAVED = entry("batch/etl-2", d.NO_LONGER_PREEMPTED)


def results(policy: Policy, entries: list[dict[str, Any]]) -> dict[str, p.RuleResult]:
    return {r.rule: r for r in evaluate_trace(policy, "t.jsonl", entries)}


def test_no_policy_flags_mean_new_victims_and_unschedulable() -> None:
    assert Policy.from_options().fail_on == p.DEFAULT_FAIL_ON == (p.NEW_VICTIMS, p.UNSCHEDULABLE)


def test_any_policy_flag_replaces_the_default() -> None:
    assert Policy.from_options(protect_namespaces=["shop"]).fail_on == ()
    assert Policy.from_options(max_new_victims=3).fail_on == ()


def test_fail_on_takes_repeats_and_commas_in_a_fixed_order() -> None:
    pol = Policy.from_options(["any-change,new-victims", "new-victims"])
    assert pol.fail_on == (p.NEW_VICTIMS, p.ANY_CHANGE)


@pytest.mark.parametrize("kwargs, field", [
    ({"fail_on": ["victims"]}, "--fail-on"),
    ({"max_new_victims": -1}, "--max-new-victims"),
], ids=["an unknown rule is a usage error", "a negative limit is a usage error"])
def test_bad_policy_flags_are_usage_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(UsageError) as err:
        Policy.from_options(**kwargs)
    assert err.value.field == field


@pytest.mark.parametrize("policy, entries, failing", [
    (Policy((p.NEW_VICTIMS,)), [VICTIM_SHOP, SAVED], {p.NEW_VICTIMS: ["shop/cache-0"]}),
    (Policy((p.NEW_VICTIMS,)), [SAVED, MOVED, LOST_NODE], {}),
    (Policy((p.UNSCHEDULABLE,)), [VICTIM_SHOP, LOST_NODE], {p.UNSCHEDULABLE: ["shop/web"]}),
    (Policy((p.UNSCHEDULABLE,)), [VICTIM_SHOP, SAVED], {}),
    (Policy((p.ANY_CHANGE,)), [SAVED, MOVED], {p.ANY_CHANGE: ["batch/etl-2", "shop/api"]}),
    (Policy((p.ANY_CHANGE,)), [], {}),
    (Policy((), ("shop",)), [VICTIM_SHOP, VICTIM_BATCH], {"protect-namespace shop": ["shop/cache-0"]}),
    (Policy((), ("kube-system",)), [VICTIM_SHOP, VICTIM_BATCH], {}),
    (Policy((), (), 1), [VICTIM_SHOP, VICTIM_BATCH], {"max-new-victims 1": [None]}),
    (Policy((), (), 2), [VICTIM_SHOP, VICTIM_BATCH], {}),
    (Policy((), (), 0), [SAVED], {}),
], ids=[
    "new-victims fails on a new victim",
    "new-victims ignores fewer victims, moves and lost nodes",
    "unschedulable fails on a pod that no longer gets a node",
    "unschedulable ignores victims",
    "any-change fails on every changed pod, better or worse",
    "any-change passes when nothing changes",
    "protect-namespace fails on a new victim in that namespace only",
    "protect-namespace passes when its namespace loses nobody",
    "max-new-victims fails above the limit",
    "max-new-victims passes at the limit",
    "max-new-victims 0 passes with no new victim",
])
def test_rules(policy: Policy, entries: list[dict[str, Any]], failing: dict[str, list]) -> None:
    got = results(policy, entries)
    assert set(got) == set(policy.rule_names())
    assert {k: [v.get("pod") for v in r.violations] for k, r in got.items() if not r.passed} == failing
    assert all(r.trace == "t.jsonl" for r in got.values())


def test_violation_messages_say_who_and_what() -> None:
    r = results(Policy((p.NEW_VICTIMS, p.UNSCHEDULABLE), ("shop",), 0), [VICTIM_SHOP, LOST_NODE])
    assert r[p.NEW_VICTIMS].violations[0]["message"] == \
        "shop/cache-0 (priority 10) newly preempted by x/big on n1"
    assert r[p.NEW_VICTIMS].summary == "1 new victim"
    assert r[p.UNSCHEDULABLE].violations[0]["message"] == \
        "shop/web no longer gets a node (was scheduled on n1): 0/1 nodes are available: 1 Insufficient cpu."
    assert r["protect-namespace shop"].violations[0]["message"].endswith("; namespace shop is protected")
    assert r["max-new-victims 0"].violations[0]["message"] == \
        "1 new victim, more than the 0 allowed: shop/cache-0"


def test_validation_fails_on_errors_only() -> None:
    findings = [{"rule": "max-value", "severity": "error", "priorityClass": "x", "message": "refused"},
                {"rule": "recreate", "severity": "warning", "priorityClass": "y", "message": "re-created"}]
    r = evaluate_validation(findings)
    assert not r.passed and [v["priorityClass"] for v in r.violations] == ["x"]
    assert evaluate_validation(findings[1:]).passed
