"""A replayed preemption as data: its entry of the preemption timeline (why this node and these
victims) and the decision as a conformance case (`--emit-cases`); follow mode uses them too."""
from __future__ import annotations

from typing import Any, Mapping

from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..scheduler.schedule_one import PREEMPTED, CycleResult
from .state import ReplayState, format_time, grace_period


def preemption_why(pod: Pod, res: CycleResult, details: PreemptionRecord) -> dict[str, Any]:
    """Why this node and these victims, in a few fields a timeline can show."""
    sel = details.selected
    assert sel is not None
    req = pod.resource.resource
    return {
        "message": res.message,
        **res.fit_error_fields(),
        "requests": {"milliCPU": req.milli_cpu, "memory": req.memory,
                     **{k: v for k, v in sorted(req.scalar.items()) if v}},
        "candidates": len(details.candidates),
        "pdbViolations": sel.num_pdb_violations,
        "decidedBy": details.decided_by,
        "runnerUp": details.runner_up,
        "tiedNodes": details.tied_nodes,
        "clearedNominations": sorted(p.key for p in details.cleared_nominations),
        "freedMilliCPU": sum(v.resource.resource.milli_cpu for v in sel.victims),
        "freedMemory": sum(v.resource.resource.memory for v in sel.victims),
    }


def preemption_summary(pod: Pod, res: CycleResult, details: PreemptionRecord, now: float) -> dict[str, Any]:
    """One entry of the preemption timeline."""
    sel = details.selected
    assert sel is not None
    return {
        "time": format_time(now),
        "preemptor": pod.key,
        "priority": pod.priority,
        "priorityClassName": pod.priority_class_name,
        "node": sel.name,
        "victims": [v.key for v in sel.victims],
        "victimDetails": [{"pod": v.key, "priority": v.priority, "priorityClassName": v.priority_class_name,
                           "alreadyTerminating": v.terminating, "gracePeriodSeconds": grace_period(v),
                           "pdbViolation": v.key in sel.pdb_violating} for v in sel.victims],
        "why": preemption_why(pod, res, details),
    }


def decision_case(state: ReplayState, config_raw: Mapping[str, Any] | None, pod: Pod, res: CycleResult,
                  details: PreemptionRecord, n: int, now: float) -> dict[str, Any]:
    """A preemption decision as a conformance case: the cluster at that instant (before the
    decision's effects), the preemptor, and what the replay decided in the corpus's `expect`."""
    sel = details.selected
    assert sel is not None
    tied = details.tied_nodes
    expect: dict[str, Any] = {
        "outcome": PREEMPTED,
        "nominatedNodes": tied,
        # only the chosen node's victims are known for sure; a tied node's are its candidate's
        "victims": {c.name: sorted(v.key for v in c.victims) for c in details.candidates if c.name in tied},
        "message": res.message,
        "postFilterMessage": "",
        "postFilterCode": res.post_filter_status.code.name if res.post_filter_status is not None else "",
        "nodeStatuses": {name: st.to_dict() for name, st in res.diagnosis.node_to_status.statuses.items()},
    }
    pfs = res.post_filter_status
    if pfs is not None and not pfs.is_success():
        expect["postFilterMessage"] = pfs.message()
    cleared = sorted(p.key for p in details.cleared_nominations)
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
