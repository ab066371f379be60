"""kube-batch's actions, by name, as actions/factory.go registers them."""
from __future__ import annotations

from typing import Callable

from . import allocate, backfill, preempt, reclaim

ACTIONS: dict[str, Callable] = {
    "reclaim": reclaim.execute,
    "allocate": allocate.execute,
    "backfill": backfill.execute,
    "preempt": preempt.execute,
}
