"""NodeResourcesFit and NodeResourcesBalancedAllocation against hand-computed upstream values."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins.noderesources import balanced_allocation as ba
from kubectl_preempt.plugins.noderesources import fit
from tests.builders import make_node, make_pod

GI = 1024**3
MI = 1024**2


def _ni(node: Any, *existing: Any) -> NodeInfo:
    name = node.obj()["metadata"]["name"]
    return NodeInfo(Node(node.obj()), [Pod(p.on(name).obj()) for p in existing])


def _filter(pod: Any, ni: NodeInfo, args: dict | None = None):
    pl = fit.new(args or {}, None)
    p = Pod(pod.obj())
    state = CycleState()
    _, st = pl.pre_filter(state, p, [ni])
    assert st.is_success()
    return pl.filter(state, p, ni)


INSUFFICIENT_GPU = fit.ERR_REASON_INSUFFICIENT % "example.com/gpu"


# --- Filter -------------------------------------------------------------------------------
@pytest.mark.parametrize("pod,node,existing,code,reasons", [
    (make_pod("p").req(cpu="1", memory="1Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="2", memory="2Gi")], Code.Success, []),
    (make_pod("p").req(cpu="2"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="3")], Code.Unschedulable, [fit.ERR_REASON_INSUFFICIENT_CPU]),
    (make_pod("p").req(cpu="5"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [], Code.UnschedulableAndUnresolvable, [fit.ERR_REASON_INSUFFICIENT_CPU]),
    (make_pod("p").req(cpu="5"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="1")], Code.UnschedulableAndUnresolvable, [fit.ERR_REASON_INSUFFICIENT_CPU]),
    (make_pod("p").req(cpu="2", memory="9Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="3")], Code.UnschedulableAndUnresolvable,
     [fit.ERR_REASON_INSUFFICIENT_CPU, fit.ERR_REASON_INSUFFICIENT_MEMORY]),
    (make_pod("p"), make_node("n").alloc(cpu="4", memory="8Gi", pods="1"),
     [make_pod("e")], Code.Unschedulable, [fit.ERR_REASON_TOO_MANY_PODS]),
    (make_pod("p").req(cpu="8"), make_node("n").alloc(cpu="4", memory="8Gi", pods="1"),
     [make_pod("e")], Code.UnschedulableAndUnresolvable, [fit.ERR_REASON_TOO_MANY_PODS, fit.ERR_REASON_INSUFFICIENT_CPU]),
    (make_pod("p").req(ephemeral_storage="20Gi", memory="1Gi"),
     make_node("n").alloc(cpu="4", memory="8Gi", ephemeral_storage="30Gi"),
     [make_pod("e").req(ephemeral_storage="15Gi", memory="7800Mi")], Code.Unschedulable,
     [fit.ERR_REASON_INSUFFICIENT_MEMORY, fit.ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE]),
    (make_pod("p").req(**{"example.com/gpu": "1"}), make_node("n").alloc(cpu="4", memory="8Gi"),
     [], Code.UnschedulableAndUnresolvable, [INSUFFICIENT_GPU]),
    (make_pod("p").req(**{"example.com/gpu": "1"}), make_node("n").alloc(cpu="4", memory="8Gi", **{"example.com/gpu": "2"}),
     [make_pod("e").req(**{"example.com/gpu": "2"})], Code.Unschedulable, [INSUFFICIENT_GPU]),
    (make_pod("p").req(hugepages_2Mi="512Mi"), make_node("n").alloc(cpu="4", memory="8Gi", hugepages_2Mi="1Gi"),
     [make_pod("e").req(hugepages_2Mi="768Mi")], Code.Unschedulable, [fit.ERR_REASON_INSUFFICIENT % "hugepages-2Mi"]),
    (make_pod("p").req(**{"zeta.example/b": "1", "alpha.example/a": "1"}), make_node("n").alloc(cpu="4", memory="8Gi"),
     [], Code.UnschedulableAndUnresolvable,
     [fit.ERR_REASON_INSUFFICIENT % "zeta.example/b", fit.ERR_REASON_INSUFFICIENT % "alpha.example/a"]),
], ids=["fits in what is left", "short of cpu that evictions can free is Unschedulable",
        "more cpu than the node has at all is UnschedulableAndUnresolvable",
        "more than allocatable is Unresolvable even with pods to evict",
        "one unresolvable shortfall makes the whole status unresolvable, reasons in order",
        "a full node says Too many pods", "Too many pods comes first",
        "memory before ephemeral-storage", "an extended resource the node lacks is unresolvable",
        "an extended resource in use is resolvable", "hugepages are checked like scalars",
        "scalar reasons follow the pod's order of requests"])
def test_filter(pod: Any, node: Any, existing: list, code: Code, reasons: list[str]) -> None:
    st = _filter(pod, _ni(node, *existing))
    assert st.code == code
    assert st.reasons == reasons


@pytest.mark.parametrize("args", [{"ignoredResources": ["example.com/gpu"]},
                                  {"ignoredResourceGroups": ["example.com"]}],
                         ids=["an ignored resource is not checked", "an ignored group is not checked"])
def test_ignored_extended_resources(args: dict) -> None:
    st = _filter(make_pod("p").req(**{"example.com/gpu": "1"}), _ni(make_node("n")), args)
    assert st.is_success()


def test_ignored_groups_do_not_cover_hugepages() -> None:
    st = _filter(make_pod("p").req(hugepages_2Mi="1Mi"), _ni(make_node("n")), {"ignoredResourceGroups": ["hugepages-2Mi"]})
    assert st.reasons == [fit.ERR_REASON_INSUFFICIENT % "hugepages-2Mi"]


def test_a_refusal_is_named_for_the_plugin_so_the_framework_hands_it_on_as_it_is() -> None:
    st = _filter(make_pod("p").req(cpu="2", memory="1Gi"),
                 _ni(make_node("m").alloc(cpu="4", memory="2Gi"), make_pod("f").req(cpu="3", memory="2Gi")))
    assert st.code == Code.Unschedulable
    assert st.reasons == [fit.ERR_REASON_INSUFFICIENT_CPU, fit.ERR_REASON_INSUFFICIENT_MEMORY]
    assert st.plugin == fit.NAME
    assert st.with_plugin(fit.NAME) is st


def test_filter_without_pre_filter_is_an_error() -> None:
    st = fit.new({}, None).filter(CycleState(), Pod(make_pod("p").obj()), _ni(make_node("n")))
    assert st.code == Code.Error


# --- the pod's request (PreFilter) ---------------------------------------------------------
@pytest.mark.parametrize("pod,milli_cpu,memory", [
    (make_pod("p").req(cpu="1", memory="1Gi").container(cpu="500m"), 1500, GI),
    (make_pod("p").req(cpu="1").init_container(cpu="3"), 3000, 0),
    (make_pod("p").req(cpu="1").init_container(sidecar=True, cpu="1"), 2000, 0),
    (make_pod("p").req(cpu="1").init_container(sidecar=True, cpu="1").init_container(cpu="2"), 3000, 0),
    (make_pod("p").req(cpu="1").init_container(cpu="2").init_container(sidecar=True, cpu="1"), 2000, 0),
    (make_pod("p").req(cpu="1", memory="1Gi").overhead(cpu="250m", memory="64Mi"), 1250, GI + 64 * MI),
    (make_pod("p").req(cpu="1").set("spec.resources", {"requests": {"cpu": "2", "memory": "1Gi"}}), 2000, GI),
    (make_pod("p").req(cpu="100u"), 1, 0),
    (make_pod("p").req(cpu="1").set("status.containerStatuses", [
        {"name": "main", "resources": {"requests": {"cpu": "3"}}, "allocatedResources": {"cpu": "3"}}]), 1000, 0),
], ids=["containers add up", "an init container larger than the containers sets the request",
        "a sidecar adds to the containers", "an init container after a sidecar runs beside it",
        "an init container before a sidecar does not", "overhead is added",
        "pod-level requests replace the containers' sum", "cpu rounds up to a milli-cpu",
        "a pending pod's request ignores status resources"])
def test_pod_request(pod: Any, milli_cpu: int, memory: int) -> None:
    r = fit.compute_pod_resource_request(Pod(pod.obj()))
    assert (r.milli_cpu, r.memory) == (milli_cpu, memory)


def test_sidecar_and_overhead_decide_fit() -> None:
    # containers 1 + sidecar 1 + overhead 500m = 2500m against 2000m free of 4000m
    pod = make_pod("p").req(cpu="1").init_container(sidecar=True, cpu="1").overhead(cpu="500m")
    st = _filter(pod, _ni(make_node("n").alloc(cpu="4", memory="8Gi"), make_pod("e").req(cpu="2")))
    assert (st.code, st.reasons) == (Code.Unschedulable, [fit.ERR_REASON_INSUFFICIENT_CPU])


# --- Score ---------------------------------------------------------------------------------
def _score(args: dict, pod: Any, ni: NodeInfo) -> int:
    pl = fit.new(args, None)
    p = Pod(pod.obj())
    state = CycleState()
    assert pl.pre_score(state, p, [ni]).is_success()
    s, st = pl.score(state, p, ni)
    assert st.is_success()
    return s


def _strategy(type_: str, resources: list[tuple[str, int]] | None = None, shape: list[tuple[int, int]] | None = None) -> dict:
    ss: dict[str, Any] = {"type": type_}
    if resources is not None:
        ss["resources"] = [{"name": n, "weight": w} for n, w in resources]
    if shape is not None:
        ss["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": s} for u, s in shape]}
    return {"scoringStrategy": ss}


# node: 4 cpu, 8Gi; in use 1 cpu, 2Gi; the pod asks 1 cpu, 1Gi -> cpu 2000/4000, memory 3Gi/8Gi
BUSY = (make_node("n").alloc(cpu="4", memory="8Gi"), make_pod("e").req(cpu="1", memory="2Gi"))
POD = make_pod("p").req(cpu="1", memory="1Gi")


@pytest.mark.parametrize("args,want", [
    ({}, 56),
    (_strategy("LeastAllocated"), 56),
    (_strategy("MostAllocated"), 43),
    (_strategy("LeastAllocated", [("cpu", 3), ("memory", 1)]), 53),
    (_strategy("RequestedToCapacityRatio", [("cpu", 2), ("memory", 1)], [(0, 0), (100, 10)]), 46),
    (_strategy("RequestedToCapacityRatio", [("cpu", 1), ("memory", 1)], [(0, 10), (100, 0)]), 57),
    (_strategy("RequestedToCapacityRatio", [("cpu", 1), ("memory", 1)], [(0, 0), (40, 10)]), 96),
], ids=["default is LeastAllocated: (50 + 62) / 2",
        "LeastAllocated: cpu 50, memory (8-3)*100/8 = 62, mean 56",
        "MostAllocated: cpu 50, memory 37, (50+37)/2 = 43",
        "weights: (50*3 + 62) / 4 = 53",
        "RequestedToCapacityRatio rising: (50*2 + 37) / 3 = 45.67 rounds to 46",
        "RequestedToCapacityRatio falling: (50 + 63) / 2 = 56.5 rounds half away from zero to 57",
        "RequestedToCapacityRatio saturating: cpu 100 (50 > 40), memory 37*100/40 = 92, (100+92)/2 = 96"])
def test_fit_score(args: dict, want: int) -> None:
    node, existing = BUSY
    assert _score(args, POD, _ni(node, existing)) == want


def test_requested_to_capacity_ratio_interpolation_truncates_toward_zero() -> None:
    # memory 2Gi of 10Gi = 20% on a falling shape 100 -> 0 over 0..30%: 100 + (-100*20)/30 = 100 - 66 = 34
    args = _strategy("RequestedToCapacityRatio", [("memory", 1)], [(0, 10), (30, 0)])
    assert _score(args, make_pod("p").req(memory="2Gi"), _ni(make_node("n").alloc(cpu="4", memory="10Gi"))) == 34


def test_a_resource_scoring_zero_does_not_count_in_requested_to_capacity_ratio() -> None:
    # cpu 0% scores 0 and drops out; memory 50% scores 50 alone
    args = _strategy("RequestedToCapacityRatio", [("cpu", 1), ("memory", 1)], [(0, 0), (100, 10)])
    pod = make_pod("p").req(cpu="1m", memory="4Gi")
    assert _score(args, pod, _ni(make_node("n").alloc(cpu="100", memory="8Gi"))) == 50


@pytest.mark.parametrize("pod,want", [
    (make_pod("p"), 85),
    (make_pod("p").set("spec.resources", {"requests": {"cpu": "500m", "memory": "500Mi"}}), 85),
    (make_pod("p").req(cpu="200m", memory="400Mi"), 70),
], ids=["a pod without requests scores as 100m cpu and 200Mi: (90 + 80) / 2",
        "Fit's scoring ignores pod-level requests and uses the container defaults",
        "explicit requests: (80 + 60) / 2"])
def test_fit_score_uses_non_zero_defaults(pod: Any, want: int) -> None:
    assert _score({}, pod, _ni(make_node("n").alloc(cpu="1", memory="1000Mi"))) == want


def test_existing_pods_without_requests_count_with_defaults_in_fit_scoring() -> None:
    # two request-less pods use 200m and 400Mi; the pod adds 100m, 200Mi: cpu 70, memory 40
    ni = _ni(make_node("n").alloc(cpu="1", memory="1000Mi"), make_pod("a"), make_pod("b"))
    assert _score({}, make_pod("p"), ni) == 55


def test_extended_resources_score_only_when_requested() -> None:
    args = _strategy("MostAllocated", [("cpu", 1), ("example.com/gpu", 1)])
    ni = _ni(make_node("n").alloc(cpu="4", memory="8Gi", **{"example.com/gpu": "4"}))
    # without a gpu request the gpu drops out: cpu 1000/4000 = 25
    assert _score(args, make_pod("p").req(cpu="1"), ni) == 25
    # with 2 of 4 gpus: (25 + 50) / 2 = 37
    assert _score(args, make_pod("p").req(cpu="1", **{"example.com/gpu": "2"}), ni) == 37


@pytest.mark.parametrize("args", [
    _strategy("Balanced"),
    _strategy("LeastAllocated", [("cpu", 101)]),
    _strategy("RequestedToCapacityRatio", [("cpu", 1)], [(50, 1), (10, 2)]),
    _strategy("RequestedToCapacityRatio", [("cpu", 1)], [(0, 11)]),
    _strategy("RequestedToCapacityRatio", [("cpu", 1)]),
    {"ignoredResourceGroups": ["example.com/gpu"]},
], ids=["an unknown strategy", "a weight over 100", "a shape out of order", "a shape score over 10",
        "RequestedToCapacityRatio without a shape", "a resource group with a slash"])
def test_invalid_args_are_config_errors(args: dict) -> None:
    with pytest.raises(InputError):
        fit.new(args, None)


# --- BalancedAllocation ------------------------------------------------------------------
def _balanced(args: dict, pod: Any, ni: NodeInfo) -> tuple[int, Code]:
    pl = ba.new(args, None, V1_34_1)  # the balance with the pod alone (before #135573, v1.36)
    p = Pod(pod.obj())
    state = CycleState()
    st = pl.pre_score(state, p, [ni])
    if st.code == Code.Skip:
        return 0, Code.Skip
    s, st = pl.score(state, p, ni)
    return s, st.code


@pytest.mark.parametrize("args,pod,node,existing,want", [
    ({}, make_pod("p").req(cpu="1", memory="1Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="1", memory="1Gi")], 87),
    ({}, make_pod("p").req(cpu="1", memory="2Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="1", memory="2Gi")], 100),
    ({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "ephemeral-storage", "weight": 1}]},
     make_pod("p").req(cpu="1", memory="1Gi", ephemeral_storage="10Gi"),
     make_node("n").alloc(cpu="4", memory="8Gi", ephemeral_storage="100Gi"), [make_pod("e").req(cpu="1", memory="1Gi")], 83),
    ({}, make_pod("p").req(cpu="8"), make_node("n").alloc(cpu="4", memory="8Gi"), [], 50),
    ({}, make_pod("p").req(cpu="1"), make_node("n").alloc(cpu="4", memory="8Gi"), [make_pod("e")], 87),
], ids=["two resources: fractions 0.5 and 0.25, std 0.125, 87.5 truncates to 87",
        "equal fractions score 100",
        "three resources: population std of 0.5, 0.25, 0.1 is 0.165, 83",
        "a fraction over 1 counts as 1: |1 - 0| / 2 = 0.5, 50",
        "request-less pods count as nothing here (no defaults): cpu 0.25, memory 0, 87"])
def test_balanced_allocation_score(args: dict, pod: Any, node: Any, existing: list, want: int) -> None:
    assert _balanced(args, pod, _ni(node, *existing)) == (want, Code.Success)


def test_balanced_allocation_skips_best_effort_pods() -> None:
    assert _balanced({}, make_pod("p"), _ni(make_node("n")))[1] == Code.Skip


def test_balanced_allocation_weights_must_be_one() -> None:
    with pytest.raises(InputError):
        ba.new({"resources": [{"name": "cpu", "weight": 2}]}, None)


# --- BalancedAllocation since v1.36: the balance with the pod against the balance without it --------
def _balanced_v1_36(pod: Any, ni: NodeInfo, args: dict | None = None) -> int:
    pl = ba.new(args or {}, None, V1_36_2)
    p = Pod(pod.obj())
    state = CycleState()
    assert pl.pre_score(state, p, [ni]).code == Code.Success
    s, st = pl.score(state, p, ni)
    assert st.code == Code.Success
    return s


@pytest.mark.parametrize("pod,node,existing,want", [
    (make_pod("p").req(cpu="1", memory="1Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="1", memory="1Gi")], 72),
    (make_pod("p").req(cpu="1", memory="2Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="1", memory="2Gi")], 75),
    (make_pod("p").req(cpu="1", memory="4Gi"), make_node("n").alloc(cpu="4", memory="8Gi"),
     [make_pod("e").req(cpu="2", memory="1Gi")], 81),
    (make_pod("p").req(cpu="8"), make_node("n").alloc(cpu="4", memory="8Gi"), [], 50),
    (make_pod("p").req(cpu="1", memory="1Gi", ephemeral_storage="10Gi"),
     make_node("n").alloc(cpu="4", memory="8Gi", ephemeral_storage="100Gi"), [make_pod("e").req(cpu="1", memory="1Gi")], 72),
], ids=["unbalancing a node scores below 75: with 87, without 93, 50 + (50 + 87 - 93) / 2 = 72",
        "keeping a perfect balance scores the middle, 75",
        "improving the balance scores above 75: with 93, without 81, 50 + (50 + 93 - 81) / 2 = 81",
        "a fraction over 1 counts as 1, the empty node was balanced: 50 + (50 + 50 - 100) / 2 = 50",
        "three resources use the population standard deviation: with 83, without 89, 72"])
def test_balanced_allocation_scores_the_improvement_in_v1_36(pod: Any, node: Any, existing: list, want: int) -> None:
    ni = _ni(node, *existing)
    args = ({"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                           {"name": "ephemeral-storage", "weight": 1}]}
            if "ephemeral-storage" in str(pod.obj()) else None)
    with_pod = _balanced(args or {}, pod, _ni(node, *existing))[0]
    without_pod = ba.balanced_resource_scorer(*_without(ni, args))
    assert _balanced_v1_36(pod, ni, args) == want == 50 + (50 + with_pod - without_pod) // 2


def _without(ni: NodeInfo, args: dict | None) -> tuple[list[int], list[int]]:
    names = [r["name"] for r in (args or {}).get("resources") or [{"name": "cpu"}, {"name": "memory"}]]
    req = {"cpu": ni.requested.milli_cpu, "memory": ni.requested.memory,
           "ephemeral-storage": ni.requested.ephemeral_storage}
    alloc = {"cpu": ni.allocatable.milli_cpu, "memory": ni.allocatable.memory,
             "ephemeral-storage": ni.allocatable.ephemeral_storage}
    return [req[n] for n in names], [alloc[n] for n in names]


@given(st.lists(st.tuples(st.integers(0, 64_000), st.integers(0, 64_000), st.integers(0, 64_000)),
                min_size=2, max_size=2),
       st.integers(0, 1 << 40), st.integers(0, 1 << 40))
def test_the_inline_two_resource_path_equals_the_general_one(rows: list, extra_req: int, extra_alloc: int) -> None:
    requested = [r[0] + r[1] for r in rows]
    allocated = [r[0] for r in rows]
    allocatable = [r[2] or 1 for r in rows]
    allocatable[1] += extra_alloc
    requested[1] += extra_req
    allocated[1] += extra_req // 2
    fast = ba.balanced_resource_scorer_with_and_without(requested, allocated, allocatable)
    general = 50 + (50 + ba.balanced_resource_scorer(requested, allocatable)
                    - ba.balanced_resource_scorer(allocated, allocatable)) // 2
    assert fast == general


@pytest.mark.parametrize("version", [V1_34_1, V1_36_2], ids=["the balance with the pod", "v1.36's improvement"])
@given(st.sampled_from(["0", "1", "4", "250m"]), st.sampled_from(["0", "1Gi", "8Gi"]),
       st.sampled_from(["0", "500m", "3"]), st.sampled_from(["0", "512Mi", "6Gi"]),
       st.sampled_from([("1", "1Gi"), ("2", "0"), ("0", "3Gi")]))
def test_the_cpu_and_memory_shortcut_scores_as_the_loop_over_resources(
        version: Any, cpu: str, memory: str, used_cpu: str, used_memory: str, pod_req: tuple[str, str]) -> None:
    # ResourceAllocationScorer.score reads cpu and memory straight from the NodeInfo when they are
    # the scorer's resources (the default); a node without one of them (allocatable 0) counts
    # neither its requests nor the pod's for it, as calculateResourceAllocatableRequest's loop does
    pl = ba.new({}, None, version)
    node = make_node("n").alloc(cpu=cpu, memory=memory)
    ni = _ni(node, make_pod("e").req(cpu=used_cpu, memory=used_memory))
    reqs = pl.scorer.pod_request_list(Pod(make_pod("p").req(cpu=pod_req[0], memory=pod_req[1]).obj()))
    shortcut = pl.scorer.score(ni, reqs)
    pl.scorer._cpu_memory = False
    assert shortcut == pl.scorer.score(ni, reqs)


def test_a_shape_with_another_scoring_type_is_refused_from_v1_36_and_validated_before() -> None:
    # validation_pluginargs.go ValidateNodeResourcesFitArgs: v1.36 forbids requestedToCapacityRatio
    # unless the type is RequestedToCapacityRatio; v1.35 validates its shape (at scoringStrategy.shape)
    from kubectl_preempt.framework.versions import V1_35_6
    args = _strategy("LeastAllocated", shape=[(0, 0), (100, 10)])
    with pytest.raises(InputError) as e:
        fit.new(args, None, V1_36_2)
    assert str(e.value) == ("pluginConfig[NodeResourcesFit].args.scoringStrategy.requestedToCapacityRatio: "
                            "Forbidden: must be nil when type is not RequestedToCapacityRatio")
    fit.new(args, None, V1_35_6)  # a valid shape, unused
    with pytest.raises(InputError) as e:
        fit.new(_strategy("LeastAllocated", shape=[(50, 0), (10, 10)]), None, V1_35_6)
    assert "scoringStrategy.shape[1].utilization" in str(e.value)
    with pytest.raises(InputError) as e:
        fit.new(_strategy("RequestedToCapacityRatio", shape=[(50, 0), (10, 10)]), None, V1_36_2)
    assert "scoringStrategy.requestedToCapacityRatio.shape[1].utilization" in str(e.value)
