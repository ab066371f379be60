"""No feature gate accepted and ignored: a scheduling gate whose behaviour is not imitated is
refused when set away from its release's default (exit 2, one line naming the gate); a gate that
does not touch scheduling is accepted and said to have no effect (framework/featuregates.py
SCHEDULING_GATES)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.errors import UsageError
from kubectl_preempt.framework.featuregates import SCHEDULING_GATES, gates_of, imitated
from kubectl_preempt.framework.versions import V1_35_6, V1_36_2, apply_feature_gates
from kubectl_preempt.version import KUBERNETES_VERSIONS
from tests.builders import make_node, make_pod
from tests.conftest import run_cli

# v1.36's GenericWorkload, GangScheduling and WorkloadAwarePreemption are imitated, and v1.35's
# GenericWorkload and GangScheduling (issue 32); placements are not
WORKLOAD_GATES = [(V1_36_2, "TopologyAwareWorkloadScheduling")]


@pytest.mark.parametrize("version,gate", WORKLOAD_GATES, ids=[f"{v.short}-{g}" for v, g in WORKLOAD_GATES])
def test_a_workload_gate_turned_on_is_refused(version: Any, gate: str) -> None:
    with pytest.raises(UsageError) as e:
        apply_feature_gates(version, f"{gate}=true")
    assert str(e.value) == (f"--feature-gates: feature gate {gate}=true is not imitated: kubectl-preempt does not "
                            f"reproduce kube-scheduler {version.name} with it")


def test_a_scheduling_gate_at_its_default_is_accepted() -> None:
    # GangScheduling=false is v1.36.2's own behaviour, which is imitated
    assert apply_feature_gates(V1_36_2, "GangScheduling=false").gates == (("GangScheduling", False),)


def test_all_alpha_names_the_first_scheduling_gate_it_would_turn_on() -> None:
    with pytest.raises(UsageError) as e:
        apply_feature_gates(V1_36_2, "AllAlpha=true")
    assert "(set by AllAlpha=true) is not imitated" in str(e.value)


def _snapshot(tmp_path: Path) -> Path:
    doc = {"apiVersion": "v1", "kind": "List",
           "items": [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_pod("p").req(cpu="1").obj()]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_the_cli_refuses_a_workload_gate_with_one_line_and_exit_2(tmp_path: Path) -> None:
    run = run_cli(["explain", "default/p", "--snapshot", str(_snapshot(tmp_path)), "--kubernetes-version", "v1.36",
                   "--feature-gates", "PodLevelResources=true,GenericWorkload=true,TopologyAwareWorkloadScheduling=true"])
    assert (run.code, run.out) == (2, "")
    assert run.err == ("error: --feature-gates: feature gate TopologyAwareWorkloadScheduling=true is not imitated: "
                       "kubectl-preempt does not reproduce kube-scheduler v1.36.2 with it\n")


@pytest.mark.parametrize("gate", ["WorkloadAwarePreemption", "TopologyAwareWorkloadScheduling"])
def test_v1_36s_workload_gates_that_v1_35_has_not_are_unknown_to_it(tmp_path: Path, gate: str) -> None:
    # pkg/features/kube_features.go of v1.35.6 defines GenericWorkload and GangScheduling only
    run = run_cli(["explain", "default/p", "--snapshot", str(_snapshot(tmp_path)), "--kubernetes-version", "v1.35",
                   "--feature-gates", f"GenericWorkload=true,GangScheduling=true,{gate}=true"])
    assert (run.code, run.out) == (2, "")
    assert run.err == f"error: --feature-gates: unrecognized feature gate: {gate} (kube-scheduler v1.35.6)\n"


@pytest.mark.parametrize("gates,fields", [
    ("GenericWorkload=true", ("enable_generic_workload",)),
    ("GenericWorkload=true,GangScheduling=true", ("enable_generic_workload", "enable_gang_scheduling")),
])
def test_v1_35s_workload_gates_are_accepted_and_reach_the_scheduler(gates: str, fields: tuple[str, ...]) -> None:
    v = apply_feature_gates(V1_35_6, gates)
    assert all(getattr(v.features, f) and not getattr(V1_35_6.features, f) for f in fields)


def test_v1_35s_gang_scheduling_without_the_generic_workload_is_refused_as_its_own_gates_say() -> None:
    # v1.35.6's defaultKubernetesFeatureGateDependencies: GangScheduling: {GenericWorkload}
    with pytest.raises(UsageError) as e:
        apply_feature_gates(V1_35_6, "GangScheduling=true")
    assert e.value.detail == ("GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload] "
                              "(kube-scheduler v1.35.6)")


@pytest.mark.parametrize("gate,field", [("GenericWorkload", "enable_generic_workload"),
                                        ("GangScheduling", "enable_gang_scheduling"),
                                        ("WorkloadAwarePreemption", "enable_workload_aware_preemption")])
def test_v1_36s_workload_gates_are_accepted_and_reach_the_scheduler(gate: str, field: str) -> None:
    # with the gates each depends on (kube_features.go defaultKubernetesFeatureGateDependencies)
    needs = {"GenericWorkload": "", "GangScheduling": "GenericWorkload=true,",
             "WorkloadAwarePreemption": "GenericWorkload=true,GangScheduling=true,"}[gate]
    v = apply_feature_gates(V1_36_2, f"{needs}{gate}=true")
    assert getattr(v.features, field) and not getattr(V1_36_2.features, field)


@pytest.mark.parametrize("gates,error", [
    pytest.param("WorkloadAwarePreemption=true",
                 "WorkloadAwarePreemption is enabled, but depends on features that are disabled: [GangScheduling]",
                 id="workload-aware preemption without gang scheduling"),
    pytest.param("GangScheduling=true,WorkloadAwarePreemption=true",
                 "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]",
                 id="gang scheduling without the generic workload"),
    pytest.param("WorkloadWithJob=true",
                 "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]",
                 id="the Job controller's workloads without the generic workload"),
    pytest.param("GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true,GenericWorkload=false",
                 "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]",
                 id="the last value of a gate given twice counts"),
])
def test_a_gate_enabled_without_a_gate_it_depends_on_is_refused(gates: str, error: str) -> None:
    """featureGate.unsafeSetFromMap: dependencies are checked once every gate is set."""
    with pytest.raises(UsageError) as e:
        apply_feature_gates(V1_36_2, gates)
    assert (e.value.field, e.value.detail) == ("--feature-gates", f"{error} (kube-scheduler v1.36.2)")


def test_several_missing_dependencies_are_refused_together_as_upstream_aggregates_them() -> None:
    with pytest.raises(UsageError) as e:
        apply_feature_gates(V1_36_2, "GangScheduling=true,WorkloadWithJob=true")
    assert e.value.detail == ("[GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload], "
                              "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]] "
                              "(kube-scheduler v1.36.2)")


def test_a_gate_that_does_not_touch_scheduling_is_listed_as_having_no_effect(tmp_path: Path) -> None:
    args = ["explain", "default/p", "--snapshot", str(_snapshot(tmp_path)), "--kubernetes-version", "v1.36",
            "--feature-gates", "APIResponseCompression=false,PodLevelResources=true"]
    run = run_cli(args)
    assert run.code == 0, run.err
    assert run.out.endswith("Feature gates: APIResponseCompression=false,PodLevelResources=true "
                            "(no effect on scheduling: APIResponseCompression)\n")
    doc = json.loads(run_cli(args + ["-o", "json"]).out)
    assert doc["featureGates"] == {"APIResponseCompression": False, "PodLevelResources": True}
    assert doc["featureGatesWithoutEffect"] == ["APIResponseCompression"]
    lib = kubectl_preempt.explain([make_node("n1").alloc(cpu="4").obj(), make_pod("p").req(cpu="1").obj()],
                                  "default/p", kubernetes_version="v1.35", feature_gates="PodLevelResources=true")
    assert "featureGatesWithoutEffect" not in lib


def test_every_scheduling_gate_named_exists_in_some_release_and_names_imitated_releases() -> None:
    every = set().union(*(gates_of(r) for r in KUBERNETES_VERSIONS))
    assert sorted(g for g in SCHEDULING_GATES if g not in every) == []
    assert all(r in KUBERNETES_VERSIONS for releases in SCHEDULING_GATES.values() for r in releases)


@pytest.mark.parametrize("gate,release,want", [
    ("PodLevelResources", "v1.33.0", True), ("GangScheduling", "v1.35.6", True),
    ("GangScheduling", "v1.36.2", True), ("TopologyAwareWorkloadScheduling", "v1.36.2", False),
    ("APIServerTracing", "v1.36.2", None), ("SchedulerAsyncPreemption", "v1.35.6", True),
])
def test_imitated_says_imitated_not_imitated_or_not_scheduling(gate: str, release: str, want: bool | None) -> None:
    assert imitated(gate, release) is want
