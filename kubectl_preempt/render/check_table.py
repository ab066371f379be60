"""-o table for check: the verdict first, then why, in the order a reviewer asks: would the API
server take these classes, what changes on each trace and for which pods, which rule fails."""
from __future__ import annotations

from typing import Any, Mapping

from .check_report import (MAX_CHANGE_ROWS, MAX_VIOLATIONS_SHOWN, changes_text, class_text, clock, duration,
                           node_suffix, outcome_text, plural, priority_text, recreate_text, runs_text, totals_text,
                           verdict_text)
from .replay import gap_notes, scheduler_text
from .table import columns


def render_table(report: Mapping[str, Any]) -> str:
    out = [f"Check      {verdict_text(report)}"]
    pol = report.get("policy") or {}
    rules = list(pol.get("failOn") or [])
    rules += [f"protect-namespace {ns}" for ns in pol.get("protectNamespaces") or ()]
    if pol.get("maxNewVictims") is not None:
        rules.append(f"max-new-victims {pol['maxNewVictims']}")
    out.append(f"Policy     validation, {', '.join(rules)}" if rules else "Policy     validation")
    out.append(f"Baseline   {report.get('baseline')}")
    out.append("")

    classes = report.get("proposed") or []
    out.append(f"Proposed PriorityClasses ({len(classes)})")
    rows = [[c.get("name") or "(no name)", class_text(c),
             "superseded" if c.get("superseded") else ("valid" if c.get("valid") else "REJECTED"),
             c.get("source") or ""] for c in classes]
    out.extend(columns(None, rows, names=["CLASS", "VALUE", "VERDICT", "SOURCE"]))
    out.append("")

    v = report.get("validation") or {}
    findings = v.get("findings") or []
    errors = [f for f in findings if f.get("severity") == "error"]
    warnings = [f for f in findings if f.get("severity") != "error"]
    if not errors:
        out.append("Validation  the API server accepts every proposed class")
    else:
        out.append(f"Validation  the API server refuses {plural(len(errors), 'class', 'classes')}")
    for f in errors:
        out.append(f"  {f['message']}")
        if f.get("source"):
            out.append(f"    in {f['source']}" + _where(f))
    for f in warnings:
        out.append(f"  note: {f['priorityClass']}: {f['message']}" + _where(f))
    out.append("")

    for t in report.get("traces") or []:
        out.extend(_trace_lines(t))
        out.append("")

    out.append("Rules")
    rule_rows = []
    for r in report.get("rules") or []:
        rule_rows.append([r["rule"], r.get("trace") or "-", "pass" if r["passed"] else "FAIL", r.get("summary", "")])
    out.extend(columns(["RULE", "TRACE", "RESULT", ""], rule_rows, names=["RULE", "TRACE", "RESULT", "SUMMARY"]))
    failing = [r for r in report.get("rules") or [] if not r["passed"]]
    if failing:
        out.append("")
        out.append("Violations")
        for r in failing:
            where = f" on {r['trace']}" if r.get("trace") else ""
            out.append(f"  {r['rule']}{where}")
            vs = r.get("violations") or []
            for viol in vs[:MAX_VIOLATIONS_SHOWN]:
                out.append(f"    {viol['message']}")
            if len(vs) > MAX_VIOLATIONS_SHOWN:
                out.append(f"    ... {len(vs) - MAX_VIOLATIONS_SHOWN} more (-o json has them all)")
    return "\n".join(out) + "\n"


def _where(f: Mapping[str, Any]) -> str:
    traces = f.get("traces") or []
    if not traces or traces == ["--baseline"]:
        return ""
    return f" (against {', '.join(traces)})"


def _trace_lines(t: Mapping[str, Any]) -> list[str]:
    # the release that replayed, and the --feature-gates it replayed with
    by = f", replayed by {scheduler_text(t)}" if t.get("schedulerVersion") else ""
    out = [f"Trace {t['trace']}   {t.get('start')} to {clock(t.get('end'))} ({duration(t.get('durationSeconds'))}){by}"]
    out += [f"  {line}" for line in gap_notes(t)]
    for rc in t.get("recreated") or []:
        out.append(f"  re-created: {recreate_text(rc)}")
    for name in t.get("rejected") or []:
        out.append(f"  refused: {name} is not created (see Validation); the proposed replay runs without it")
    for rm in t.get("removed") or []:
        out.append(f"  deleted: {rm['priorityClass']} ({plural(rm.get('podCount', 0), 'pod')} at the trace's start "
                   "name it)")
    b, p = t.get("baseline") or {}, t.get("proposed") or {}
    rows = [[label, b.get(k, 0), p.get(k, 0), _delta(b.get(k, 0), p.get(k, 0))]
            for label, k in (("scheduling decisions", "decisions"), ("preemptions", "preemptions"),
                             ("victims", "victims"), ("pods never scheduled", "podsNeverScheduled"))]
    out.extend(columns(["", "BASELINE", "PROPOSED", "CHANGE"], rows, "  "))
    if runs_text(t):
        out.append(f"  {runs_text(t)}")
    tot = t.get("totals") or {}
    changes = t.get("changes") or []
    if not changes:
        out.append("  No pod's outcome changes.")
        return out
    suffix = node_suffix(t)
    out.append(f"  {plural(tot.get('podsChanged', len(changes)), 'pod')} changed: {totals_text(tot)}"
               + (f" (nodes named without {suffix})" if suffix else ""))
    rows = [[e["pod"], priority_text(e), changes_text(e), outcome_text(e["baseline"], suffix),
             outcome_text(e["proposed"], suffix)] for e in changes[:MAX_CHANGE_ROWS]]
    out.extend(columns(["  POD", "PRIORITY", "CHANGE", "BASELINE", "PROPOSED"], rows, "    "))
    if len(changes) > MAX_CHANGE_ROWS:
        out.append(f"    ... {len(changes) - MAX_CHANGE_ROWS} more (-o json has them all)")
    return out


def change_rows(report: Mapping[str, Any]) -> list[list[str]]:
    """One row a pod whose outcome changes, on every trace: TRACE, POD, PRIORITY, CHANGE, BASELINE,
    PROPOSED (what --no-headers prints)."""
    rows = []
    for t in report.get("traces") or []:
        suffix = node_suffix(t)
        for e in t.get("changes") or []:
            rows.append([t["trace"], e["pod"], priority_text(e), changes_text(e),
                         outcome_text(e["baseline"], suffix), outcome_text(e["proposed"], suffix)])
    return rows


def _delta(a: int, b: int) -> str:
    d = (b or 0) - (a or 0)
    return f"+{d}" if d > 0 else (str(d) if d else "")
