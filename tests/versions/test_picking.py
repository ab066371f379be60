"""A snapshot or a trace recorded from a server of each imitated release is explained or replayed
as that release without a flag."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.replay.api import replay
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "examples" / "cluster.json"
ANN = "kubectl-preempt/server-version"
RELEASES = [("v1.30.1", "v1.30.1"), ("v1.31.1", "v1.31.1"), ("v1.32.2", "v1.32.2"), ("v1.33.0", "v1.33.0"),
            ("v1.32.4", "v1.32.2"), ("v1.33.3", "v1.33.0"), ("v1.36.0", "v1.36.2")]


def _captured(tmp_path: Path, server_version: str) -> Path:
    doc = json.loads(CLUSTER.read_text())
    doc.setdefault("metadata", {})["annotations"] = {ANN: server_version, "kubectl-preempt/context": "prod"}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("server,want", RELEASES, ids=[s for s, _ in RELEASES])
def test_a_snapshot_is_explained_as_its_server_s_release(tmp_path: Path, server: str, want: str) -> None:
    path = _captured(tmp_path, server)
    assert kubectl_preempt.explain(kubectl_preempt.load_snapshot(str(path)), "shop/checkout")["schedulerVersion"] == want
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(path)])
    assert run.code == 0 and run.err == "", run.err
    assert run.out.rstrip().endswith(f"Decided by kube-scheduler {want}")


def _trace(server_version: str) -> dict[str, Any]:
    objects = json.loads(CLUSTER.read_text())["items"]
    header = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "2026-03-01T10:00:00Z",
              "source": {"context": "prod", "serverVersion": server_version}}
    return {"header": header,
            "events": [{"time": "2026-03-01T10:00:00Z", "type": "ADDED", "object": o} for o in objects]}


@pytest.mark.parametrize("server,want", RELEASES, ids=[s for s, _ in RELEASES])
def test_a_trace_is_replayed_as_its_server_s_release(server: str, want: str) -> None:
    assert replay(_trace(server))["schedulerVersion"] == want


def test_the_flag_still_wins(tmp_path: Path) -> None:
    path = _captured(tmp_path, "v1.31.1")
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(path), "--kubernetes-version", "v1.33", "-o", "json"])
    assert json.loads(run.out)["schedulerVersion"] == "v1.33.0"
    assert replay(_trace("v1.31.1"), kubernetes_version="v1.30")["schedulerVersion"] == "v1.30.1"
