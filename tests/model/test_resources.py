from __future__ import annotations

import pytest

from kubectl_preempt.model.objects import Pod
from tests.builders import make_pod


def _res(builder):
    r = Pod(builder.obj()).resource
    return r.resource.milli_cpu, r.resource.memory, r.non0_cpu, r.non0_mem


MI = 1024 * 1024


@pytest.mark.parametrize("builder, want", [
    pytest.param(make_pod("a").req(cpu="1", memory="1Gi"), (1000, 1024 * MI, 1000, 1024 * MI),
                 id="one container"),
    pytest.param(make_pod("a").req(cpu="1").container(cpu="500m"), (1500, 0, 1500, 400 * MI),
                 id="containers add up; missing memory counts 200Mi for scoring"),
    pytest.param(make_pod("a"), (0, 0, 100, 200 * MI), id="best effort pod scores as 100m and 200Mi"),
    pytest.param(make_pod("a").req(cpu="1").init_container(cpu="2"), (2000, 0, 2000, 200 * MI),
                 id="an init container larger than the containers sets the request"),
    pytest.param(make_pod("a").req(cpu="1").init_container(sidecar=True, cpu="500m").init_container(cpu="1"),
                 (1500, 0, 1500, 400 * MI),
                 id="a sidecar adds to the containers and runs beside later init containers"),
    pytest.param(make_pod("a").req(cpu="1").overhead(cpu="250m", memory="120Mi"), (1250, 120 * MI, 1250, 320 * MI),
                 id="overhead is added"),
    pytest.param(make_pod("a").req(cpu="1").set("spec.resources", {"requests": {"cpu": "3"}}),
                 (3000, 0, 3000, 200 * MI), id="pod-level requests override the containers' sum"),
])
def test_pod_requests_as_the_scheduler_computes_them(builder, want) -> None:
    assert _res(builder) == want


def test_a_resize_in_progress_counts_the_larger_of_spec_and_status() -> None:
    b = make_pod("a").req(cpu="1").on("n").set("status.containerStatuses", [
        {"name": "main", "resources": {"requests": {"cpu": "2"}}, "allocatedResources": {"cpu": "2"}}])
    assert _res(b)[0] == 2000



# --- a node's allocatable, parsed once per text (model/resources.py allocatable_resource) ---------

def _allocatable(builder, memory_on: bool):
    from kubectl_preempt.model.memory import MEMORY
    from kubectl_preempt.model.objects import Node

    if memory_on:
        return Node(builder.obj()).allocatable
    with MEMORY.off():
        return Node(builder.obj()).allocatable


def _amounts(r) -> tuple:
    return r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number, dict(r.scalar)


@pytest.mark.parametrize("memory_on", [True, False], ids=["memory on", "memory off"])
def test_nodes_listing_the_same_allocatable_each_get_their_own_resource_of_those_amounts(memory_on) -> None:
    from tests.builders import make_node

    a = _allocatable(make_node("a").alloc(cpu="1500m", memory="2Gi", **{"nvidia.com/gpu": "2"}), memory_on)
    b = _allocatable(make_node("b").alloc(cpu="1500m", memory="2Gi", **{"nvidia.com/gpu": "2"}), memory_on)
    assert _amounts(a) == _amounts(b) == (1500, 2048 * MI, 0, 110, {"nvidia.com/gpu": 2})
    a.milli_cpu += 1
    a.scalar["nvidia.com/gpu"] = 0
    assert _amounts(b) == (1500, 2048 * MI, 0, 110, {"nvidia.com/gpu": 2})
    assert _amounts(_allocatable(make_node("c").alloc(cpu="1500m", memory="2Gi", **{"nvidia.com/gpu": "2"}), memory_on)) == _amounts(b)


@pytest.mark.parametrize("first, then, want", [
    pytest.param({"cpu": "1"}, {"cpu": 1}, 1000, id="a number after the same amount as text is parsed as a number"),
    pytest.param({"cpu": "1"}, {"cpu": "1.0"}, 1000, id="another text of the same amount is parsed anew"),
    pytest.param({"cpu": "1"}, {"cpu": "2"}, 2000, id="another amount is parsed anew"),
])
def test_a_node_allocatable_is_read_from_its_own_values(first, then, want) -> None:
    from tests.builders import make_node

    _allocatable(make_node("a").set("status.allocatable", first), True)
    assert _allocatable(make_node("b").set("status.allocatable", then), True).milli_cpu == want


def test_a_negative_allocatable_is_refused_each_time_it_is_read() -> None:
    from kubectl_preempt.errors import InputError
    from tests.builders import make_node

    for name in ("a", "b"):
        with pytest.raises(InputError) as e:
            _allocatable(make_node(name).set("status.allocatable", {"cpu": "-1"}), True)
        assert e.value.field == "status.allocatable.cpu"


@pytest.mark.parametrize("version, infeasible, want", [
    ("v1.35", False, 1000), ("v1.36", False, 3000), ("v1.36", True, 2000)],
    ids=["v1.35: the pod-level spec alone", "v1.36: the largest of spec, actuated and allocated",
         "v1.36, resize infeasible: actuated and allocated only"])
def test_a_pod_level_resize_in_progress_counts_as_its_release_reads_it(version: str, infeasible: bool,
                                                                        want: int) -> None:
    # component-helpers resource.PodRequests with InPlacePodLevelResourcesVerticalScalingEnabled (beta
    # and on in v1.36): determineEffectiveRequests over spec.resources, status.resources and
    # status.allocatedResources; a PodResizePending condition of reason Infeasible leaves the spec out
    from kubectl_preempt.framework.versions import by_name
    from kubectl_preempt.model.resources import calculate_resource
    pod = make_pod("a").req(cpu="500m").on("n").set("spec.resources", {"requests": {"cpu": "1"}}).obj()
    pod["status"]["resources"] = {"requests": {"cpu": "3" if not infeasible else "2"}}
    pod["status"]["allocatedResources"] = {"cpu": "2"}
    if infeasible:
        pod["spec"]["resources"]["requests"]["cpu"] = "4"
        pod["status"]["conditions"] = [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]
    got = calculate_resource(pod["spec"], pod["status"], options=by_name(version).resource_options)
    assert got.resource.milli_cpu == want


def test_a_node_counts_a_resized_pod_level_pod_by_the_release_whatever_snapshot_it_started_from() -> None:
    # types.go calculateResource passes InPlacePodLevelResourcesVerticalScaling (v1.36) to
    # PodRequests: the bound pod counts 3 cpu (its actuated status), so the 2-cpu pod does not fit
    # on the 4-cpu node; a snapshot built for v1.34's counting is recounted for v1.36
    from kubectl_preempt.api import explain
    from kubectl_preempt.framework.snapshot import Snapshot
    from kubectl_preempt.model.cluster import Cluster
    from tests.builders import make_node
    bound = make_pod("resized").req(cpu="500m").on("n1").set("spec.resources", {"requests": {"cpu": "1"}}).obj()
    bound["status"]["resources"] = {"requests": {"cpu": "3"}}
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), bound, make_pod("new").req(cpu="2").obj()]
    for version, outcome in (("v1.35", "Scheduled"), ("v1.36", "Unschedulable")):
        cluster = Cluster.from_objects(objs)
        assert explain(cluster, "default/new", kubernetes_version=version)["outcome"] == outcome
        cluster = Cluster.from_objects(objs)
        got = explain(cluster, "default/new", snapshot=Snapshot.build(cluster), kubernetes_version=version)
        assert got["outcome"] == outcome
