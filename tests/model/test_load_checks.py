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
