"""Issue 34, the replay's setup: the schema's fast pass (model/schema.py _Gen) writes and compiles
a subtable's function when an object first reaches it, not every function of a kind up front. A
kind's subtables that no object holds cost nothing; those written late answer as the eager ones
did, wherever they are called from (the generated code, a walk's dispatch table)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_preempt.model import schema
from tests.builders import make_pod


def plain_pod() -> dict[str, Any]:
    o = make_pod("p").uid("uid-p").req(cpu="1", memory="1Gi").obj()
    o["spec"]["nodeName"] = "n1"
    return o


def with_affinity(value: Any) -> dict[str, Any]:
    o = plain_pod()
    o["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": value}]}]}}}
    return o


def with_volume(source: dict[str, Any]) -> dict[str, Any]:
    o = plain_pod()
    o["spec"]["volumes"] = [{"name": "v", **source}]
    return o


def test_a_plain_pod_leaves_the_functions_of_subtables_it_does_not_hold_unwritten() -> None:
    gen = schema._Gen()
    assert gen.compile_kind("Pod")(plain_pod())
    unwritten = set(gen.unwritten.values())
    assert schema.POD_SPEC.table["affinity"] in unwritten
    assert schema.POD_SPEC.table["volumes"] in unwritten


CASES = [
    ("a pod whose affinity is well formed passes", with_affinity(["a", "b"]), True),
    ("a pod whose affinity values are not strings is refused", with_affinity([1]), False),
    ("a pod whose volume is well formed passes", with_volume({"emptyDir": {}}), True),
    ("a pod whose volume source is not an object is refused", with_volume({"hostPath": "x"}), False),
    ("a plain pod passes", plain_pod(), True),
]


@pytest.mark.parametrize("obj,ok", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_functions_written_late_answer_as_the_careful_checks_do(obj: dict[str, Any], ok: bool) -> None:
    gen = schema._Gen()
    f = gen.compile_kind("Pod")
    assert f(plain_pod())  # the common case first: the rare subtables are still stubs
    assert bool(f(copy.deepcopy(obj))) is ok
    assert bool(f(copy.deepcopy(obj))) is ok  # and again, through the written function
    try:
        schema.check_object(obj)
        careful = True
    except Exception:
        careful = False
    assert careful is ok


def test_a_walk_dispatch_table_gets_the_written_function_in_place_of_its_stub() -> None:
    gen = schema._Gen()
    f = gen.compile_kind("Pod")
    assert f(with_volume({"emptyDir": {}}))
    holders = [t for lst in gen.stub_holders.values() for t, _ in lst]
    for name in list(gen.stub_holders):
        gen._written(name)
    assert gen.stub_holders == {}
    for table in holders:
        assert all(getattr(v, "__code__", None) is None or v.__code__.co_name == v.__name__ for v in table.values())
