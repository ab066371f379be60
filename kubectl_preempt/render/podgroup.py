"""A pod group's explanation as text (explain/podgroup.py's document): the group, its outcome,
each member's node or why none, the victims grouped by the unit they go in and what they free,
why these, and the condition the scheduler writes. Each part answers one question, in the order
people ask them."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from .wording import columns as _columns

INDENT = "  "


def columns(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    """Data rows indented under a header that starts at the margin (as render/table.py's tables)."""
    return _columns(header, [[INDENT + str(r[0])] + list(r[1:]) for r in rows])

_OUTCOME = {"Scheduled": "SCHEDULED", "WaitingOnPreemption": "PREEMPTS", "Unschedulable": "UNSCHEDULABLE"}


def _res(r: Mapping[str, str] | None) -> str:
    return ", ".join(f"{k} {v}" for k, v in (r or {}).items()) or "-"


def _group_line(g: Mapping[str, Any]) -> str:
    policy = f"gang minCount {g.get('minCount')}" if g.get("policy") == "gang" else "basic"
    prio = f"priority {g.get('priority')}" + (f" ({g['priorityClassName']})" if g.get("priorityClassName") else "")
    members = g.get("members") or []
    return (f"PodGroup   {g.get('podGroup')}   {policy}   {prio}   disruptionMode {g.get('disruptionMode')}\n"
            f"Members    {len(members)} pending, requests {_res(g.get('requests'))}")


def _outcome_lines(g: Mapping[str, Any]) -> list[str]:
    out = g.get("outcome")
    word = _OUTCOME.get(out, str(out))
    p = g.get("preemption") or {}
    if out == "Scheduled":
        members = g.get("members") or []
        placed = sum(1 for m in members if m.get("outcome") == "Scheduled")
        if placed == len(members):
            return [f"Outcome    {word}: every member placed together"]
        # a basic group (or a gang past its minCount) binds the members that fitted
        return [f"Outcome    {word}: {placed} of {len(members)} members placed; the others wait for their next cycle"]
    held = g.get("heldAtPreEnqueue")
    if held:
        return [f"Outcome    {word}: held before any cycle ({held.get('plugin')} PreEnqueue): {held.get('message')}",
                f"{INDENT * 5} no member enters the scheduling queue, so no cycle runs and nothing is written"]
    if out == "WaitingOnPreemption" and p.get("victims") is not None:
        n, units = len(p.get("victims") or []), len(p.get("victimUnits") or [])
        going = p.get("alreadyTerminating") or []
        lines = [f"Outcome    {word} on the whole cluster (workload-aware preemption): {n} victim"
                 f"{'s' if n != 1 else ''} in {units} unit{'s' if units != 1 else ''} free {_res(p.get('frees'))} "
                 f"(the group requests {_res(p.get('needs'))})"]
        if going:
            lines.append(f"{INDENT * 5} {len(going)} of them already terminating: no new delete call for those")
        lines.append(f"{INDENT * 5} the group waits for them to go and is tried again; no member is nominated by it")
        return lines
    if out == "WaitingOnPreemption":
        return [f"Outcome    {word}: each member preempts on its own node (DefaultPreemption), the group waits"]
    lines = [f"Outcome    {word}: no member is placed (all or nothing)"]
    if g.get("cannotFit"):
        lines.append(f"{INDENT * 5} the group cannot fit even with every lower-priority pod gone: no victims")
    f = g.get("failingMember")
    if f:
        lines.append(f"{INDENT * 5} {'even then ' if g.get('cannotFit') else ''}fails first: {f.get('pod')}: "
                     f"{f.get('reason')}")
    return lines


def _member_lines(g: Mapping[str, Any]) -> list[str]:
    rows = []
    for m in g.get("members") or []:
        why = m.get("message") or ("bound" if m.get("outcome") == "Scheduled" else "")
        if m.get("outcome") == "Preempts":
            why = f"preempts {', '.join(m.get('victims') or [])} there"
        elif m.get("outcome") == "Fits" and m.get("permit"):
            why = "fits; waits at Permit for the rest of the gang"
        rows.append([m.get("pod"), m.get("node") or "-", str(m.get("outcome", "")).lower(), why])
    return columns(["Members", "NODE", "OUTCOME", "WHY"], rows)


def _victim_lines(p: Mapping[str, Any]) -> list[str]:
    units = p.get("victimUnits") or []
    if not units:
        return []
    rows: list[list[str]] = []
    for u in units:
        pods = u.get("pods") or []
        nodes = sorted({x.get("node") for x in pods if x.get("node")})
        whole = " (disruptionMode PodGroup: evicted whole)" if u.get("unit") == "PodGroup" else ""
        rows.append([f"{u.get('unit')} {u.get('name')}", str(u.get("priority")), str(len(pods)),
                     ",".join(nodes), _res(u.get("frees")) + whole])
        if u.get("unit") == "PodGroup":
            for x in pods:
                rows.append([INDENT + str(x.get("pod")) + (" (terminating)" if x.get("terminating") else ""),
                             "", "", str(x.get("node")), _res(x.get("requests"))])
        elif pods and pods[0].get("terminating"):
            rows[-1][0] += " (terminating)"
    lines = columns(["Victims, by unit", "PRIORITY", "PODS", "NODES", "FREES"], rows)
    kept = p.get("reprieved") or []
    if kept:
        lines.append(f"Kept (reprieved) {len(kept)}: " + ", ".join(k.get("unit", "") for k in kept[:8])
                     + (" ..." if len(kept) > 8 else ""))
    return lines


def pod_group_lines(g: Mapping[str, Any]) -> list[list[str]]:
    sections = [[_group_line(g)] + _outcome_lines(g), _member_lines(g)]
    p = g.get("preemption") or {}
    if p.get("victimUnits"):
        sections.append(_victim_lines(p))
        sections.append(["Why these victims", INDENT + str(p.get("why", ""))])
    elif p.get("why"):
        sections.append(["Workload-aware preemption", INDENT + str(p.get("why"))])
    c = g.get("condition") or {}
    if c:
        sections.append(["Condition", INDENT + f"{c.get('type')}={c.get('status')} {c.get('reason')}"
                         + (f": {c.get('message')}" if c.get("message") else "")
                         + ("   (unchanged: the scheduler does not patch it)" if c.get("unchanged") else "")])
    return sections


def pod_group_explanation(doc: Mapping[str, Any], *, wide: bool = False) -> str:
    """`explain podgroup/NS/NAME`'s table, or a member's (`explain POD`): the member's own line first."""
    g = doc if doc.get("kind") == "PodGroupExplanation" else doc.get("podGroup") or {}
    sections: list[list[str]] = []
    if doc.get("kind") != "PodGroupExplanation":
        msg = doc.get("message")
        sections.append([f"Pod        {doc.get('pod')}   a member of PodGroup {g.get('podGroup')}: scheduled in "
                         "its group's cycle (all members together)"]
                        + ([f"Message    {msg}"] if msg else []))
    else:
        g = dict(g, podGroup=doc.get("podGroup"))
    sections += pod_group_lines(g)
    return "\n\n".join("\n".join(s) for s in sections if s) + "\n"


def is_pod_group_doc(doc: Mapping[str, Any]) -> bool:
    return doc.get("kind") == "PodGroupExplanation" or isinstance(doc.get("podGroup"), Mapping)


__all__: Sequence[str] = ["pod_group_explanation", "is_pod_group_doc"]
