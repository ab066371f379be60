"""Workload controllers in simulate mode: what the replay evicts is re-created as its controller
would, recorded replacements of pods the replay kept are left out, and PDB status counts the
owners' scale."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_preempt.replay.api import replay
from kubectl_preempt.scheduler.backend.api_dispatcher import DEFAULT_API_LATENCY as L
from kubectl_preempt.replay.controllers import counted_workload_of, job_backoff, parent_and_ordinal, workload_of
from tests.builders import make_node, make_pod

from .helpers import at, ev, trace
from .test_simulate import Log

RS = "web-5d8f7c9b6"


def replica_set(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": RS, "namespace": "default", "uid": "rs-uid",
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                              "uid": "dep-uid", "controller": True}]},
            "spec": {"replicas": replicas}}


def owned(builder: Any, kind: str = "ReplicaSet", name: str = RS) -> dict[str, Any]:
    pod = builder.obj()
    md = pod["metadata"]
    md["ownerReferences"] = [{"apiVersion": "apps/v1" if kind != "Job" else "batch/v1", "kind": kind,
                              "name": name, "uid": f"{name}-uid", "controller": True}]
    if kind == "ReplicaSet":
        md["generateName"] = f"{RS}-"
        md.setdefault("labels", {})["pod-template-hash"] = RS.rsplit("-", 1)[1]
    return pod


def web(name: str, node: str) -> dict[str, Any]:
    return owned(make_pod(name).priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 0)
                 .start_time("2026-03-01T09:00:00Z").on(node))


def blocker(node: str) -> dict[str, Any]:
    """A pod no one can preempt, filling `node` until the trace deletes it."""
    return make_pod("blocker").priority(100000).req(cpu="2").on(node).obj()


def run(tr: dict[str, Any]) -> tuple[dict[str, Any], Log]:
    log = Log()
    return replay(tr, listener=log), log


def rel(entry: tuple[float, str]) -> tuple[float, str]:
    from .helpers import START
    return (round(entry[0] - START, 3), entry[1])


def test_a_deployment_pod_the_replay_evicts_is_re_created_by_its_replica_set_and_scheduled() -> None:
    tr = trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n3").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("filler").priority(100).req(cpu="3").on("n3").obj()),
        ev(0, "ADDED", replica_set(2)),
        ev(0, "ADDED", web(f"{RS}-aaaaa", "n1")),
        ev(0, "ADDED", web(f"{RS}-bbbbb", "n2")),
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="2").obj()),
        end=60)
    report, log = run(tr)
    [p] = report["preemptions"]
    victim = p["victims"][0]
    # the ReplicaSet notices its pod is terminating and creates a replacement 0.1 s later, from the
    # same template; with no room left on n1 or n2 it has to wait (n3 has 1 CPU free)
    new = f"default/{RS}-replay1"
    assert victim in (f"default/{RS}-aaaaa", f"default/{RS}-bbbbb")
    assert new not in log.binds
    pending = {n["pod"]: n for n in report["summary"]["neverScheduled"]}
    # evicted by its delete call at 5 + 2L (asynchronous preemption), re-created 0.1 s later
    assert pending[new]["waitingSeconds"] == round(60 - (5 + 2 * L + 0.1), 3)
    # once the filler leaves n3, the replacement gets its node
    tr["events"].append(ev(30, "DELETED", make_pod("filler").priority(100).req(cpu="3").on("n3").obj()))
    report, log = run(tr)
    assert rel(log.binds[new]) == (30.0, "n3")
    assert report["summary"]["podsNeverScheduled"] == 0


def _replaced_by_the_recording(*owner: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Two pods of a ReplicaSet (aaaaa on n1, bbbbb on n2), and n3 free: the recorded scheduler
    preempted bbbbb for `big` at 10 s and the ReplicaSet replaced it with ccccc, while the replay
    finds n3 free for `big` and keeps bbbbb. (ccccc as the recording creates it, the events.)"""
    kept = web(f"{RS}-bbbbb", "n2")
    preempted = copy.deepcopy(kept)
    preempted["metadata"]["deletionTimestamp"] = at(10)
    preempted["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                          "reason": "PreemptionByScheduler"}]
    replacement = owned(make_pod(f"{RS}-ccccc").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 0))
    return replacement, [
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n3").alloc(cpu="4", memory="8Gi").obj()),
        *(ev(0, "ADDED", o) for o in owner),
        ev(0, "ADDED", web(f"{RS}-aaaaa", "n1")),
        ev(0, "ADDED", kept),
        ev(10, "ADDED", make_pod("big").priority(1000).req(cpu="2").obj()),
        ev(10, "MODIFIED", preempted),
        ev(10.01, "DELETED", preempted),
        ev(10.05, "ADDED", replacement),
        ev(11, "MODIFIED", make_pod("big").priority(1000).req(cpu="2").on("n2").obj())]


