"""check --runs N: both sides over the same seeds, rules decided on the p95 of the paired runs."""
from __future__ import annotations

import orjson
import pytest

from kubectl_preempt.check.api import check
from kubectl_preempt.check.policy import Policy
from kubectl_preempt.errors import UsageError

from .scenarios import created, node, pc, running, trace


def tied_trace() -> dict:
    """Six equal nodes, each full with a batch pod started at the same time; `web` (class serving)
    arrives and, if serving is above batch, preempts on one of six nodes tied after the chain."""
    initial = [pc("batch", 100), pc("serving", 50)]
    for i in range(6):
        initial += [node(f"n{i}"), running(f"low-{i}", "batch", "batch", 100, "4", on=f"n{i}")]
    return trace(initial, [(5, "ADDED", created("web", "shop", "serving", 50, "3"))])


def test_the_same_classes_change_nothing_in_any_paired_run() -> None:
    # every run draws other tie-breaks, but run k of both sides draws the same ones
    r = check({"t": tied_trace()}, [pc("serving", 50), pc("other", 7)], runs=8, jobs=1)
    t = r["traces"][0]
    assert r["passed"] and t["changes"] == []
    assert t["distribution"]["newVictims"] == {"p5": 0, "p50": 0, "p95": 0, "min": 0, "max": 0}
    assert t["distribution"]["changeProbability"] == {}


def test_new_victims_are_decided_on_the_paired_runs_with_each_pod_probability() -> None:
    r = check({"t": tied_trace()}, [pc("serving", 1000)], runs=12, jobs=1)
    t = r["traces"][0]
    dist = t["distribution"]
    assert dist["runs"] == 12
    assert dist["newVictims"]["p95"] == 1 and dist["victimsDifference"]["p50"] == 1
    assert dist["baseline"]["preemptions"]["max"] == 0 and dist["proposed"]["preemptions"]["min"] == 1
    victims = {p: v for p, v in dist["changeProbability"].items() if p.startswith("batch/")}
    assert len(victims) > 1 and sum(victims.values()) == pytest.approx(1.0, abs=1e-3)
    [rule] = [x for x in r["rules"] if x["rule"] == "new-victims"]
    assert not rule["passed"]
    assert {v["pod"] for v in rule["violations"]} == set(victims)
    assert all(v["message"].endswith("% of runs)") for v in rule["violations"])
    # one new victim per pair: a limit of 1 on the p95 passes, 0 fails
    ok = check({"t": tied_trace()}, [pc("serving", 1000)], runs=12, jobs=1,
               policy=Policy.from_options(max_new_victims=1))
    assert ok["passed"]
    bad = check({"t": tied_trace()}, [pc("serving", 1000)], runs=12, jobs=1,
                policy=Policy.from_options(max_new_victims=0))
    [rule] = [x for x in bad["rules"] if x["rule"] == "max-new-victims 0"]
    assert not rule["passed"] and "p95 of 1 new victims over 12 paired runs" in rule["violations"][0]["message"]


def test_paired_runs_give_the_same_json_whatever_the_fan_out() -> None:
    one = check({"t": tied_trace()}, [pc("serving", 1000)], runs=5, jobs=1)
    two = check({"t": tied_trace()}, [pc("serving", 1000)], runs=5, jobs=2)
    assert orjson.dumps(one) == orjson.dumps(two)


def test_runs_must_be_positive() -> None:
    with pytest.raises(UsageError):
        check({"t": tied_trace()}, [pc("serving", 1000)], runs=0)
