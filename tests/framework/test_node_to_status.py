"""NodeToStatus holds a filter walk's rejections as the walk gives them and makes its map only when
read: whatever is asked of it (the map, one node, how many, which statuses, their counts, the
nodes of a code) answers as the map the walk would have filled."""
from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from kubectl_preempt.framework.diagnosis import Diagnosis, fit_error_reasons
from kubectl_preempt.framework.status import Code, Status

CPU = Status(Code.Unschedulable, "Insufficient cpu").with_plugin("NodeResourcesFit")
TAINT = Status(Code.UnschedulableAndUnresolvable, "node(s) had untolerated taint").with_plugin("TaintToleration")


def nodes(*names: str) -> list:
    return [SimpleNamespace(name=n) for n in names]


def test_a_walk_alone_answers_as_its_map() -> None:
    d = Diagnosis()
    d.add_filter_rejections(iter(["n2", "n3", "n1"]), iter([CPU, TAINT, CPU]))
    nts = d.node_to_status
    assert len(nts) == 3
    assert nts.counts() == Counter({CPU: 2, TAINT: 1})
    assert nts.distinct() == {CPU, TAINT}
    assert nts.get("n3") is TAINT and nts.get("n9") is nts.absent
    assert list(nts.statuses.items()) == [("n2", CPU), ("n3", TAINT), ("n1", CPU)]
    assert d.unschedulable_plugins == {"NodeResourcesFit", "TaintToleration"}
    assert fit_error_reasons(3, d) == [("node(s) had untolerated taint", 1), ("Insufficient cpu", 2)]


def test_a_second_walk_replaces_what_the_first_said_of_the_same_node() -> None:
    # the nominated node's own walk, then the walk over every node: one entry per node, the last
    d = Diagnosis()
    d.add_filter_rejections(["n2"], [TAINT])
    d.add_filter_rejections(["n1", "n2", "n3"], [CPU, CPU, CPU])
    nts = d.node_to_status
    assert len(nts) == 3
    assert nts.counts() == Counter({CPU: 3})
    assert nts.distinct() == {CPU}
    all_nodes = nodes("n1", "n2", "n3")
    assert nts.nodes_for_status_code(all_nodes, nts.get, Code.Unschedulable) == all_nodes
    assert list(nts.statuses) == ["n2", "n1", "n3"]


def test_a_node_set_after_the_walk_keeps_the_walks_order_before_it() -> None:
    d = Diagnosis()
    d.add_filter_rejections(["n2", "n1"], [CPU, CPU])
    d.node_to_status.set("n3", TAINT)
    assert list(d.node_to_status.statuses.items()) == [("n2", CPU), ("n1", CPU), ("n3", TAINT)]
    assert len(d.node_to_status) == 3


def test_the_walks_lists_changed_afterwards_change_nothing() -> None:
    names, statuses = ["n1", "n2"], [CPU, CPU]
    d = Diagnosis()
    d.add_filter_rejections(names, statuses, {CPU})
    names[0], statuses[0] = "n9", TAINT
    assert dict(d.node_to_status.statuses) == {"n1": CPU, "n2": CPU}


@pytest.mark.parametrize("absent_code,code,expected", [
    (Code.UnschedulableAndUnresolvable, Code.Unschedulable, ["n1", "n3"]),
    (Code.UnschedulableAndUnresolvable, Code.UnschedulableAndUnresolvable, ["n2", "n4"]),
    (Code.Unschedulable, Code.Unschedulable, ["n1", "n3", "n4"]),
], ids=["the nodes of the code, in snapshot order", "the nodes not listed count with the absent status",
        "an absent status of the code brings the unlisted nodes"])
def test_nodes_for_a_status_code_from_a_walk(absent_code: Code, code: Code, expected: list[str]) -> None:
    d = Diagnosis()
    d.add_filter_rejections(["n3", "n2", "n1"], [CPU, TAINT, CPU])
    d.node_to_status.absent = Status(absent_code)
    got = d.node_to_status.nodes_for_status_code(nodes("n1", "n2", "n3", "n4"), d.node_to_status.get, code)
    assert [n.name for n in got] == expected


