"""A map that ranges as a Go map may: over its slots in order, a new key taking the first free slot.

kube-batch ranges over Go maps (jobs, nodes, a node's tasks, a job's tasks by status), and Go
starts each range at a random slot. Ranging from slot 0 is one of the orders Go can produce, and a
deleted key's slot is reused by the next insert as Go's buckets do, so an update (delete then
insert) keeps a task where it was. The session is therefore always one of kube-batch's runs.
"""
from __future__ import annotations

import heapq
from typing import Generic, Iterator, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class GoMap(Generic[K, V]):
    __slots__ = ("_index", "_slots", "_free", "_values")

    def __init__(self) -> None:
        self._index: dict[K, int] = {}
        self._slots: list[tuple[K, V] | None] = []
        self._free: list[int] = []
        self._values: list[V] | None = None  # values() in slot order, until the map changes

    def __setitem__(self, key: K, value: V) -> None:
        self._values = None
        i = self._index.get(key)
        if i is not None:
            self._slots[i] = (key, value)
            return
        if self._free:
            i = heapq.heappop(self._free)
            self._slots[i] = (key, value)
        else:
            i = len(self._slots)
            self._slots.append((key, value))
        self._index[key] = i

    def __getitem__(self, key: K) -> V:
        return self._slots[self._index[key]][1]  # type: ignore[index]

    def get(self, key: K, default: V | None = None) -> V | None:
        i = self._index.get(key)
        return default if i is None else self._slots[i][1]  # type: ignore[index]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __delitem__(self, key: K) -> None:
        self._values = None
        i = self._index.pop(key)
        self._slots[i] = None
        if i == len(self._slots) - 1:
            self._slots.pop()
            while self._slots and self._slots[-1] is None:
                self._slots.pop()
            self._free = [j for j in self._free if j < len(self._slots)]
            heapq.heapify(self._free)
        else:
            heapq.heappush(self._free, i)

    def pop(self, key: K, default: V | None = None) -> V | None:
        if key not in self._index:
            return default
        v = self[key]
        del self[key]
        return v

    def __len__(self) -> int:
        return len(self._index)

    def __bool__(self) -> bool:
        return bool(self._index)

    def items(self) -> Iterator[tuple[K, V]]:
        return (s for s in list(self._slots) if s is not None)

    def values(self) -> list[V]:
        """A list, safe to keep while the map changes (the map makes a new one then)."""
        v = self._values
        if v is None:
            v = self._values = [s[1] for s in self._slots if s is not None]
        return v

    def keys(self) -> Iterator[K]:
        return (s[0] for s in list(self._slots) if s is not None)

    __iter__ = keys
