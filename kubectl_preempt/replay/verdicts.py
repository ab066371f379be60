"""A follow row's verdict: how the offline scheduler's decision at the recorded instant compares
with the preemption the cluster made (replay/follow.py for a pod's, replay/podgroups.py for a
PodGroup's under workload-aware preemption). The summary counts each (replay/report.py)."""
from __future__ import annotations

AGREES = "agrees"              # the replay's own choice is the recorded node and victims
TIED = "tied"                  # the recorded node and victims are among those the replay finds equally possible
UNDECIDABLE = "undecidable"    # writes in the decision's window change the verdict: the trace cannot decide
DIFFERS = "differs"
NOT_EXPLAINED = "notExplained"