def test_a_recorded_replacement_is_not_applied_when_the_replay_kept_the_original() -> None:
    _, events = _replaced_by_the_recording(replica_set(2))
    tr = trace(*events, end=60)
    report, log = run(tr)
    assert report["preemptions"] == []
    assert rel(log.binds["default/big"]) == (10.0, "n3")
    assert f"default/{RS}-ccccc" not in log.binds
    assert report["summary"]["podsNeverScheduled"] == 0
    assert f"default/{RS}-bbbbb" not in log.deletes


@pytest.mark.parametrize("cause", ["EvictionByEvictionAPI", "DeletionByTaintManager", "finished"])
def test_a_replacement_left_out_that_its_node_or_its_end_takes_leaves_the_kept_pod_running(cause: str) -> None:
    # an eviction (a drain), the taint manager or the pod GC took ccccc for its node, and bbbbb,
    # kept in its place, runs on another node; a pod that finished ended on its own
    replacement, events = _replaced_by_the_recording()
    going = copy.deepcopy(replacement)
    going["spec"]["nodeName"] = "n3"
    if cause == "finished":
        going["status"]["phase"] = "Succeeded"
    else:
        going["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": cause}]
        going["metadata"]["deletionTimestamp"] = at(30)
    report, log = run(trace(*events, ev(30, "MODIFIED", going), ev(31, "DELETED", going), end=60))
    assert f"default/{RS}-bbbbb" not in log.deletes


def test_a_person_deleting_a_replacement_left_out_deletes_the_kept_pod_and_its_replacement_is_admitted() -> None:
    # the recording's ReplicaSet answers the delete with ddddd: in the replay ddddd replaces the
    # pod that went in ccccc's place (bbbbb), and the ReplicaSet keeps its two pods
    replacement, events = _replaced_by_the_recording()
    going = copy.deepcopy(replacement)
    going["spec"]["nodeName"] = "n3"
    again = owned(make_pod(f"{RS}-ddddd").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 0))
    report, log = run(trace(*events, ev(31, "DELETED", going), ev(31.1, "ADDED", again), end=60))
    assert rel(log.deletes[f"default/{RS}-bbbbb"]) == (31.0, "deleted")
    assert f"default/{RS}-ddddd" in log.binds


def _preempted_then_room_on_n2(owned_pod: dict) -> Any:
    """Two 2-cpu nodes, a blocker on n2 and `owned_pod` on n1: a high-priority pod at 5 s preempts
    it, and the blocker leaves n2 at 12 s (so the owner's replacement has somewhere to go)."""
    return trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="2", memory="8Gi").obj()),
        ev(0, "ADDED", blocker("n2")),
        ev(0, "ADDED", owned_pod),
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="2").obj()),
        ev(12, "DELETED", blocker("n2")),
        end=60)


def test_a_job_replaces_a_failed_pod_after_its_back_off() -> None:
    job_pod = owned(make_pod("etl-aaaaa").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 0)
                    .start_time("2026-03-01T09:00:00Z").on("n1"), kind="Job", name="etl")
    report, log = run(_preempted_then_room_on_n2(job_pod))
    assert report["preemptions"][0]["victims"] == ["default/etl-aaaaa"]
    # gone at its delete call (5 + 2L, grace 0), replaced after the 10 s back-off
    assert rel(log.binds["default/etl-replay1"]) == (round(15 + 2 * L, 3), "n2")
    assert [job_backoff(n) for n in (1, 2, 3, 7, 8)] == [10.0, 20.0, 40.0, 600.0, 600.0]


