"""Which kube-scheduler release decides: --kubernetes-version / kubernetes_version, else the version
the data names (a captured snapshot's annotation, a trace's header, the live server), the nearest
imitated release with a note, v1.34.1 when nothing says; and every output names it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.errors import UsageError
from kubectl_preempt.framework.config import default_config, parse_config
from kubectl_preempt.framework.versions import (V1_30_1, V1_31_1, V1_32_2, V1_33_0, V1_34_1, V1_35_6, V1_36_2,
                                                resolve_kubernetes_version)
from kubectl_preempt.replay.api import replay
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "examples" / "cluster.json"
ANN = "kubectl-preempt/server-version"
# the example's checkout pod: node-d has a taint it does not tolerate, and the message says so
MSG_V1_34 = "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 3 Insufficient cpu."
MSG_V1_36 = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."


def _captured(tmp_path: Path, server_version: str | None) -> Path:
    doc = json.loads(CLUSTER.read_text())
    if server_version is not None:
        doc.setdefault("metadata", {})["annotations"] = {ANN: server_version, "kubectl-preempt/context": "prod"}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("requested,data,want,note", [
    (None, None, V1_34_1, None),
    (None, "unknown", V1_34_1, None),
    (None, "v1.36.2", V1_36_2, None),
    (None, "v1.36.0", V1_36_2, None),
    (None, "v1.35.4-eks-1234", V1_35_6, None),
    (None, "v1.37.0", V1_36_2, "note: the data names server version v1.37.0: imitating kube-scheduler v1.36.2, "
                               "the nearest imitated release to 1.37"),
    (None, "v1.33.5", V1_33_0, None),
    (None, "v1.32.0", V1_32_2, None),
    (None, "v1.31", V1_31_1, None),
    (None, "v1.31.4", V1_31_1, "note: the data names server version v1.31.4: imitating kube-scheduler v1.31.1; "
                               "later 1.31 patches pick the minHighestPriority candidate correctly "
                               "(kubernetes/kubernetes#128431, cherry-picked after v1.31.1)"),
    (None, "v1.30.14-gke.100", V1_30_1, "note: the data names server version v1.30.14-gke.100: imitating "
                                        "kube-scheduler v1.30.1; later 1.30 patches give the nodes a PreFilter result "
                                        "leaves out no status (kubernetes/kubernetes#125306, cherry-picked after "
                                        "v1.30.1)"),
    (None, "v1.34.2", V1_34_1, "note: the data names server version v1.34.2: imitating kube-scheduler v1.34.1; later "
                               "1.34 patches word TaintToleration's reason \"node(s) had untolerated taint(s)\" "
                               "without the taint (kubernetes/kubernetes#135023, cherry-picked after v1.34.1)"),
    (None, "v1.29.3", V1_30_1, "note: the data names server version v1.29.3: imitating kube-scheduler v1.30.1, the "
                               "nearest imitated release to 1.29"),
    (None, "v1.34.1+k3s1", V1_34_1, None),
    ("v1.36", "v1.34.1", V1_36_2, None),
    ("1.34", "v1.36.2", V1_34_1, None),
    ("v1.35", None, V1_35_6, None),
    ("v1.37", None, V1_36_2, "note: requested version v1.37: imitating kube-scheduler v1.36.2, the nearest "
                             "imitated release to 1.37"),
], ids=["nothing says: v1.34.1", "a capture that could not read /version: v1.34.1", "v1.36.2 as named",
        "another 1.36 patch: v1.36.2, no later patch changed a verdict", "1.35 (a vendor build): v1.35.6",
        "1.37: v1.36.2, with a note", "1.33: v1.33.0", "an older 1.32 patch: v1.32.2", "a minor alone: its release",
        "a later 1.31 patch changed preemption: a note", "a later 1.30 patch changed statuses: a note",
        "a later 1.34 patch changed the taint reason: a note", "1.29: v1.30.1, with a note",
        "v1.34.1 with build metadata",
        "the flag wins over the data", "a short flag", "a flag naming 1.35", "a flag naming 1.37 maps too, with a note"])
def test_resolution(requested: str | None, data: str | None, want: Any, note: str | None) -> None:
    got = resolve_kubernetes_version(requested, data)
    assert (got.version, got.note) == (want, note)


def test_the_package_names_the_releases_the_framework_imitates() -> None:
    assert kubectl_preempt.KUBERNETES_VERSIONS == ("v1.30.1", "v1.31.1", "v1.32.2", "v1.33.0", "v1.34.1", "v1.35.6", "v1.36.2")
    assert kubectl_preempt.KUBERNETES_VERSION == V1_34_1.name


@pytest.mark.parametrize("bad", ["latest", "v2.0", "1"])
def test_a_flag_that_is_no_release_is_a_usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="is not a Kubernetes release such as v1.33 or v1.36"):
        resolve_kubernetes_version(bad)


def test_default_profile_per_release() -> None:
    def multi_point(cfg: Any) -> list[tuple[str, int]]:
        return [(p.name, p.weight) for p in cfg.profiles[0].multi_point.enabled]

    old, new = multi_point(default_config()), multi_point(default_config(V1_36_2))
    assert ("DynamicResources", 0) in old and ("DynamicResources", 2) in new
    assert "NodeDeclaredFeatures" not in dict(old)
    assert new[-1] == ("NodeDeclaredFeatures", 0) and new[:-1] == [(n, 2 if n == "DynamicResources" else w)
                                                                   for n, w in old]


def test_a_configuration_takes_the_release_defaults_it_is_applied_with() -> None:
    raw = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler",
                         "plugins": {"multiPoint": {"disabled": [{"name": "ImageLocality"}]}}}]}
    cfg = parse_config(raw)
    again = cfg.for_version(V1_36_2)
    names = [p.name for p in again.profiles[0].multi_point.enabled]
    assert again.version == V1_36_2 and "NodeDeclaredFeatures" in names and "ImageLocality" not in names
    assert cfg.for_version(V1_34_1) is cfg


def test_explain_of_a_snapshot_captured_from_a_v1_36_server_uses_v1_36_without_a_flag(tmp_path: Path) -> None:
    path = _captured(tmp_path, "v1.36.2")
    doc = kubectl_preempt.explain(kubectl_preempt.load_snapshot(str(path)), "shop/checkout")
    assert (doc["schedulerVersion"], doc["message"]) == ("v1.36.2", MSG_V1_36)
    # the List itself carries the annotation too
    doc = kubectl_preempt.explain(json.loads(path.read_text()), "shop/checkout")
    assert (doc["schedulerVersion"], doc["message"]) == ("v1.36.2", MSG_V1_36)
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(path)])
    assert run.code == 0 and run.err == ""
    assert run.out.rstrip().endswith("  " + MSG_V1_36 + "\n\nDecided by kube-scheduler v1.36.2")


def test_the_flag_overrides_the_snapshot_and_a_plain_list_is_v1_34(tmp_path: Path) -> None:
    path = _captured(tmp_path, "v1.36.2")
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(path), "--kubernetes-version", "v1.34", "-o", "json"])
    assert run.code == 0
    assert (json.loads(run.out)["schedulerVersion"], json.loads(run.out)["message"]) == ("v1.34.1", MSG_V1_34)
    doc = kubectl_preempt.explain(kubectl_preempt.load_snapshot(str(_captured(tmp_path, None))), "shop/checkout")
    assert (doc["schedulerVersion"], doc["message"]) == ("v1.34.1", MSG_V1_34)


def test_a_snapshot_from_a_release_not_imitated_gets_the_nearest_with_a_note(tmp_path: Path) -> None:
    path = _captured(tmp_path, "v1.37.1")
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(path), "-o", "yaml"])
    assert run.code == 0
    assert "schedulerVersion: v1.36.2" in run.out
    assert run.err == (f"note: {path} names server version v1.37.1: imitating kube-scheduler v1.36.2, the nearest "
                       "imitated release to 1.37\n")


def test_a_bad_flag_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = run_cli(["explain", "shop/checkout", "--snapshot", str(CLUSTER), "--kubernetes-version", "newest"])
    assert run.code == 2 and run.out == ""
    assert run.err.startswith('error: kubernetes version "newest" is not a Kubernetes release') and \
        run.err.count("\n") == 1


def _trace(server_version: str | None) -> dict[str, Any]:
    objects = [o for o in json.loads(CLUSTER.read_text())["items"]]
    header: dict[str, Any] = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "2026-03-01T10:00:00Z",
                              "source": {"context": "prod"}}
    if server_version is not None:
        header["source"]["serverVersion"] = server_version
    return {"header": header,
            "events": [{"time": "2026-03-01T10:00:00Z", "type": "ADDED", "object": o} for o in objects]}


@pytest.mark.parametrize("server_version,flag,want", [
    (None, None, "v1.34.1"), ("v1.36.1", None, "v1.36.2"), ("v1.36.2", "v1.34", "v1.34.1"), (None, "v1.36", "v1.36.2"),
], ids=["a trace naming no version", "a trace from a 1.36 server", "the flag wins", "the flag alone"])
def test_replay_follows_the_trace_header(server_version: str | None, flag: str | None, want: str) -> None:
    report = replay(_trace(server_version), kubernetes_version=flag)
    assert report["schedulerVersion"] == want
    assert list(report)[:3] == ["apiVersion", "kind", "schedulerVersion"]


def test_replay_and_check_commands_name_the_release(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    tr = _trace("v1.37.0")
    trace.write_text("\n".join(json.dumps(x) for x in [tr["header"], *tr["events"]]) + "\n")
    run = run_cli(["replay", str(trace)])
    assert run.code == 0
    assert ("Mode      simulate: the offline kube-scheduler v1.36.2 (inferred from the trace's API server v1.37.0; "
            "the scheduler may be older: --kubernetes-version sets it) places every pending pod") in run.out
    assert "imitating kube-scheduler v1.36.2, the nearest imitated release to 1.37" in run.err
    run = run_cli(["replay", str(trace), "-o", "markdown", "--kubernetes-version", "v1.34"])
    assert ("- Mode: simulate: the offline kube-scheduler v1.34.1 (--kubernetes-version v1.34) places every pending "
            "pod") in run.out
    proposed = tmp_path / "p.yaml"
    proposed.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: serving}\n"
                        "value: 2000\n")
    run = run_cli(["check", "--trace", str(trace), "--proposed", str(proposed), "-o", "json"])
    assert run.code in (0, 1)
    assert [t["schedulerVersion"] for t in json.loads(run.out)["traces"]] == ["v1.36.2"]
    assert f"{trace}: note: the trace names server version v1.37.0" in run.err
    run = run_cli(["check", "--trace", str(trace), "--proposed", str(proposed), "--kubernetes-version", "v1.34"])
    assert "replayed by kube-scheduler v1.34.1" in run.out
