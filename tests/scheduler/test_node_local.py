"""A plugin that declares itself node-local at an extension point reads nothing there but the pod
and the NodeInfo it is given: the equivalence cache answers for it while the node is unchanged.

Each declaration is held against random clusters: the plugin answers in the whole cluster (its
PreFilter/PreScore seeing every node, the framework as its handle), then a fresh instance
answers with a handle that fails on any use but the node count (ImageLocality's only outside
read: a snapshot rebuilt with another count moves the generation of nodes holding images), a
PreFilter/PreScore that saw this node alone and a
copy of the NodeInfo. Both answers must be equal, and no plugin may reach anything else."""
from __future__ import annotations

import random

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NODE_LOCAL_POINTS, is_node_local
from kubectl_preempt.framework.versions import SUPPORTED
from kubectl_preempt.framework.config import default_config
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins.registry import in_tree_registry
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


class _Forbidden:
    """Any use but len() fails: a node-local plugin must not read what this stands for."""

    def __init__(self, what: str) -> None:
        self._what = what

    def __getattr__(self, name: str):  # noqa: ANN204
        raise AssertionError(f"a node-local plugin read {self._what}.{name}")


class _NodeCountOnly:
    def __init__(self, n: int) -> None:
        self._n = n

    def list(self) -> list:
        return [_Forbidden("another node")] * self._n

    def num_nodes(self) -> int:
        return self._n

    def __getattr__(self, name: str):  # noqa: ANN204
        raise AssertionError(f"a node-local plugin read snapshot.{name}")


class _IsolatedHandle:
    def __init__(self, n: int) -> None:
        self.snapshot = _NodeCountOnly(n)

    def __getattr__(self, name: str):  # noqa: ANN204
        raise AssertionError(f"a node-local plugin read handle.{name}")


def _random_cluster(rnd: random.Random) -> tuple[list[dict], list[Pod]]:
    objs: list[dict] = []
    zones = ["a", "b"]
    for i in range(8):
        nb = make_node(f"n{i}").alloc(cpu=str(rnd.choice([1, 2, 4])), memory=rnd.choice(["2Gi", "8Gi"]),
                                      pods=str(rnd.choice([2, 110])))
        nb.label("zone", rnd.choice(zones)).label("disk", rnd.choice(["ssd", "hdd"]))
        if rnd.random() < 0.3:
            nb.taint("dedicated", rnd.choice(["gpu", "db"]), rnd.choice(["NoSchedule", "PreferNoSchedule"]))
        if rnd.random() < 0.15:
            nb.unschedulable()
        if rnd.random() < 0.5:
            nb.image("registry.example/app:1", rnd.choice([30, 300, 900]) * 1024 * 1024)
        objs.append(nb.obj())
        for k in range(rnd.randrange(3)):
            pb = make_pod(f"on-n{i}-{k}").req(cpu=rnd.choice(["100m", "500m", "1"]), memory="256Mi").on(f"n{i}")
            pb.label("app", rnd.choice(["web", "db"]))
            if rnd.random() < 0.3:
                pb.host_port(rnd.choice([80, 8080]))
            objs.append(pb.obj())
    pods = []
    for j in range(6):
        pb = make_pod(f"p{j}").req(cpu=rnd.choice(["100m", "1", "3"]), memory=rnd.choice(["128Mi", "4Gi"]))
        pb.image(rnd.choice(["registry.example/app:1", "other:2"]))
        if rnd.random() < 0.4:
            pb.toleration("dedicated", rnd.choice(["gpu", "db"]), rnd.choice(["NoSchedule", "PreferNoSchedule", ""]))
        if rnd.random() < 0.3:
            pb.node_selector(disk=rnd.choice(["ssd", "hdd"]))
        if rnd.random() < 0.4:
            pb.affinity({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rnd.choice([1, 50]), "preference": {"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": [rnd.choice(zones)]}]}}]}})
        if rnd.random() < 0.3:
            pb.host_port(rnd.choice([80, 8080]))
        if rnd.random() < 0.2:
            pb.set("spec.nodeName", f"n{rnd.randrange(8)}")
        # what other plugins read beyond the node: a declared plugin must answer the same anyway
        pb.label("app", rnd.choice(["web", "db"]))
        if rnd.random() < 0.4:
            pb.spread([{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": rnd.choice(
                ["DoNotSchedule", "ScheduleAnyway"]), "labelSelector": {"matchLabels": {"app": "web"}}}])
        if rnd.random() < 0.3:
            pb.affinity({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "db"}}}]}})
        pods.append(Pod(pb.obj()))
    return objs, pods


def _declared(version) -> list[tuple[str, str]]:  # noqa: ANN001
    sched = Scheduler(Cluster.from_objects([make_node("x").obj()]), default_config(version))
    fwk = sched.framework_for(Pod(make_pod("p").obj()))
    out = []
    for name, factory in in_tree_registry(version).items():
        pl = fwk.plugins.get(name) or factory({}, fwk)
        for point in NODE_LOCAL_POINTS:
            if is_node_local(pl, point):
                out.append((name, point))
    return sorted(out)


