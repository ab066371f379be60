"""Indexes over the cluster's object lists that plugins keep across cycles, as upstream's plugins
keep informer listers (handle.SharedInformerFactory): one per framework, so owned by the scheduler
that built it, never by the Cluster.

Validity has one rule: an index holds while the lists it was built from are the very same list
objects with the same lengths. A replay swaps in a new list on every change of a kind
(ReplayState.set_extra); loading only appends.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

T = TypeVar("T")


class Listers:
    __slots__ = ("cluster", "_kept")

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        # tag -> (lengths, lists, index)
        self._kept: dict[str, tuple[tuple[int, ...], tuple[Any, ...], Any]] = {}

    def kept(self, kinds: tuple[str, ...], tag: str, build: Callable[[], T]) -> T:
        """build(), or the index built under this tag from the very same lists of these kinds."""
        extra = getattr(self.cluster, "extra", None) or {}
        lists = tuple(extra.get(k) for k in kinds)
        lengths = tuple(len(lst) if lst is not None else -1 for lst in lists)
        entry = self._kept.get(tag)
        # the entry holds the lists themselves, so an identity match cannot be a recycled address
        if entry is not None and entry[0] == lengths and all(a is b for a, b in zip(entry[1], lists)):
            return entry[2]
        value = build()
        self._kept[tag] = (lengths, lists, value)
        return value
