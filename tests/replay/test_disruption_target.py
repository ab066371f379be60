"""The DisruptionTarget condition the replayed scheduler patches onto a victim (executor.go
PreemptPod): "<the preemptor's schedulerName>: preempting to accommodate a higher priority <type>"."""
from __future__ import annotations

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.replay.state import ReplayState, build_cluster
from tests.builders import make_node, make_pod


def _condition(preemptor_type: str) -> dict:
    objs = [make_node("n1").alloc(cpu="2").obj(),
            make_pod("victim").req(cpu="2").priority(1).on("n1").obj(),
            make_pod("high").req(cpu="2").priority(100).set("spec.schedulerName", "gang-scheduler").obj()]
    st = ReplayState(build_cluster(objs), default_config())
    victim = st.cluster.pods["default/victim"]
    st.mark_disruption_target(victim, 100.0, st.cluster.pods["default/high"], preemptor_type)
    [cond] = [c for c in victim.status["conditions"] if c["type"] == "DisruptionTarget"]
    return cond


def test_the_condition_names_the_preemptors_scheduler_not_the_victims() -> None:
    assert _condition("pod")["message"] == "gang-scheduler: preempting to accommodate a higher priority pod"


def test_a_pod_groups_preemption_says_podgroup() -> None:
    # v1.36 workload-aware preemption: preemptor.Type() is "podgroup"
    assert _condition("podgroup")["message"] == "gang-scheduler: preempting to accommodate a higher priority podgroup"