def test_a_stateful_set_pod_comes_back_under_its_name_once_the_old_one_is_gone() -> None:
    db = owned(make_pod("db-0").priority(1).req(cpu="2").set("spec.terminationGracePeriodSeconds", 10)
               .start_time("2026-03-01T09:00:00Z").on("n1"), kind="StatefulSet", name="db")
    report, log = run(_preempted_then_room_on_n2(db))
    assert rel(log.deletes["default/db-0"]) == (round(15 + 2 * L, 3), "preempted")
    # the preemptor took n2 when the blocker left; db-0 comes back, new uid, same name, where it was
    assert rel(log.binds["default/high"]) == (12.0, "n2")
    assert rel(log.binds["default/db-0"]) == (round(15.1 + 2 * L, 3), "n1")


def test_pdb_status_counts_the_owner_scale_not_the_pods_that_happen_to_exist() -> None:
    # maxUnavailable 2 of a ReplicaSet of 3: with one pod terminating and its replacement pending,
    # the disruption controller expects 3 pods (not the 4 that exist): 2 healthy, 1 desired, so one
    # more disruption is allowed (counting the 4 pods would allow none)
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 2},
           "status": {"disruptionsAllowed": 1}}
    pods = [owned(make_pod(f"{RS}-{c * 5}").label("app", "web").priority(1).req(cpu="2")
                  .set("spec.terminationGracePeriodSeconds", 30).start_time("2026-03-01T09:00:00Z").on(f"n{i}"))
            for i, c in enumerate("abc")]
    tr = trace(
        *[ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="2", memory="8Gi").obj()) for i in range(3)],
        ev(0, "ADDED", replica_set(3)),
        ev(0, "ADDED", pdb),
        *[ev(0, "ADDED", p) for p in pods],
        ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="2").obj()),
        ev(10, "ADDED", make_pod("high2").priority(1000).req(cpu="2").obj()),
        end=60)
    report, _ = run(tr)
    first, second = report["preemptions"]
    assert [d["pdbViolation"] for d in first["victimDetails"]] == [False]
    assert [d["pdbViolation"] for d in second["victimDetails"]] == [False]
    assert len({first["node"], second["node"]}) == 2


def test_a_pod_workload_is_its_deployment_job_or_itself() -> None:
    rs = {("default", RS): replica_set(2)}
    assert workload_of(web(f"{RS}-aaaaa", "n1")["metadata"], rs) == "default/web"
    # without the ReplicaSet in the trace, its name less the pod-template-hash
    assert workload_of(web(f"{RS}-aaaaa", "n1")["metadata"], {}) == "default/web"
    job = owned(make_pod("etl-x"), kind="Job", name="etl")
    assert workload_of(job["metadata"], {}) == "default/etl"
    assert workload_of(make_pod("bare").obj()["metadata"], {}) == "default/bare"


@pytest.mark.parametrize("name,split", [
    ("stress-07", ("stress", 7)),
    ("web-0", ("web", 0)),
    ("a-1-2", ("a-1", 2)),            # the longest NAME, as `(.*)-([0-9]+)$` takes it
    ("db-2147483647", ("db", 2147483647)),
    ("db-2147483648", None),          # ParseInt(ordinal, 10, 32) refuses it
    ("-3", None),                     # no NAME
    ("web", None),
    ("web-", None),
    ("web-1a", None),
    ("web-\u0663", None),             # an Arabic-Indic digit: not [0-9]
])
def test_a_pod_name_splits_into_parent_and_ordinal_as_the_statefulset_controller_splits_it(
        name: str, split: tuple[str, int] | None) -> None:
    # statefulset/stateful_set_utils.go getParentNameAndOrdinal
    assert parent_and_ordinal(name) == split


