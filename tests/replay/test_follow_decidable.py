"""Follow mode says what a trace can decide (issue 33): every node that can win under an order of
the pods placed before the trace began, windows whose writes change the verdict, and no binding
assumed before the pod could be placed."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.errors import UsageError
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pdb, make_pod

from .helpers import at, ev, seconds, trace

STARTED = "2026-03-01T09:00:00Z"
PREEMPTED = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]


def _follow(*events: dict[str, Any], end: float = 60) -> dict[str, Any]:
    return replay(trace(*sorted(events, key=lambda e: seconds(e["time"])), end=end), mode="follow")


def _low(name: str, node: str, cpu: str, *, priority: int = 1, started: str = STARTED) -> Any:
    return make_pod(name).priority(priority).req(cpu=cpu).start_time(started).running(node)


def _signal(b: Any, t: float) -> dict[str, Any]:
    return ev(t, "MODIFIED", b.set("status.conditions", PREEMPTED).obj())


def _nominated(b: Any, node: str, t: float) -> dict[str, Any]:
    return ev(t, "MODIFIED", b.set("status.nominatedNodeName", node).obj())


# --- A: a node whose victims depend on an order the trace does not hold ------------------------------

def _order_trace(recorded: str, victims: list[str]) -> list[dict[str, Any]]:
    """n1 (4 CPUs) holds a (2 CPUs), b and c (1 CPU each), n2 (2 CPUs) holds d (2 CPUs): one
    priority, one start second, all placed before the trace began (listed a, b, c). hi needs 2
    CPUs. In the listed order a is reprieved first and b and c are the victims (two: n2's one
    victim wins); with b and c ahead of a, both are reprieved and a alone is the victim, tying n2."""
    hi = make_pod("hi").priority(100).req(cpu="2")
    pods = {"a": _low("a", "n1", "2"), "b": _low("b", "n1", "1"), "c": _low("c", "n1", "1"), "d": _low("d", "n2", "2")}
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
            ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
            *(ev(0, "ADDED", pods[n].obj()) for n in "abcd"),
            ev(10, "ADDED", hi.obj()),
            *(_signal(pods[v], 10.1) for v in victims),
            _nominated(hi, recorded, 10.11)]


def test_a_node_that_wins_under_another_order_of_pods_placed_before_the_trace_is_tied() -> None:
    [p] = _follow(*_order_trace("n1", ["a"]))["preemptions"]
    rep = p["replayed"]
    # the replay's own estimate of the order picks n2; n1 wins when a comes last
    assert rep["node"] == "n2"
    assert sorted(rep["tiedNodes"]) == ["n1", "n2"]
    assert rep["victimOrderUnknown"] is True
    assert rep["victimsOnRecordedNode"] == ["default/b", "default/c"]
    assert ["default/a"] in rep["victimAlternatives"]
    assert p["verdict"] == "tied" and p["agrees"] is True, p["differences"]


def test_victims_no_order_gives_still_differ() -> None:
    # a and b: there is no order of n1's pods under which those two alone are the victims
    [p] = _follow(*_order_trace("n1", ["a", "b"]))["preemptions"]
    assert p["verdict"] == "differs" and p["agrees"] is False
    assert "no order of them gives the cluster's choice" in p["differences"][-1]


def test_pods_placed_during_the_trace_have_a_known_order() -> None:
    # the same pods, bound after the trace began: their order is the trace's, nothing is tied
    events = _order_trace("n2", ["d"])
    for e in events:
        if e["type"] == "ADDED" and e["object"].get("kind") == "Pod" and e["object"]["spec"].get("nodeName"):
            e["time"] = at(1)
    [p] = _follow(*events)["preemptions"]
    assert p["replayed"]["tiedNodes"] == ["n2"]
    assert "victimOrderUnknown" not in p["replayed"] and "victimAlternatives" not in p["replayed"]
    assert p["verdict"] == "agrees"


def test_the_replays_own_pick_is_marked_when_its_victims_depend_on_the_order() -> None:
    # recorded on n2: the replay agrees, and still says n1's answer rests on an unknown order
    [p] = _follow(*_order_trace("n2", ["d"]))["preemptions"]
    assert p["verdict"] == "agrees"
    assert p["replayed"]["victimOrderUnknown"] is True


# --- B: writes inside the window between the preemptor's arrival and its first sign -------------------

def _pdb_trace(pdb_at: float) -> list[dict[str, Any]]:
    """n1 holds `guarded` (PDB web allows 1 disruption), n2 holds `free`, started earlier: with
    no violation the scheduler takes n1, whose victim started later. The disruption controller
    writes the PDB down to 0 at `pdb_at`; hi arrives at 10, its first sign is at 10.3."""
    guarded = _low("guarded", "n1", "2", started="2026-03-01T09:59:00Z").label("app", "web")
    free = _low("free", "n2", "2")
    hi = make_pod("hi").priority(100).req(cpu="2")
    sel = {"matchLabels": {"app": "web"}}
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
            ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
            ev(0, "ADDED", guarded.obj()), ev(0, "ADDED", free.obj()),
            ev(0, "ADDED", make_pdb("web", sel, 1)),
            ev(10, "ADDED", hi.obj()),
            ev(pdb_at, "MODIFIED", make_pdb("web", sel, 0)),
            _signal(guarded, 10.3),
            _nominated(hi, "n1", 10.35)]


def test_a_pdb_changing_inside_the_window_makes_the_row_undecidable() -> None:
    [p] = _follow(*_pdb_trace(10.2))["preemptions"]
    rep = p["replayed"]
    assert p["verdict"] == "undecidable" and p["agrees"] is None
    assert rep["undecidableFromTrace"] == ["PodDisruptionBudget default/web disruptionsAllowed 1 -> 0 "
                                           "at 2026-03-01T10:00:10.200Z"]
    # with the write: n2; without it: n1, as the cluster
    assert rep["node"] == "n2" and rep["atWindowStart"]["node"] == "n1"
    assert p["differences"][0].startswith("the trace cannot decide: the scheduler decided between the preemptor's "
                                          "arrival and this decision's first sign")


@pytest.mark.parametrize("pdb_at", [9.5, 10.3], ids=["a pdb written before the preemptor came is known",
                                                      "a pdb written with the first sign comes after the decision"])
def test_a_pdb_write_outside_the_window_decides(pdb_at: float) -> None:
    [p] = _follow(*_pdb_trace(pdb_at))["preemptions"]
    assert "undecidableFromTrace" not in p["replayed"]
    assert p["verdict"] == ("differs" if pdb_at < 10 else "agrees")


def _failed_victim_trace(failed_at: float | None) -> list[dict[str, Any]]:
    """n1 (4 CPUs) holds v, the terminating victim of an earlier preemption, and u; n2 (2 CPUs)
    holds w, started later than v. hi (2 CPUs) arrives at 10 and the cluster preempts w on n2
    (its first sign at 10.3). v's kubelet ends it (Failed) at `failed_at`: with v gone hi fits on
    n1 and nothing is preempted; with v still there, v (already going) on n1 and w on n2 tie but
    for the start time, and n2's w started later."""
    v = _low("v", "n1", "2", started="2026-03-01T09:00:05Z").set("metadata.deletionTimestamp", at(40)) \
        .set("status.conditions", PREEMPTED)
    u = _low("u", "n1", "2", started="2026-03-01T08:00:00Z")
    w = _low("w", "n2", "2", started="2026-03-01T09:30:00Z")
    hi = make_pod("hi").priority(100).req(cpu="2")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
              ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
              ev(0, "ADDED", v.obj()), ev(0, "ADDED", u.obj()), ev(0, "ADDED", w.obj()),
              ev(10, "ADDED", hi.obj()),
              _signal(w, 10.3), _nominated(hi, "n2", 10.31)]
    if failed_at is not None:
        events.append(ev(failed_at, "MODIFIED", v.set("status.phase", "Failed").obj()))
    return events


