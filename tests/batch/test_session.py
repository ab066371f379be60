"""kube-batch's session on small clusters: what users rely on (gang, queues' shares, reclaim,
preempt, jobs of one, bad input), each checked against the rule in kube-batch's source."""
from __future__ import annotations

import pytest

import kubectl_preempt
from kubectl_preempt.batch.api.resource_info import Resource
from kubectl_preempt.batch.util.priority_queue import PriorityQueue
from kubectl_preempt.errors import InputError
from tests.builders import make_node, make_pod, make_pod_group, make_priority_class, make_queue
from kubectl_preempt.batch.conf import ALL_ACTIONS_CONF

RECLAIM_CONF = ALL_ACTIONS_CONF


def _node(name: str, cpu: str = "4") -> dict:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods="110").obj()


def _task(name: str, group: str, cpu: str = "1", ns: str = "default") -> "object":
    return make_pod(name).ns(ns).group(group).req(cpu=cpu, memory="1Gi")


def test_a_gang_binds_only_when_min_member_tasks_fit_and_says_why_not() -> None:
    objs = [_node("n0", cpu="2"), make_queue("default"), make_pod_group("g", 3, "default"),
            *[_task(f"g-{i}", "g").created(f"2026-01-01T00:00:0{i}Z").obj() for i in range(3)]]
    res = kubectl_preempt.batch_session(objs)
    assert res["binds"] == {}
    assert res["podGroups"]["default/g"]["phase"] == "Pending"
    cond = res["podGroups"]["default/g"]["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"]) == ("Unschedulable", "True", "NotEnoughResources")
    # two tasks were allocated (not bound: the gang is not ready) and the third found no node
    assert cond["message"] == "1/3 tasks in gang unschedulable: 0 nodes are available"
    assert set(res["podConditions"]) == {"default/g-0", "default/g-1", "default/g-2"}
    assert res["jobs"]["default/g"]["minMember"] == 3 and res["jobs"]["default/g"]["readyTasks"] == 2


def test_a_gang_that_fits_is_bound_whole() -> None:
    objs = [_node("n0", cpu="4"), make_queue("default"), make_pod_group("g", 3, "default"),
            *[_task(f"g-{i}", "g").obj() for i in range(3)]]
    res = kubectl_preempt.batch_session(objs)
    assert res["binds"] == {"default/g-0": "n0", "default/g-1": "n0", "default/g-2": "n0"}
    assert res["podGroups"]["default/g"] == {"phase": "Running", "running": 0, "conditions": []}


def test_a_pod_without_a_group_is_a_job_of_one_in_the_default_queue() -> None:
    pod = make_pod("solo").set("spec.schedulerName", "kube-batch").req(cpu="1", memory="1Gi").obj()
    with_queue = kubectl_preempt.batch_session([_node("n0"), make_queue("default"), pod])
    assert with_queue["binds"] == {"default/solo": "n0"}
    assert with_queue["jobs"]["uid-solo"]["minMember"] == 1 and with_queue["jobs"]["uid-solo"]["podGroup"] is None
    # kube-batch's snapshot drops jobs whose queue does not exist: nothing happens to the pod
    without = kubectl_preempt.batch_session([_node("n0"), make_queue("other"), pod])
    assert without["binds"] == {} and without["jobs"] == {}


def test_pods_of_other_schedulers_hold_their_nodes_but_are_not_scheduled() -> None:
    objs = [_node("n0", cpu="2"), make_queue("default"), make_pod_group("g", 1, "default"),
            make_pod("web").req(cpu="2", memory="1Gi").on("n0").set("status.phase", "Running").obj(),
            make_pod("other").req(cpu="1", memory="1Gi").obj(),
            _task("g-0", "g").obj()]
    res = kubectl_preempt.batch_session(objs)
    assert res["binds"] == {}
    assert "default/other" not in res["podConditions"]
    assert res["podConditions"]["default/g-0"] == "Unschedulable: 0 nodes are available"


