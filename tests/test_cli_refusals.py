"""Nonsense refused with one line and exit 2 (issue 28, point 5): a replay input that holds no
cluster, a session with no pod of kube-batch's, kubectl's TYPE/NAME for something not a Pod, and a
pod name that does not exist, with the closest names of its namespace."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.builders import make_node, make_pod
from tests.conftest import REPO, run_cli
from tests.test_cli_explain import as_list, assert_one_line_error, cluster


@pytest.mark.parametrize("command", ["replay", "check"])
@pytest.mark.parametrize("content,held", [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "b"}}, "1 ConfigMap"),
    (make_pod("lonely").obj(), "1 Pod"),
    ({"apiVersion": "v1", "kind": "List", "items": [make_pod("a").obj(), make_pod("b").obj(),
                                                    {"kind": "Service", "metadata": {"name": "s"}}]},
     "2 Pod, 1 Service"),
], ids=["a ConfigMap", "a lone Pod", "pods and a service"])
def test_a_replay_input_without_header_or_node_names_the_file_and_what_it_holds(
        tmp_path: Path, command: str, content: dict, held: str) -> None:
    (tmp_path / "in.yaml").write_text(yaml.safe_dump(content))
    args = ["replay", "in.yaml"] if command == "replay" else \
        ["check", "--trace", "in.yaml", "--proposed", "in.yaml"]
    run = run_cli(args, cwd=tmp_path)
    assert_one_line_error(run, "in.yaml: no trace header and no Node", f"(it holds {held})")


def test_a_watch_stream_without_a_node_is_refused_too(tmp_path: Path) -> None:
    pod = make_pod("a").obj()
    (tmp_path / "w.json").write_text(json.dumps({"type": "ADDED", "object": pod}) + "\n")
    run = run_cli(["replay", "w.json"], cwd=tmp_path)
    assert_one_line_error(run, "w.json: no trace header and no Node", "a kubectl watch stream of 1 Pod")


def test_a_snapshot_with_a_node_still_replays(tmp_path: Path) -> None:
    objs = [make_node("n").alloc(cpu="2").obj(), make_pod("a").req(cpu="1").obj()]
    (tmp_path / "s.json").write_bytes(as_list(objs))
    run = run_cli(["replay", "s.json"], cwd=tmp_path)
    assert run.code == 0, run


def test_session_without_a_pod_of_the_batch_scheduler_names_the_flag(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(as_list(cluster()))
    run = run_cli(["session", "--snapshot", "s.json"], cwd=tmp_path)
    assert_one_line_error(run, "s.json: no pod has schedulerName kube-batch", "default-scheduler (4)",
                          "--batch-scheduler-name")
    objs = cluster() + [make_pod("b").obj() | {"spec": {**make_pod("b").obj()["spec"], "schedulerName": "volcano"}}]
    (tmp_path / "v.json").write_bytes(as_list(objs))
    assert run_cli(["session", "--snapshot", "v.json", "--batch-scheduler-name", "volcano"], cwd=tmp_path).code == 0


@pytest.mark.parametrize("arg,kind", [("deployment/checkout", "Deployment"), ("sts/db", "StatefulSet"),
                                      ("deployments.apps/checkout", "Deployment"), ("svc/web", "Service")])
def test_type_slash_name_of_something_else_names_the_right_form(snap_dir: Path, arg: str, kind: str) -> None:
    run = run_cli(["explain", arg, "--snapshot", "s.json"], cwd=snap_dir)
    assert_one_line_error(run, f"{arg} names a {kind}: give namespace/name of a Pod")


def test_a_namespace_that_looks_like_a_type_is_still_a_namespace(tmp_path: Path) -> None:
    objs = cluster() + [make_pod("nightly").ns("job").priority(0).req(cpu="100m").obj()]
    (tmp_path / "s.json").write_bytes(as_list(objs))
    run = run_cli(["explain", "job/nightly", "--snapshot", "s.json", "-o", "json"], cwd=tmp_path)
    assert run.code == 0, run
    assert json.loads(run.out)["pod"] == "job/nightly"


@pytest.mark.parametrize("arg", ["pod/urgent", "pods/urgent", "po/urgent"])
def test_kubectl_pod_prefixes_are_read(snap_dir: Path, arg: str) -> None:
    run = run_cli(["explain", arg, "--snapshot", "s.json", "-o", "json"], cwd=snap_dir)
    assert run.code == 0, run
    assert json.loads(run.out)["pod"] == "default/urgent"


def test_a_missing_pod_suggests_the_closest_names_of_its_namespace(snap_dir: Path) -> None:
    run = run_cli(["explain", "low-3", "--snapshot", "s.json"], cwd=snap_dir)
    assert_one_line_error(run, "pod default/low-3 not found; did you mean default/low-1 or default/low-2?",
                          "(3 pods in namespace default;")
    # nothing close: no guess
    run = run_cli(["explain", "zzz", "--snapshot", "s.json"], cwd=snap_dir)
    assert_one_line_error(run, "pod default/zzz not found (3 pods in namespace default;")
    assert "did you mean" not in run.err
    # the names of another namespace are not offered
    run = run_cli(["explain", "team/urgen", "--snapshot", "s.json"], cwd=snap_dir)
    assert "did you mean" not in run.err


@pytest.fixture
def snap_dir(tmp_path: Path) -> Path:
    (tmp_path / "s.json").write_bytes(as_list(cluster()))
    return tmp_path


@pytest.mark.parametrize("args, first, second", [
    (["replay", "-", "--priorityclasses", "-"], "TRACE", "--priorityclasses"),
    (["replay", "-", "--config", "-"], "TRACE", "--config"),
    (["check", "-t", "-", "-p", "-"], "--trace", "--proposed"),
    (["check", "-t", "traces/demo.jsonl.gz", "-p", "-", "-b", "-"], "--proposed", "--baseline"),
    (["explain", "x/y", "-s", "-", "--config", "-"], "--snapshot", "--config"),
    (["explain", "x/y", "-s", "-", "-f", "-"], "--snapshot", "-f"),
    (["plan", "-s", "-", "-f", "examples/storefront-deployment.yaml", "--config", "-"], "--snapshot", "--config"),
    (["session", "-s", "-", "--scheduler-conf", "-"], "--snapshot", "--scheduler-conf"),
])
def test_two_inputs_from_standard_input_are_refused_before_either_is_read(args: list[str], first: str,
                                                                          second: str) -> None:
    # the second reader found standard input empty: "no Kubernetes objects in the file", or "empty
    # file: expected a KubeSchedulerConfiguration", about a file that was never empty
    run = run_cli(args, cwd=REPO, stdin=(REPO / "traces" / "demo.jsonl.gz").read_bytes())
    assert_one_line_error(run, f"{first} - and {second} - cannot both read standard input")
