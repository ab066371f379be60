"""plugins/helper: Go arithmetic, score normalization, shapes, taints and node selectors."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.interface import NodeScore
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins.helper.gomath import go_div, go_round
from kubectl_preempt.plugins.helper.nodeaffinity import (NodeSelector, PreferredSchedulingTerms,
                                                         RequiredNodeAffinity, new_requirement)
from kubectl_preempt.plugins.helper.normalize_score import default_normalize_score
from kubectl_preempt.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function
from kubectl_preempt.plugins.helper.taint import (do_not_schedule_taints_filter, find_matching_untolerated_taint,
                                                  toleration_tolerates_taint)
from tests.builders import make_node, make_pod


@pytest.mark.parametrize("a,b,want", [
    (7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0), (-2000, 30, -66),
], ids=["positive truncates down", "negative truncates toward zero, not floor",
        "negative divisor truncates toward zero", "two negatives are positive",
        "zero stays zero", "a decreasing shape's slope truncates toward zero"])
def test_go_div_truncates_toward_zero(a: int, b: int, want: int) -> None:
    assert go_div(a, b) == want


@pytest.mark.parametrize("x,want", [(56.5, 57), (57.5, 58), (-0.5, -1), (45.666, 46), (2.4999, 2)],
                         ids=["a half rounds up, not to even", "another half rounds up",
                              "a negative half rounds away from zero", "above a half rounds up",
                              "below a half rounds down"])
def test_go_round_rounds_halves_away_from_zero(x: float, want: int) -> None:
    assert go_round(x) == want


@pytest.mark.parametrize("raw,reverse,want", [
    ([1, 2, 4], False, [25, 50, 100]),
    ([1, 2, 4], True, [75, 50, 0]),
    ([0, 0], False, [0, 0]),
    ([0, 0], True, [100, 100]),
    ([1, 3], False, [33, 100]),
    ([0, -3], False, [0, -3]),
    ([0, -3], True, [100, 100]),
], ids=["scores scale to the highest", "reverse turns the scale over",
        "all zero stays zero", "all zero reversed is all max", "the scaling truncates",
        "no score above zero: kept as it is", "no score above zero reversed: all max"])
def test_default_normalize_score(raw: list[int], reverse: bool, want: list[int]) -> None:
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    assert default_normalize_score(100, reverse, scores).is_success()
    assert [s.score for s in scores] == want


@pytest.mark.parametrize("shape,p,want", [
    ([(0, 0), (100, 100)], 50, 50),
    ([(10, 20), (100, 100)], 5, 20),
    ([(0, 0), (50, 100)], 80, 100),
    ([(0, 100), (30, 0)], 20, 34),
    ([(0, 0), (30, 100), (100, 40)], 65, 70),
], ids=["linear in between", "flat below the first point", "flat above the last point",
        "a falling segment truncates toward zero (34, not 33)", "the second segment of three"])
def test_broken_linear_function(shape: list[tuple[int, int]], p: int, want: int) -> None:
    f = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in shape])
    assert f(p) == want


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


@pytest.mark.parametrize("toleration,tolerates", [
    ({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}, True),
    ({"key": "dedicated", "value": "gpu"}, True),
    ({"key": "dedicated", "value": "cpu"}, False),
    ({"key": "dedicated", "operator": "Exists"}, True),
    ({"operator": "Exists"}, True),
    ({"operator": "Exists", "effect": "NoExecute"}, False),
    ({"key": "other", "operator": "Exists"}, False),
    ({"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}, True),
    ({"key": "dedicated", "operator": "Gt", "value": "gpu"}, False),
    ({"value": "gpu"}, True),
], ids=["exact key, value and effect", "no operator means Equal", "Equal needs the same value",
        "Exists ignores the value", "empty key with Exists tolerates every taint",
        "the effect must match when given", "another key", "Exists with the same effect",
        "an unknown operator tolerates nothing", "empty key with Equal matches any key with that value"])
def test_toleration_tolerates_taint(toleration: dict, tolerates: bool) -> None:
    assert toleration_tolerates_taint(toleration, TAINT) is tolerates


def test_find_matching_untolerated_taint_skips_prefer_no_schedule_and_returns_the_first() -> None:
    taints = [{"key": "soft", "effect": "PreferNoSchedule"},
              {"key": "a", "effect": "NoExecute"}, {"key": "b", "effect": "NoSchedule"}]
    got = find_matching_untolerated_taint(taints, [], do_not_schedule_taints_filter)
    assert got == {"key": "a", "effect": "NoExecute"}
    assert find_matching_untolerated_taint(taints, [{"operator": "Exists"}], do_not_schedule_taints_filter) is None


def _node(**labels: str) -> Node:
    b = make_node("node-1")
    for k, v in labels.items():
        b.label(k, v)
    return Node(b.obj())


def _sel(*exprs: dict, fields: list | None = None) -> NodeSelector:
    term: dict = {"matchExpressions": list(exprs)}
    if fields is not None:
        term["matchFields"] = fields
    return NodeSelector({"nodeSelectorTerms": [term]})


@pytest.mark.parametrize("selector,matches", [
    (_sel({"key": "zone", "operator": "In", "values": ["a", "b"]}), True),
    (_sel({"key": "zone", "operator": "NotIn", "values": ["a"]}), False),
    (_sel({"key": "absent", "operator": "NotIn", "values": ["a"]}), True),
    (_sel({"key": "absent", "operator": "DoesNotExist"}), True),
    (_sel({"key": "cores", "operator": "Gt", "values": ["8"]}), True),
    (_sel({"key": "cores", "operator": "Lt", "values": ["8"]}), False),
    (_sel({"key": "zone", "operator": "Gt", "values": ["1"]}), False),
    (_sel({"key": "cores", "operator": "Gt", "values": ["eight"]}), False),
    (_sel({"key": "zone", "operator": "NotIn", "values": []}), False),
    (_sel({"key": "zone", "operator": "Exists", "values": ["a"]}), False),
    (_sel({"key": "zone", "operator": "Near", "values": ["a"]}), False),
    (_sel(fields=[{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]), True),
    (_sel(fields=[{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}]), False),
    (_sel(fields=[{"key": "metadata.name", "operator": "In", "values": ["node-1", "node-2"]}]), False),
    (NodeSelector({"nodeSelectorTerms": [{}, {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}), True),
    (NodeSelector({"nodeSelectorTerms": [{}]}), False),
    (NodeSelector({"nodeSelectorTerms": []}), False),
], ids=["In matches a listed value", "NotIn rejects a listed value", "NotIn matches an absent label",
        "DoesNotExist matches an absent label", "Gt compares as integers", "Lt compares as integers",
        "Gt on a non-integer label is false", "a term with a non-integer Gt value never matches",
        "NotIn without values does not parse and never matches",
        "Exists with values does not parse and never matches", "an unknown operator never matches",
        "matchFields metadata.name In", "matchFields metadata.name NotIn",
        "matchFields with two values does not parse", "an empty term is dropped and another can match",
        "only empty terms match nothing", "no terms match nothing"])
def test_node_selector_matching(selector: NodeSelector, matches: bool) -> None:
    assert selector.matches(_node(zone="a", cores="16")) is matches


@pytest.mark.parametrize("key,op,values,labels", [
    ("zone", "Equals", ["a"], {"zone": "a"}),
    ("zone", "Equals", ["a", "b"], None),
    ("zone", "DoubleEquals", ["a"], None),
    ("a/b/c", "Exists", [], None),
    ("zone", "In", ["a b"], None),
    ("cores", "Gt", ["8\n"], None),
    ("cores", "Gt", [str(2**63)], None),
], ids=["Equals takes one value and matches as In", "Equals with two values is invalid",
        "an operator node and label selectors never produce is invalid", "a key with two slashes is invalid",
        "a value with a space is invalid", "Gt with a trailing newline is not an integer, as in Go",
        "Gt beyond int64 is invalid"])
def test_new_requirement_validates_as_labels_new_requirement(key: str, op: str, values: list,
                                                              labels: dict | None) -> None:
    r = new_requirement(key, op, values)
    if labels is None:
        assert r is None
    else:
        assert r is not None and r.matches(labels) and not r.matches({})


def test_required_node_affinity_ands_node_selector_with_required_terms() -> None:
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}
    pod = Pod(make_pod("p").node_selector(disk="ssd").affinity(aff).obj())
    req = RequiredNodeAffinity(pod)
    assert req.matches(_node(zone="a", disk="ssd"))
    assert not req.matches(_node(zone="a"))
    assert not req.matches(_node(zone="b", disk="ssd"))


def test_preferred_terms_sum_weights_and_skip_zero_weights() -> None:
    terms = PreferredSchedulingTerms.parse([
        {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
        {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}},
        {"weight": 7, "preference": {"matchExpressions": [{"key": "cores", "operator": "Exists"}]}},
    ])
    assert terms is not None
    assert terms.score(_node(zone="a", cores="16")) == 12
    assert PreferredSchedulingTerms.parse([{"weight": 1, "preference": {"matchExpressions": [
        {"key": "zone", "operator": "In", "values": []}]}}]) is None
