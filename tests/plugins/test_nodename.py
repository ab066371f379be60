"""NodeName: spec.nodeName pins a pod to one node."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.status import Code
from kubectl_preempt.framework.types import NodeInfo
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import nodename
from tests.builders import make_node, make_pod


@pytest.mark.parametrize("pod_node,want", [("", Code.Success), ("n1", Code.Success),
                                           ("n2", Code.UnschedulableAndUnresolvable)],
                         ids=["no node name fits everywhere", "the named node fits", "another node does not"])
def test_filter(pod_node: str, want: Code) -> None:
    pod = Pod(make_pod("p").obj())
    pod.node_name = pod_node
    st = nodename.new({}, None).filter(CycleState(), pod, NodeInfo(Node(make_node("n1").obj())))
    assert st.code == want
    if want != Code.Success:
        assert st.reasons == [nodename.ERR_REASON]
