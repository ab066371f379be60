"""Go's sort.Slice as kube-scheduler's victim sort runs it: equal elements end where Go leaves them."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from kubectl_preempt.model.gosort import sort_by_key, sort_slice

# keys in, and the original indexes in the order Go's sort.Slice(xs, less by key) leaves them;
# written down from Go's own sort (none of these reaches breakPatterns, which changed in Go 1.22)
GO_ORDERS = [
    ([1, 3, 3, 3, 1, 4, 2, 2, 2, 0, 1, 3, 0], [12, 9, 0, 10, 4, 6, 7, 8, 3, 2, 11, 1, 5]),
    ([2, 0, 2, 0, 0, 0, 2, 1, 1, 0, 0, 3, 2, 0, 0, 3, 1, 1],
     [9, 1, 14, 3, 4, 5, 13, 10, 8, 7, 16, 17, 0, 12, 6, 2, 11, 15]),
    ([5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0],
     [16, 15, 14, 13, 12, 9, 11, 10, 8, 7, 6, 5, 4, 3, 0, 2, 1]),
    ([0, 1, 0, 2, 3, 3, 1, 0, 2, 2, 1, 0, 3, 2, 1, 1, 3, 0, 1, 2, 3, 3],
     [7, 17, 2, 0, 11, 15, 14, 18, 1, 6, 10, 13, 9, 3, 8, 19, 4, 12, 16, 5, 20, 21]),
    ([10, 10, 10, 9, 9, 9, 8, 8, 8, 7, 7, 7, 6, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0],
     [31, 30, 27, 29, 28, 26, 25, 24, 23, 22, 21, 18, 20, 19, 16, 15, 17, 12, 14, 13, 9, 11, 10, 8, 7, 6, 5, 4,
      3, 0, 2, 1]),
]


@pytest.mark.parametrize("keys,want", GO_ORDERS, ids=[f"{len(k)} elements" for k, _ in GO_ORDERS])
def test_equal_elements_end_where_go_leaves_them(keys: list[int], want: list[int]) -> None:
    xs = list(enumerate(keys))
    sort_slice(xs, lambda a, b: a[1] < b[1])
    assert [i for i, _ in xs] == want
    ys = list(enumerate(keys))
    sort_by_key(ys, lambda x: x[1])
    assert [i for i, _ in ys] == want
    # and this is not what a stable sort gives: the case would not test anything otherwise
    assert [i for i, _ in sorted(enumerate(keys), key=lambda x: x[1])] != want


def test_up_to_twelve_elements_go_sorts_stably() -> None:
    xs = [(i, k) for i, k in enumerate([1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0])]
    sort_slice(xs, lambda a, b: a[1] < b[1])
    assert [i for i, _ in xs] == [1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10]


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=300))
def test_every_input_comes_out_sorted_with_the_same_elements(keys: list[int]) -> None:
    xs = list(enumerate(keys))
    sort_slice(xs, lambda a, b: a[1] < b[1])
    assert [k for _, k in xs] == sorted(keys)
    assert sorted(i for i, _ in xs) == list(range(len(keys)))


@given(st.lists(st.tuples(st.integers(min_value=-3, max_value=3), st.integers(min_value=0, max_value=40)),
                min_size=13, max_size=200))
def test_sort_by_key_leaves_what_go_leaves_whether_keys_repeat_or_not(keys: list[tuple[int, int]]) -> None:
    # distinct keys take Python's sort (there is one order then), repeated ones Go's algorithm:
    # both must leave the elements where sort.Slice does
    want = list(enumerate(keys))
    sort_slice(want, lambda a, b: a[1] < b[1])
    got = list(enumerate(keys))
    sort_by_key(got, lambda x: x[1])
    assert got == want
    distinct = list(enumerate(dict.fromkeys(keys)))
    want_d = list(distinct)
    sort_slice(want_d, lambda a, b: a[1] < b[1])
    sort_by_key(distinct, lambda x: x[1])
    assert distinct == want_d


@given(st.lists(st.tuples(st.integers(min_value=-3, max_value=3), st.integers(min_value=0, max_value=40)),
                max_size=200))
def test_sort_by_keys_given_the_keys_leaves_what_sort_by_key_leaves(keys: list[tuple[int, int]]) -> None:
    from kubectl_preempt.model.gosort import sort_by_keys

    want = list(enumerate(keys))
    sort_by_key(want, lambda x: x[1])
    got = list(enumerate(keys))
    sort_by_keys(got, list(keys))
    assert got == want

