"""A pod-group cycle's decision as explain's document: the group, each member's node or why none,
workload-aware preemption's victims grouped by the unit they go in (a pod, or a PodGroup evicted
whole), what they free, and why this placement. Plain data; render/ prints it.

`explain POD` of a member gives the member's document (its own cycle's fields, as for any pod)
with the group's decision under `podGroup`; `explain podgroup/NS/NAME` gives the group's.
"""
from __future__ import annotations

from typing import Any

from ..framework.status import Code
from ..model.objects import Pod
from ..model.resources import Resource
from ..preemption.podgroup_preemption import CLUSTER, PodGroupPreemptionRecord, VictimUnit
from ..scheduler.schedule_one_podgroup import (BIND, LEAVE, MemberResult, PodGroupCycleResult,
                                               update_pod_group_condition)
from ..preemption.document import human_resources
from .document import build_document

# the group's outcome, as its PodGroupScheduled condition and its members show it
SCHEDULED = "Scheduled"
WAITING_ON_PREEMPTION = "WaitingOnPreemption"
UNSCHEDULABLE = "Unschedulable"


def _sum(pods: list[Pod]) -> Resource:
    r = Resource()
    for p in pods:
        q = p.resource.resource
        r.milli_cpu += q.milli_cpu
        r.memory += q.memory
    return r


def group_outcome(result: PodGroupCycleResult) -> str:
    if result.scheduled:
        return SCHEDULED
    return WAITING_ON_PREEMPTION if result.waiting_on_preemption else UNSCHEDULABLE


def _member(m: MemberResult) -> dict[str, Any]:
    out: dict[str, Any] = {"pod": m.pod.key, "priority": m.pod.priority,
                           "requests": human_resources(m.pod.resource.resource)}
    if m.action == BIND:
        out["outcome"] = SCHEDULED
        out["node"] = m.suggested_host
        return out
    if m.failure is not None and m.failure.code == Code.Error:
        # FailureHandler with an error: the PodScheduled condition's reason is SchedulerError
        out["outcome"] = "Error"
    else:
        out["outcome"] = "Preempts" if m.requires_preemption else ("Fits" if m.suggested_host else UNSCHEDULABLE)
    if m.suggested_host:
        out["node"] = m.suggested_host
        if m.permit_status is not None and m.permit_status.reasons:
            out["permit"] = m.permit_status.message()
    if m.preempted is not None:
        sel = m.preempted.selected
        out["victims"] = [v.key for v in sel.victims]
        out["tiedNodes"] = m.preempted.tied_nodes
    out["message"] = m.message
    if m.nominated_node:
        out["nominatedNode"] = m.nominated_node
    return out


def _unit(u: VictimUnit) -> dict[str, Any]:
    return {"unit": "PodGroup" if u.pod_group is not None else "Pod", "name": u.key, "priority": u.priority,
            "disruptionMode": u.pod_group.disruption_mode if u.pod_group is not None else None,
            "pods": [{"pod": p.key, "node": p.node_name, "priority": p.priority,
                      "requests": human_resources(p.resource.resource), "terminating": p.terminating}
                     for p in u.pods],
            "frees": human_resources(_sum(u.pods))}


def _preemption(rec: PodGroupPreemptionRecord, result: PodGroupCycleResult) -> dict[str, Any]:
    out: dict[str, Any] = {"node": CLUSTER, "priority": rec.priority, "status": rec.status.to_dict(),
                           "potentialVictims": len(rec.potential)}
    if not rec.eligible:
        out["ineligible"] = rec.ineligible_reason
    if not rec.status.is_success():
        out["why"] = ("the group does not fit even with every lower-priority pod gone: no victims"
                      if rec.potential and not rec.fits_without_all else rec.status.message())
        if rec.failing is not None:
            out["failingMember"] = {"pod": rec.failing[0], "reason": rec.failing[1]}
        return out
    victims = rec.victim_pods
    need = _sum([m.pod for m in result.members])
    out.update({
        "victimUnits": [_unit(u) for u in rec.victims],
        "victims": [p.key for p in victims],
        "frees": human_resources(_sum(victims)),
        "needs": human_resources(need),
        "alreadyTerminating": [p.key for p in victims if p.terminating],
        "reprieved": [{"unit": r.unit.key, "priority": r.unit.priority, "pdbViolating": r.pdb_violating}
                      for r in rec.reprieves if r.kept],
        "why": ("every unit of lower priority than the group was removed, the group then fitted; units were "
                "put back most important first (priority, a PodGroup before a pod, then size and start) and "
                "each the group still fitted with was kept; the rest are evicted"),
    })
    return out


def _failing_member(result: PodGroupCycleResult) -> dict[str, Any] | None:
    """The member that keeps an unschedulable group from fitting, and why (the first that found no
    node, in the cycle's order)."""
    for m in result.members:
        if not m.suggested_host and m.action != BIND:
            return {"pod": m.pod.key, "reason": m.status.message()}
    return None


def _condition(result: PodGroupCycleResult) -> dict[str, Any]:
    """The PodGroupScheduled condition after the cycle: the one it writes, or the one the PodGroup
    keeps (updatePodGroupCondition patches nothing over a True one, nor an equal one)."""
    pg = result.pod_group
    existing = pg.condition() if pg is not None else None
    written = update_pod_group_condition(existing, result.condition)
    if written is not None:
        return written
    if existing is not None and result.condition is not None:
        return {k: existing.get(k) for k in ("type", "status", "reason", "message")} | {"unchanged": True}
    return {}


