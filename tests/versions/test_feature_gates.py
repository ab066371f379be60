"""--feature-gates: parsed as featureGate.Set parses them, checked against the chosen release's own
gates as SetFromMap checks them, set on the release the plugins are built for, and shown with it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.errors import UsageError
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.featuregates import gates_of
from kubectl_preempt.framework.versions import (GATE_FIELDS, SUPPORTED, V1_32_2, V1_33_0, V1_34_1, V1_36_2,
                                                apply_feature_gates, parse_feature_gates)
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("version", SUPPORTED, ids=[v.name for v in SUPPORTED])
def test_each_release_features_are_its_gates_defaults(version: Any) -> None:
    # the Features a release is built with are the defaults of its own gate list (a gate the
    # release does not have yet is off)
    gates = gates_of(version.name)
    assert len(gates) > 150
    for gate, field in GATE_FIELDS.items():
        spec = gates.get(gate)
        want = spec.default if spec is not None and spec.stage != "P" else False
        assert getattr(version.features, field) is want, (version.name, gate)


def test_the_gate_lists_know_each_release_s_stages() -> None:
    assert gates_of("v1.33.0")["PodLevelResources"] == (False, "A", False)
    assert gates_of("v1.34.1")["PodLevelResources"] == (True, "B", False)
    assert gates_of("v1.33.0")["SidecarContainers"] == (True, "G", True)
    assert "PodLevelResources" not in gates_of("v1.31.1")
    assert gates_of("v1.32.2")["SchedulerAsyncPreemption"] == (False, "A", False)


@pytest.mark.parametrize("text,want", [
    ("PodLevelResources=true", (("PodLevelResources", True),)),
    (" PodLevelResources = T ,InPlacePodVerticalScaling=0,", (("PodLevelResources", True),
                                                               ("InPlacePodVerticalScaling", False))),
    ("A=true,A=false", (("A", False),)),
    ("", ()),
])
def test_parsing_follows_feature_gate_set(text: str, want: Any) -> None:
    assert parse_feature_gates(text) == want


@pytest.mark.parametrize("text,message", [
    ("PodLevelResources", "--feature-gates: missing bool value for PodLevelResources"),
    ("PodLevelResources=yes", '--feature-gates: invalid value of PodLevelResources=yes, err: strconv.ParseBool: '
                              'parsing "yes": invalid syntax'),
])
def test_a_malformed_flag_has_upstream_s_words(text: str, message: str) -> None:
    with pytest.raises(UsageError) as e:
        parse_feature_gates(text)
    assert str(e.value) == message


@pytest.mark.parametrize("version,text,message", [
    (V1_33_0, "NoSuchGate=true", "unrecognized feature gate: NoSuchGate (kube-scheduler v1.33.0)"),
    (V1_32_2, "DRAPrioritizedList=true", "unrecognized feature gate: DRAPrioritizedList (kube-scheduler v1.32.2)"),
    (V1_33_0, "SidecarContainers=false", "cannot set feature gate SidecarContainers to false, feature is locked to "
                                         "true (kube-scheduler v1.33.0)"),
    (V1_36_2, "DynamicResourceAllocation=false", "cannot set feature gate DynamicResourceAllocation to false, feature "
                                                 "is locked to true (kube-scheduler v1.36.2)"),
])
def test_gates_are_checked_against_the_release(version: Any, text: str, message: str) -> None:
    with pytest.raises(UsageError) as e:
        apply_feature_gates(version, text)
    assert str(e.value) == f"--feature-gates: {message}"


def test_a_gate_set_to_its_locked_value_is_accepted() -> None:
    assert apply_feature_gates(V1_33_0, "SidecarContainers=true").gates == (("SidecarContainers", True),)


def test_gates_reach_the_features_and_the_default_profile() -> None:
    on = apply_feature_gates(V1_33_0, "DynamicResourceAllocation=true,PodLevelResources=true")
    assert on.name == "v1.33.0" and on.features.enable_dynamic_resource_allocation
    assert on.resource_options is None  # v1.34's way of adding up requests
    assert on.node_counting is not None and on.node_counting.resources is None  # but v1.33's ports
    names = [p.name for p in default_config(on).profiles[0].multi_point.enabled]
    assert "DynamicResources" in names
    # AllBeta turns on every beta gate not set: DynamicResourceAllocation is beta in v1.33, and so
    # is VolumeAttributesClass, which is not imitated (set back to its default here)
    beta = apply_feature_gates(V1_33_0, "AllBeta=true,VolumeAttributesClass=false")
    assert beta.features.enable_dynamic_resource_allocation and not beta.features.enable_pod_level_resources
    assert apply_feature_gates(V1_33_0, "AllBeta=true,VolumeAttributesClass=false,DynamicResourceAllocation=false"
                               ).features == V1_33_0.features


def _pod_level_objects() -> list[dict[str, Any]]:
    bound = make_pod("big").container(cpu="1").on("n1").set("spec.resources", {"requests": {"cpu": "3"}}).obj()
    return [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), bound, make_pod("p").req(cpu="2").obj()]


def test_explain_with_gates_names_them_in_the_document() -> None:
    doc = kubectl_preempt.explain(_pod_level_objects(), "default/p", kubernetes_version="v1.33",
                                  feature_gates={"PodLevelResources": True})
    assert (doc["schedulerVersion"], doc["featureGates"], doc["outcome"]) == (
        "v1.33.0", {"PodLevelResources": True}, "Unschedulable")
    plain = kubectl_preempt.explain(_pod_level_objects(), "default/p", kubernetes_version="v1.33")
    assert "featureGates" not in plain and plain["outcome"] == "Scheduled"


def test_the_cli_shows_the_gates_in_the_footer_and_json(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _pod_level_objects()}))
    args = ["explain", "default/p", "--snapshot", str(path), "--kubernetes-version", "v1.33",
            "--feature-gates", "PodLevelResources=true"]
    run = run_cli(args)
    assert run.code == 0, run.err
    assert run.out.endswith("Decided by kube-scheduler v1.33.0\nFeature gates: PodLevelResources=true\n")
    run = run_cli(args + ["-o", "json"])
    doc = json.loads(run.out)
    doc = doc[0] if isinstance(doc, list) else doc
    assert doc["featureGates"] == {"PodLevelResources": True}


def test_the_cli_refuses_a_gate_the_release_lacks_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _pod_level_objects()}))
    run = run_cli(["explain", "default/p", "--snapshot", str(path), "--kubernetes-version", "v1.31",
                   "--feature-gates", "PodLevelResources=true"])
    assert (run.code, run.out) == (2, "")
    assert run.err == ("error: --feature-gates: unrecognized feature gate: PodLevelResources "
                       "(kube-scheduler v1.31.1)\n")


def _trace(server_version: str) -> dict[str, Any]:
    objects = json.loads((ROOT / "examples" / "cluster.json").read_text())["items"]
    header = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": "2026-03-01T10:00:00Z",
              "source": {"context": "prod", "serverVersion": server_version}}
    return {"header": header,
            "events": [{"time": "2026-03-01T10:00:00Z", "type": "ADDED", "object": o} for o in objects]}


def test_replay_takes_the_gates_of_the_trace_s_release() -> None:
    report = replay(_trace("v1.33.2"), feature_gates={"PodLevelResources": True})
    assert (report["schedulerVersion"], report["featureGates"]) == ("v1.33.0", {"PodLevelResources": True})
    with pytest.raises(UsageError, match="unrecognized feature gate: SchedulerAsyncPreemption"):
        replay(_trace("v1.31.1"), feature_gates={"SchedulerAsyncPreemption": False})


def test_the_replay_s_asynchronous_preemption_follows_the_release() -> None:
    # SchedulerAsyncPreemption: alpha and off in v1.32, beta and on in v1.33 and v1.34
    from kubectl_preempt.framework.config import default_config as cfg
    assert not cfg(V1_32_2).enabled("SchedulerAsyncPreemption")
    assert cfg(V1_33_0).enabled("SchedulerAsyncPreemption") and cfg(V1_34_1).enabled("SchedulerAsyncPreemption")
    assert not cfg(apply_feature_gates(V1_34_1, "SchedulerAsyncPreemption=false")).enabled("SchedulerAsyncPreemption")


def test_check_replays_both_sides_with_the_gates_and_says_so() -> None:
    args = ["check", "--trace", str(ROOT / "traces" / "demo.jsonl.gz"),
            "--proposed", str(ROOT / "traces" / "proposed-platform-critical.yaml"),
            "--feature-gates", "PodLevelResources=true"]
    run = run_cli(args + ["-o", "json"])
    assert run.code in (0, 1), run.err
    (trace,) = json.loads(run.out)["traces"]
    assert (trace["schedulerVersion"], trace["featureGates"]) == ("v1.34.1", {"PodLevelResources": True})
    run = run_cli(args)
    assert "replayed by kube-scheduler v1.34.1 with feature gates PodLevelResources=true" in run.out
    run = run_cli(args[:-1] + ["PodLevelResources=false,Nope=true"])
    assert (run.code, run.err) == (2, "error: --feature-gates: unrecognized feature gate: Nope "
                                      "(kube-scheduler v1.34.1)\n")


def _plan_files(tmp_path: Path) -> tuple[str, str]:
    """A node with 1 CPU left by its pod-level resources pod (3 of 4 CPU when the release counts
    pod-level requests), and a 2-CPU pod to plan."""
    objects = _pod_level_objects()
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects[:2]}))
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(objects[2]))
    return str(snap), str(manifest)


def test_plan_decides_with_the_gates_and_names_them(tmp_path: Path) -> None:
    snap, manifest = _plan_files(tmp_path)
    base = ["plan", "-f", manifest, "--snapshot", snap, "--kubernetes-version", "v1.33", "-o", "json"]
    plain = json.loads(run_cli(base).out)
    gated = run_cli(base + ["--feature-gates", "PodLevelResources=true"])
    assert gated.code == 0, gated.err
    doc = json.loads(gated.out)
    assert (doc["schedulerVersion"], doc["featureGates"]) == ("v1.33.0", {"PodLevelResources": True})
    assert "featureGates" not in plain
    # v1.33 counts the bound pod's pod-level 3 CPU only with the gate on: the new pod then fits nowhere
    assert plain["workloads"][0]["placed"] == 1 and doc["workloads"][0]["placed"] == 0
    table = run_cli(base[:-2] + ["--feature-gates", "PodLevelResources=true"])
    assert "(kube-scheduler v1.33.0 with feature gates PodLevelResources=true)" in table.out
    most = json.loads(run_cli(["plan", "--max", "-f", manifest, "--snapshot", snap, "--kubernetes-version", "v1.33",
                               "--feature-gates", "PodLevelResources=true", "-o", "json"]).out)
    assert most["featureGates"] == {"PodLevelResources": True} and most["withoutPreemption"]["count"] == 0


def test_plan_refuses_a_gate_the_release_lacks_in_one_line(tmp_path: Path) -> None:
    snap, manifest = _plan_files(tmp_path)
    run = run_cli(["plan", "-f", manifest, "--snapshot", snap, "--kubernetes-version", "v1.31",
                   "--feature-gates", "PodLevelResources=true"])
    assert (run.code, run.out) == (2, "")
    assert run.err == ("error: --feature-gates: unrecognized feature gate: PodLevelResources "
                       "(kube-scheduler v1.31.1)\n")
