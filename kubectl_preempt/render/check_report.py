"""The wording every check report format shares (render/check_output.py picks the format), so
that the table, markdown and HTML say the same.

Renderers take the plain dict `check.api.check` returns and never compute verdicts themselves.
"""
from __future__ import annotations

from typing import Any, Mapping

from .wording import clock, plural, short_reason  # noqa: F401 - the check renderers take them from here

# rows of per-pod changes shown per trace; -o json has them all
MAX_CHANGE_ROWS = 50
MAX_VIOLATIONS_SHOWN = 20

CHANGE_WORDS = {
    "newlyPreempted": "newly preempted",
    "noLongerPreempted": "no longer preempted",
    "newlyUnschedulable": "newly unschedulable",
    "newlyScheduled": "newly scheduled",
    "differentPreemptor": "other preemptor or node",
    "differentNode": "other node",
    "newlyPreempting": "newly preempts",
    "noLongerPreempting": "no longer preempts",
    "differentPreemptions": "preempts otherwise",
}


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(round(float(seconds)))
    if s < 60:
        return f"{s}s"
    m, sec = divmod(s, 60)
    if m < 60:
        return f"{m}m{sec:02d}s" if sec else f"{m}m"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if m else f"{h}h"


def node_suffix(trace: Mapping[str, Any]) -> str:
    """The domain every node in a trace's per-pod changes shares (".eu-west-1.compute.internal"),
    which tables leave out; "" when they do not all share one."""
    names = {side.get("node") for e in trace.get("changes") or ()
             for side in (e.get("baseline") or {}, e.get("proposed") or {}) if side.get("node")}
    if not names or any("." not in n for n in names):
        return ""
    first = next(iter(names))
    suffix = first[first.index("."):]
    while suffix and not all(n.endswith(suffix) and len(n) > len(suffix) for n in names):
        nxt = suffix.find(".", 1)
        suffix = suffix[nxt:] if nxt != -1 else ""
    return suffix


def priority_text(entry: Mapping[str, Any]) -> str:
    """The pod's priority, or how the proposed classes change it ("100 -> 5000")."""
    b, p = (entry.get("baseline") or {}).get("priority"), (entry.get("proposed") or {}).get("priority")
    if b is None or p is None or b == p:
        v = b if b is not None else p
        return "" if v is None else str(v)
    return f"{b} -> {p}"


def _ended(side: Mapping[str, Any]) -> str:
    if not side.get("ended"):
        return ""
    return f", {side['ended']} at {clock(side.get('endedAt'))}"


def outcome_text(side: Mapping[str, Any], suffix: str = "") -> str:
    """One replay's outcome for a pod, in a few words; node names without `suffix`."""
    o = side.get("outcome")
    node = side.get("node") or ""
    if suffix and node.endswith(suffix):
        node = node[: -len(suffix)]
    if o == "Preempted":
        return f"preempted by {side.get('preemptedBy')} on {node} at {clock(side.get('time'))}"
    if o == "Scheduled":
        return f"scheduled on {node} at {clock(side.get('time'))}{_ended(side)}"
    if o == "Unschedulable":
        reason = short_reason(side)
        return "unschedulable" + (f": {reason}" if reason else "")
    if o == "Nominated":
        return f"nominated to {side.get('nominatedNode')}, not bound before the trace ended"
    if o == "Pending":
        return "pending, not tried before the trace ended"
    if o == "Deleted":
        return "deleted before it was scheduled"
    if side.get("ended"):
        return f"ran from the start{_ended(side)}"
    return "running, untouched"


def changes_text(entry: Mapping[str, Any]) -> str:
    return ", ".join(CHANGE_WORDS.get(c, c) for c in entry.get("changes") or ())


def totals_text(totals: Mapping[str, int]) -> str:
    """"2 newly preempted, 1 newly unschedulable" (only the non-zero changes)."""
    parts = [f"{totals[k]} {w}" for k, w in CHANGE_WORDS.items() if totals.get(k)]
    return ", ".join(parts) if parts else "no pod changes"


def verdict_text(report: Mapping[str, Any]) -> str:
    n = report.get("violations", 0)
    if report.get("passed"):
        return "PASS"
    return f"FAIL ({plural(n, 'violation')})"


def class_text(c: Mapping[str, Any]) -> str:
    bits = [f"value {c.get('value')}"]
    if c.get("globalDefault"):
        bits.append("globalDefault")
    if c.get("preemptionPolicy") == "Never":
        bits.append("preemptionPolicy Never")
    return ", ".join(bits)


def recreate_text(rc: Mapping[str, Any]) -> str:
    what = "; ".join(f"{k} {a} -> {b}" for k, (a, b) in (rc.get("changes") or {}).items())
    n = rc.get("podCount", 0)
    old = (rc.get("changes") or {}).get("value", [None])[0]
    verb = "keeps" if n == 1 else "keep"
    keep = f"{verb} priority {old}" if old is not None else f"{verb} the old preemption policy"
    if n:
        return f"{rc['priorityClass']} ({what}): delete and re-create; {plural(n, 'pod')} at the trace's start {keep} " \
               "until re-created"
    return f"{rc['priorityClass']} ({what}): delete and re-create; no pod uses it at the trace's start"


def runs_text(t: Mapping[str, Any]) -> str:
    """check --runs: the paired distributions of one trace in a sentence, or "" for one run."""
    d = t.get("distribution")
    if not d:
        return ""
    nv, dv = d["newVictims"], d["victimsDifference"]
    return (f"over {d['runs']} paired runs: new victims p5 {nv['p5']}, p50 {nv['p50']}, p95 {nv['p95']}; "
            f"victims proposed minus baseline p5 {dv['p5']}, p50 {dv['p50']}, p95 {dv['p95']} "
            f"(the figures and changes shown are run 1's)")
