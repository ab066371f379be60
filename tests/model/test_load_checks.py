"""What the one-pass load relies on: a pod's shape check and its requests are keyed by its spec
(JSON, nodeName blanked), so pods of a workload are checked and counted once; a spec that
differs in anything else, or a wrong-typed nodeName, is checked afresh and refused by name."""
from __future__ import annotations

import copy

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.schema import basics_ok
from tests.builders import make_node, make_pod


def _workload(n: int) -> list[dict]:
    return [make_node("node-a").alloc(cpu="64").obj()] + [
        make_pod(f"web-{i}").on("node-a").req(cpu="500m", memory="1Gi").obj() for i in range(n)]


@pytest.mark.parametrize("path,value,field", [
    (("spec", "containers", 0, "resources", "requests", "cpu"), ["1"], "spec.containers[0].resources.requests.cpu"),
    (("spec", "containers", 0, "name"), 7, "spec.containers[0].name"),
    (("spec", "nodeName"), 42, "spec.nodeName"),
    (("spec", "priority"), 2**31, "spec.priority"),
    (("metadata", "labels"), "x", "metadata.labels"),
    (("status", "startTime"), 5, "status.startTime"),
], ids=["quantity a list", "container name a number", "nodeName a number", "priority past int32",
        "labels a string", "startTime a number"])
def test_a_bad_pod_after_good_ones_of_the_same_spec_is_refused_naming_it(path: tuple, value: object,
                                                                          field: str) -> None:
    objs = _workload(4)
    bad = copy.deepcopy(objs[2])
    target = bad
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    objs.insert(3, bad)  # the second web-1: after pods whose spec was found good
    bad["metadata"]["name"] = "odd"
    with pytest.raises(InputError) as e:
        Cluster.from_objects(objs)
    assert f"items[3] (Pod default/odd).{field}" in str(e.value)
    assert "\n" not in str(e.value)


