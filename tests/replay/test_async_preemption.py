"""Asynchronous preemption (SchedulerAsyncPreemption, on by default in v1.34.1): the victims' API
calls take time, the preemptor is held until just before its last victim's calls and may then be
tried again while that victim still runs (v1.34.1; from v1.35 on it is held until its last
victim's deletion is seen)."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.replay.api import replay
from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY, plan_calls
from kubectl_preempt.model.objects import Pod
from tests.builders import make_node, make_pod

from .helpers import ev, trace

STARTED = "2026-03-01T09:00:00Z"
L = DEFAULT_API_LATENCY


def _low(name: str, node: str, cpu: str, grace: int, prio: int = 1) -> dict[str, Any]:
    return (make_pod(name).priority(prio).req(cpu=cpu).on(node).start_time(STARTED)
            .set("spec.terminationGracePeriodSeconds", grace).obj())


def _cluster() -> list[dict[str, Any]]:
    # n1: v1 (grace 0) and v2 (grace 30), priority 1; n2: w, priority 2; n3 too small for hi
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
            ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
            ev(0, "ADDED", make_node("n3").alloc(cpu="1", memory="8Gi").obj()),
            ev(0, "ADDED", _low("v1", "n1", "1", 0)),
            ev(0, "ADDED", _low("v2", "n1", "1", 30)),
            ev(0, "ADDED", _low("w", "n2", "2", 30, prio=2))]


def _events() -> list[dict[str, Any]]:
    # hi preempts v1 and v2 on n1 at 10 s. v1's calls run while hi is held; hi is released at
    # 10 + 2L, then v2's patch and delete follow at +3L and +4L. v1 (grace 0) vanishes at its
    # delete call: that deletion requeues hi while v2 still runs
    return [*_cluster(), ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj())]


def _hi_preemptions(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in report["preemptions"] if p["preemptor"] == "default/hi"]


def test_the_preemptor_released_before_its_last_victims_calls_decides_again() -> None:
    first, second = _hi_preemptions(replay(trace(*_events(), end=60), kubernetes_version="v1.34"))
    assert (first["node"], sorted(first["victims"])) == ("n1", ["default/v1", "default/v2"])
    # tried again on v1's deletion: v1 is gone, v2 not yet deleted, so hi preempts again
    assert (second["time"], second["node"], second["victims"]) == ("2026-03-01T10:00:10.090Z", "n1", ["default/v2"])


@pytest.mark.parametrize("version, decided_at", [
    # v1.34.1 leaves `preempting` before the last victim's calls: v1's deletion requeues hi
    # while v2's calls run, and hi preempts again
    ("v1.34", ["2026-03-01T10:00:10Z", "2026-03-01T10:00:10.090Z"]),
    # v1.35 and later hold it until the last victim's deletion is seen (executor.go
    # isRunningPreemption, lastVictimsPendingPreemption): v1's deletion finds hi gated at
    # PreEnqueue, and DefaultPreemption's hint skips it, so hi waits for v2 to leave
    ("v1.35", ["2026-03-01T10:00:10Z"]),
    ("v1.36", ["2026-03-01T10:00:10Z"]),
])
def test_the_preemptor_is_held_until_its_last_victims_deletion_from_v1_35_on(version: str,
                                                                              decided_at: list[str]) -> None:
    report = replay(trace(*_events(), end=60), kubernetes_version=version)
    assert [p["time"] for p in _hi_preemptions(report)] == decided_at
    assert report["summary"]["victims"] == 2


def test_a_decision_again_on_a_victim_already_being_evicted_evicts_no_one_new() -> None:
    report = replay(trace(*_events(), end=60), kubernetes_version="v1.34")
    first, second = _hi_preemptions(report)
    assert [d.get("alreadyEvicting", False) for d in first["victimDetails"]] == [False, False]
    # v2's delete call from the first decision is still on its way: the same eviction, not a new one
    assert [(d["pod"], d.get("alreadyEvicting")) for d in second["victimDetails"]] == [("default/v2", True)]
    assert report["summary"]["victims"] == 2
    # counted with its first decision, as the real cluster's record of it counts it
    dist = replay(trace(*_events(), end=60), runs=2, jobs=1, kubernetes_version="v1.34")["distribution"]
    assert dist["preemptions"]["max"] == 1 and dist["renominations"]["max"] == 1
    assert dist["victims"]["max"] == 2


@pytest.mark.parametrize("how", ["the feature gate off", "an API latency of 0"])
def test_without_asynchronous_calls_the_preemptor_decides_once(how: str) -> None:
    cfg = parse_config(None)
    if how == "the feature gate off":
        cfg.feature_gates["SchedulerAsyncPreemption"] = False
    else:
        cfg.api_latency = 0.0
    [only] = _hi_preemptions(replay(trace(*_events(), end=60), config=cfg))
    assert sorted(only["victims"]) == ["default/v1", "default/v2"]


def test_calls_are_timed_as_prepare_candidate_async_makes_them() -> None:
    pods = [Pod(_low(n, "n1", "1", 30)) for n in ("a", "b", "c")]
    hi = Pod(make_pod("hi").priority(100).obj())
    other = Pod(make_pod("o").priority(1).nominated("n1").obj())
    calls = [(round(c.at, 6), c.what, c.pod.name) for c in plan_calls(hi, pods, [other], 0.0, 1.0)]
    assert calls == [(1.0, "clearNomination", "o"),
                     (2.0, "patch", "a"), (2.0, "patch", "b"), (3.0, "delete", "a"), (3.0, "delete", "b"),
                     (3.0, "release", "hi"), (4.0, "patch", "c"), (5.0, "delete", "c")]
    # victims already terminating get no call, and with none to call the preemptor is not held
    going = [Pod(make_pod("t").priority(1).on("n1").terminating().obj())]
    assert plan_calls(hi, going, [], 0.0, 1.0) == []


def test_the_cli_turns_the_gate_off_and_sets_the_latency(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from kubectl_preempt.cli.main import main
    from kubectl_preempt.io.trace import write_trace

    tr = trace(*_events(), end=60)
    path = str(tmp_path / "t.jsonl")
    # recorded from a v1.34.1 server: the release these counts are v1.34.1's
    write_trace(path, {**tr["header"], "apiVersion": "kubectl-preempt/v1", "kind": "Trace",
                       "source": {"serverVersion": "v1.34.1"}}, tr["events"])

    def hi_decisions(*args: str) -> int:
        assert main(["replay", path, "-o", "json", *args]) == 0
        return len(_hi_preemptions(json.loads(capsys.readouterr().out)))

    assert hi_decisions() == 2
    assert hi_decisions("--feature-gates", "SchedulerAsyncPreemption=false") == 1
    assert hi_decisions("--api-latency", "0") == 1
    assert main(["replay", path, "--feature-gates", "SchedulerAsyncPreemtion=false"]) == 2
    err = capsys.readouterr().err
    # featureGate.SetFromMap's wording, with the release whose gates were checked
    assert err == ("error: --feature-gates: unrecognized feature gate: SchedulerAsyncPreemtion "
                   "(kube-scheduler v1.34.1)\n"), err


def _victims_deleted_by_others(*names: str) -> list[dict[str, Any]]:
    # hi preempts v1 and v2 on n1 at 10 s; something else deletes `names` at 10.02 s, while hi is
    # held at PreEnqueue (its first victim's calls run until 10 + 2L): those deletions find it gated
    # and DefaultPreemption's hint skips them
    return [ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
            ev(0, "ADDED", _low("v1", "n1", "1", 30)), ev(0, "ADDED", _low("v2", "n1", "1", 30)),
            ev(10, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()),
            *[ev(10.02, "DELETED", _low(n, "n1", "1", 30)) for n in names]]


def test_v1_34_activates_the_preemptor_when_every_victim_was_already_deleted() -> None:
    # preemption.go (v1.34.1) prepareCandidateAsync: every PreemptPod met NotFound
    # (allPodsAlreadyDeleted), so the goroutine's deferred Activate moves hi to activeQ when the
    # last victim's patch fails, at 10 + 3L; it binds there at once
    report = replay(trace(*_victims_deleted_by_others("v1", "v2"), end=400), kubernetes_version="v1.34")
    assert report["summary"]["timeToSchedule"]["maxSeconds"] == pytest.approx(3 * L)
    assert report["summary"]["neverScheduled"] == []


def test_v1_35_has_no_such_activate() -> None:
    # v1.35 moved the calls to the executor and dropped allPodsAlreadyDeleted: only an API error
    # activates. The deletions came while hi was gated, so nothing brings it back (v1.35 and
    # later move a gated pod only on events its gating plugin registered, UnschedulableTimeout not
    # among them)
    report = replay(trace(*_victims_deleted_by_others("v1", "v2"), end=400), kubernetes_version="v1.35")
    assert [p["pod"] for p in report["summary"]["neverScheduled"]] == ["default/hi"]


def test_v1_34_does_not_activate_when_one_victim_call_succeeds() -> None:
    # v2's delete call succeeds (allPodsAlreadyDeleted false): no Activate; hi comes back when
    # v2 leaves, its grace period (30 s) after that call
    report = replay(trace(*_victims_deleted_by_others("v1"), end=400), kubernetes_version="v1.34")
    assert report["summary"]["timeToSchedule"]["maxSeconds"] == pytest.approx(4 * L + 30, abs=0.01)