def test_a_report_counts_ownerless_numbered_pods_under_their_common_name_and_owned_pods_under_their_owner() -> None:
    rs = {("default", RS): replica_set(2)}
    bare = make_pod("stress-07").obj()["metadata"]
    assert counted_workload_of(bare, {}) == "default/stress"
    # workload_of (the replay's leave times) keeps it apart
    assert workload_of(bare, {}) == "default/stress-07"
    assert counted_workload_of(make_pod("bare").obj()["metadata"], {}) == "default/bare"
    # an owner or a PodGroup names the workload, whatever the pod's name
    assert counted_workload_of(web(f"{RS}-1", "n1")["metadata"], rs) == "default/web"
    job = owned(make_pod("etl-3"), kind="Job", name="etl-batch")
    assert counted_workload_of(job["metadata"], {}) == "default/etl-batch"
    assert counted_workload_of({**bare, "podGroup": "lowgang"}, {}) == "default/lowgang"
    # a name generated from a prefix counts under the prefix, whatever follows it
    assert counted_workload_of({**bare, "name": "stress-x7k2p", "generateName": "stress-"}, {}) == "default/stress"
    assert counted_workload_of({**bare, "name": "x7k2p", "generateName": "-"}, {}) == "default/x7k2p"


def test_an_indexed_jobs_lost_pods_come_back_each_with_its_own_index() -> None:
    # job_controller.go manageJob: an Indexed Job creates one pod per missing index
    # (indexed_job_utils.go firstPendingIndexes), each with its completion index and the
    # generateName "<job>-<index>-" (podGenerateNameWithIndex); two pods lost together come back
    # as index 0 and index 1, not twice the last one lost
    idx = "batch.kubernetes.io/job-completion-index"

    def job_pod(index: int) -> dict[str, Any]:
        p = owned(make_pod(f"train-{index}-x{index}").priority(1).req(cpu="2")
                  .set("spec.terminationGracePeriodSeconds", 0).start_time("2026-03-01T09:00:00Z").on("n1"),
                  kind="Job", name="train")
        p["metadata"]["generateName"] = f"train-{index}-"
        p["metadata"].setdefault("annotations", {})[idx] = str(index)
        return p

    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
               ev(0, "ADDED", make_node("n2").alloc(cpu="4", memory="8Gi").obj()),
               ev(0, "ADDED", make_pod("blocker").priority(100000).req(cpu="4").on("n2").obj()),
               ev(0, "ADDED", job_pod(0)), ev(0, "ADDED", job_pod(1)),
               ev(5, "ADDED", make_pod("high").priority(1000).req(cpu="4").obj()),
               ev(12, "DELETED", make_pod("blocker").priority(100000).req(cpu="4").on("n2").obj()), end=60)
    _, log = run(tr)
    replacements = sorted(k for k in log.binds if "replay" in k)
    assert len(replacements) == 2
    assert {k.split("/")[1].rsplit("-", 1)[0] for k in replacements} == {"train-0", "train-1"}


@pytest.mark.parametrize("graceful", [False, True], ids=["deleted at once", "deleted gracefully"])
def test_a_recorded_scale_down_of_a_replacement_left_out_deletes_the_pod_kept_in_its_place(graceful: bool) -> None:
    # replica_set.go manageReplicas: a scale-down deletes one of the pods the ReplicaSet holds. The
    # recording's ReplicaSet held ccccc (its replacement of bbbbb, which the recorded scheduler
    # preempted); the replay's holds bbbbb, which it kept: the scale-down takes bbbbb. The trace
    # holds no ReplicaSet object: the replacement is matched to the loss it answers.
    replacement, events = _replaced_by_the_recording()
    going = copy.deepcopy(replacement)
    going["spec"]["nodeName"] = "n3"
    going["metadata"]["deletionTimestamp"] = at(30)
    tr = trace(*events, *([ev(30, "MODIFIED", going)] if graceful else []), ev(31, "DELETED", going), end=60)
    report, log = run(tr)
    assert report["preemptions"] == []
    assert f"default/{RS}-ccccc" not in log.binds
    assert rel(log.deletes[f"default/{RS}-bbbbb"]) == (31.0, "deleted")
    # the other pod of the ReplicaSet stays
    assert f"default/{RS}-aaaaa" not in log.deletes
    # a deletion of the replacement that the recorded scheduler made is its preemption, which
    # simulate leaves out: the pod kept in its place stays
    going["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True",
                                      "reason": "PreemptionByScheduler"}]
    report, log = run(tr)
    assert f"default/{RS}-bbbbb" not in log.deletes
