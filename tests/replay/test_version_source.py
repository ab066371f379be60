"""Issue 26, point 6: the scheduler's release is not the API server's. A trace header's
source.serverVersion names kube-apiserver, and the version-skew policy lets kube-scheduler be a
minor older; the replay and the check say, on the mode line and in JSON, whether the release they
imitate was asked for (--kubernetes-version), inferred from that header, or the default."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_preempt.check.api import check
from kubectl_preempt.io.trace import write_trace
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod, make_priority_class
from tests.conftest import run_cli

from .helpers import ev, trace


def small(server: str | None) -> dict[str, Any]:
    t = trace(ev(0, "ADDED", make_priority_class("low", 10)), ev(0, "ADDED", make_node("n1").alloc(cpu="2").obj()),
              ev(5, "ADDED", make_pod("p").priority_class("low").priority(10).req(cpu="1").obj()), end=30)
    t["header"] = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": t["header"]["startTime"]}
    if server is not None:
        t["header"]["source"] = {"context": "kind", "serverVersion": server}
    return t


@pytest.mark.parametrize("server, flag, version, source", [
    ("v1.36.2", None, "v1.36.2", {"from": "trace", "serverVersion": "v1.36.2"}),
    ("v1.36.2", "v1.34", "v1.34.1", {"from": "--kubernetes-version", "requested": "v1.34"}),
    (None, None, "v1.36.2", {"from": "default"}),
    ("unknown", None, "v1.36.2", {"from": "default"}),
    ("banana", None, "v1.36.2", {"from": "default"}),
    (None, "v1.36", "v1.36.2", {"from": "--kubernetes-version", "requested": "v1.36"}),
], ids=["header", "flag-over-header", "no-header", "unknown", "not-a-release", "flag-alone"])
@pytest.mark.parametrize("mode", ["simulate", "follow"])
def test_the_report_says_where_the_release_came_from(server, flag, version, source, mode) -> None:
    r = replay(small(server), mode=mode, kubernetes_version=flag)
    assert r["schedulerVersion"] == version
    assert r["schedulerVersionSource"] == source
    assert r["schedulerVersionFrom"] == {"--kubernetes-version": "flag"}.get(source["from"], source["from"])
    assert list(r)[:5] == ["apiVersion", "kind", "schedulerVersion", "schedulerVersionFrom", "schedulerVersionSource"]


@pytest.mark.parametrize("kubelets,version", [(["v1.35.2", "v1.33.9"], "v1.35.6"), (["v1.29.0"], "v1.30.1"),
                                              (["v1.38.1"], "v1.36.2")],
                         ids=["the newest kubelet's minor", "older than every release: the oldest",
                              "newer than every release: the newest"])
def test_a_trace_naming_no_server_is_bounded_by_its_kubelets(kubelets: list[str], version: str) -> None:
    t = small(None)
    node = t["events"][1]["object"]
    t["events"][1:2] = [ev(0, "ADDED", {**node, "metadata": {"name": f"n{i}"},
                                        "status": {**node["status"], "nodeInfo": {"kubeletVersion": k}}})
                        for i, k in enumerate(kubelets)]
    r = replay(t)
    assert (r["schedulerVersion"], r["schedulerVersionFrom"]) == (version, "kubelet")
    newest = max(kubelets, key=lambda k: tuple(int(x) for x in k[1:].split(".")))
    assert r["schedulerVersionSource"] == {"from": "kubelet", "kubeletVersion": newest}


def test_the_mode_line_says_it(tmp_path: Path) -> None:
    for name, server in (("apiserver.jsonl", "v1.36.2"), ("plain.jsonl", None)):
        t = small(server)
        write_trace(str(tmp_path / name), t["header"], t["events"])
    run = run_cli(["replay", "apiserver.jsonl"], cwd=tmp_path)
    assert run.code == 0, run
    assert ("Mode      simulate: the offline kube-scheduler v1.36.2 (inferred from the trace's API server "
            "v1.36.2; the scheduler may be older: --kubernetes-version sets it) places") in run.out
    run = run_cli(["replay", "apiserver.jsonl", "--kubernetes-version", "v1.34", "--follow"], cwd=tmp_path)
    assert run.code == 0, run
    assert "by the offline kube-scheduler v1.34.1 (--kubernetes-version v1.34)\n" in run.out
    run = run_cli(["replay", "plain.jsonl", "-o", "json"], cwd=tmp_path)
    assert json.loads(run.out)["schedulerVersionSource"] == {"from": "default"}
    run = run_cli(["replay", "plain.jsonl"], cwd=tmp_path)
    assert ("kube-scheduler v1.36.2 (the default, the newest imitated: the trace names no server version) places"
            in run.out)
    assert run.err == ("note: the trace names no Kubernetes release: deciding as kube-scheduler v1.36.2, the newest "
                       "imitated release (--kubernetes-version picks another)\n")
    run = run_cli(["replay", "apiserver.jsonl", "--runs", "2", "--jobs", "1", "-o", "json"], cwd=tmp_path)
    assert json.loads(run.out)["schedulerVersionSource"] == {"from": "trace", "serverVersion": "v1.36.2"}


def test_check_says_it_per_trace(tmp_path: Path) -> None:
    traces = {"a": small("v1.36.2"), "b": small(None)}
    r = check(traces, [make_priority_class("low", 20)])
    assert [t["schedulerVersionSource"] for t in r["traces"]] == [{"from": "trace", "serverVersion": "v1.36.2"},
                                                                  {"from": "default"}]
    r = check(traces, [make_priority_class("low", 20)], kubernetes_version="v1.34")
    assert [t["schedulerVersion"] for t in r["traces"]] == ["v1.34.1", "v1.34.1"]
    assert all(t["schedulerVersionSource"] == {"from": "--kubernetes-version", "requested": "v1.34"}
               for t in r["traces"])
    t = small("v1.36.2")
    write_trace(str(tmp_path / "a.jsonl"), t["header"], t["events"])
    (tmp_path / "low.yaml").write_text(yaml.safe_dump(make_priority_class("low", 20)))
    run = run_cli(["check", "-t", "a.jsonl", "-p", "low.yaml"], cwd=tmp_path)
    assert run.code == 0, run
    assert ("replayed by kube-scheduler v1.36.2 (inferred from the trace's API server v1.36.2; the scheduler "
            "may be older: --kubernetes-version sets it)") in run.out
    run = run_cli(["check", "-t", "a.jsonl", "-p", "low.yaml", "-o", "markdown", "--kubernetes-version", "v1.34"],
                  cwd=tmp_path)
    assert "replayed by kube-scheduler v1.34.1 (--kubernetes-version v1.34)." in run.out
