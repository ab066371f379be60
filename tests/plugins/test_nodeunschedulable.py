"""NodeUnschedulable: cordoned nodes take only pods tolerating node.kubernetes.io/unschedulable."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import nodeunschedulable
from tests.builders import make_node, make_pod

KEY = "node.kubernetes.io/unschedulable"


@pytest.mark.parametrize("cordoned,tolerations,want", [
    (False, [], Code.Success),
    (True, [], Code.UnschedulableAndUnresolvable),
    (True, [{"key": KEY, "operator": "Exists", "effect": "NoSchedule"}], Code.Success),
    (True, [{"key": KEY, "operator": "Exists"}], Code.Success),
    (True, [{"operator": "Exists"}], Code.Success),
    (True, [{"key": KEY, "operator": "Exists", "effect": "NoExecute"}], Code.UnschedulableAndUnresolvable),
    (True, [{"key": KEY, "operator": "Equal", "value": "true", "effect": "NoSchedule"}], Code.UnschedulableAndUnresolvable),
], ids=["a schedulable node passes", "a cordoned node rejects a pod without tolerations",
        "tolerating the unschedulable NoSchedule taint passes", "a toleration without effect passes",
        "tolerating everything passes", "a NoExecute toleration does not tolerate NoSchedule",
        "the implied taint has an empty value, so Equal \"true\" does not match"])
def test_filter(cordoned: bool, tolerations: list, want: Code) -> None:
    nb = make_node("n1")
    if cordoned:
        nb.unschedulable()
    pb = make_pod("p")
    pb.set("spec.tolerations", tolerations)
    pl = nodeunschedulable.new({}, None)
    st = pl.filter(CycleState(), Pod(pb.obj()), NodeInfo(Node(nb.obj())))
    assert st.code == want
    if want != Code.Success:
        assert st.reasons == [nodeunschedulable.ERR_REASON_UNSCHEDULABLE]
