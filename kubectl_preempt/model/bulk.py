"""The process's one policy for CPython's cyclic garbage collector.

Long work here (a replay, a check, a plan: the scheduler over virtual time) keeps a large
heap alive for as long as it runs (the trace, the cluster, the snapshot) and allocates millions of
short-lived objects per run. With the default thresholds the collector walks that heap again and
again: a quarter of a 1,000-node replay's time, and a full collection in the middle of building a
report. Reference counting frees nearly everything a run drops; the collector is only needed for
cycles, which can wait.

Three context managers, one policy:

- `long_work()`, applied once by the API layer (`kubectl_preempt/api.py`) around each such request:
  what exists when the work starts (the input, the modules) is frozen out of collection and
  young collections run every YOUNG_THRESHOLD allocations instead of 700. Nested requests (check
  replays traces, plan replays a snapshot) change nothing further. On the way out the thresholds
  come back and the heap is unfrozen.
- `decision_work()`, applied by the API layer around explain's requests: young collections every
  YOUNG_THRESHOLD allocations, and nothing frozen or unfrozen. Explain's input is frozen by its
  loader already (below); unfreezing on the way out would hand that heap back to the collector's
  walks for the rest of a library caller's process. An explain of 5,000 nodes otherwise spends a
  tenth of its decision in ~150 collections (one of them full) of what the decision allocates.
- `bulk_allocation()`, around a loader's one pass over a large document: the collector is paused
  (nothing a loader makes is cyclic garbage) and the survivors are frozen, as they live to the end.
  Inside `long_work()` that freeze is undone by long_work's own exit.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator

# while long work runs, the collector's first generation is collected every this many
# allocations (CPython's default: 700)
YOUNG_THRESHOLD = 200_000

_depth = 0


@contextlib.contextmanager
def _tuned(freeze: bool) -> Iterator[None]:
    """The young threshold raised to YOUNG_THRESHOLD, and with `freeze` what exists frozen, until
    the outermost request ends; a request inside another changes nothing."""
    global _depth
    _depth += 1
    if _depth > 1:
        try:
            yield
        finally:
            _depth -= 1
        return
    before = gc.get_threshold()
    if freeze:
        gc.freeze()
    gc.set_threshold(max(before[0], YOUNG_THRESHOLD), before[1], before[2])
    try:
        yield
    finally:
        _depth = 0
        gc.set_threshold(*before)
        if freeze:
            # everything frozen goes back to the oldest generation (gc.unfreeze has no finer
            # grain; counting the frozen objects to do better would walk them all on every request)
            gc.unfreeze()


def long_work() -> contextlib.AbstractContextManager[None]:
    """The collector tuned for one long request (see the module's docstring); reentrant."""
    return _tuned(freeze=True)


def decision_work() -> contextlib.AbstractContextManager[None]:
    """The collector's young threshold raised for one request whose input is frozen already (see
    the module's docstring); inside long_work() it changes nothing."""
    return _tuned(freeze=False)


@contextlib.contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of small objects are made.

    Loading 150,000 pods allocates millions of dicts; each full collection would walk all of
    them again. Nothing made here is cyclic garbage. Afterwards the survivors are frozen out of
    future collections, which would only walk them again for nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.freeze()
