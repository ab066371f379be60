"""NodeDeclaredFeatures (v1.35+): a pod needing a node-declared feature goes only to nodes declaring it."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import nodedeclaredfeatures as ndf
from tests.builders import make_node, make_pod

RESTART_ALL = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]


def _restart_all_pod() -> dict:
    obj = make_pod("p").obj()
    obj["spec"]["containers"][0]["restartPolicyRules"] = RESTART_ALL
    return obj


def _node(*features: str) -> NodeInfo:
    return NodeInfo(Node(make_node("n").set("status.declaredFeatures", list(features)).obj()))


def _run(pod: Any, ni: NodeInfo, version: Any = V1_36_2) -> tuple[Code, list[str]]:
    pl = ndf.new({}, None, version)
    state = CycleState()
    p = Pod(pod if isinstance(pod, dict) else pod.obj())
    _, st = pl.pre_filter(state, p, [ni])
    if st.code != Code.Success:
        return st.code, st.reasons
    st = pl.filter(state, p, ni)
    return st.code, st.reasons


@pytest.mark.parametrize("pod,features,want", [
    (make_pod("p"), [], (Code.Skip, [])),
    (_restart_all_pod(), [],
     (Code.UnschedulableAndUnresolvable, [ndf.ERR_REASON_UNSATISFIED_REQUIREMENTS])),
    (_restart_all_pod(),
     ["RestartAllContainersOnContainerExits"], (Code.Success, [])),
    (make_pod("p").set("spec.hostNetwork", True).set("spec.hostUsers", False), ["RestartAllContainersOnContainerExits"],
     (Code.UnschedulableAndUnresolvable, [ndf.ERR_REASON_UNSATISFIED_REQUIREMENTS])),
    (make_pod("p").set("spec.hostNetwork", True).set("spec.hostUsers", False), ["UserNamespacesHostNetworkSupport"],
     (Code.Success, [])),
    (make_pod("p").set("spec.hostNetwork", True), [], (Code.Skip, [])),
], ids=["a pod needing nothing skips", "restartPolicyRules RestartAllContainers needs the node to declare it",
        "a node declaring the feature passes",
        "host network without host users needs UserNamespacesHostNetworkSupport",
        "a node declaring UserNamespacesHostNetworkSupport passes",
        "host network with host users needs nothing"])
def test_required_features_against_declared_ones(pod: Any, features: list[str], want: tuple) -> None:
    assert _run(pod, _node(*features)) == want


def test_with_the_gate_off_as_in_v1_34_every_pod_skips() -> None:
    pod = _restart_all_pod()
    assert _run(pod, _node(), V1_34_1) == (Code.Skip, [])


def test_v1_35_words_its_reason_and_knows_fewer_features() -> None:
    # v1.35.6 nodedeclaredfeatures.go Filter: "node declared features check failed - unsatisfied
    # requirements: <features>"; its registry (features.AllFeatures) has no
    # UserNamespacesHostNetworkSupport, which v1.36.2 infers for hostNetwork without host users
    from kubectl_preempt.framework.versions import V1_35_6, apply_feature_gates
    v135 = apply_feature_gates(V1_35_6, "NodeDeclaredFeatures=true")
    assert _run(_restart_all_pod(), _node(), v135) == (
        Code.UnschedulableAndUnresolvable,
        ["node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits"])
    userns = make_pod("p").set("spec.hostNetwork", True).set("spec.hostUsers", False)
    assert _run(userns, _node(), v135)[0] == Code.Skip
    assert _run(userns, _node(), V1_36_2) == (Code.UnschedulableAndUnresolvable, [ndf.ERR_REASON_UNSATISFIED_REQUIREMENTS])
