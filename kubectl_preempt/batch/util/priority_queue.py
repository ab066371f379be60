"""util.PriorityQueue of kube-batch: Go's container/heap over a less function.

The heap is simulated step by step, not replaced by Python's heapq: kube-batch's less functions
read shares that change while items wait in the heap (drf, proportion), so which item comes out
next depends on the heap's exact layout, as it does in kube-batch.
"""
from __future__ import annotations

from typing import Any, Callable, Generic, Mapping, TypeVar

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    __slots__ = ("items", "less")

    def __init__(self, less: Callable[[Any, Any], bool]) -> None:
        self.items: list[T] = []
        self.less = less

    def push(self, item: T) -> None:
        # heap.Push: append, then up
        items, less = self.items, self.less
        items.append(item)
        j = len(items) - 1
        while True:
            i = (j - 1) // 2 if j > 0 else 0
            if i == j or not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            j = i

    def pop(self) -> T | None:
        # heap.Pop: swap the root with the last item, down over the rest, take the last
        items = self.items
        if not items:
            return None
        n = len(items) - 1
        items[0], items[n] = items[n], items[0]
        self._down(0, n)
        return items.pop()

    def _down(self, i: int, n: int) -> None:
        items, less = self.items, self.less
        while True:
            j1 = 2 * i + 1
            if j1 >= n:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and less(items[j2], items[j1]):
                j = j2
            if not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            i = j

    def empty(self) -> bool:
        return not self.items

    def __len__(self) -> int:
        return len(self.items)


def pop_from(queues: Mapping[str, PriorityQueue[T]], key: str) -> T | None:
    """The next item of the queue kept under `key` (the actions' per-queue jobs, per-job tasks);
    None when there is no such queue or it is empty, as the actions' `if q == nil || q.Empty()`."""
    q = queues.get(key)
    return None if q is None else q.pop()