@pytest.mark.parametrize("code,expected", [
    (Code.Unschedulable, ["n1", "n3", "n4"]),
    (Code.UnschedulableAndUnresolvable, ["n2"]),
], ids=["every node listed: all but those of another code", "every node listed: those of the code"])
def test_nodes_for_a_status_code_when_the_walk_lists_every_node(code: Code, expected: list[str]) -> None:
    d = Diagnosis()
    d.add_filter_rejections(["n3", "n4", "n1", "n2"], [CPU, CPU, CPU, TAINT])
    nts = d.node_to_status
    got = nts.nodes_for_status_code(nodes("n1", "n2", "n3", "n4"), nts.get, code)
    assert [n.name for n in got] == expected
    assert nts.counts() == Counter({CPU: 3, TAINT: 1})


def test_one_node_asked_of_a_walk_then_another() -> None:
    d = Diagnosis()
    d.add_filter_rejections(["n2", "n1"], [TAINT, CPU])
    nts = d.node_to_status
    assert nts.get("") is nts.absent
    assert nts.get("n1") is CPU and nts.get("n2") is TAINT and nts.get("n3") is nts.absent
    assert len(nts) == 2 and list(nts.statuses) == ["n2", "n1"]


def test_a_walk_after_a_node_was_set_joins_the_map() -> None:
    # the nominated node's status is set first (schedule_one's evaluateNominatedNode), then the
    # walk over every node says it again
    d = Diagnosis()
    d.node_to_status.set("n2", TAINT)
    d.add_filter_rejections(["n1", "n2"], [CPU, CPU])
    nts = d.node_to_status
    assert list(nts.statuses.items()) == [("n2", CPU), ("n1", CPU)]
    assert len(nts) == 2 and nts.counts() == Counter({CPU: 2}) and nts.distinct() == {CPU}


FEASIBLE = Status(Code.Success)  # a feasible node's answer in the walk's lists, outside the mask


def _masked_and_plain() -> tuple[Diagnosis, Diagnosis]:
    visited = ["n3", "n5", "n2", "n1", "n4"]
    answers = [CPU, FEASIBLE, TAINT, CPU, FEASIBLE]
    mask = bytes([1, 0, 1, 1, 0])
    masked, plain = Diagnosis(), Diagnosis()
    masked.add_masked_filter_rejections(visited, answers, mask)
    plain.add_filter_rejections(["n3", "n2", "n1"], [CPU, TAINT, CPU])
    return masked, plain


ASKED = [
    ("how many", lambda nts: len(nts)),
    ("which statuses", lambda nts: nts.distinct()),
    ("their counts", lambda nts: nts.counts()),
    ("one node, then another", lambda nts: [nts.get(n) if nts.get(n) is not nts.absent else "absent"
                                             for n in ("n2", "n5", "n1")]),
    ("the map in visiting order", lambda nts: list(nts.statuses.items())),
    ("the nodes of a code", lambda nts: [n.name for n in nts.nodes_for_status_code(
        nodes("n1", "n2", "n3", "n4", "n5"), nts.get, Code.Unschedulable)]),
    ("a second walk over the same nodes", lambda nts: (nts.add_walk(["n2", "n5"], [CPU, CPU], {CPU}),
                                                       list(nts.statuses.items()), len(nts))),
]


@pytest.mark.parametrize("ask", [a for _, a in ASKED], ids=[d for d, _ in ASKED])
def test_a_walk_kept_with_the_mask_of_its_rejections_answers_as_the_walk_of_those_alone(ask) -> None:  # noqa: ANN001
    masked, plain = _masked_and_plain()
    assert ask(masked.node_to_status) == ask(plain.node_to_status)
    assert masked.unschedulable_plugins == plain.unschedulable_plugins
    assert fit_error_reasons(5, masked) == fit_error_reasons(5, plain)
