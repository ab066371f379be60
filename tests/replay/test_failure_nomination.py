"""What a failed cycle does to the pod's nomination (schedule_one.go schedulingCycle's
nominatingInfo, applied by FailureHandler): left, cleared, or set by PostFilter."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod

from .helpers import ev, trace

NO_POST_FILTER = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                  "profiles": [{"schedulerName": "default-scheduler",
                                "plugins": {"postFilter": {"disabled": [{"name": "*"}]}}}]}


class _Bound(Listener):
    def __init__(self) -> None:
        self.nodes: dict[str, str] = {}

    def bound(self, t: float, pod: Any, node: str) -> None:
        self.nodes[pod.name] = node


@pytest.mark.parametrize("version, b_bound", [("v1.34", False), ("v1.35", True), ("v1.36", True)],
                         ids=["v1.34: ScheduleResult{} leaves the nomination", "v1.35: clearNominatedNode",
                              "v1.36: clearNominatedNode"])
def test_a_profile_without_post_filter_plugins_clears_the_nomination_from_v1_35(version: str, b_bound: bool) -> None:
    # a (2 cpu) is nominated to n1 and does not fit there; with no PostFilter plugin, v1.35's
    # schedulingCycle returns clearNominatedNode, so a's 2 cpu no longer hold n1 for b (1 cpu);
    # v1.34.1 returns ScheduleResult{} (nominatingInfo nil: the nomination stays) and b is kept out
    a = make_pod("a").priority(100).req(cpu="2").obj()
    a["status"]["nominatedNodeName"] = "n1"
    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
               ev(0, "ADDED", make_pod("big").priority(1000).req(cpu="3").on("n1").obj()),
               ev(0, "ADDED", a),
               ev(0, "ADDED", make_pod("b").priority(50).req(cpu="1").obj()),
               end=5)
    bound = _Bound()
    replay(tr, config=NO_POST_FILTER, kubernetes_version=version, listener=bound)
    assert ("b" in bound.nodes) is b_bound, bound.nodes


def test_the_nominating_info_of_each_kind_of_failure() -> None:
    from kubectl_preempt.framework.interface import PostFilterResult
    from kubectl_preempt.framework.status import Code, Status
    from kubectl_preempt.model.objects import Pod
    from kubectl_preempt.scheduler.schedule_one import UNSCHEDULABLE, CycleResult
    pod = Pod(make_pod("p").obj())
    # ErrNoNodesAvailable or a plugin's Error: clearNominatedNode (v1.34.1 newFailureNominatingInfo
    # with NominatedNodeNameForExpectation off, and every release before and since)
    error = CycleResult(pod, UNSCHEDULABLE, 0, error="no nodes available to schedule pods")
    assert error.failure_nominating_info(False) == "" and error.failure_nominating_info(True) == ""
    # PostFilter ran and returned nil (its Error, or nothing to say): the nomination is left
    ran = CycleResult(pod, UNSCHEDULABLE, 2, post_filter_status=Status(Code.Unschedulable, "x"))
    assert ran.failure_nominating_info(True) is None
    # PostFilter's own answer: a clear (ModeOverride "") or nothing (ModeNoop)
    cleared = CycleResult(pod, UNSCHEDULABLE, 2, post_filter_status=Status(Code.Unschedulable, "x"),
                          post_filter_result=PostFilterResult("", "Override"))
    assert cleared.failure_nominating_info(False) == ""