def test_a_victim_turning_failed_inside_the_window_makes_the_row_undecidable() -> None:
    [p] = _follow(*_failed_victim_trace(10.1))["preemptions"]
    rep = p["replayed"]
    assert p["verdict"] == "undecidable"
    assert rep["undecidableFromTrace"] == ["pod default/v on n1 Failed at 2026-03-01T10:00:10.100Z"]
    assert rep["outcome"] == "Scheduled"  # with v gone hi fits
    assert rep["atWindowStart"]["node"] == "n2"


def test_a_victim_failed_before_the_preemptor_came_is_known() -> None:
    [p] = _follow(*_failed_victim_trace(9))["preemptions"]
    assert p["verdict"] == "differs" and "undecidableFromTrace" not in p["replayed"]


def test_without_writes_in_the_window_the_row_is_decided() -> None:
    [p] = _follow(*_failed_victim_trace(None))["preemptions"]
    assert p["verdict"] == "agrees" and "undecidableFromTrace" not in p["replayed"]


# --- C: a binding assumed only where the pod passes Filter ------------------------------------------

def _assumed_trace(bound: bool) -> list[dict[str, Any]]:
    """n1 (6 CPUs) holds u (terminating, started latest), k and m; n2 (2 CPUs) holds w. p1
    (priority 200, preemptionPolicy Never) waits for room; p2 (priority 100, 2 CPUs) comes after
    it. The cluster nominates p2 to n1, where u, already going, is its victim; u is deleted and p1
    bound to n1 right after p2's nomination: p1 could not be placed before u left, so p2 decided
    without it on n1. `bound`: whether the recording holds p1's binding."""
    u = _low("u", "n1", "2", started="2026-03-01T09:40:00Z").set("metadata.deletionTimestamp", at(10.4))
    k = _low("k", "n1", "2", started="2026-03-01T08:00:00Z")
    m = _low("m", "n1", "2", started="2026-03-01T08:00:01Z")
    w = _low("w", "n2", "2", started="2026-03-01T09:30:00Z")
    p1 = make_pod("p1").priority(200).req(cpu="2").set("spec.preemptionPolicy", "Never")
    p2 = make_pod("p2").priority(100).req(cpu="2")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="6", memory="8Gi").obj()),
              ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
              *(ev(0, "ADDED", b.obj()) for b in (u, k, m, w)),
              ev(5, "ADDED", p1.obj()),
              ev(10, "ADDED", p2.obj()),
              _nominated(p2, "n1", 10.3),
              ev(10.4, "DELETED", u.obj())]
    if bound:
        events.append(ev(10.5, "MODIFIED", p1.on("n1").obj()))
    return events


