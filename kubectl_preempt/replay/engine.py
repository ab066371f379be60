"""The discrete-event engine: a virtual clock and a heap of (time, priority, sequence, event).

As in SimPy, the heap alone decides the order: earlier time first, then lower priority, then the
order in which events were scheduled. Nothing depends on wall-clock time or object identity, so a
replay is reproducible to the event.
"""
from __future__ import annotations

import heapq
from typing import Any, Callable

# priorities at one instant: what the cluster did (trace events) is seen before the scheduler's
# own consequences (terminations, queue flushes), and the scheduler runs a cycle last
PRIORITY_TRACE = 0
PRIORITY_INTERNAL = 1
PRIORITY_QUEUE = 2
PRIORITY_SCHEDULE = 3

INFINITY = float("inf")

Callback = Callable[[], Any]


class Event:
    """Something that happens at a time: a callback and a name for progress and tests."""

    __slots__ = ("callback", "name", "cancelled")

    def __init__(self, callback: Callback, name: str = "") -> None:
        self.callback = callback
        self.name = name
        self.cancelled = False

    def cancel(self) -> None:
        """Leave the event in the heap but do nothing when its time comes."""
        self.cancelled = True

    def __repr__(self) -> str:
        return f"Event({self.name or self.callback!r})"


class EmptySchedule(Exception):
    """step() on an engine with nothing left to do."""


class Engine:
    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self._heap: list[tuple[float, int, int, Event]] = []
        self._seq = 0
        self.steps = 0

    def schedule(self, at: float, callback: Callback, *, priority: int = PRIORITY_INTERNAL,
                 name: str = "") -> Event:
        """Run `callback` at virtual time `at` (never before now)."""
        if at < self.now:
            at = self.now
        ev = Event(callback, name)
        self._seq += 1
        heapq.heappush(self._heap, (at, priority, self._seq, ev))
        return ev

    def peek(self) -> float:
        """The time of the next event, or infinity when there is none."""
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heapq.heappop(heap)
        return heap[0][0] if heap else INFINITY

    def step(self) -> None:
        """Advance the clock to the next event and run it."""
        heap = self._heap
        while True:
            if not heap:
                raise EmptySchedule()
            at, _, _, ev = heapq.heappop(heap)
            if not ev.cancelled:
                break
        self.now = at
        self.steps += 1
        ev.callback()

    def run(self, until: float | None = None) -> None:
        """Run events until none are left, or up to and including time `until`; the clock then
        stands at `until` (or at the last event)."""
        limit = INFINITY if until is None else until
        heap = self._heap
        while heap:
            if self.peek() > limit:
                break
            self.step()
        if until is not None and until > self.now:
            self.now = until

    def __len__(self) -> int:
        return sum(1 for e in self._heap if not e[3].cancelled)