def test_reclaim_takes_back_a_queues_deserved_share_from_a_queue_over_its_share() -> None:
    # q-over runs 4 cpu of a 4 cpu cluster; q-under (same weight) deserves 2 and asks for 1
    objs = [_node("n0", cpu="4"), make_queue("q-over"), make_queue("q-under"),
            make_pod_group("big", 1, "q-over"), make_pod_group("small", 1, "q-under"),
            *[_task(f"big-{i}", "big").running("n0").obj() for i in range(4)],
            _task("small-0", "small").obj()]
    res = kubectl_preempt.batch_session(objs, RECLAIM_CONF)
    assert len(res["evicts"]) == 1 and res["evicts"][0].startswith("default/big-")
    assert res["pipelined"] == {"default/small-0": "n0"}
    ev = res["evictions"][0]
    assert ev["action"] == "reclaim" and ev["reclaimingQueue"] == "q-under" and ev["queue"] == "q-over"
    assert ev["preemptor"] == "default/small-0"
    # the first tier decides: gang (minMember 1) and conformance agree, so proportion, in the
    # second tier, is never asked
    assert ev["votes"] == ["conformance", "gang"]
    q = res["queues"]
    assert q["q-over"]["deserved"]["cpu"] == pytest.approx(3.0) and q["q-under"]["deserved"]["cpu"] == pytest.approx(1.0)


def test_preempt_evicts_a_lower_priority_job_of_the_same_queue() -> None:
    objs = [_node("n0", cpu="2"), make_queue("default"),
            make_priority_class("low", 10), make_priority_class("high", 1000),
            make_pod_group("low", 1, "default", priority_class="low"),
            make_pod_group("high", 1, "default", priority_class="high"),
            _task("low-0", "low", cpu="2").priority(10).running("n0").obj(),
            _task("high-0", "high", cpu="2").priority(1000).obj()]
    res = kubectl_preempt.batch_session(objs, RECLAIM_CONF)
    assert res["evicts"] == ["default/low-0"]
    assert res["pipelined"] == {"default/high-0": "n0"}
    ev = res["evictions"][0]
    assert (ev["action"], ev["preemptor"], ev["preemptorJob"]) == ("preempt", "default/high-0", "default/high")
    assert ev["votes"] == ["conformance", "gang", "priority"]


def test_preempt_never_evicts_an_equal_priority_job() -> None:
    objs = [_node("n0", cpu="2"), make_queue("default"), make_priority_class("p", 10),
            make_pod_group("a", 1, "default", priority_class="p"), make_pod_group("b", 1, "default", priority_class="p"),
            _task("a-0", "a", cpu="2").running("n0").obj(), _task("b-0", "b", cpu="2").obj()]
    res = kubectl_preempt.batch_session(objs, RECLAIM_CONF)
    assert res["evicts"] == [] and res["pipelined"] == {}


@pytest.mark.parametrize("objs, field", [
    ([make_queue("default"), make_pod_group("g", 1, "nope")], "PodGroup default/g: spec.queue"),
    ([make_queue("default"), make_pod("p").group("missing").obj()],
     "Pod default/p: metadata.annotations[scheduling.k8s.io/group-name]"),
], ids=["a PodGroup naming an unknown queue", "a pod naming a missing group"])
def test_bad_objects_name_the_object_and_field(objs: list, field: str) -> None:
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session(objs)
    assert e.value.field == field


@pytest.mark.parametrize("conf, field", [
    ('actions: "allocate, shuffle"', "actions"),
    ('actions: "allocate"\ntiers:\n- plugins:\n  - name: fairness\n', "tiers[0].plugins[0].name"),
    ('actions: [allocate', "line 1"),
    ('actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobReady: maybe\n',
     "tiers[0].plugins[0].enableJobReady"),
], ids=["an unknown action", "an unknown plugin", "YAML that does not parse", "a switch that is not a boolean"])
def test_bad_configuration_names_the_field(conf: str, field: str) -> None:
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session([], conf)
    assert e.value.field == field


