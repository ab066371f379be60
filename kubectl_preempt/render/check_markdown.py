"""-o markdown for check: a pull-request comment or a CI step summary ($GITHUB_STEP_SUMMARY).

GitHub-flavoured: the verdict and the rules first, the per-pod changes of each trace folded in a
<details> block so that a long list does not bury the verdict.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .check_report import (MAX_CHANGE_ROWS, MAX_VIOLATIONS_SHOWN, changes_text, class_text, clock, duration,
                           node_suffix, outcome_text, plural, priority_text, recreate_text, runs_text, totals_text,
                           verdict_text)
from .replay import gap_notes, scheduler_text


def _cell(text: Any) -> str:
    return str("" if text is None else text).replace("|", "\\|").replace("\n", " ")


def _code(text: Any) -> str:
    """A name or a message as inline code: nothing in it is markdown or HTML (a proposed class's
    name is whatever the pull request says). The fence is longer than any run of backticks inside,
    and a line break, which would end the span, is a space."""
    s = " ".join(str(text).splitlines())
    runs = [len(r) for r in re.findall(r"`+", s)]
    if not runs:
        return f"`{s}`"
    fence = "`" * (max(runs) + 1)
    return f"{fence} {s} {fence}"


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+!|~>])")


def _text(text: Any) -> str:
    """Prose that may quote names (a violation, a note): markdown's punctuation escaped, HTML's
    angle brackets and ampersands as entities, on one line."""
    s = " ".join(str("" if text is None else text).splitlines())
    s = s.replace("&", "&amp;").replace("<", "&lt;")
    return _MARKDOWN_SPECIALS.sub(r"\\\1", s)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out


# GitHub refuses comments over 65536 characters; step summaries over 1 MiB
MAX_COMMENT_CHARS = 60_000


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as one comment: with fewer changed pods listed per trace when it would not fit."""
    text = ""
    for rows in (MAX_CHANGE_ROWS, 10, 0):
        text = _render(report, rows)
        if len(text) <= MAX_COMMENT_CHARS:
            break
    return text


def _render(report: Mapping[str, Any], max_rows: int) -> str:
    mark = "✅" if report.get("passed") else "❌"
    out = [f"## {mark} PriorityClass check: {verdict_text(report)}", ""]
    rule_rows = [[_code(r["rule"]), _code(r["trace"]) if r.get("trace") else "all classes",
                  "pass" if r["passed"] else "**FAIL**", r.get("summary", "")] for r in report.get("rules") or []]
    out += _table(["Rule", "Trace", "Result", "Detail"], rule_rows)
    out += ["", f"Baseline: {report.get('baseline')}.", ""]

    out += ["### Proposed PriorityClasses", ""]
    out += _table(["Name", "Class", "API server", "Source"],
                  [[_code(c.get("name") or "(no name)"), class_text(c),
                    "superseded" if c.get("superseded") else ("accepts" if c.get("valid") else "**refuses**"),
                    _code(c["source"]) if c.get("source") else ""] for c in report.get("proposed") or []])
    findings = (report.get("validation") or {}).get("findings") or []
    if findings:
        out.append("")
        for f in findings:
            tag = "**refused**" if f.get("severity") == "error" else "note"
            src = f" ({_code(f['source'])})" if f.get("source") else ""
            out.append(f"- {tag}: {_code(f['priorityClass'])}{src}: {_code(f['message'])}"
                       if f.get("severity") == "error" else
                       f"- {tag}: {_code(f['priorityClass'])}{src}: {_text(f['message'])}")
    out.append("")

    for t in report.get("traces") or []:
        out += _trace(t, max_rows)
        out.append("")

    failing = [r for r in report.get("rules") or [] if not r["passed"]]
    if failing:
        out += ["### Violations", ""]
        for r in failing:
            where = f" on {_code(r['trace'])}" if r.get("trace") else ""
            out.append(f"- {_code(r['rule'])}{where}: {_text(r.get('summary', ''))}")
            vs = r.get("violations") or []
            shown = MAX_VIOLATIONS_SHOWN if max_rows == MAX_CHANGE_ROWS else 5
            for viol in vs[:shown]:
                out.append(f"  - {_text(viol['message'])}")
            if len(vs) > shown:
                out.append(f"  - ... {len(vs) - shown} more")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _trace(t: Mapping[str, Any], max_rows: int = MAX_CHANGE_ROWS) -> list[str]:
    out = [f"### Trace {_code(t['trace'])}", "",
           f"{t.get('start')} to {clock(t.get('end'))} ({duration(t.get('durationSeconds'))})"
           + (f", replayed by {scheduler_text(t)}" if t.get("schedulerVersion") else "") + ".", ""]
    notes = [f"- {line}" for line in gap_notes(t)]
    notes += [f"- re-created: {recreate_text(rc)}" for rc in t.get("recreated") or []]
    notes += [f"- refused: {_code(n)} is not created; the proposed replay runs without it" for n in t.get("rejected") or []]
    notes += [f"- deleted: {_code(rm['priorityClass'])}" for rm in t.get("removed") or []]
    if notes:
        out += notes + [""]
    b, p = t.get("baseline") or {}, t.get("proposed") or {}
    out += _table(["", "Baseline", "Proposed"],
                  [[label, b.get(k, 0), p.get(k, 0)]
                   for label, k in (("Scheduling decisions", "decisions"), ("Preemptions", "preemptions"),
                                    ("Victims", "victims"), ("Pods never scheduled", "podsNeverScheduled"))])
    if runs_text(t):
        out += ["", runs_text(t)[0].upper() + runs_text(t)[1:] + "."]
    changes = t.get("changes") or []
    out.append("")
    if not changes:
        out.append("No pod's outcome changes.")
        return out
    tot = t.get("totals") or {}
    suffix = node_suffix(t)
    out += [f"<details><summary>{plural(tot.get('podsChanged', len(changes)), 'pod')} changed: "
            f"{totals_text(tot)}</summary>", ""]
    if suffix:
        out += [f"Nodes are named without {_code(suffix)}.", ""]
    if max_rows:
        out += _table(["Pod", "Priority", "Change", "Baseline", "Proposed"],
                      [[_code(e["pod"]), priority_text(e), changes_text(e), outcome_text(e["baseline"], suffix),
                        outcome_text(e["proposed"], suffix)] for e in changes[:max_rows]])
    if len(changes) > max_rows:
        more = f"... and {len(changes) - max_rows} more" if max_rows else "Too many to list here"
        out += ["", f"{more} (`-o json` has them all)."]
    out += ["", "</details>"]
    return out
