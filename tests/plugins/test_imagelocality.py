"""ImageLocality, and the image states the snapshot keeps for it."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins import imagelocality as il
from tests.builders import make_node, make_pod

MB = 1024 * 1024


def _scores(pod: Any, *nodes: Any, version: Any = None) -> dict[str, int]:
    snap = Snapshot.from_cluster(Cluster.from_objects([n.obj() for n in nodes]))
    pl = il.new({}, SimpleNamespace(snapshot=snap)) if version is None else il.new({}, SimpleNamespace(snapshot=snap),
                                                                                  version)
    p = Pod(pod.obj())
    out = {}
    for ni in snap.list():
        s, st = pl.score(CycleState(), p, ni)
        assert st.is_success()
        out[ni.name] = s
    return out


@pytest.mark.parametrize("size_mb,on_nodes,of_nodes,want", [
    (500, 1, 2, 23),
    (500, 2, 2, 48),
    (40, 1, 2, 0),
    (4000, 1, 1, 100),
], ids=["500MB on half the nodes: 250MB, 100*(250-23)/(1000-23) = 23",
        "500MB everywhere: 100*(500-23)/977 = 48",
        "below the 23MB threshold after spreading scores 0",
        "above 1000MB per container caps at 100"])
def test_score_scales_by_size_and_spread(size_mb: int, on_nodes: int, of_nodes: int, want: int) -> None:
    nodes = [make_node(f"n{i}").image("registry.example/app:1", size_mb * MB) if i < on_nodes else make_node(f"n{i}")
             for i in range(of_nodes)]
    got = _scores(make_pod("p").image("registry.example/app:1"), *nodes)
    assert got["n0"] == want
    if on_nodes < of_nodes:
        assert got[f"n{of_nodes - 1}"] == 0


def test_thresholds_scale_with_the_number_of_containers() -> None:
    # two containers: max threshold 2000MB; one 1000MB image present: 100*(1000-23)/(2000-23) = 49
    pod = make_pod("p").image("registry.example/app:1").set("spec.initContainers", [
        {"name": "init", "image": "registry.example/init:1"}])
    assert _scores(pod, make_node("n0").image("registry.example/app:1", 1000 * MB))["n0"] == 49


@pytest.mark.parametrize("pod_image,node_image,matches", [
    ("nginx", "nginx:latest", True),
    ("nginx", "nginx", False),
    ("registry.example:5000/app", "registry.example:5000/app:latest", True),
    ("app@sha256:abc", "app@sha256:abc", True),
], ids=["a pod image without tag means :latest", "node-reported names are not normalized",
        "a registry port is not a tag", "a digest is kept"])
def test_image_names(pod_image: str, node_image: str, matches: bool) -> None:
    got = _scores(make_pod("p").image(pod_image), make_node("n0").image(node_image, 500 * MB))
    assert (got["n0"] > 0) is matches


def test_one_size_per_image_from_the_first_node_listed() -> None:
    # as the scheduler cache: the summary is shared and sized by the first node that reported it
    snap = Snapshot.from_cluster(Cluster.from_objects([
        make_node("n0").image("registry.example/app:1", 300 * MB).obj(),
        make_node("n1").image("registry.example/app:1", 2000 * MB).obj(),
        make_node("n2").obj()]))
    states = [snap.get(n).image_states.get("registry.example/app:1") for n in ("n0", "n1", "n2")]
    assert [(s.size, s.num_nodes) if s else None for s in states] == [(300 * MB, 2), (300 * MB, 2), None]


@pytest.mark.parametrize("version, want", [("v1.35", 0), ("v1.36", 48)])
def test_image_volumes_count_from_v1_36(version: str, want: int) -> None:
    # image_locality.go sumImageScores (v1.36): pod.spec.volumes[].image.reference counts too, while
    # calculatePriority still divides by the containers alone; 500MB on both nodes: 48
    from kubectl_preempt.framework.versions import by_name
    pod = make_pod("p").image("registry.example/app:1").set("spec.volumes", [
        {"name": "model", "image": {"reference": "registry.example/model:7"}}])
    nodes = [make_node(f"n{i}").image("registry.example/model:7", 500 * MB) for i in range(2)]
    assert _scores(pod, *nodes, version=by_name(version))["n0"] == want
