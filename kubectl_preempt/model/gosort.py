"""Go's sort.Slice, element for element: the order it leaves equal elements in.

kube-scheduler sorts preemption victims with `sort.Slice` (SelectVictimsOnNode), which is not
stable: since Go 1.19 it is pattern-defeating quicksort (`pdqsort_func` in Go's
sort/zsortfunc.go). Victims of equal priority and equal start time are common (start times have
one-second resolution), and which of them are reprieved depends on where the sort leaves them,
so the replay must leave them where Go does. Up to 12 elements Go runs an insertion sort, which
is stable; past that, partitions and heapsort reorder equal elements. This module follows the
algorithm step by step (the same comparisons and swaps in the same order); it is written for
that fidelity, not for speed: `sort_by_key` uses Python's stable sort where Go's is stable too.
"""
from __future__ import annotations

import operator
from itertools import islice
from typing import Callable, MutableSequence, TypeVar

T = TypeVar("T")
Less = Callable[[T, T], bool]

_MAX_INSERTION = 12
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2
_MASK64 = (1 << 64) - 1


def sort_slice(data: MutableSequence[T], less: Less) -> None:
    """Sort `data` in place as Go's `sort.Slice(data, less)` does, equal elements included."""
    n = len(data)
    if n <= 1:
        return
    _Sorter(data, less).pdqsort(0, n, n.bit_length())


def sort_by_key(data: list[T], key: Callable[[T], object]) -> None:
    """`sort.Slice(data, func(i, j) bool { return key(data[i]) < key(data[j]) })`."""
    if len(data) <= _MAX_INSERTION:
        data.sort(key=key)  # Go's insertion sort is stable here, and so is this
        return
    sort_by_keys(data, [key(x) for x in data])


def sort_by_keys(data: list[T], vals: list) -> None:
    """sort_by_key with the keys given, `vals[i]` being the key of `data[i]`: for a caller that
    finds the keys of many elements faster together than one call each (preemption's dry runs,
    scheduler/fast/preemption.py)."""
    n = len(data)
    if n <= _MAX_INSERTION:
        # Go's insertion sort is stable here, and so is this
        order = sorted(range(n), key=vals.__getitem__)
        data[:] = [data[i] for i in order]
        return
    # Python's sort, in C, and its order kept when the keys come out strictly increasing: then no
    # two elements compare equal, so every correct sort leaves the one order there is (where Go
    # puts equal elements is all this module is for). Victims of distinct priorities or start
    # times are the common case of a dry run (30 pods on each of 450 nodes in bench_explain);
    # keys that repeat go to Go's algorithm
    order = sorted(range(n), key=vals.__getitem__)
    ordered = list(map(vals.__getitem__, order))
    if all(map(operator.lt, ordered, islice(ordered, 1, None))):
        data[:] = list(map(data.__getitem__, order))
        return
    keys = {id(x): k for x, k in zip(data, vals)}
    sort_slice(data, lambda x, y: keys[id(x)] < keys[id(y)])  # type: ignore[operator]


class _Sorter:
    __slots__ = ("d", "less")

    def __init__(self, data: MutableSequence, less: Less) -> None:
        self.d = data
        self.less = less

    def lt(self, i: int, j: int) -> bool:
        return self.less(self.d[i], self.d[j])

    def swap(self, i: int, j: int) -> None:
        d = self.d
        d[i], d[j] = d[j], d[i]

    # mirrors insertionSort_func
    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.lt(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    # mirrors siftDown_func
    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.lt(first + child, first + child + 1):
                child += 1
            if not self.lt(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    # mirrors heapSort_func
    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    # mirrors pdqsort_func
    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = True
        was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.lt(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, already = self.partition(a, b, pivot)
            was_partitioned = already
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    # mirrors partition_func
    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.lt(i, a):
            i += 1
        while i <= j and not self.lt(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.lt(i, a):
                i += 1
            while i <= j and not self.lt(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    # mirrors partitionEqual_func
    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.lt(a, i):
                i += 1
            while i <= j and self.lt(a, j):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        return i

    # mirrors partialInsertionSort_func
    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps, shortest_shifting = 5, 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.lt(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.lt(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.lt(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    # mirrors breakPatterns_func, with Go's xorshift seeded by the length
    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        r = length
        modulus = 1 << length.bit_length()
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            r ^= (r << 13) & _MASK64
            r ^= r >> 7
            r ^= (r << 17) & _MASK64
            other = r & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    # mirrors choosePivot_func
    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        shortest_ninther, max_swaps = 50, 4 * 3
        n = b - a
        swaps = [0]
        i = a + n // 4 * 1
        j = a + n // 4 * 2
        k = a + n // 4 * 3
        if n >= 8:
            if n >= shortest_ninther:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == max_swaps:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.lt(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    # mirrors median_func
    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1
