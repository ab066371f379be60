"""Bad workload input (Workloads, PodGroups and their pods) given to plan, replay and explain ends
with one line on stderr naming the file, the object and the field, exit 2, nothing written
half-way; and the workload inputs a fuzzer found mishandled are handled (found by fuzzing
PodGroup and Workload fields through every command)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import make_gang, make_node, make_pod, make_workload
from tests.conftest import assert_one_error as _one_error, run_cli

G36 = ["--kubernetes-version", "v1.36", "--feature-gates", "GenericWorkload=true,GangScheduling=true"]
G35 = ["--kubernetes-version", "v1.35", "--feature-gates", "GenericWorkload=true,GangScheduling=true"]


def write(tmp_path: Path, name: str, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / name
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


def cluster(tmp_path: Path) -> str:
    objs = [make_node(f"n{i}").alloc(cpu="4", memory="8Gi").obj() for i in (1, 2)]
    return write(tmp_path, "snap.json", objs)


def gang_manifest(group: dict[str, Any]) -> list[dict[str, Any]]:
    return [group] + [make_pod(f"w-{i}").ns("ml").req(cpu="1").in_pod_group("train").obj() for i in range(2)]


@pytest.mark.parametrize("change, field, words", [
    (lambda g: g.update(spec="x"), "spec", "must be an object"),
    (lambda g: g["metadata"].update(namespace={"a": 1}), "metadata.namespace", "must be a string"),
    (lambda g: g["metadata"].update(namespace=0), "metadata.namespace", "must be a string"),
    (lambda g: g.update(apiVersion={"minCount": 2}), "apiVersion", "must be a string, got an object"),
    (lambda g: g["spec"].update(priority="x"), "spec.priority", "must be an integer"),
], ids=["spec a string", "namespace an object", "namespace a number", "apiVersion an object", "priority a string"])
def test_plan_names_a_bad_pod_group_field_of_a_manifest(tmp_path: Path, change: Any, field: str, words: str) -> None:
    group = make_gang("train", 2, namespace="ml", priority=100)
    change(group)
    manifest = write(tmp_path, "m.json", gang_manifest(group))
    run = run_cli(["plan", "-f", manifest, "--snapshot", cluster(tmp_path), *G36])
    _one_error(run, "m.json: items[0] (PodGroup train): " + field, words)


def test_plan_takes_a_pod_group_with_a_deeply_nested_field_it_never_reads(tmp_path: Path) -> None:
    # copied as far as plan changes it: 600 levels of an unknown field are no recursion error
    group = make_gang("train", 2, namespace="ml", priority=100)
    deep: Any = "x"
    for _ in range(600):
        deep = [deep]
    group["spec"]["extra"] = deep
    run = run_cli(["plan", "-f", write(tmp_path, "m.json", gang_manifest(group)), "--snapshot", cluster(tmp_path), *G36])
    assert run.code == 0, run.err


def test_plan_refuses_a_workload_of_another_releases_api(tmp_path: Path) -> None:
    manifest = write(tmp_path, "m.json", [make_workload("train", {"workers": 2}, namespace="ml", version="v1alpha1")])
    run = run_cli(["plan", "-f", manifest, "--snapshot", cluster(tmp_path), *G36])
    _one_error(run, "m.json", "Workload ml/train", "scheduling.k8s.io/v1alpha1 Workload is not read by kube-scheduler v1.36.2")
    snap = write(tmp_path, "s.json", [make_node("n1").alloc(cpu="4", memory="8Gi").obj(),
                                      make_gang("low", 2, namespace="batch", priority=50)])
    pod = write(tmp_path, "p.json", [make_pod("p").req(cpu="1").obj()])
    run = run_cli(["plan", "-f", pod, "--snapshot", snap, *G35])
    _one_error(run, "s.json", "PodGroup batch/low", "is not read by kube-scheduler v1.35.6")


def test_replay_of_a_snapshot_names_the_bad_item_with_no_note_before_the_error(tmp_path: Path) -> None:
    group = make_gang("train", 2, namespace="ml", priority=100)
    group["spec"]["priority"] = "x"
    snap = write(tmp_path, "s.json", [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), group])
    run = run_cli(["replay", snap, *G36])
    _one_error(run, "s.json: items[1] (PodGroup ml/train).spec.priority: must be an integer")


def test_replay_of_a_document_nested_too_deep_says_so_in_one_line(tmp_path: Path) -> None:
    p = tmp_path / "deep.json"
    p.write_text('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap", "metadata": {"name": "x"}, '
                 '"data": ' + "[" * 5000 + "]" * 5000 + "}]}")
    _one_error(run_cli(["replay", str(p)]), "deep.json", "depth limit exceeded")


@pytest.mark.parametrize("command", ["replay", "plan"])
def test_a_late_error_leaves_no_dump_decisions_directory_behind(tmp_path: Path, command: str) -> None:
    group = make_gang("train", 2, namespace="ml", priority=100)
    group["spec"]["priority"] = "x"
    out = tmp_path / "cases"
    if command == "replay":
        snap = write(tmp_path, "s.json", [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), group])
        run = run_cli(["replay", snap, *G36, "--dump-decisions", str(out)])
    else:
        run = run_cli(["plan", "-f", write(tmp_path, "m.json", gang_manifest(group)), "--snapshot", cluster(tmp_path),
                       *G36, "--dump-decisions", str(out)])
    _one_error(run, "spec.priority")
    assert not out.exists()


def test_plan_max_of_a_pod_held_at_pre_enqueue_fits_nowhere_for_the_gates_reason(tmp_path: Path) -> None:
    # the copies name a pod group that does not exist: GangScheduling's PreEnqueue holds each
    # (upstream's queue never tries it), so none fits, on free room or by preempting
    pod = write(tmp_path, "p.json", [make_pod("extra").ns("ml").req(cpu="1").in_pod_group("nope").obj()])
    run = run_cli(["plan", "--max", "-f", pod, "--snapshot", cluster(tmp_path), *G36, "-o", "json"])
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["withoutPreemption"]["count"] == 0 and doc["withPreemption"]["count"] == 0
    assert doc["extraCopies"] == 0
    assert '"nope"' in doc["withoutPreemption"]["stoppedAt"]["message"]
    # and, as explain says it, one note for the missing group
    assert run.err.strip().splitlines() == [
        'note: ml/extra name PodGroup ml/nope, which is not there: GangScheduling holds them at PreEnqueue '
        '(waiting for pods\'s pod group "nope" to appear in scheduling queue)']


@pytest.mark.parametrize("text, value", [("1:30", "1:30"), ("1_0", 10), ("0x3", 3), ("12", 12), ("1:30.5", "1:30.5")])
def test_yaml_reads_numbers_as_kubernetes_yaml_reader_does(tmp_path: Path, text: str, value: Any) -> None:
    # go-yaml (sigs.k8s.io/yaml) has no YAML 1.1 base 60: `1:30` is a string, never 90
    p = tmp_path / "s.yaml"
    p.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  n: {text}\n")
    from kubectl_preempt.io.snapshot import load_objects
    [obj] = load_objects(str(p))
    assert obj["data"]["n"] == value


def test_a_gang_min_count_of_1_30_in_yaml_is_refused_not_read_as_90(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text("apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata:\n  name: train\n  namespace: ml\n"
                 "spec:\n  schedulingPolicy:\n    gang:\n      minCount: 1:30\n")
    run = run_cli(["explain", "podgroup/ml/train", "--snapshot", str(p), *G36])
    _one_error(run, "s.yaml", "(PodGroup ml/train).spec.schedulingPolicy.gang.minCount", 'got a string ("1:30")')
