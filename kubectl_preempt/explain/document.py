"""Turns one scheduling cycle's decision record into the explanation document (plain data).

The document is explain's public format (`-o json`): requests as Kubernetes quantities, times in
RFC 3339. Everything about the preemption is the one preemption object (preemption/document.py).
"""
from __future__ import annotations

from typing import Any

from ..framework.status import Code, Status, UnschedulableAndUnresolvable
from ..preemption.decision import Candidate, PreemptionRecord
from ..preemption.document import failure_fields, human_resources, preemption_object
from ..scheduler.schedule_one import SCHEDULED, CycleResult


# the preemption object's fields the document shows (preemption/document.py), after the cycle's
EXPLAIN_FIELDS = ("nominatedNode", "nominatedNodes", "victims", "victimDetails", "reprieved",
                  "clearedNominations", "tieBreak")
EXPLAIN_VICTIM_FIELDS = ("pod", "priority", "requests", "rawRequests", "terminating", "pdbs", "pdbViolation",
                         "startTime", "blocking")


def _preemption_note(node: str, st: Status, details: PreemptionRecord | None,
                     candidates: dict[str, Candidate], potential: set[str]) -> str:
    if st.code == UnschedulableAndUnresolvable:  # status.py's name: asked for each of 5,000 nodes
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
            permit = res.permit.to_dict()
            if res.permit.code == Code.Wait:
                permit["timeoutSeconds"] = res.permit_timeout
            if res.permit_details:
                permit["gang"] = dict(res.permit_details)
            doc["permit"] = permit
        return doc
    doc.update(failure_fields(res))
    if res.gated is not None:
        doc["heldAtPreEnqueue"] = {"plugin": res.gated.plugin, "code": res.gated.code.name,
                                   "message": res.gated.message()}
    if res.error:
        doc["error"] = res.error
    statuses = {}
    cands = {c.name: c for c in details.candidates} if details is not None else {}
    potential = set(details.potential_nodes) if details is not None else set()
    for name, st in res.diagnosis.node_to_status.statuses.items():
        d = st.to_dict()
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
    if res.preempted is not None:
        doc.update(preemption_object(res, EXPLAIN_FIELDS, EXPLAIN_VICTIM_FIELDS))
    return doc
