"""Building many long-lived objects at once without the cyclic collector in the way."""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


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


@contextlib.contextmanager
def long_run(live_objects: int) -> Iterator[None]:
    """A replay's run over a large state: young collections run less often.

    A run allocates and drops many short-lived lists and tuples per scheduling cycle; with the
    default threshold (700) the collector ran thousands of times per run, its middle and full
    collections walking the whole cluster state again, a tenth to a fifth of a run over
    thousands of pods. Refcounting frees what a run drops; the collector still collects cycles,
    only later. A small state (`live_objects`, its pods and nodes, below YOUNG_THRESHOLD) has
    nothing to gain and keeps the defaults. The thresholds are restored afterwards.
    """
    was = gc.get_threshold()
    if live_objects >= YOUNG_THRESHOLD:
        gc.set_threshold(max(was[0], YOUNG_THRESHOLD), was[1], was[2])
    try:
        yield
    finally:
        gc.set_threshold(*was)


YOUNG_THRESHOLD = 20_000
