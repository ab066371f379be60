"""The one switch over every memory of the package: answers kept to be given again, never read by
upstream (its scheduler computes each answer afresh), so turning them all off must change nothing a
user sees (tests/test_memo_off.py compares byte for byte).

The memories live where their answers are computed: the scheduler's equivalence cache and failed
cycles (scheduler/memo/), pods' requests and resources (model/resources.py), the compiled fast
pass of the object checks (model/schema.py), kube-batch's resource lists and node scores
(batch/api/resource_info.py, batch/util/scheduler_helper.py). Those below the scheduler cannot
import it, so the switch sits here, at the bottom, and each of them asks `MEMORY.on`; with it off a
Scheduler drops the equivalence cache it is handed (scheduler/scheduler.py), as `equivalence=None`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator


class Memory:
    __slots__ = ("on", "_forget")

    def __init__(self) -> None:
        self.on = True
        self._forget: list[Callable[[], None]] = []

    def register(self, forget: Callable[[], None]) -> None:
        """A process-wide memory says how it is emptied."""
        self._forget.append(forget)

    def forget(self) -> None:
        for f in self._forget:
            f()

    @contextmanager
    def off(self) -> Iterator[None]:
        """Every memory off (and emptied) inside the block: each answer computed afresh."""
        was = self.on
        self.forget()
        self.on = False
        try:
            yield
        finally:
            self.on = was


MEMORY = Memory()
