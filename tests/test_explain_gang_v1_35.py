"""explain of a v1.35 gang member (plugins/gangscheduling GangSchedulingV135, scheduler/scheduler.py
reserve_and_permit, render/table.py): its cycle places it, then Permit holds it until minCount of its
gang are assumed or bound; below minCount pods it never enters the queue; the gates off, it is an
ordinary pod; and what v1.35 refuses."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt import api
from tests.builders import make_gang, make_node, make_pod, make_workload
from tests.conftest import run_cli

GATES = "GenericWorkload=true,GangScheduling=true"


def cluster(size: int = 3, min_count: int = 3, bound: int = 0) -> list[dict[str, Any]]:
    objs = [make_node("n1").alloc(cpu="4", memory="16Gi").obj(),
            make_workload("train", {"workers": min_count}, namespace="gang", version="v1alpha1")]
    for i in range(size):
        b = make_pod(f"w-{i}").ns("gang").req(cpu="1", memory="1Gi").workload_ref("train", "workers")
        objs.append((b.on("n1") if i < bound else b).obj())
    return objs


def snapshot(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


def test_a_member_is_placed_then_waits_at_permit_for_its_gang(tmp_path: Path) -> None:
    run = run_cli(["explain", "gang/w-0", "--snapshot", snapshot(tmp_path, cluster()), "--kubernetes-version", "v1.35",
                   "--feature-gates", GATES])
    assert run.code == 0, run.err
    assert run.out.startswith(
        "Pod        gang/w-0   priority 0   requests cpu 1, memory 1Gi\n"
        "Outcome    SCHEDULED on n1\n"
        "Permit     WAITS at Permit (GangScheduling): waiting for minCount pods from a gang to be waiting on permit\n"
        "           gang gang/train/workers: 1 of minCount 3 assumed or bound, this pod included\n"
        "           none binds before minCount do; after 5m0s the waiting ones are rejected\n")
    assert "Decided by kube-scheduler v1.35.6\n" in run.out


def test_the_document_carries_permits_answer() -> None:
    [doc] = api.explain_pods(cluster(), ["gang/w-0"], kubernetes_version="v1.35", feature_gates=GATES)
    assert doc["outcome"] == "Scheduled" and doc["node"] == "n1"
    assert doc["permit"] == {
        "code": "Wait", "plugin": "", "reasons": ['one or more plugins asked to wait and no plugin rejected pod "w-0"'],
        "timeoutSeconds": 300.0,
        "gang": {"plugin": "GangScheduling", "reason": "waiting for minCount pods from a gang to be waiting on permit",
                 "podGroup": "gang/train/workers", "minCount": 3, "assumedOrAssigned": 1, "pods": 3}}


def test_each_member_is_explained_alone_none_counts_the_others_question() -> None:
    docs = api.explain_pods(cluster(), ["gang/w-0", "gang/w-1", "gang/w-2"], kubernetes_version="v1.35",
                            feature_gates=GATES)
    assert [d["permit"]["gang"]["assumedOrAssigned"] for d in docs] == [1, 1, 1]


def test_the_member_that_completes_the_quorum_is_not_held() -> None:
    """Two members bound, minCount 3: the third passes Permit and binds."""
    [doc] = api.explain_pods(cluster(bound=2), ["gang/w-2"], kubernetes_version="v1.35", feature_gates=GATES)
    assert doc["outcome"] == "Scheduled" and "permit" not in doc


def test_a_gang_with_fewer_pods_than_min_count_is_held_at_pre_enqueue() -> None:
    [doc] = api.explain_pods(cluster(size=2), ["gang/w-0"], kubernetes_version="v1.35", feature_gates=GATES)
    assert doc["outcome"] == "Unschedulable"
    assert doc["message"] == "waiting for minCount pods from a gang to appear in scheduling queue"


@pytest.mark.parametrize("gates", ["", "GenericWorkload=true"])
def test_without_gang_scheduling_a_member_is_an_ordinary_pod(gates: str) -> None:
    [doc] = api.explain_pods(cluster(), ["gang/w-0"], kubernetes_version="v1.35", feature_gates=gates or None)
    assert doc["outcome"] == "Scheduled" and "permit" not in doc


def test_a_v1alpha2_pod_group_given_to_v1_35_with_its_gates_exits_2_naming_release_and_kind(tmp_path: Path) -> None:
    objs = cluster() + [make_gang("train", 2, namespace="gang")]
    run = run_cli(["explain", "gang/w-0", "--snapshot", snapshot(tmp_path, objs), "--kubernetes-version", "v1.35",
                   "--feature-gates", GATES])
    assert (run.code, run.out) == (2, "")
    assert "scheduling.k8s.io/v1alpha2 PodGroup is not read by kube-scheduler v1.35.6" in run.err
    assert "PodGroup gang/train" in run.err and run.err.count("\n") == 1


@pytest.mark.parametrize("drop,gates,note,message", [
    pytest.param("workload", GATES,
                 "gang/w-0 and 2 more name Workload gang/train, which is not there: GangScheduling holds them at "
                 "PreEnqueue (waiting for pods's workload \"train\" to appear in scheduling queue)",
                 'waiting for pods\'s workload "train" to appear in scheduling queue', id="the Workload is missing"),
    pytest.param("group", GATES,
                 "gang/w-0 and 2 more name pod group \"workers\" of Workload gang/train, which has none of that name: "
                 "GangScheduling holds them at PreEnqueue (pod group \"workers\" doesn't exist for a workload \"train\")",
                 'pod group "workers" doesn\'t exist for a workload "train"', id="the pod group is missing"),
    pytest.param("workload", "GenericWorkload=true",
                 "gang/w-0 and 2 more name Workload gang/train, which is not there: without GangScheduling nothing "
                 "reads it: they are scheduled as any pod", None, id="without GangScheduling"),
])
def test_pods_naming_a_missing_workload_or_pod_group_get_one_note(tmp_path: Path, drop: str, gates: str, note: str,
                                                                   message: str | None) -> None:
    objs = cluster()
    if drop == "workload":
        objs = [o for o in objs if o["kind"] != "Workload"]
    else:
        objs[1]["spec"]["podGroups"][0]["name"] = "ps"
    run = run_cli(["explain", "gang/w-0", "--snapshot", snapshot(tmp_path, objs), "--kubernetes-version", "v1.35",
                   "--feature-gates", gates, "-o", "json"])
    assert run.code == 0, run.err
    assert [line for line in run.err.splitlines() if "gang/" in line] == [f"note: {tmp_path / 's.json'}: {note}"]
    doc = json.loads(run.out)
    if message is None:
        assert doc["outcome"] == "Scheduled"
    else:
        assert (doc["outcome"], doc["message"]) == ("Unschedulable", message)


def test_with_generic_workload_off_the_members_get_one_note_saying_each_is_decided_alone(tmp_path: Path) -> None:
    # v1.35.6's scheduler reads spec.workloadRef only with GenericWorkload (and GangScheduling for
    # its Permit); without it the members are ordinary pods, said once for their pod group
    run = run_cli(["explain", "gang/w-1", "--snapshot", snapshot(tmp_path, cluster(bound=1)),
                   "--kubernetes-version", "v1.35", "-o", "json"])
    assert run.code == 0, run.err
    # w-0 is bound: the note counts the pending members only
    assert [line for line in run.err.splitlines() if "gang/" in line] == [
        f"note: {tmp_path / 's.json'}: gang/w-1 and 1 more name pod group \"workers\" of Workload gang/train, which "
        "kube-scheduler v1.35.6 does not read with GenericWorkload off: each is decided alone, as any pod "
        "(--feature-gates GenericWorkload=true,GangScheduling=true schedules it as a gang)"]
    assert json.loads(run.out)["outcome"] == "Scheduled"
