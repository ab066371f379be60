"""The nodes selectHost samples among (schedule_one.go selectHost: every node whose total is the
top one, in the order they were scored): scheduler/schedule_one.py _top_scored finds them with
list.count and list.index instead of a compare per node."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kubectl_preempt.scheduler.schedule_one import _top_scored


@given(st.lists(st.integers(0, 4), min_size=1, max_size=40))
def test_the_top_scored_nodes_are_every_node_tied_at_the_top_in_scored_order(totals: list[int]) -> None:
    names = [f"n{i:02d}" for i in range(len(totals))]
    top = max(totals)
    assert _top_scored(names, totals, top) == [n for n, t in zip(names, totals) if t == top]


def test_one_node_at_the_top_is_the_only_one() -> None:
    assert _top_scored(["a", "b", "c"], [10, 30, 20], 30) == ["b"]


def test_ties_keep_the_scored_order_even_at_the_ends() -> None:
    assert _top_scored(["a", "b", "c", "d"], [7, 1, 2, 7], 7) == ["a", "d"]


@given(st.lists(st.integers(0, 1), min_size=51, max_size=300))
def test_many_ties_give_the_same_nodes_as_few(totals: list[int]) -> None:
    # past 50 tied nodes the nodes are found in one pass: the same nodes, in the same order
    names = [f"n{i:03d}" for i in range(len(totals))]
    top = max(totals)
    assert _top_scored(names, totals, top) == [n for n, t in zip(names, totals) if t == top]
