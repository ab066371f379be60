"""OpportunisticBatching (v1.35+, beta and on): a cycle reuses the scores of the cycle before it
(framework/batch.py, mirroring pkg/scheduler/framework/runtime/batch.go). Each case is a small
trace built for one rule: where the batch's hint places the pod against where a full cycle does."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.batch import OpportunisticBatch, SortedScoredNodes, sign_pod
from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.versions import by_name
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod

from .helpers import ev, trace

# batching needs every plugin to sign the pod: PodTopologySpread's system default constraints sign
# none, so these traces run a profile without default constraints
NO_DEFAULT_SPREAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                     "profiles": [{"schedulerName": "default-scheduler",
                                   "pluginConfig": [{"name": "PodTopologySpread",
                                                     "args": {"defaultingType": "List"}}]}]}


class _Bound(Listener):
    def __init__(self) -> None:
        self.nodes: dict[str, str] = {}

    def bound(self, t: float, pod: Any, node: str) -> None:
        self.nodes[pod.name] = node


def _new_node_trace(*, second_at: float = 1.2, second_cpu: str = "3", first_cpu: str = "3",
                     spread: bool = False) -> dict[str, Any]:
    """n1 and n2 (4 cpu; n2 runs a 1-cpu pod), p1 then, right after, an empty 8-cpu node n3 and p2.
    A full cycle puts p2 on n3 (LeastAllocated); the batch from p1's cycle knows n1 and n2 only."""
    p2 = make_pod("p2").req(cpu=second_cpu)
    if spread:
        p2 = p2.spread([{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                         "labelSelector": {"matchLabels": {"app": "x"}}}])
    return trace(
        ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_node("n2").alloc(cpu="4", memory="8Gi").obj()),
        ev(0, "ADDED", make_pod("a").req(cpu="1").on("n2").obj()),
        ev(1, "ADDED", make_pod("p1").req(cpu=first_cpu).obj()),
        ev(second_at, "ADDED", make_node("n3").alloc(cpu="8", memory="16Gi").obj()),
        ev(second_at, "ADDED", p2.obj()),
        end=5)


def _placed(tr: dict[str, Any], version: str = "v1.36", config: Any = NO_DEFAULT_SPREAD,
            gates: dict[str, bool] | None = None) -> dict[str, str]:
    bound = _Bound()
    replay(tr, config=config, kubernetes_version=version, feature_gates=gates, listener=bound)
    return bound.nodes


@pytest.mark.parametrize("version,config,gates,trace_args,p2_on", [
    ("v1.36", NO_DEFAULT_SPREAD, None, {}, "n2"),
    ("v1.35", NO_DEFAULT_SPREAD, None, {}, "n2"),
    ("v1.36", NO_DEFAULT_SPREAD, {"OpportunisticBatching": False}, {}, "n3"),
    ("v1.34", NO_DEFAULT_SPREAD, None, {}, "n3"),
    ("v1.36", None, None, {}, "n3"),
    ("v1.36", NO_DEFAULT_SPREAD, None, {"second_at": 1.6}, "n3"),
    ("v1.36", NO_DEFAULT_SPREAD, None, {"second_cpu": "2"}, "n3"),
    ("v1.36", NO_DEFAULT_SPREAD, None, {"first_cpu": "1", "second_cpu": "1"}, "n3"),
    ("v1.36", NO_DEFAULT_SPREAD, None, {"spread": True}, "n3"),
], ids=[
    "v1.36: the next pod alike goes to the next node of the kept scores, not to the node added since",
    "v1.35 batches alike",
    "OpportunisticBatching=false: a full cycle, which finds the new node",
    "v1.34 has no batching",
    "the default profile signs no pod (PodTopologySpread's system default constraints): a full cycle",
    "a batch older than maxBatchAge (0.5 s) is not used",
    "a pod that signs otherwise (another request) gets no hint",
    "a pod that still fits where the last one went gets no hint (the kept scores would be stale)",
    "a pod with topology spread constraints is not signable",
])
def test_where_the_second_pod_goes(version: str, config: Any, gates: dict[str, bool] | None,
                                   trace_args: dict[str, Any], p2_on: str) -> None:
    placed = _placed(_new_node_trace(**trace_args), version, config, gates)
    assert placed["p1"] == "n1" and placed["p2"] == p2_on, placed


def test_a_failed_cycle_in_between_ends_the_batch() -> None:
    # "big" (6 cpu) fits nowhere between p1 and p2: its cycle is not p1's + 1, so p2 runs a full cycle
    tr = _new_node_trace()
    tr["events"].insert(4, ev(1.1, "ADDED", make_pod("big").req(cpu="6").obj()))
    assert _placed(tr)["p2"] == "n3"


