"""`history`: what got preempted, when, by whom, from the cluster's own records (Events,
victims' conditions, preemptors' nominations). Beside explain and replay; reads plain objects."""
from __future__ import annotations

from .build import (FOUND_BOTH, FOUND_CONDITION, FOUND_EVENT, Nomination, Observed, build_history,
                    group_preemptions, observe_objects, observe_trace)

__all__ = ["FOUND_BOTH", "FOUND_CONDITION", "FOUND_EVENT", "Nomination", "Observed", "build_history",
           "group_preemptions", "observe_objects", "observe_trace"]
