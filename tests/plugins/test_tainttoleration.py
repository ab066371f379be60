"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NodeScore
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import tainttoleration as tt
from tests.builders import make_node, make_pod


def _ni(*taints: tuple[str, str, str]) -> NodeInfo:
    nb = make_node("n1")
    for key, value, effect in taints:
        nb.taint(key, value, effect)
    return NodeInfo(Node(nb.obj()))


def _pod(*tolerations: dict) -> Pod:
    return Pod(make_pod("p").set("spec.tolerations", list(tolerations)).obj())


@pytest.mark.parametrize("taints,tolerations,code,reasons", [
    ([], [], Code.Success, []),
    ([("dedicated", "gpu", "NoSchedule")], [], Code.UnschedulableAndUnresolvable,
     [tt.ERR_REASON_UNTOLERATED_TAINT % ("dedicated", "gpu")]),
    ([("node.kubernetes.io/not-ready", "", "NoExecute")], [], Code.UnschedulableAndUnresolvable,
     [tt.ERR_REASON_UNTOLERATED_TAINT % ("node.kubernetes.io/not-ready", "")]),
    ([("soft", "", "PreferNoSchedule")], [], Code.Success, []),
    ([("dedicated", "gpu", "NoSchedule")], [{"key": "dedicated", "operator": "Equal", "value": "gpu"}], Code.Success, []),
    ([("dedicated", "gpu", "NoSchedule")], [{"key": "dedicated", "value": "infra"}], Code.UnschedulableAndUnresolvable,
     [tt.ERR_REASON_UNTOLERATED_TAINT % ("dedicated", "gpu")]),
    ([("a", "1", "NoSchedule"), ("b", "2", "NoSchedule")], [{"key": "a", "operator": "Exists"}],
     Code.UnschedulableAndUnresolvable, [tt.ERR_REASON_UNTOLERATED_TAINT % ("b", "2")]),
    ([("a", "1", "NoSchedule"), ("b", "2", "NoExecute")], [{"operator": "Exists"}], Code.Success, []),
], ids=["an untainted node passes", "an untolerated NoSchedule taint names key and value",
        "an untolerated NoExecute taint with no value prints an empty value",
        "PreferNoSchedule never filters", "a matching Equal toleration passes",
        "a toleration with another value fails", "the first untolerated taint is reported",
        "empty key with Exists tolerates all"])
def test_filter(taints: list, tolerations: list, code: Code, reasons: list[str]) -> None:
    st = tt.new({}, None, V1_34_1).filter(CycleState(), _pod(*tolerations), _ni(*taints))
    assert st.code == code
    assert st.reasons == reasons


def test_reason_format_matches_upstream() -> None:
    assert tt.untolerated_taint_reason({"key": "dedicated", "value": "gpu"}) == "node(s) had untolerated taint {dedicated: gpu}"


def test_score_counts_untolerated_prefer_no_schedule_taints_and_normalizes_in_reverse() -> None:
    pl = tt.new({}, None, V1_34_1)
    pod = _pod({"key": "tolerated", "operator": "Exists", "effect": "PreferNoSchedule"},
               # a NoSchedule toleration does not count for scoring
               {"key": "hard", "operator": "Exists", "effect": "NoSchedule"})
    nodes = [_ni(),
             _ni(("tolerated", "", "PreferNoSchedule")),
             _ni(("hard", "", "PreferNoSchedule")),
             _ni(("x", "", "PreferNoSchedule"), ("y", "", "PreferNoSchedule"), ("z", "", "NoSchedule"))]
    state = CycleState()
    assert pl.pre_score(state, pod, nodes).is_success()
    raw = [pl.score(state, pod, ni)[0] for ni in nodes]
    assert raw == [0, 0, 1, 2]
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    assert pl.score_extensions().normalize_score(state, pod, scores).is_success()
    assert [s.score for s in scores] == [100, 100, 50, 0]


def test_score_without_pre_score_is_an_error() -> None:
    _, st = tt.new({}, None, V1_34_1).score(CycleState(), _pod(), _ni())
    assert st.code == Code.Error


@pytest.mark.parametrize("version,reason", [
    (V1_34_1, "node(s) had untolerated taint {dedicated: gpu}"),
    (V1_36_2, "node(s) had untolerated taint(s)"),
], ids=["v1.34.1 names the taint", "v1.36.2 does not, so different taints count together"])
def test_the_filter_reason_follows_the_release(version, reason: str) -> None:
    st = tt.new({}, None, version).filter(CycleState(), _pod(), _ni(("dedicated", "gpu", "NoSchedule")))
    assert (st.code, st.reasons) == (Code.UnschedulableAndUnresolvable, [reason])
    assert tt.new({}, None, version).filter(CycleState(), _pod({"operator": "Exists"}),
                                            _ni(("dedicated", "gpu", "NoSchedule"))).code == Code.Success