def test_a_hint_that_no_longer_fits_falls_back_to_a_full_cycle() -> None:
    # between the cycles n2's free room is taken by a pod bound there: the hint (n2) fails its
    # filters, and the full cycle finds n3
    tr = _new_node_trace()
    tr["events"].insert(4, ev(1.1, "ADDED", make_pod("b").req(cpu="2").on("n2").obj()))
    assert _placed(tr)["p2"] == "n3"


@pytest.mark.parametrize("gates,want", [(None, ["n1", "n2", "n3"]), ({"OpportunisticBatching": False}, ["n1", "n4", "n4"])],
                         ids=["batched: one per kept node, in score order", "full cycles: the new node twice"])
def test_three_pods_alike_take_the_kept_nodes_in_score_order(gates: dict[str, bool] | None, want: list[str]) -> None:
    # free cpu n1 4 > n2 3.5 > n3 3; p1 (3 cpu) takes n1; then an empty n4 (8 cpu) comes with p2 and
    # p3: each finds the node the last one took full and takes the next kept node
    nodes = [make_node(n).alloc(cpu="4", memory="8Gi").obj() for n in ("n1", "n2", "n3")]
    tr = trace(*(ev(0, "ADDED", n) for n in nodes),
               ev(0, "ADDED", make_pod("a").req(cpu="500m").on("n2").obj()),
               ev(0, "ADDED", make_pod("b").req(cpu="1").on("n3").obj()),
               ev(1, "ADDED", make_pod("p1").req(cpu="3").obj()),
               ev(1.1, "ADDED", make_node("n4").alloc(cpu="8", memory="16Gi").obj()),
               *(ev(1.1, "ADDED", make_pod(f"p{i}").req(cpu="3").obj()) for i in (2, 3)), end=5)
    placed = _placed(tr, gates=gates)
    assert [placed[p] for p in ("p1", "p2", "p3")] == want


# --- the batch itself (batch.go) ---------------------------------------------------------------
def test_store_keeps_the_other_nodes_and_a_used_hint_keeps_the_batch() -> None:
    b = OpportunisticBatch()
    b.store_schedule_results("sig", "", "n1", SortedScoredNodes.after(["n1", "n2", "n3"], [90, 70, 80], "n1"),
                             cycle_count=1, now=0.0)
    assert b.state is not None and b.state.sorted_nodes.names == ["n2", "n3"]  # n3 pops first
    b.state.sorted_nodes.pop()
    b.store_schedule_results("sig", "n3", "n3", None, cycle_count=2, now=0.1)
    assert b.state.sorted_nodes.names == ["n2"] and b.batched_pods == 1 and b.last_cycle.cycle_count == 2
    # a hint left unused, and a pod that could not be signed: the batch goes
    b.store_schedule_results(None, "n2", "n1", None, cycle_count=3, now=0.2)
    assert b.state is None


def test_signatures_are_off_for_a_profile_with_a_plugin_that_cannot_sign() -> None:
    cluster = Cluster.from_objects([make_node("n1").alloc(cpu="4").obj(), make_pod("p").req(cpu="1").obj()])
    sched = Scheduler(cluster, parse_config(NO_DEFAULT_SPREAD, version=by_name("v1.36")))
    fwk = sched.framework_for_profile("default-scheduler")
    assert fwk is not None and sign_pod(fwk.batchable_plugins, cluster.pods["default/p"]) is not None
    fwk.points["filter"].append(type("Unsigned", (), {"name": "Unsigned"})())
    from kubectl_preempt.framework.batch import batchable_plugins
    assert batchable_plugins(fwk) is None


@pytest.mark.parametrize("config,signed", [(None, False), (NO_DEFAULT_SPREAD, True)],
                         ids=["the system's default spread: PodTopologySpread signs no pod",
                              "no default constraints: every plugin signs the pod"])
def test_the_fast_core_signs_as_every_plugin_does(config: Any, signed: bool) -> None:
    # the fast core answers None without asking the plugins when one of them signs no pod
    # (MemoTraits.signs_no_pod); either way the signature is SignPod's (framework.go SignPod)
    from kubectl_preempt.scheduler.fast import FAST_CORES
    cluster = Cluster.from_objects([make_node("n1").alloc(cpu="4").obj(),
                                    make_pod("p").req(cpu="1").host_port(8080).obj()])
    sched = Scheduler(cluster, parse_config(config, version=by_name("v1.36")))
    fwk = sched.framework_for_profile("default-scheduler")
    assert fwk is not None and fwk.signs_no_pod is not signed
    pod = cluster.pods["default/p"]
    plain = sign_pod(fwk.batchable_plugins, pod)
    assert (plain is not None) is signed
    assert FAST_CORES.sign_pod(fwk, pod) == plain