@pytest.mark.parametrize("bound", [True, False], ids=["a binding recorded just after that needs the victim gone",
                                                      "no binding recorded"])
def test_a_pod_that_does_not_fit_yet_is_not_assumed_placed(bound: bool) -> None:
    [p] = _follow(*_assumed_trace(bound))["preemptions"]
    rep = p["replayed"]
    assert rep["node"] == "n1", p["differences"]
    assert rep["victimsOnRecordedNode"] == ["default/u"]
    assert p["verdict"] == "agrees"


def test_a_pod_that_fits_is_assumed_placed_when_its_binding_follows_the_sign() -> None:
    # k gone already: p1 fits on n1 at the decision, so the scheduler had placed it there; without
    # p1, p2 would fit on n1 and preempt nothing
    events = [e for e in _assumed_trace(True) if e["object"]["metadata"].get("name") != "k"]
    [p] = _follow(*events)["preemptions"]
    assert p["replayed"]["outcome"] == "Preempted"
    assert p["replayed"]["victimsOnRecordedNode"] == ["default/u"]
    assert p["verdict"] == "agrees"


# --- v1.35+: a nomination alone is not a preemption (issue 37) ----------------------------------------

def _expectation_trace() -> dict[str, Any]:
    """p fits on n1 at once; the scheduler (v1.35+, NominatedNodeNameForExpectation) nominates it
    there while it waits at PreBind, then binds it, which clears the nomination
    (ClearingNominatedNodeNameAfterBinding). Nothing is preempted."""
    p = make_pod("p").priority(100).req(cpu="1")
    return trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
                 ev(0, "ADDED", _low("a", "n1", "1").obj()),
                 ev(10, "ADDED", p.obj()),
                 _nominated(p, "n1", 10.1),
                 ev(10.4, "MODIFIED", make_pod("p").priority(100).req(cpu="1").on("n1").obj()), end=30)


