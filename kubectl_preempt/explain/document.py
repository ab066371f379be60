"""Turns one scheduling cycle's decisions into the explanation document (plain data)."""
from __future__ import annotations

from typing import Any

from ..framework.status import Code, Status
from ..model.objects import Pod
from ..model.quantity import format_bytes, format_milli_cpu
from ..model.rfc3339 import format_nanos
from ..model.resources import Resource
from ..preemption.evaluator import CHAIN_STEPS, Candidate, Evaluator, PreemptionDetails
from ..scheduler.schedule_one import PREEMPTED, SCHEDULED, CycleResult


def human_resources(r: Resource, *, pods: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    if r.milli_cpu:
        out["cpu"] = format_milli_cpu(r.milli_cpu)
    if r.memory:
        out["memory"] = format_bytes(r.memory)
    if r.ephemeral_storage:
        out["ephemeral-storage"] = format_bytes(r.ephemeral_storage)
    for k, v in sorted(r.scalar.items()):
        if v:
            out[k] = format_bytes(v) if k.startswith("hugepages-") else str(v)
    return out


def _time(p: Pod) -> str | None:
    return p.status.get("startTime")


def _status_dict(st: Status) -> dict[str, Any]:
    return {"code": st.code.name, "plugin": st.plugin, "reasons": list(st.reasons)}


def _preemption_note(node: str, st: Status, details: PreemptionDetails | None,
                     candidates: dict[str, Candidate], potential: set[str]) -> str:
    if st.code == Code.UnschedulableAndUnresolvable:
        return "preemption cannot help: removing pods does not change this"
    if details is None:
        return ""
    if not details.eligible:
        return "preemption not attempted: " + details.ineligible_reason
    c = candidates.get(node)
    if c is not None:
        return f"candidate: {len(c.victims)} victim(s)"
    ns = details.node_statuses
    if ns is not None and node in ns.statuses:
        s = ns.statuses[node]
        return "preemption: " + (s.message() or s.code.name)
    if node in potential:
        return "preemption: not evaluated (enough candidates found before this node)"
    return ""


def build_document(res: CycleResult, details: PreemptionDetails | None, nominated: dict[str, list[str]]) -> dict[str, Any]:
    pod = res.pod
    doc: dict[str, Any] = {
        "pod": pod.key,
        "priority": pod.priority,
        "priorityClassName": pod.priority_class_name,
        "preemptionPolicy": pod.preemption_policy,
        "schedulerName": pod.scheduler_name,
        "requests": human_resources(pod.resource.resource),
        "outcome": res.outcome,
        "numNodes": res.num_all_nodes,
        "nominatedPods": nominated,
    }
    if res.outcome == SCHEDULED:
        doc["node"] = res.suggested_host
        doc["bestNodes"] = sorted(res.best_nodes)
        doc["feasibleNodes"] = sorted(res.feasible_nodes)
        if res.evaluated_nominated_node:
            doc["viaNominatedNode"] = True
        if len(res.feasible_nodes) > 1:
            doc["scores"] = {s.name: s.total_score for s in res.node_scores}
            doc["pluginScores"] = {s.name: {ps.name: ps.score for ps in s.scores} for s in res.node_scores}
        return doc
    doc["message"] = res.message
    pfs = res.post_filter_status
    doc["postFilterMessage"] = pfs.message() if pfs is not None and not pfs.is_success() else ""
    doc["postFilterCode"] = pfs.code.name if pfs is not None else ""
    if res.error:
        doc["error"] = res.error
    statuses = {}
    cands = {c.name: c for c in details.candidates} if details is not None else {}
    potential = set(details.potential_nodes) if details is not None else set()
    for name, st in res.diagnosis.node_to_status.statuses.items():
        d = _status_dict(st)
        note = _preemption_note(name, st, details, cands, potential)
        if note:
            d["preemption"] = note
        statuses[name] = d
    doc["nodeStatuses"] = statuses
    if res.diagnosis.pre_filter_msg:
        doc["preFilterRejection"] = {"plugin": res.diagnosis.node_to_status.absent.plugin,
                                     "code": res.diagnosis.node_to_status.absent.code.name,
                                     "message": res.diagnosis.pre_filter_msg}
    if details is not None and not details.eligible:
        doc["preemptionIneligible"] = details.ineligible_reason
    if details is None:
        return doc
    doc["candidates"] = [_candidate_dict(c, details) for c in details.candidates]
    if res.outcome == PREEMPTED and details.selected is not None:
        sel = details.selected
        doc["nominatedNode"] = sel.name
        doc["nominatedNodes"] = sorted(details.tied or [sel.name])
        doc["victims"] = [v.key for v in sel.victims]
        # in the victims' order (SelectVictimsOnNode re-sorts them when some violate a PDB)
        evicted = {r.pod.key: r for r in sel.reprieves if not r.kept}
        doc["victimDetails"] = [_victim_dict(sel, evicted[v.key]) for v in sel.victims]
        doc["reprieved"] = [{"pod": r.pod.key, "priority": r.pod.priority,
                             "reason": "fits back after the victims go" + (
                                 " (its PDB would have been violated)" if r.pdb_violating else "")}
                            for r in sel.reprieves if r.kept]
        doc["clearedNominations"] = sorted(p.key for p in details.cleared_nominations)
        doc["tieBreak"] = _tie_break(details)
    return doc


def _victim_dict(c: Candidate, r: Any) -> dict[str, Any]:
    v = r.pod
    return {"pod": v.key, "priority": v.priority, "requests": human_resources(v.resource.resource),
            "terminating": v.terminating, "pdbs": list(c.pdbs.get(v.key, ())), "pdbViolation": v.key in c.pdb_violating,
            "startTime": _time(v), "blocking": list(r.status.reasons) if r.status is not None else []}


def _candidate_dict(c: Candidate, details: PreemptionDetails) -> dict[str, Any]:
    scores = Evaluator.chain_scores(c)
    eliminated = None
    for step, survivors in enumerate(details.chain_survivors, start=1):
        if c.name not in survivors:
            eliminated = step
            break
    return {"node": c.name, "pdbViolations": c.num_pdb_violations,
            "highestVictimPriority": c.victims[0].priority,
            "victimPrioritySum": sum(v.priority for v in c.victims),
            "victimCount": len(c.victims),
            "latestStartTime": _fmt_nanos(scores[4]),
            "victims": [v.key for v in c.victims], "eliminatedAt": eliminated}


def _fmt_nanos(n: int) -> str | None:
    if n >= 253402300799 * 10**9:
        return None
    return format_nanos(n)


def _tie_break(details: PreemptionDetails) -> dict[str, Any]:
    sel = details.selected
    decided = None
    runner_up = None
    prev = [c.name for c in details.candidates]
    for step, survivors in enumerate(details.chain_survivors, start=1):
        if len(survivors) < len(prev):
            dropped = [n for n in prev if n not in survivors]
            if len(survivors) == 1:
                decided = step
                runner_up = dropped[0] if dropped else None
        prev = survivors
    return {"steps": list(CHAIN_STEPS), "decidedAt": decided, "winner": sel.name if sel else None,
            "runnerUp": runner_up, "tied": sorted(details.tied)}
