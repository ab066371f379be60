"""The release is never guessed in silence: for each imitated release and each source that can
name it (the flag, a captured snapshot, a trace header, the live server's /version, the nodes'
kubelets) the release decided, `schedulerVersionFrom` saying where it came from, and one note when
the data did not name it; with no hint at all, the newest imitated release (framework/versions.py
resolve_kubernetes_version)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.versions import resolve_kubernetes_version
from kubectl_preempt.replay.api import replay
from kubectl_preempt.version import KUBERNETES_VERSIONS
from tests.builders import make_node, make_pod
from tests.conftest import run_cli

ANN = "kubectl-preempt/server-version"
RELEASES = [(name, "v" + name[1:].rsplit(".", 1)[0]) for name in KUBERNETES_VERSIONS]  # ("v1.35.6", "v1.35")


def _objects(kubelet: str | None = None, *, other_kubelet: str | None = None) -> list[dict[str, Any]]:
    nodes = [make_node("n1").alloc(cpu="4", memory="8Gi"), make_node("n2").alloc(cpu="4", memory="8Gi")]
    for node, k in zip(nodes, (kubelet, other_kubelet)):
        if k is not None:
            node.set("status.nodeInfo", {"kubeletVersion": k, "operatingSystem": "linux"})
    return [n.obj() for n in nodes] + [make_pod("p").req(cpu="1").obj()]


def _snapshot(tmp_path: Path, objects: list[dict[str, Any]], server: str | None = None) -> Path:
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "items": objects}
    if server is not None:
        doc["metadata"] = {"annotations": {ANN: server}}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    return path


def _trace(objects: list[dict[str, Any]], server: str | None = None) -> dict[str, Any]:
    header: dict[str, Any] = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "2026-03-01T10:00:00Z"}
    if server is not None:
        header["source"] = {"serverVersion": server}
    return {"header": header, "events": [{"time": "2026-03-01T10:00:00Z", "type": "ADDED", "object": o}
                                         for o in objects]}


@pytest.mark.parametrize("release,short", RELEASES, ids=[s for _, s in RELEASES])
def test_the_flag_picks_each_release(release: str, short: str) -> None:
    doc = kubectl_preempt.explain(_objects("v1.30.0"), "default/p", kubernetes_version=short)
    assert (doc["schedulerVersion"], doc["schedulerVersionFrom"]) == (release, "flag")
    report = replay(_trace(_objects(), "v1.36.2"), kubernetes_version=short)
    assert (report["schedulerVersion"], report["schedulerVersionFrom"]) == (release, "flag")


@pytest.mark.parametrize("release,short", RELEASES, ids=[s for _, s in RELEASES])
def test_a_snapshot_naming_each_release_is_decided_as_it_silently(tmp_path: Path, release: str, short: str) -> None:
    path = _snapshot(tmp_path, _objects("v1.30.0"), server=release)
    run = run_cli(["explain", "default/p", "--snapshot", str(path), "-o", "json"])
    assert run.code == 0 and run.err == "", run.err
    doc = json.loads(run.out)
    assert (doc["schedulerVersion"], doc["schedulerVersionFrom"]) == (release, "snapshot")


@pytest.mark.parametrize("release,short", RELEASES, ids=[s for _, s in RELEASES])
def test_a_trace_naming_each_release_is_replayed_as_it(release: str, short: str) -> None:
    report = replay(_trace(_objects("v1.30.0"), release))
    assert (report["schedulerVersion"], report["schedulerVersionFrom"]) == (release, "trace")


@pytest.mark.parametrize("release,short", RELEASES, ids=[s for _, s in RELEASES])
def test_the_newest_kubelet_bounds_each_release_with_a_note(tmp_path: Path, release: str, short: str) -> None:
    kubelet = short + ".3"
    objects = _objects(kubelet, other_kubelet="v1.30.0")
    path = _snapshot(tmp_path, objects)
    run = run_cli(["explain", "default/p", "--snapshot", str(path), "-o", "json"])
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert (doc["schedulerVersion"], doc["schedulerVersionFrom"]) == (release, "kubelet")
    assert run.err == (f"note: {path} names no Kubernetes release; its newest kubelet is {kubelet}, and no kubelet is "
                       f"newer than its API server: deciding as kube-scheduler {release} (--kubernetes-version picks "
                       "another)\n")
    report = replay(_trace(objects))
    assert (report["schedulerVersion"], report["schedulerVersionFrom"]) == (release, "kubelet")


def test_a_snapshot_of_v1_35_kubelets_naming_no_release_is_decided_as_v1_35_with_the_note(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, _objects("v1.35.2-eks-1a2b3c", other_kubelet="v1.34.9"))
    run = run_cli(["explain", "default/p", "--snapshot", str(path)])
    assert run.code == 0
    assert run.out.rstrip().endswith("Decided by kube-scheduler v1.35.6")
    assert run.err.count("\n") == 1 and "its newest kubelet is v1.35.2-eks-1a2b3c" in run.err
    assert "deciding as kube-scheduler v1.35.6" in run.err and "--kubernetes-version" in run.err


@pytest.mark.parametrize("kubelet,want,why", [
    ("v1.29.15", "v1.30.1", ", the oldest imitated release"),
    ("v1.38.0", "v1.36.2", ", the newest imitated release"),
])
def test_a_kubelet_outside_the_range_picks_the_nearest_end(kubelet: str, want: str, why: str) -> None:
    got = resolve_kubernetes_version(None, None, data_source="the snapshot", kubelets=[("n1", kubelet)])
    assert (got.version.name, got.source) == (want, "kubelet")
    assert got.note is not None and f"deciding as kube-scheduler {want}{why} (" in got.note


def test_the_release_named_wins_over_the_kubelets_and_the_flag_over_both() -> None:
    objects = {"apiVersion": "v1", "kind": "List", "items": _objects("v1.35.1"),
               "metadata": {"annotations": {ANN: "v1.36.2"}}}
    assert kubectl_preempt.explain(objects, "default/p")["schedulerVersionFrom"] == "snapshot"
    assert kubectl_preempt.explain(objects, "default/p", kubernetes_version="v1.33")["schedulerVersion"] == "v1.33.0"


def test_nothing_naming_a_release_is_the_newest_with_a_note(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, _objects())
    run = run_cli(["explain", "default/p", "--snapshot", str(path), "-o", "json"])
    doc = json.loads(run.out)
    assert (doc["schedulerVersion"], doc["schedulerVersionFrom"]) == ("v1.36.2", "default")
    assert run.err == (f"note: {path} names no Kubernetes release: deciding as kube-scheduler v1.36.2, the newest "
                       "imitated release (--kubernetes-version picks another)\n")
    report = replay(_trace(_objects()))
    assert (report["schedulerVersion"], report["schedulerVersionFrom"]) == ("v1.36.2", "default")


def test_a_conformance_case_is_explained_as_its_own_release(tmp_path: Path) -> None:
    case = {"name": "c", "pod": "default/p", "kubernetesVersion": "v1.33.0", "objects": _objects()}
    assert kubectl_preempt.explain(case, "default/p")["schedulerVersion"] == "v1.33.0"
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    run = run_cli(["explain", "default/p", "--snapshot", str(path), "-o", "json"])
    assert (json.loads(run.out)["schedulerVersion"], run.err) == ("v1.33.0", "")


@pytest.mark.parametrize("value,shown", [("1.35", '"1.35"'), ("v2.0.0", '"v2.0.0"'), ("latest", '"latest"')])
def test_a_malformed_kubelet_version_is_one_line_naming_node_and_field(tmp_path: Path, value: Any, shown: str) -> None:
    objects = _objects("v1.34.0")
    objects[1]["status"]["nodeInfo"] = {"kubeletVersion": value}
    if value == "1.35":  # parse_version takes "1.35" as a release: no error for it
        path = _snapshot(tmp_path, objects)
        assert run_cli(["explain", "default/p", "--snapshot", str(path)]).code == 0
        return
    path = _snapshot(tmp_path, objects)
    run = run_cli(["explain", "default/p", "--snapshot", str(path)])
    assert (run.code, run.out) == (2, "")
    assert run.err == (f"error: {path}: Node n2: status.nodeInfo.kubeletVersion: {shown} is not a Kubernetes version "
                       "such as v1.35.2\n")
    with pytest.raises(InputError):
        kubectl_preempt.explain(objects, "default/p")
    # a release named makes the kubelets moot
    assert run_cli(["explain", "default/p", "--snapshot", str(path), "--kubernetes-version", "v1.36"]).code == 0
