"""Bad input to replay, history and check found by fuzzing those commands: a trace header or an
Event field of the wrong type, a malformed --baseline class, a trace of another release's workload
API. Each ends with one line on stderr naming the file, the object and the field, exit 2. And
check --html with --feature-gates writes its page."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import make_node, make_pod
from tests.conftest import assert_one_error as _one_error, run_cli

REPO = Path(__file__).resolve().parents[1]
ROLLOUT = str(REPO / "traces" / "priorityclass-rollout.jsonl.gz")
PROPOSED = str(REPO / "traces" / "proposed-platform-critical.yaml")
HEADER = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "2026-03-01T10:00:00Z"}


def trace_file(tmp_path: Path, header: dict[str, Any], objects: list[dict[str, Any]]) -> str:
    p = tmp_path / "t.jsonl"
    lines = [json.dumps(header)] + [json.dumps({"time": "2026-03-01T10:00:00Z", "type": "ADDED", "object": o})
                                   for o in objects]
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def _event(**fields: Any) -> dict[str, Any]:
    e = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "v.1", "namespace": "default", "uid": "e1"},
         "reason": "Preempted", "message": "Preempted by pod p on node n1",
         "involvedObject": {"kind": "Pod", "name": "v", "namespace": "default"}}
    e.update(fields)
    return e


def _cluster() -> list[dict[str, Any]]:
    return [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_pod("v").req(cpu="1").on("n1").obj()]


@pytest.mark.parametrize("change, field", [
    ({"message": 5}, ".message: must be a string"),
    ({"related": "x"}, ".related: must be an object"),
    ({"metadata": {"name": "v.1", "namespace": "default", "uid": ["x"]}}, ".metadata.uid: must be a string"),
], ids=["message a number", "related a string", "uid a list"])
@pytest.mark.parametrize("command", ["replay", "history"])
def test_an_event_field_of_the_wrong_type_is_named(tmp_path: Path, change: dict, field: str, command: str) -> None:
    path = trace_file(tmp_path, HEADER, _cluster() + [_event(**change)])
    args = ["replay", path] if command == "replay" else ["history", "--trace", path]
    _one_error(run_cli(args), "t.jsonl: line 4 (Event default/v.1)" + field)


@pytest.mark.parametrize("header, words", [
    ({"source": "x"}, "header source must be an object"),
    ({"recorder": "x"}, "header recorder must be an object"),
    ({"recorder": {"kinds": 5}}, "header recorder.kinds must be a list of kind names"),
    ({"source": {"serverVersion": 5}}, "header source.serverVersion must be a string"),
    ({"redacted": "yes"}, "header redacted must be true or false"),
], ids=["source", "recorder", "recorder.kinds", "source.serverVersion", "redacted"])
@pytest.mark.parametrize("command", ["replay", "history"])
def test_a_trace_header_field_of_the_wrong_type_is_named(tmp_path: Path, header: dict, words: str,
                                                          command: str) -> None:
    path = trace_file(tmp_path, {**HEADER, **header}, _cluster())
    args = ["replay", path] if command == "replay" else ["history", "--trace", path]
    _one_error(run_cli(args), "t.jsonl: line 1: " + words)


@pytest.mark.parametrize("metadata, field", [(5, "metadata: must be an object"),
                                             ({"name": ["a"]}, "metadata.name: must be a string")])
def test_check_names_a_malformed_baseline_class_and_its_file(tmp_path: Path, metadata: Any, field: str) -> None:
    b = tmp_path / "base.json"
    b.write_text(json.dumps({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": metadata,
                             "value": 10}))
    _one_error(run_cli(["check", "-t", ROLLOUT, "-p", PROPOSED, "-b", str(b)]), "base.json", field)


def test_check_names_the_trace_whose_workload_objects_its_release_cannot_read() -> None:
    trace = str(REPO.parent / "shared" / "realcluster" / "v136" / "s9-gang-wap-bare.jsonl.gz")
    if not Path(trace).exists():
        pytest.skip("../shared is not beside the project")
    _one_error(run_cli(["check", "-t", trace, "-p", PROPOSED, "--kubernetes-version", "v1.35"]),
               "s9-gang-wap-bare.jsonl.gz: PodGroup batch/lowgang: scheduling.k8s.io/v1alpha2 PodGroup is not read")


def test_check_html_with_feature_gates_writes_its_page(tmp_path: Path) -> None:
    page = tmp_path / "check.html"
    run = run_cli(["check", "-t", ROLLOUT, "-p", PROPOSED, "--kubernetes-version", "v1.33",
                   "--feature-gates", "PodLevelResources=true", "--html", str(page)])
    assert run.code in (0, 1) and "Traceback" not in run.err, run.err
    assert page.read_text().lstrip().startswith("<!")