@pytest.mark.parametrize("version", SUPPORTED, ids=lambda v: str(v.name))
def test_the_node_local_plugins_are_the_expected_ones(version) -> None:  # noqa: ANN001
    assert _declared(version) == [
        ("ImageLocality", "score"), ("NodeAffinity", "filter"), ("NodeAffinity", "score"), ("NodeName", "filter"),
        ("NodePorts", "filter"), ("NodeResourcesBalancedAllocation", "score"), ("NodeResourcesFit", "filter"),
        ("NodeResourcesFit", "score"), ("NodeUnschedulable", "filter"), ("TaintToleration", "filter"),
        ("TaintToleration", "score")]


@pytest.mark.parametrize("version", SUPPORTED, ids=lambda v: str(v.name))
@pytest.mark.parametrize("seed", range(6))
def test_a_node_local_plugin_answers_from_the_pod_and_its_node_alone(version, seed: int) -> None:  # noqa: ANN001
    rnd = random.Random(seed)
    objs, pods = _random_cluster(rnd)
    cluster = Cluster.from_objects(objs)
    sched = Scheduler(cluster, default_config(version))
    fwk = sched.framework_for(pods[0])
    nodes = sched.snapshot.list()
    registry = in_tree_registry(version)
    checked = 0
    for name, point in _declared(version):
        pl = fwk.plugins[name]
        for pod in pods:
            full = CycleState()
            alone_pl = registry[name]({}, _IsolatedHandle(len(nodes)))
            if point == "filter" and hasattr(pl, "pre_filter"):
                _, s = pl.pre_filter(full, pod, nodes)
                if not s.is_success():
                    continue  # the pod is rejected before any Filter
            if point == "score" and hasattr(pl, "pre_score"):
                if pl.pre_score(full, pod, nodes).is_skip():
                    continue
            for ni in nodes:
                alone = CycleState()
                if point == "filter":
                    if hasattr(alone_pl, "pre_filter"):
                        alone_pl.pre_filter(alone, pod, [ni.snapshot()])
                    want = pl.filter(full, pod, ni)
                    got = alone_pl.filter(alone, pod, ni.snapshot())
                    assert (got.code, got.reasons) == (want.code, want.reasons), (name, pod.name, ni.name)
                else:
                    if hasattr(alone_pl, "pre_score"):
                        alone_pl.pre_score(alone, pod, [ni.snapshot()])
                    want_sc, _ = pl.score(full, pod, ni)
                    got_sc, _ = alone_pl.score(alone, pod, ni.snapshot())
                    assert got_sc == want_sc, (name, pod.name, ni.name)
                checked += 1
    assert checked > 100


def _other_class(pod: Pod) -> Pod:
    """The pod in another namespace and priority class, with another preemption policy and grace
    period: what scheduler/memo/equivalence.py's node_shape leaves out."""
    import copy

    from kubectl_preempt.model.podshape import NOT_READ_BY_NODE_LOCAL

    raw = copy.deepcopy(pod.raw)
    raw["metadata"]["namespace"] = "elsewhere"
    raw["metadata"]["labels"] = {"other": "labels"}
    spec = raw["spec"]
    spec.update(priority=spec.get("priority", 0) + 12345, priorityClassName="another-class",
                preemptionPolicy="Never", terminationGracePeriodSeconds=777)
    assert NOT_READ_BY_NODE_LOCAL <= set(spec)
    return Pod(raw)


@pytest.mark.parametrize("version", SUPPORTED, ids=lambda v: str(v.name))
@pytest.mark.parametrize("seed", range(4))
def test_a_node_local_plugin_reads_nothing_the_node_shape_leaves_out(version, seed: int) -> None:  # noqa: ANN001
    rnd = random.Random(100 + seed)
    objs, pods = _random_cluster(rnd)
    cluster = Cluster.from_objects(objs)
    sched = Scheduler(cluster, default_config(version))
    fwk = sched.framework_for(pods[0])
    nodes = sched.snapshot.list()
    checked = 0
    for name, point in _declared(version):
        pl = fwk.plugins[name]
        for pod in pods:
            other = _other_class(pod)
            answers = []
            for p in (pod, other):
                state = CycleState()
                if point == "filter" and hasattr(pl, "pre_filter"):
                    _, s = pl.pre_filter(state, p, nodes)
                    if not s.is_success():
                        answers.append(None)
                        continue
                if point == "score" and hasattr(pl, "pre_score") and pl.pre_score(state, p, nodes).is_skip():
                    answers.append(None)
                    continue
                if point == "filter":
                    answers.append([(st.code, st.reasons) for st in (pl.filter(state, p, ni) for ni in nodes)])
                else:
                    answers.append([pl.score(state, p, ni)[0] for ni in nodes])
            assert answers[0] == answers[1], (name, point, pod.name)
            checked += answers[0] is not None
    assert checked > 20
