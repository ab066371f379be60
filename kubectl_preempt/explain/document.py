"""Turns one scheduling cycle's decision record into the explanation document (plain data).

The document is explain's public format (`-o json`): requests as Kubernetes quantities, times in
RFC 3339. Everything about the preemption comes from the cycle's PreemptionRecord as it is.
"""
from __future__ import annotations

from typing import Any

from ..framework.status import Code, Status
from ..model.quantity import format_bytes, format_milli_cpu
from ..model.resources import Resource
from ..preemption.decision import CHAIN_STEPS, Candidate, PreemptionRecord, Victim, requests_dict
from ..scheduler.schedule_one import SCHEDULED, CycleResult


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


def _status_dict(st: Status) -> dict[str, Any]:
    return {"code": st.code.name, "plugin": st.plugin, "reasons": list(st.reasons)}


def _preemption_note(node: str, st: Status, details: PreemptionRecord | None,
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
    if node in ns:
        s = ns[node]
        return "preemption: " + (s.message() or s.code.name)
    if node in potential:
        return "preemption: not evaluated (enough candidates found before this node)"
    return ""


def build_document(res: CycleResult, nominated: dict[str, list[str]]) -> dict[str, Any]:
    pod = res.pod
    details = res.preemption
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
        if res.permit is not None:
            # the binding cycle's Permit does not let it go yet (a v1.35 gang member waits for its gang)
            permit = _status_dict(res.permit)
            if res.permit.code == Code.Wait:
                permit["timeoutSeconds"] = res.permit_timeout
            if res.permit_details:
                permit["gang"] = dict(res.permit_details)
            doc["permit"] = permit
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
    doc["candidates"] = details.candidate_dicts()
    sel = res.preempted
    if sel is not None:
        doc["nominatedNode"] = sel.node
        doc["nominatedNodes"] = sel.tied_nodes
        doc["victims"] = [v.key for v in sel.victims]
        # in the victims' order (SelectVictimsOnNode re-sorts them when some violate a PDB)
        doc["victimDetails"] = [_victim_dict(v) for v in sel.victims]
        doc["reprieved"] = [{"pod": r.pod.key, "priority": r.pod.priority,
                             "reason": "fits back after the victims go" + (
                                 " (its PDB would have been violated)" if r.pdb_violating else "")}
                            for r in sel.selected.reprieves if r.kept]
        doc["clearedNominations"] = sorted(p.key for p in sel.cleared_nominations)
        doc["tieBreak"] = {"steps": list(CHAIN_STEPS), "decidedAt": sel.decided_at, "winner": sel.node,
                           "runnerUp": sel.runner_up, "tied": sorted(sel.tied)}
    return doc


def _victim_dict(v: Victim) -> dict[str, Any]:
    p = v.pod
    # requests twice: as quantities for people, and as numbers (milli-CPU, bytes) for totals
    return {"pod": p.key, "priority": p.priority, "requests": human_resources(v.requests),
            "rawRequests": requests_dict(v.requests), "terminating": p.terminating, "pdbs": list(v.pdbs), "pdbViolation": v.pdb_violation,
            "startTime": v.start_time, "blocking": list(v.blocking)}
