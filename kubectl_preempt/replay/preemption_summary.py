"""A replayed preemption as data: its entry of the preemption timeline (why this node and these
victims) and the decision as a conformance case (`--emit-cases`); follow mode uses them too."""
from __future__ import annotations

from typing import Any, Mapping

from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..scheduler.schedule_one import PREEMPTED, CycleResult
from ..preemption.document import preemption_object
from .state import ReplayState, format_time


# the preemption object's fields (preemption/document.py) a replay row shows, under the names the
# replay report has always given them
ROW_FIELDS = ("preemptor", "priority", "priorityClassName", ("node", "nominatedNode"), "victims", "victimDetails")
ROW_VICTIM_FIELDS = ("pod", "priority", "priorityClassName", ("alreadyTerminating", "terminating"),
                     "gracePeriodSeconds", "pdbViolation")
# ...and its `why`: the message, then the FitError as data, then these
WHY_FIELDS = (("requests", "preemptorRequests"), ("candidates", "candidateCount"), "pdbViolations", "decidedBy",
              "runnerUp", ("tiedNodes", "nominatedNodes"), "clearedNominations", "freedMilliCPU", "freedMemory")

# ...and a dumped case's `expect` (the conformance corpus's names)
EXPECT_FIELDS = ("nominatedNodes", ("victims", "victimsByTiedNode"), "message", "postFilterMessage", "postFilterCode",
                 "clearedNominations")


def preemption_why(pod: Pod, res: CycleResult, details: PreemptionRecord) -> dict[str, Any]:
    """Why this node and these victims, in a few fields a timeline can show."""
    head = preemption_object(res, ("message", "fitError"), record=details)
    return {"message": head["message"], **head["fitError"], **preemption_object(res, WHY_FIELDS, record=details)}


def preemption_summary(pod: Pod, res: CycleResult, details: PreemptionRecord, now: float) -> dict[str, Any]:
    """One entry of the preemption timeline."""
    return {"time": format_time(now), **preemption_object(res, ROW_FIELDS, ROW_VICTIM_FIELDS, record=details),
            "why": preemption_why(pod, res, details)}


def decision_case(state: ReplayState, config_raw: Mapping[str, Any] | None, pod: Pod, res: CycleResult,
                  details: PreemptionRecord, n: int, now: float) -> dict[str, Any]:
    """A preemption decision as a conformance case: the cluster at that instant (before the
    decision's effects), the preemptor, and what the replay decided in the corpus's `expect`."""
    sel = details.selected
    assert sel is not None
    # the corpus's `expect`, from the preemption object (preemption/document.py): victims by tied
    # node, cleared nominations under the chosen node
    expect: dict[str, Any] = {"outcome": PREEMPTED, **preemption_object(res, EXPECT_FIELDS, record=details)}
    expect["nodeStatuses"] = {name: st.to_dict() for name, st in res.diagnosis.node_to_status.statuses.items()}
    cleared = expect.pop("clearedNominations")
    if cleared:
        expect["clearedNominations"] = {sel.name: cleared}
    case: dict[str, Any] = {
        "name": f"{n:04d}-replay",
        "description": f"replayed preemption at {format_time(now)}: {pod.key} on {sel.name}",
        # the release that decided it (the corpus's field: the release whose code recorded `expect`)
        "kubernetesVersion": state.scheduler.config.version.name,
        "pod": pod.key,
    }
    if config_raw is not None:
        case["config"] = dict(config_raw)
    case["objects"] = state.objects()
    case["expect"] = expect
    return case