@pytest.mark.parametrize("release,rows", [
    ("v1.36", 0),
    ("v1.34", 1),
], ids=["v1.36: a nomination of a pod that fits there is no preemption",
        "v1.34: a nomination is a (re-)preemption"])
def test_a_nomination_for_expectation_is_not_counted_as_a_preemption(release: str, rows: int) -> None:
    report = replay(_expectation_trace(), mode="follow", kubernetes_version=release)
    assert len(report["preemptions"]) == rows
    assert report["summary"]["preemptions"] == rows


def test_turning_nominated_node_name_for_expectation_off_is_refused_not_ignored() -> None:
    # the replayed scheduler imitates the gate at its default only (framework/featuregates.py
    # SCHEDULING_GATES): a run that claimed the gate off would not be what it claims
    with pytest.raises(UsageError, match="NominatedNodeNameForExpectation"):
        replay(_expectation_trace(), mode="follow", kubernetes_version="v1.36",
               feature_gates={"NominatedNodeNameForExpectation": False})


def test_on_v136_a_renomination_of_a_pod_that_does_not_fit_is_still_reported() -> None:
    # hi was nominated to n1 and its victim a is still going: nominated again, it does not fit
    # there, so the nomination is the scheduler deciding its preemption again
    hi = make_pod("hi").priority(100).req(cpu="2")
    a = _low("a", "n1", "2")
    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
               ev(0, "ADDED", a.obj()),
               ev(10, "ADDED", hi.obj()),
               _signal(a, 10.1), _nominated(hi, "n1", 10.15),
               ev(10.2, "MODIFIED", a.set("metadata.deletionTimestamp", at(40)).obj()),
               ev(30, "MODIFIED", make_pod("hi").priority(100).req(cpu="2").obj()),
               _nominated(make_pod("hi").priority(100).req(cpu="2"), "n1", 30.1), end=35)
    report = replay(tr, mode="follow", kubernetes_version="v1.36")
    first, again = report["preemptions"]
    assert again["renomination"] is True and again["verdict"] == "agrees"


def test_many_tied_pods_of_many_kinds_are_tried_in_bounded_arrangements() -> None:
    # nine pods of nine sizes, tied, placed before the trace: 9! orders, of which at most
    # MAX_ARRANGEMENTS are tried; the row says its alternatives are incomplete
    from kubectl_preempt.replay.victim_orders import MAX_ALTERNATIVES
    sizes = [f"{100 * (i + 1)}m" for i in range(9)]
    pods = [_low(f"p{i}", "n1", cpu) for i, cpu in enumerate(sizes)]
    hi = make_pod("hi").priority(100).req(cpu="1500m")
    events = [ev(0, "ADDED", make_node("n1").alloc(cpu="4500m", memory="8Gi").obj()),
              *(ev(0, "ADDED", p.obj()) for p in pods),
              ev(10, "ADDED", hi.obj()), _signal(pods[0], 10.1), _nominated(hi, "n1", 10.11)]
    [p] = _follow(*events)["preemptions"]
    rep = p["replayed"]
    assert rep["victimOrderUnknown"] is True and rep["victimAlternativesIncomplete"] is True
    assert 1 <= len(rep.get("victimAlternatives", [])) < MAX_ALTERNATIVES


@pytest.mark.parametrize("release,inferred", [("v1.36", "default/big"), ("v1.34", "default/small")],
                         ids=["v1.36: a pod nominated there that fits is no preemptor to infer",
                              "v1.34: the highest-priority pod nominated there is the preemptor"])
