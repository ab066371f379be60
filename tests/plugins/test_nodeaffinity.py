"""NodeAffinity: nodeSelector and required affinity filter; matchFields narrow PreFilter;
preferred terms score; addedAffinity applies to every pod of the profile."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NodeScore
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import nodeaffinity as na
from tests.builders import make_node, make_pod


def _ni(name: str = "n1", **labels: str) -> NodeInfo:
    nb = make_node(name)
    for k, v in labels.items():
        nb.label(k, v)
    return NodeInfo(Node(nb.obj()))


def _required(*terms: dict) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def _name_in(*names: str) -> dict[str, Any]:
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def _run_filter(pl: Any, pod: Pod, ni: NodeInfo):
    state = CycleState()
    _, st = pl.pre_filter(state, pod, [ni])
    assert st.is_success()
    return pl.filter(state, pod, ni)


@pytest.mark.parametrize("pod,labels,code", [
    (make_pod("p").node_selector(disk="ssd"), {"disk": "ssd"}, Code.Success),
    (make_pod("p").node_selector(disk="ssd"), {"disk": "hdd"}, Code.UnschedulableAndUnresolvable),
    (make_pod("p").node_selector(disk=""), {}, Code.UnschedulableAndUnresolvable),
    (make_pod("p").affinity(_required({"matchExpressions": [_expr("zone", "In", "a", "b")]})), {"zone": "b"}, Code.Success),
    (make_pod("p").affinity(_required({"matchExpressions": [_expr("zone", "In", "a")]},
                                      {"matchExpressions": [_expr("gpu", "Exists")]})), {"gpu": "1"}, Code.Success),
    (make_pod("p").affinity(_required({"matchExpressions": [_expr("zone", "In", "a")]})), {"zone": "c"},
     Code.UnschedulableAndUnresolvable),
    (make_pod("p").node_selector(disk="ssd").affinity(_required({"matchExpressions": [_expr("zone", "In", "a")]})),
     {"zone": "a"}, Code.UnschedulableAndUnresolvable),
    (make_pod("p").affinity(_required({"matchFields": [_name_in("n1")]})), {}, Code.Success),
    (make_pod("p").affinity(_required({"matchExpressions": [_expr("zone", "NotIn", "a")]})), {}, Code.Success),
], ids=["nodeSelector matches", "nodeSelector value differs", "an empty nodeSelector value needs the label present",
        "required In matches", "terms are ORed", "no term matches",
        "nodeSelector and affinity are ANDed", "matchFields metadata.name matches the node",
        "NotIn matches a node without the label"])
def test_filter(pod: Any, labels: dict[str, str], code: Code) -> None:
    st = _run_filter(na.new({}, None), Pod(pod.obj()), _ni(**labels))
    assert st.code == code
    if code != Code.Success:
        assert st.reasons == [na.ERR_REASON_POD]


def test_pre_filter_skips_a_pod_without_node_constraints() -> None:
    _, st = na.new({}, None).pre_filter(CycleState(), Pod(make_pod("p").obj()), [])
    assert st.code == Code.Skip


def test_an_empty_node_selector_map_is_not_skipped_and_matches_every_node() -> None:
    pod = Pod(make_pod("p").set("spec.nodeSelector", {}).obj())
    state = CycleState()
    res, st = na.new({}, None).pre_filter(state, pod, [])
    assert st.is_success() and res is None
    assert na.new({}, None).filter(state, pod, _ni()).is_success()


@pytest.mark.parametrize("terms,want_nodes,code", [
    ([{"matchFields": [_name_in("n1", "n2")]}], {"n1", "n2"}, Code.Success),
    ([{"matchFields": [_name_in("n1", "n2"), _name_in("n2", "n3")]}], {"n2"}, Code.Success),
    ([{"matchFields": [_name_in("n1")]}, {"matchFields": [_name_in("n3")]}], {"n1", "n3"}, Code.Success),
    ([{"matchFields": [_name_in("n1")]}, {"matchExpressions": [_expr("zone", "Exists")]}], None, Code.Success),
    ([{"matchFields": [_name_in("n1"), _name_in("n2")]}], None, Code.UnschedulableAndUnresolvable),
    ([{"matchExpressions": [_expr("zone", "Exists")]}], None, Code.Success),
], ids=["one term names two nodes", "requirements of a term intersect", "terms unite",
        "a term without names allows every node", "disjoint names in one term conflict",
        "no matchFields allows every node"])
def test_pre_filter_result_from_match_fields(terms: list, want_nodes: set[str] | None, code: Code) -> None:
    pod = Pod(make_pod("p").affinity(_required(*terms)).obj())
    res, st = na.new({}, None).pre_filter(CycleState(), pod, [])
    assert st.code == code
    if code == Code.UnschedulableAndUnresolvable:
        assert st.reasons == [na.ERR_REASON_CONFLICT]
        return
    assert (res.node_names if res is not None else None) == want_nodes


ADDED = {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [_expr("pool", "In", "batch")]}]}}}


@pytest.mark.parametrize("labels,code,reason", [
    ({"pool": "batch"}, Code.Success, None),
    ({"pool": "web"}, Code.UnschedulableAndUnresolvable, na.ERR_REASON_ENFORCED),
], ids=["a node in the enforced pool passes", "another node fails with the enforced reason"])
def test_added_affinity_is_enforced_for_every_pod(labels: dict, code: Code, reason: str | None) -> None:
    pl = na.new(ADDED, None)
    pod = Pod(make_pod("p").obj())
    state = CycleState()
    _, st = pl.pre_filter(state, pod, [])
    assert st.is_success()
    st = pl.filter(state, pod, _ni(**labels))
    assert st.code == code
    assert st.reasons == ([reason] if reason else [])


def test_added_affinity_that_does_not_parse_is_a_config_error() -> None:
    with pytest.raises(InputError):
        na.new({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [_expr("pool", "In")]}]}}}, None)


def _preferred(*terms: tuple[int, dict]) -> dict[str, Any]:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": p} for w, p in terms]}}


def test_score_sums_preferred_weights_and_normalizes() -> None:
    pl = na.new({"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 3, "preference": {"matchExpressions": [_expr("ssd", "Exists")]}}]}}, None)
    pod = Pod(make_pod("p").affinity(_preferred((10, {"matchExpressions": [_expr("zone", "In", "a")]}),
                                                (5, {"matchExpressions": [_expr("gpu", "Exists")]}))).obj())
    nodes = [_ni("n1", zone="a", gpu="1", ssd="1"), _ni("n2", zone="a"), _ni("n3", gpu="1"), _ni("n4")]
    state = CycleState()
    assert pl.pre_score(state, pod, nodes).is_success()
    raw = [pl.score(state, pod, ni)[0] for ni in nodes]
    assert raw == [18, 10, 5, 0]
    scores = [NodeScore(ni.name, s) for ni, s in zip(nodes, raw)]
    pl.score_extensions().normalize_score(state, pod, scores)
    # 100*10/18 = 55.5 and 100*5/18 = 27.7 truncate
    assert [s.score for s in scores] == [100, 55, 27, 0]


def test_pre_score_skips_without_preferred_terms_but_not_with_an_empty_list() -> None:
    pl = na.new({}, None)
    assert pl.pre_score(CycleState(), Pod(make_pod("p").obj()), []).code == Code.Skip
    pod = Pod(make_pod("p").affinity({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}).obj())
    assert pl.pre_score(CycleState(), pod, []).is_success()
