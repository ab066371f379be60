"""How `explain` shows who preempted a pod.

For each pod named on the command line, api.explain_request reads what the cluster (or the
snapshot) recorded if the scheduler preempted that pod (a DisruptionTarget condition, a Preempted
event), and when the preemptor is still pending or nominated, explains it too: what the offline
scheduler decides for it now. This renders those records beside the explanations.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ..render.table import INDENT, columns, short_time


def render_records(result: Any, docs: Sequence[Mapping[str, Any]], output: str) -> str:
    """The records of the named pods the scheduler preempted (api.explain_request's result), with
    the explanations `docs`: a section per record above the table, or in the data each record on
    its pod's document (a pod whose record is the whole answer gets a document of its own)."""
    from ..render import render

    if output in ("table", "wide"):
        text = "".join(record_lines(k, r) + "\n" for k, r in result.records.items())
        return text + (render(docs, output) if docs else "")
    out: list[Mapping[str, Any]] = [record_document(k, result.records[k], exists)
                                    for k, exists in result.record_only.items()]
    for d in docs:
        rec = result.records.get(d.get("pod"))
        out.append({**d, "preemptedBy": rec} if rec is not None else d)
    return render(out, output)


def record_lines(key: str, rec: Mapping[str, Any]) -> str:
    """`explain`'s table section for one preempted pod."""
    when = re.sub(r"\.\d+", "", str(rec.get("time") or ""))
    head = [f"Pod        {key}",
            "Preempted  by the scheduler" + (f" at {short_time(when)}" if when else "")
            + (f" on {rec['node']}" if rec.get("node") else "")]
    rows: list[list[str]] = []
    preemptor = rec.get("preemptor")
    uid = rec.get("preemptorUID")
    who = preemptor or "a pod no longer in the cluster"
    if uid:
        who += f" (uid {uid})"
    if rec.get("preemptorPriority") is not None:
        who += f", priority {rec['preemptorPriority']}"
    rows.append(["by", who])
    state = rec.get("preemptorState")
    if state == "Nominated":
        rows.append(["preemptor now", f"pending, nominated to {rec.get('preemptorNode')}: explained below"])
    elif state == "Pending":
        rows.append(["preemptor now", "pending: explained below"])
    elif state == "Scheduled":
        rows.append(["preemptor now", f"running on {rec.get('preemptorNode')}"])
    elif state == "Gone":
        rows.append(["preemptor now", "no longer in the cluster" + (" (name from the event)" if preemptor else "")])
    elif state == "Unknown" and rec.get("preemptorUnreadable"):
        rows.append(["preemptor now", f"unknown: {rec['preemptorUnreadable']}"])
    elif state in ("Succeeded", "Failed"):
        rows.append(["preemptor now", f"finished ({state})"])
    sources = []
    if "condition" in (rec.get("sources") or ()):
        sources.append(f"condition DisruptionTarget/PreemptionByScheduler: {rec.get('conditionMessage', '')}".rstrip(": "))
    if "event" in (rec.get("sources") or ()):
        ev = f"event Preempted: {rec.get('eventMessage', '')}"
        if rec.get("earlierPodUID"):
            ev += f" (an earlier pod of this name, uid {rec['earlierPodUID']})"
        sources.append(ev)
    for i, s in enumerate(sources):
        rows.append(["recorded" if i == 0 else "", s])
    return "\n".join(head + columns(None, rows, indent=INDENT)) + "\n"


def record_document(key: str, rec: Mapping[str, Any], exists: bool) -> dict[str, Any]:
    """-o json/yaml for a preempted pod that is gone, or still terminating on its node."""
    return {"pod": key, "exists": exists, "preemptedBy": dict(rec)}