def test_a_victim_without_its_preemptors_nomination_is_given_a_preemptor_that_needed_it(release: str,
                                                                                        inferred: str) -> None:
    # n1 (4 CPUs) holds a (2 CPUs); small (priority 200, 1 CPU) fits and is nominated there while it
    # waits at PreBind; big (priority 100, 3 CPUs), nominated earlier, needed a gone; the recording
    # shows a's condition and no new nomination
    a = _low("a", "n1", "2")
    small = make_pod("small").priority(200).req(cpu="1")
    big = make_pod("big").priority(100).req(cpu="3")
    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
               ev(0, "ADDED", a.obj()),
               ev(0, "ADDED", big.set("status.nominatedNodeName", "n1").obj()),
               ev(10, "ADDED", small.obj()),
               _nominated(small, "n1", 10.1),
               _signal(a, 30), end=40)
    [p] = [r for r in replay(tr, mode="follow", kubernetes_version=release)["preemptions"] if r["victims"]]
    assert p["preemptorInferred"] is True and p["preemptor"] == inferred


def test_a_nomination_held_for_a_decision_is_the_other_preemptors_latest() -> None:
    # p1 took a on n1, then decided again and took b on n2 (both within half a second before p2's
    # first sign, each nomination recorded): when p2 was decided p1 was nominated to n2, so n1 (a
    # already going) is p2's. Holding p1's first nomination instead would send p2 to n2
    a, b = _low("a", "n1", "2"), _low("b", "n2", "2")
    c = _low("c", "n3", "2", priority=5)
    p1 = make_pod("p1").priority(100).req(cpu="2")
    p2 = make_pod("p2").priority(100).req(cpu="2")
    events = [*(ev(0, "ADDED", make_node(n).alloc(cpu="2", memory="8Gi").obj()) for n in ("n1", "n2", "n3")),
              *(ev(0, "ADDED", x.obj()) for x in (a, b, c)),
              ev(10, "ADDED", p1.obj()), ev(10.001, "ADDED", p2.obj()),
              _signal(a, 10.05), _nominated(p1, "n1", 10.06),
              ev(10.07, "MODIFIED", a.set("status.conditions", PREEMPTED).set("metadata.deletionTimestamp", at(40)).obj()),
              _signal(b, 10.15), _nominated(make_pod("p1").priority(100).req(cpu="2"), "n2", 10.16),
              _nominated(p2, "n1", 10.3)]
    rows = _follow(*events)["preemptions"]
    [p] = [r for r in rows if r["preemptor"] == "default/p2"]
    assert p["replayed"]["node"] == "n1" and p["verdict"] == "agrees", p["differences"]


def test_a_nomination_recorded_after_this_decision_is_held_when_its_first_sign_came_before() -> None:
    # p1 (ahead in the queue) took a on n1: a's condition is recorded before p2's first sign, p1's
    # nomination only after it. The scheduler held p1's nomination when it decided p2, which took n2
    a, b = _low("a", "n1", "2"), _low("b", "n2", "2", priority=5)
    p1 = make_pod("p1").priority(100).req(cpu="2")
    p2 = make_pod("p2").priority(100).req(cpu="2")
    events = [*(ev(0, "ADDED", make_node(n).alloc(cpu="2", memory="8Gi").obj()) for n in ("n1", "n2")),
              ev(0, "ADDED", a.obj()), ev(0, "ADDED", b.obj()),
              ev(10, "ADDED", p1.obj()), ev(10.001, "ADDED", p2.obj()),
              _signal(a, 10.05), _nominated(p2, "n2", 10.1), _signal(b, 10.101), _nominated(p1, "n1", 10.2)]
    rows = {r["preemptor"]: r for r in _follow(*events)["preemptions"]}
    assert rows["default/p2"]["replayed"]["node"] == "n2" and rows["default/p2"]["verdict"] == "agrees"
    assert rows["default/p1"]["verdict"] == "agrees"