def test_requests_follow_container_statuses_not_only_the_spec() -> None:
    # same spec; the second pod's status says the kubelet resized its container (in-place resize)
    objs = _workload(2)
    objs[2]["status"]["containerStatuses"] = [{"name": objs[2]["spec"]["containers"][0]["name"],
                                               "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]
    c = Cluster.from_objects(objs)
    a, b = c.pods["default/web-0"].resource, c.pods["default/web-1"].resource
    assert a.non0_cpu == 500
    assert b.non0_cpu == 2000


def test_pods_of_one_spec_on_different_nodes_share_their_requests() -> None:
    objs = _workload(3) + [make_node("node-b").alloc(cpu="64").obj()]
    objs[3]["spec"]["nodeName"] = "node-b"
    c = Cluster.from_objects(objs)
    assert c.pods["default/web-0"].resource is c.pods["default/web-2"].resource
    assert c.pods["default/web-2"].node_name == "node-b"


@pytest.mark.parametrize("objects,ok", [
    ([{"kind": "Pod", "metadata": {"name": "a"}}], True),
    ([{"kind": "Pod", "metadata": {"name": ""}}], False),
    ([{"kind": "", "metadata": {"name": "a"}}], False),
    ([{"kind": "Pod"}], False),
    ([{"kind": "Pod", "metadata": {"name": 3}}], False),
    ([{"kind": 3, "metadata": {"name": "a"}}], False),
    ([["Pod"]], False),
    ([{"kind": "Pod", "metadata": ["name"]}], False),
], ids=["good", "empty name", "empty kind", "no metadata", "name a number", "kind a number", "a list",
        "metadata a list"])
def test_basics_refuse_what_has_no_kind_and_name(objects: list, ok: bool) -> None:
    assert basics_ok(objects) is ok


# The fast pass compiles one function per key list an object kind shows (metadata of name,
# namespace, uid, labels, ...), a bounded number per table; past that it walks. Either way it
# must agree with the detailed check: nulls are absent fields, a wrong type is refused by name.

def _pods_of_many_shapes(n: int) -> list[dict]:
    objs = _workload(n)
    for i, pod in enumerate(objs[1:]):
        md = pod["metadata"]
        # a key list of its own for each pod: an annotation key appears in a different place
        pod["metadata"] = {**{f"k{j}": "x" for j in range(i % 40)}, **md} if i % 2 else {**md, f"extra{i}": "x"}
    return objs


@pytest.mark.parametrize("field,value,ok", [
    ("uid", None, True), ("generateName", None, True), ("labels", None, True),
    ("uid", 5, False), ("creationTimestamp", ["t"], False), ("labels", {"a": 1}, False),
    ("labels", {f"l{j}": "v" for j in range(20)} | {"z": 3}, False), ("labels", {f"l{j}": "v" for j in range(20)}, True),
    ("generation", True, False), ("generation", 2**63, False), ("generation", 7, True),
], ids=["uid null", "generateName null", "labels null", "uid a number", "time a list", "a label a number",
        "the 21st label a number", "21 labels", "generation a boolean", "generation past int64", "generation 7"])
@pytest.mark.parametrize("shapes", [1, 80], ids=["one shape", "past the compiled shapes"])
def test_the_fast_pass_agrees_with_the_detailed_check_on_every_shape(field: str, value: object, ok: bool,
                                                                   shapes: int) -> None:
    objs = _pods_of_many_shapes(max(shapes, 4))
    target = objs[-1]
    target["metadata"][field] = value
    if ok:
        c = Cluster.from_objects(objs)
        assert len(c.pods) == len(objs) - 1
        return
    with pytest.raises(InputError) as e:
        Cluster.from_objects(objs)
    assert f"items[{len(objs) - 1}] (Pod default/{target['metadata']['name']}).metadata.{field}" in str(e.value)


def _resized(obj: dict) -> dict:
    obj["status"]["containerStatuses"] = [{"name": "main", "resources": {"requests": {"cpu": "2"}}}]
    return obj


# pods as the lean read hands them to read_pod (io/snapshot.py _typed_list), each read twice: the
# second finds the requests the first left behind (model/resources.py remembered_resource)
READ_PODS = {
    "a pod of one container": make_pod("a").req(cpu="500m", memory="1Gi").on("n").obj(),
    "a pod of two containers": make_pod("a").req(cpu="1").container(cpu="250m", memory="64Mi").obj(),
    "a pod without requests": make_pod("a").obj(),
    "a pod with an init container": make_pod("a").req(cpu="1").init_container(cpu="3").obj(),
    "a pod with a sidecar": make_pod("a").req(cpu="1").init_container(sidecar=True, cpu="1").obj(),
    "a pod with overhead": make_pod("a").req(cpu="1").overhead(cpu="100m").obj(),
    "a pod resized in place": _resized(make_pod("a").req(cpu="1").on("n").obj()),
}


@pytest.mark.parametrize("name", list(READ_PODS))
def test_read_pod_holds_the_requests_calculate_resource_computes(name: str) -> None:
    from kubectl_preempt.model.cluster import read_pod
    from kubectl_preempt.model.memory import MEMORY
    from kubectl_preempt.model.resources import calculate_resource

    obj = READ_PODS[name]
    with MEMORY.off():
        want = calculate_resource(obj["spec"], obj["status"])
        off = read_pod(copy.deepcopy(obj))
    MEMORY.forget()
    first, second = read_pod(copy.deepcopy(obj)), read_pod(copy.deepcopy(obj))

    def fields(r: object) -> tuple:
        res = r.resource  # type: ignore[attr-defined]
        return (res.milli_cpu, res.memory, res.ephemeral_storage, dict(res.scalar), r.non0_cpu,  # type: ignore[attr-defined]
                r.non0_mem)  # type: ignore[attr-defined]
    assert fields(off._resource) == fields(first._resource) == fields(second._resource) == fields(want)
    assert second._resource is first._resource  # the second pod took what the first left


# pods that share the container list of a pod read before (as the lean read hands them, model/schema.py
# typed_pod_reader), with the requests each must hold (milli-CPU)
_SHARED_CONTAINERS = make_pod("first").req(cpu="1").obj()["spec"]["containers"]


def _sharing(builder: object) -> dict:
    obj = builder.obj()  # type: ignore[attr-defined]
    obj["spec"]["containers"] = _SHARED_CONTAINERS
    return obj


SHARING_PODS = {
    "a pod of the same containers": (_sharing(make_pod("b")), 1000, True),
    "a pod of the same containers and an init container": (_sharing(make_pod("b").init_container(cpu="3")), 3000, False),
    "a pod of the same containers and overhead": (_sharing(make_pod("b").overhead(cpu="100m")), 1100, False),
    "a pod of the same containers resized in place": (_resized(_sharing(make_pod("b").on("n"))), 2000, False),
}


@pytest.mark.parametrize("name", list(SHARING_PODS))
def test_read_pod_takes_the_requests_of_a_shared_container_list_only_where_they_are_its_alone(name: str) -> None:
    from kubectl_preempt.model.cluster import read_pod

    by_containers: dict = {}
    first = read_pod(_sharing(make_pod("a")), by_containers)
    assert list(by_containers.values()) == [(_SHARED_CONTAINERS, first._resource)]
    obj, milli_cpu, same = SHARING_PODS[name]
    pod = read_pod(obj, by_containers)
    assert pod.resource.resource.milli_cpu == milli_cpu
    assert (pod._resource is first._resource) == same


def test_read_pod_takes_nothing_kept_for_another_list_that_had_the_same_id() -> None:
    from kubectl_preempt.model.cluster import read_pod
    from kubectl_preempt.model.memory import MEMORY

    MEMORY.forget()
    obj = make_pod("a").req(cpu="2").obj()
    stale = read_pod(make_pod("b").req(cpu="7").obj())._resource
    # an entry left by a list since freed, whose id the new pod's list now has
    pod = read_pod(obj, {id(obj["spec"]["containers"]): ([], stale)})
    assert pod.resource.resource.milli_cpu == 2000


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_read_pod_leaves_a_finished_pods_requests_uncomputed(phase: str) -> None:
    from kubectl_preempt.model.cluster import read_pod

    obj = make_pod("a").req(cpu="1").obj()
    obj["status"]["phase"] = phase
    assert read_pod(obj)._resource is None


def test_read_pod_gives_no_view_of_a_pod_whose_requests_do_not_compute() -> None:
    from kubectl_preempt.model.cluster import read_pod

    assert read_pod(make_pod("a").req(cpu="1.5.0").obj()) is None