def held_document(sched: Any, key: str, members: list[Pod], held: dict[str, Any]) -> dict[str, Any]:
    """A group none of whose pending pods PreEnqueue lets into the queue: no cycle runs and nothing
    is written; each member is held with its plugin's status."""
    from ..framework.podgroupstate import PodGroupLister
    fwk = sched.framework_for(members[0])
    ns, name = key.split("/", 1)
    pod_group = PodGroupLister(fwk.listers, sched.config.version.minor).get(ns, name)
    ms = [MemberResult(p, status=held[p.uid], failure=held[p.uid], nominated_node=LEAVE) for p in members]
    first = held[members[0].uid]
    result = PodGroupCycleResult(key, pod_group, ms, first, num_all_nodes=sched.snapshot.num_nodes())
    doc = pod_group_document(result)
    doc["heldAtPreEnqueue"] = {"plugin": first.plugin, "message": first.message()}
    for m in doc["members"]:
        m["outcome"] = "Held"
    return doc


def pod_group_document(result: PodGroupCycleResult) -> dict[str, Any]:
    """The group's decision as data (what `explain podgroup/NS/NAME` prints)."""
    pg = result.pod_group
    members = [m.pod for m in result.members] + list(result.untried)
    doc: dict[str, Any] = {
        "podGroup": result.key,
        "policy": pg.policy if pg is not None else None,
        "minCount": pg.min_count if pg is not None else None,
        "priority": pg.priority if pg is not None else None,
        "priorityClassName": pg.priority_class_name if pg is not None else "",
        "disruptionMode": pg.disruption_mode if pg is not None else None,
        "requests": human_resources(_sum(members)),
        "outcome": group_outcome(result),
        "numNodes": result.num_all_nodes,
        "condition": _condition(result),
        "members": [_member(m) for m in result.members] + [_untried(p, result) for p in result.untried],
    }
    if pg is None:
        doc["missing"] = True
    if result.preemption is not None:
        doc["preemption"] = _preemption(result.preemption, result)
    placed = {m.pod.key: m.suggested_host for m in result.members if m.suggested_host}
    if placed:
        doc["placement"] = placed
    if not result.scheduled:
        rec = result.preemption
        failing = (doc["preemption"].get("failingMember") if rec is not None and rec.failing is not None
                   else _failing_member(result))
        if failing is not None:
            doc["failingMember"] = failing
        rec = result.preemption
        if rec is not None and not rec.status.is_success():
            doc["cannotFit"] = True
    return doc


def _untried(pod: Pod, result: PodGroupCycleResult, row: bool = True) -> dict[str, Any]:
    """A member the cycle ended before trying, in the group's member list (`row`): the group's
    status, an error's as an error (SchedulerError)."""
    error = row and result.status.code == Code.Error
    return {"pod": pod.key, "priority": pod.priority, "requests": human_resources(pod.resource.resource),
            "outcome": "Error" if error else UNSCHEDULABLE, "message": result.status.message()}


def untried_member_document(result: PodGroupCycleResult, pod: Pod) -> dict[str, Any]:
    """A member the group's cycle ended before trying (it stops at the first member that cannot be
    placed): submitPodGroupAlgorithmResult gives a member without a result of its own the group's
    status."""
    return {**_untried(pod, result, row=False), "podGroup": pod_group_document(result)}


def member_document(result: PodGroupCycleResult, key: str, nominated: dict[str, list[str]]) -> dict[str, Any]:
    """A member's explanation: its own cycle as explain gives any pod's, the outcome and message
    the group's cycle gave it, and the group's decision under `podGroup`."""
    m = result.member(key)
    assert m is not None  # untried_member_document explains a member the cycle did not try
    if m.cycle is not None:
        doc = build_document(m.cycle, nominated)
    else:
        doc = {"pod": key, "priority": m.pod.priority, "requests": human_resources(m.pod.resource.resource)}
    rec = result.preempted
    if m.action != BIND:
        # the member's own cycle may have found a node: where the group's cycle put it is under podGroup
        for k in ("node", "bestNodes", "feasibleNodes", "scores", "pluginScores", "viaNominatedNode"):
            doc.pop(k, None)
    if m.action == BIND:
        doc["outcome"] = SCHEDULED
        doc["node"] = m.suggested_host
    elif rec is not None:
        doc["outcome"] = "Preempted"
        # the group's preemption nominates no member to a node ("cluster" names its search only in
        # the Event): submitPodGroupAlgorithmResult nominates a member that fitted where it fitted
        # (ModeOverride) and leaves the others' nominations as they were
        doc.pop("nominatedNode", None)
        nominated = m.pod.nominated_node_name if m.nominated_node is LEAVE else m.nominated_node
        if nominated:
            doc["nominatedNode"] = nominated
        doc["victims"] = [p.key for p in rec.victim_pods]
    elif m.preempted is None:
        doc["outcome"] = UNSCHEDULABLE
    if m.action != BIND:
        doc["message"] = m.message
    doc["podGroup"] = pod_group_document(result)
    return doc