def test_priority_queue_pops_as_gos_container_heap_when_keys_change_inside() -> None:
    # kube-batch's less functions read shares that change while items wait in the heap; the order
    # that comes out then depends on the heap's layout, as in Go's container/heap
    keys = {"a": 1, "b": 2, "c": 3, "d": 4}
    q: PriorityQueue = PriorityQueue(lambda l, r: keys[l] < keys[r])
    for k in "abcd":
        q.push(k)
    keys["b"] = 10  # b sits at index 1 above d; the heap is not told
    assert [q.pop() for _ in range(4)] == ["a", "c", "d", "b"]
    keys.update(a=1, b=2, c=3, d=4)
    for k in "dcba":
        q.push(k)
    keys["a"] = 9  # a was pushed last and rose to the root
    assert q.pop() == "a"


def test_resource_comparisons_tolerate_kube_batchs_minimal_quantities() -> None:
    a = Resource(milli_cpu=1005, memory=1024.0)
    b = Resource(milli_cpu=1000, memory=0.0)
    assert a.less_equal(b)  # within 10 milli-CPU and 10 MiB
    assert not Resource(milli_cpu=1010).less_equal(b)
    assert Resource(milli_cpu=5).is_empty() and not Resource(milli_cpu=10).is_empty()


def _queue_with(**spec: object) -> dict:
    q = make_queue("default")
    return {**q, "spec": {**q.get("spec", {}), **spec}}


@pytest.mark.parametrize("obj, field, detail", [
    (_queue_with(weight="2"), "Queue default: spec.weight", 'must be an integer, got a string ("2")'),
    (_queue_with(weight=2**40), "Queue default: spec.weight", "must be an integer, got a number (1099511627776)"),
    ({**make_pod_group("g", 1, "default"), "spec": "x"}, "PodGroup default/g: spec", 'must be an object, got a string ("x")'),
    ({**make_pod_group("g", 1, "default"), "status": {"conditions": [{"type": 3}]}},
     "PodGroup default/g: status.conditions[0].type", "must be a string, got a number (3)"),
], ids=["a weight that is a string", "a weight beyond int32", "a spec that is a string", "a condition's type"])
def test_a_queue_or_group_kube_batch_could_not_decode_is_bad_input(obj: dict, field: str, detail: str) -> None:
    objs = [make_queue("default"), obj] if obj["kind"] == "PodGroup" else [obj]
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session(objs)
    assert (e.value.field, e.value.detail) == (field, detail)


def test_error_values_are_quoted_as_go_quotes_them() -> None:
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session([], 'actions: "allocate, shu\\tffle"')
    assert e.value.detail == 'unknown action "shu\\tffle" (known: reclaim, allocate, backfill, preempt)'
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session([make_queue("default"), make_pod_group("g", 1, "it's")])
    assert e.value.detail == 'names queue "it\'s", which is not in the snapshot'


@pytest.mark.parametrize("conf, detail", [
    ("actions: " + "[" * 600 + "]" * 600, "nested more than 512 levels deep (no Kubernetes object is)"),
    ("a: &a [1]\n" + "".join(f"b{i}: *a\n" for i in range(10_001)),
     "more than 10000 YAML aliases (*name): refused, as the API server refuses excessive aliasing"),
], ids=["nested too deep", "too many aliases"])
def test_the_configuration_reader_bounds_nesting_and_aliases(conf: str, detail: str) -> None:
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session([], conf, conf_source="kb.conf")
    assert (e.value.source, e.value.detail) == ("kb.conf", detail)


# each raised a Python exception with a traceback in the session before its objects' shapes were
# checked as explain checks a snapshot's (batch/request.py check_session_objects)
@pytest.mark.parametrize("bad, field, detail", [
    (lambda: make_pod("p").set("spec.containers", 1.5).obj(), "Pod default/p: spec.containers",
     "must be a list, got a number (1.5)"),
    (lambda: make_node("n1").set("status.allocatable", True).obj(), "Node n1: status.allocatable",
     "must be an object (a map of names to values), got a boolean (true)"),
    (lambda: make_priority_class("high", 10) | {"value": [1]}, "PriorityClass high: value",
     "must be an integer, got a list"),
], ids=["a pod's containers", "a node's allocatable", "a class's value"])
def test_an_object_of_another_shape_is_bad_input_naming_it_and_the_field(bad, field: str, detail: str) -> None:
    with pytest.raises(InputError) as e:
        kubectl_preempt.batch_session([make_queue("default"), bad()])
    assert (e.value.field, e.value.detail) == (field, detail)
