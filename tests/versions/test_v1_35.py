"""kube-scheduler v1.35.6 beside the other releases: its gates (v1.35's pkg/features), how it is
picked, and the two upstream changes that set it apart from v1.34.1 and the one that sets v1.36.2
apart from it (../shared/conformance/v1.35/README.md), each on a small input built for it."""
from __future__ import annotations

from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.framework.featuregates import gates_of
from kubectl_preempt.framework.versions import V1_34_1, V1_35_6, V1_36_2, resolve_kubernetes_version
from kubectl_preempt.version import KUBERNETES_VERSIONS
from tests.builders import make_node, make_pod


def _explain(objects: list[dict[str, Any]], pod: str, version: str) -> dict[str, Any]:
    return kubectl_preempt.explain(objects, pod, kubernetes_version=version)


def test_v1_35_6_is_imitated_between_v1_34_1_and_v1_36_2() -> None:
    assert KUBERNETES_VERSIONS.index("v1.35.6") == KUBERNETES_VERSIONS.index("v1.34.1") + 1
    assert KUBERNETES_VERSIONS.index("v1.36.2") == KUBERNETES_VERSIONS.index("v1.35.6") + 1


@pytest.mark.parametrize("gate,default,stage", [
    ("OpportunisticBatching", True, "B"),             # new in v1.35, beta
    ("NominatedNodeNameForExpectation", True, "B"),   # alpha and off in v1.34
    ("ClearingNominatedNodeNameAfterBinding", True, "B"),
    ("SchedulerAsyncAPICalls", False, "B"),           # on in v1.34.1, off from v1.35
    ("GangScheduling", False, "A"),
    ("GenericWorkload", False, "A"),
    ("NodeDeclaredFeatures", False, "A"),             # beta and on in v1.36
    ("DRAExtendedResource", False, "A"),
])
def test_the_gate_defaults_are_v1_35_s(gate: str, default: bool, stage: str) -> None:
    spec = gates_of("v1.35.6")[gate]
    assert (spec.default, spec.stage) == (default, stage)
    assert V1_35_6.gate_enabled(gate) is default


def test_gates_v1_35_does_not_have_are_unknown_to_it() -> None:
    known = gates_of("v1.35.6")
    assert "WorkloadAwarePreemption" not in known and "TopologyAwareWorkloadScheduling" not in known
    assert "SchedulerPreEnqueuePodStatus" not in known


@pytest.mark.parametrize("text,want", [("v1.35", "v1.35.6"), ("1.35.0", "v1.35.6"), ("v1.35.6", "v1.35.6"),
                                       ("v1.35.9-gke.100", "v1.35.6"), ("v1.36.3", "v1.36.2"),
                                       ("v1.37.0", "v1.36.2")])
def test_a_requested_1_35_is_v1_35_6_and_newer_minors_are_v1_36_2(text: str, want: str) -> None:
    assert resolve_kubernetes_version(text).version.name == want


def test_a_server_of_1_35_is_imitated_as_v1_35_6_without_a_note() -> None:
    got = resolve_kubernetes_version(None, "v1.35.2", data_source="the snapshot")
    assert (got.version, got.note) == (V1_35_6, None)


def test_the_default_profile_of_v1_35_scores_with_dynamic_resources_but_has_no_node_declared_features() -> None:
    # default_plugins.go applyDynamicResources (v1.35: weight 2); NodeDeclaredFeatures is alpha, off
    plugins = [(p.name, p.weight) for p in default_config(V1_35_6).profiles[0].multi_point.enabled]
    assert ("DynamicResources", 2) in plugins and "NodeDeclaredFeatures" not in [n for n, _ in plugins]
    assert ("DynamicResources", 0) in [(p.name, p.weight) for p in default_config(V1_34_1).profiles[0].multi_point.enabled]
    assert "NodeDeclaredFeatures" in [p.name for p in default_config(V1_36_2).profiles[0].multi_point.enabled]


def _two_nodes() -> list[dict[str, Any]]:
    return [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_node("n2").alloc(cpu="4", memory="8Gi").obj()]


@pytest.mark.parametrize("version,has_entry", [("v1.34", False), ("v1.35", True), ("v1.36", True)])
def test_dynamic_resources_scores_every_node_from_v1_35(version: str, has_entry: bool) -> None:
    # kubernetes/kubernetes#134711: a pod without claims scores 0 on every node
    doc = _explain(_two_nodes() + [make_pod("p").req(cpu="1").obj()], "default/p", version)
    assert doc["outcome"] == "Scheduled"
    entries = [scores.get("DynamicResources") for scores in doc["pluginScores"].values()]
    assert entries == ([0, 0] if has_entry else [None, None])


@pytest.mark.parametrize("version,reason", [
    ("v1.34", "node(s) had untolerated taint {dedicated: gpu}"),
    ("v1.35", "node(s) had untolerated taint(s)"),
    ("v1.36", "node(s) had untolerated taint(s)"),
])
def test_the_taint_reason_loses_the_taint_from_v1_35(version: str, reason: str) -> None:
    # kubernetes/kubernetes#134740: taint_toleration.go Filter
    objects = [make_node("n1").alloc(cpu="4", memory="8Gi").taint("dedicated", "gpu").obj(),
               make_pod("p").req(cpu="1").obj()]
    doc = _explain(objects, "default/p", version)
    assert doc["nodeStatuses"]["n1"]["reasons"] == [reason]


@pytest.mark.parametrize("version,node", [("v1.35", "n1"), ("v1.36", "n2")])
def test_balanced_allocation_scores_the_improvement_only_from_v1_36(version: str, node: str) -> None:
    # kubernetes/kubernetes#135573 (v1.36) scores how much the pod improves the node's balance; v1.35.6
    # still scores the node's balance with the pod. n1 is balanced and stays so; n2 is unbalanced and
    # the pod (memory-heavy) makes it balanced. With the pod both are as balanced, and LeastAllocated
    # gives n1 two points more: v1.35.6 picks n1, v1.36.2 the node the pod improves.
    objects = [make_node("n1").alloc(cpu="4", memory="4Gi").obj(), make_node("n2").alloc(cpu="4", memory="4Gi").obj(),
               make_pod("a").req(cpu="1", memory="1Gi").on("n1").obj(),
               make_pod("b").req(cpu="2").on("n2").obj(),
               make_pod("p").req(cpu="1", memory="2Gi").obj()]
    doc = _explain(objects, "default/p", version)
    scores = {n: s["NodeResourcesBalancedAllocation"] for n, s in doc["pluginScores"].items()}
    assert doc["bestNodes"] == [node], scores
    assert (scores["n1"] == scores["n2"]) is (version == "v1.35")
