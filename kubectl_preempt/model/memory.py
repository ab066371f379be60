"""The one switch over every memory of the package: answers kept to be given again, never read by
upstream (its scheduler computes each answer afresh), so turning them all off must change nothing a
user sees (tests/test_memo_off.py compares byte for byte).

Two kinds of memory answer to it:

- process-wide memories (module-level dicts and lru_caches: pods' requests and resources in
  model/resources.py, quantities in model/quantity.py, times in model/rfc3339.py, the compiled
  fast pass of the object checks in model/schema.py, CEL expressions in
  plugins/dynamicresources/allocator.py, kube-batch's resource lists, times, configurations and
  allocatable values in batch/): each is registered here by name (`register`, or `remembered` for
  a function) and, while the switch is off, is neither read nor added to;
- per-run memories (the scheduler's equivalence cache with its failed cycles and preemption dry
  runs, scheduler/memo/; kube-batch's NodeScoreCache and its allocate action's node index,
  batch/util/scheduler_helper.py, and a session's creation times): built for one run, they ask
  `MEMORY.on` before they keep anything, and those that outlive a call are told of here (`track`).

`equivalence=None` is the same switch seen from the scheduler: a Scheduler built under
`MEMORY.off()` drops the equivalence cache it is handed, and a Scheduler without one runs each of
its cycles under `MEMORY.off()` (scheduler/scheduler.py). Those below the scheduler cannot import
it, so the switch sits here, at the bottom, where every layer can read it. It is one per process,
as the memories are (the package runs one request at a time; `replay --jobs` forks processes).

tests/test_memo_off.py walks `sizes()` after a run with the switch off (every memory must be
empty) and holds every module-level cache of the package to being registered here.
"""
from __future__ import annotations

import functools
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Memory:
    __slots__ = ("on", "_stores", "_runs")

    def __init__(self) -> None:
        self.on = True
        # name -> (how it is emptied, how many answers it holds)
        self._stores: dict[str, tuple[Callable[[], None], Callable[[], int]]] = {}
        # per-run memories alive now, each with a `remembered()` count of what it keeps
        self._runs: "weakref.WeakSet[Any]" = weakref.WeakSet()

    def register(self, name: str, store: Any) -> None:
        """A process-wide memory: a dict or set (emptied with clear(), counted with len()) or a
        functools.lru_cache function (cache_clear(), cache_info().currsize), named for reports."""
        if name in self._stores:
            raise ValueError(f"memory {name!r} registered twice")
        if hasattr(store, "cache_clear"):
            self._stores[name] = (store.cache_clear, lambda: store.cache_info().currsize)
        else:
            self._stores[name] = (store.clear, store.__len__)

    def track(self, run_memory: Any) -> None:
        """A per-run memory (it has `remembered() -> int`); held weakly: it goes with its run."""
        self._runs.add(run_memory)

    def forget(self) -> None:
        for clear, _ in self._stores.values():
            clear()

    def sizes(self) -> dict[str, int]:
        """What each memory holds now: the process-wide ones by name, then the per-run ones alive
        (by class name and id)."""
        out = {name: size() for name, (_, size) in self._stores.items()}
        for m in list(self._runs):
            out[f"{type(m).__name__}@{id(m):x}"] = m.remembered()
        return out

    def names(self) -> list[str]:
        return list(self._stores)

    @contextmanager
    def off(self) -> Iterator[None]:
        """Every memory off inside the block: nothing is read from a memory nor kept in one, each
        answer is computed afresh. What was kept before is left alone (neither read nor dropped)
        and on exit the switch is back where it was: nothing of the block outlasts it."""
        was = self.on
        self.on = False
        try:
            yield
        finally:
            self.on = was


MEMORY = Memory()


def remembered(name: str, maxsize: int) -> Callable[[F], F]:
    """functools.lru_cache(maxsize) under the switch: registered as `name`, and bypassed (the
    function itself is called) while every memory is off. For functions of hashable arguments,
    given by position, whose answer depends on nothing else."""
    def wrap(fn: F) -> F:
        # typed: an answer judged by its argument's type (True is refused where 1 is read) is
        # not given for an equal value of another type
        cached = functools.lru_cache(maxsize=maxsize, typed=True)(fn)
        MEMORY.register(name, cached)
        memory = MEMORY
        # one and two arguments spelt out: the hot callers (victim ordering's start times,
        # kube-batch's job order) pay no packing of *args
        arity = fn.__code__.co_argcount if not fn.__code__.co_flags & 0x04 else -1  # 0x04: *args

        if arity == 1:
            def call(a: Any) -> Any:
                return cached(a) if memory.on else fn(a)
        elif arity == 2:
            def call(a: Any, b: Any) -> Any:  # type: ignore[misc]
                return cached(a, b) if memory.on else fn(a, b)
        else:
            def call(*args: Any) -> Any:  # type: ignore[misc]
                return cached(*args) if memory.on else fn(*args)
        return functools.wraps(fn)(call)  # type: ignore[return-value]
    return wrap
