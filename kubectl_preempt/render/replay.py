"""Replay reports as text: a timeline of preemptions and a summary (table or markdown), or JSON.

The table reads as a story: what happened when, who was evicted for whom and why there, then
the totals a person asks for next (which classes preempt most, who suffers, who never got a node).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..errors import quote
from ..model.quantity import format_bytes, format_milli_cpu
from . import distribution, width
from .wording import clock, plural, short_reason
from .wording import columns as _columns
from .wording import md_table as _md_table

REPLAY_FORMATS = ("table", "wide", "json", "yaml", "markdown")
MAX_VICTIMS_SHOWN = 3
MAX_ROWS = 500
MAX_NEVER_SCHEDULED_SHOWN = 15


def render_replay(report: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """The text for `-o fmt`. On a terminal `table` fits its width (render/width.py); `wide` is the
    same table never cut. `name` and `jsonpath=` as kubectl's (render/output.py); `no_headers`:
    the preemption rows alone."""
    from .output import no_headers_rows, render_habit

    habit = render_habit(fmt, document=lambda: report,
                         keys=lambda: [p.get("preemptor") for p in report.get("preemptions") or ()])
    if habit is not None:
        return habit
    if fmt in ("table", "wide") and no_headers:
        return no_headers_rows(preemption_rows(report)[1])
    if fmt == "table":
        return width.finish(_table(report))
    with width.unlimited(wide=fmt == "wide"):
        return _render_uncut(report, fmt)


def _render_uncut(report: Mapping[str, Any], fmt: str) -> str:
    if fmt == "wide":
        return _table(report)
    if fmt == "json":
        from .json import dumps

        return dumps(report)
    if fmt == "yaml":
        import orjson

        from .json import dumps as json_dumps
        from .yaml import dumps as yaml_dumps

        # the JSON document, key for key: whatever -o json turns into JSON (tuples, non-string
        # keys) is turned so here too
        return yaml_dumps(orjson.loads(json_dumps(report)))
    if fmt == "markdown":
        return _markdown(report)
    if fmt == "table":
        return _table(report)
    raise ValueError(f"unknown output format {quote(fmt)}; expected one of {', '.join(REPLAY_FORMATS)}")


# --- shared wording ---------------------------------------------------------------------------------

def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = float(seconds)
    if s < 1:
        return f"{s:.1f}s" if s else "0s"
    if s < 60:
        return f"{s:.0f}s" if s == int(s) else f"{s:.1f}s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m}m{sec:02d}s" if sec else f"{m}m"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def _cpu_memory(milli_cpu: int | None, memory: int | None) -> list[str]:
    """"cpu 2", "memory 1Gi": the amounts given, as the tables write them."""
    parts = []
    if milli_cpu is not None:
        parts.append(f"cpu {format_milli_cpu(milli_cpu)}")
    if memory is not None:
        parts.append(f"memory {format_bytes(memory)}")
    return parts


def why_text(p: Mapping[str, Any]) -> str:
    why = p.get("why") or {}
    if "eligibleBy" in why:
        return _batch_why(p, why)
    parts = []
    req = why.get("requests") or {}
    needs = _cpu_memory(req.get("milliCPU") or None, req.get("memory") or None)
    for name, amount in req.items():
        if name not in ("milliCPU", "memory") and amount:
            needs.append(f"{name} {format_bytes(amount) if name.startswith('hugepages-') else amount}")
    reasons = short_reason(why)
    if needs:
        parts.append("needs " + ", ".join(needs) + (f" ({reasons})" if reasons else ""))
    elif reasons:
        parts.append(reasons)
    n = why.get("candidates")
    decided = why.get("decidedBy")
    tied = why.get("tiedNodes") or []
    if n == 1:
        parts.append("the only node where preemption helps")
    elif decided:
        if len(tied) > 1:
            parts.append(f"{n} candidate nodes, tied with {', '.join(t for t in tied if t != p.get('node'))} "
                         "after the whole chain")
        else:
            ru = why.get("runnerUp")
            parts.append(f"{n} candidate nodes; won on {decided}" + (f" over {ru}" if ru else ""))
    if why.get("pdbViolations"):
        parts.append(f"violates {why['pdbViolations']} PDB(s)")
    if why.get("clearedNominations"):
        parts.append("clears the nomination of " + ", ".join(why["clearedNominations"]))
    return "; ".join(parts)


def _batch_why(p: Mapping[str, Any], why: Mapping[str, Any]) -> str:
    """Why kube-batch evicted: for whom (the queue under its share, or the job within its queue),
    which plugins' votes made the victims eligible, what they free."""
    job = why.get("preemptorJob") or "?"
    if why.get("action") == "reclaim":
        parts = [f"queue {why.get('reclaimingQueue') or '?'} reclaims for job {job}"]
    else:
        parts = [f"job {job} preempts within its queue"]
    if why.get("eligibleBy"):
        parts.append("eligible by " + ", ".join(why["eligibleBy"]))
    frees = why.get("frees") or {}
    # kube-batch reports cores and bytes as floats
    freed = _cpu_memory(round(frees["cpu"] * 1000) if frees.get("cpu") else None,
                        round(frees["memory"]) if frees.get("memory") else None)
    if freed:
        parts.append("frees " + ", ".join(freed))
    return "; ".join(parts)


def by_text(p: Mapping[str, Any]) -> str:
    """Which scheduler evicted, and which of its parts (a kube-batch action, or DefaultPreemption)."""
    return f"{p.get('scheduler') or '?'} {p.get('action') or ''}".strip()


def victim_labels(p: Mapping[str, Any]) -> list[str]:
    """Victims with what sets them apart: already terminating (no new eviction), PDB violated."""
    details = {d["pod"]: d for d in p.get("victimDetails") or ()}
    out = []
    for v in p.get("victims") or ():
        d = details.get(v) or {}
        marks = [m for m, on in (("already terminating", d.get("alreadyTerminating")),
                                 ("already being evicted", d.get("alreadyEvicting")),
                                 ("PDB violated", d.get("pdbViolation"))) if on]
        # the marks under the name where the table has no room for them beside it
        out.append(width.Noted(v, ", ".join(marks)) if marks else v)
    return out


def _victims_cell(victims: Sequence[str]) -> list[str]:
    """The victims as a list cell: on one line where the table has room, one a line where it has
    not (render/width.py); past MAX_VICTIMS_SHOWN, how many more."""
    shown = list(victims[:MAX_VICTIMS_SHOWN])
    more = len(victims) - len(shown)
    return shown + ([f"(+{more} more)"] if more > 0 else [])


def _prio(p: Mapping[str, Any]) -> str:
    pr = p.get("priority")
    cls = p.get("priorityClassName")
    if pr is None:
        return "-"
    return f"{pr} ({cls})" if cls else str(pr)


def scheduler_version(report: Mapping[str, Any]) -> str:
    """The kube-scheduler release that replayed (reports from before it was named: v1.34.1), with
    the --feature-gates it replayed with."""
    name = str(report.get("schedulerVersion") or "v1.34.1")
    gates = report.get("featureGates") or {}
    if gates:
        name += " with feature gates " + ",".join(f"{k}={'true' if v else 'false'}" for k, v in gates.items())
        idle = report.get("featureGatesWithoutEffect") or ()
        if idle:
            name += f" (no effect on scheduling: {', '.join(idle)})"
    return name


def version_source_text(source: Mapping[str, Any] | None) -> str:
    """Where the imitated release came from, in a parenthesis ("" for reports that do not say):
    a trace header names kube-apiserver's release, and kube-scheduler may be a minor older."""
    if not source:
        return ""
    frm = source.get("from")
    if frm == "--kubernetes-version":
        return f" (--kubernetes-version {source.get('requested')})"
    if frm == "trace":
        return (f" (inferred from the trace's API server {source.get('serverVersion')}; the scheduler may be "
                "older: --kubernetes-version sets it)")
    if frm == "kubelet":
        return (f" (the trace names no server version; its newest kubelet {source.get('kubeletVersion')} is a lower "
                "bound: --kubernetes-version sets it)")
    return " (the default, the newest imitated: the trace names no server version)"


def scheduler_text(report: Mapping[str, Any]) -> str:
    """"kube-scheduler v1.34.1" with where that release came from."""
    return f"kube-scheduler {scheduler_version(report)}{version_source_text(report.get('schedulerVersionSource'))}"


def gap_notes(trace: Mapping[str, Any]) -> list[str]:
    """One `note:` per event of a report's trace that contradicts an earlier one, then one per
    recorder gap (replay/timeline.py's rules)."""
    out = [f"note: {n}" for n in trace.get("notes") or ()]
    for g in trace.get("gaps") or ():
        out.append(f"note: recorder gap {clock(g.get('start', ''))} to {clock(g.get('end', ''))} "
                   f"({duration(g.get('seconds'))}): no event and no bookmark for longer than "
                   f"{duration(trace.get('gapThresholdSeconds'))}, far beyond the trace's usual gaps: the recorder "
                   "stalled, not the cluster; waits across it are flagged")
    return out


def _headline(report: Mapping[str, Any]) -> list[str]:
    tr = report.get("trace") or {}
    src = tr.get("source") or {}
    where = src.get("context") or src.get("form") or "trace"
    mode = report.get("mode")
    lines = [f"Replay of {where}: {tr.get('start')} to {clock(tr.get('end', ''))} "
             f"({duration(tr.get('durationSeconds'))}), {tr.get('initialObjects', 0)} objects at the start, "
             f"{tr.get('events', 0)} events after it"]
    if mode == "follow":
        lines.append("Mode      follow: the recording applied as it happened; each preemption the cluster made "
                     f"is explained at that instant by the offline {scheduler_text(report)}")
    else:
        lines.append(f"Mode      simulate: the offline {scheduler_text(report)} places every "
                     "pending pod; recorded bindings and preemptions are left out")
    lines.extend(gap_notes(tr))
    kb = (report.get("summary") or {}).get("kubeBatch")
    if kb:
        lines.append(f"Batch     kube-batch places the pods named {kb.get('schedulerName')}: a session every "
                     f"{duration(kb.get('schedulePeriodSeconds'))} ({', '.join(kb.get('actions') or [])})")
    wi = report.get("whatIf") or {}
    if wi.get("priorityClasses"):
        cls = ", ".join(f"{c['name']}={c['value']}" + (" (default)" if c.get("globalDefault") else "")
                        + (" (never preempts)" if c.get("preemptionPolicy") == "Never" else "")
                        for c in wi["priorityClasses"])
        who = "every pod" if wi.get("reresolveExisting") else "pods created during the trace"
        lines.append(f"What-if   PriorityClasses {cls}, applied to {who}")
    if wi.get("config"):
        lines.append("What-if   scheduler configuration from --config")
    return lines


def _across_text(tts: Mapping[str, Any]) -> str:
    n = tts.get("podsWaitingAcrossGaps")
    return f"; {n} of them waited across a recorder gap" if n else ""


def _waiting(n: Mapping[str, Any]) -> str:
    return duration(n.get("waitingSeconds")) + (" (across a recorder gap)" if n.get("waitedAcrossGap") else "")


# --- table -----------------------------------------------------------------------------------------

def _table(report: Mapping[str, Any]) -> str:
    out = _headline(report)
    pre = list(report.get("preemptions") or [])
    follow = report.get("mode") == "follow"
    out.append("")
    if report.get("distribution"):
        out[-1:] = [distribution.headline(report), ""]
        out.extend(distribution.table_lines(report["distribution"]))
        spans = (report["distribution"].get("timeToSchedule") or {}).get("spansRecorderGaps")
        if spans:
            out.append(f"note: the time to schedule above spans {plural(spans, 'recorder gap')} (see the note above): "
                       "waits across it include the recorder's stall")
            out.append("")
        out.append(f"Run {(report.get('run') or {}).get('run')} (median preemptions)")
    shown = report.get("shown")
    scope = _shown_scope(report)
    if not pre:
        out.append("No preemptions" + (f"{scope} ({shown['of']} in all)." if shown else
                                       " in the recording." if follow else " in this replay."))
    else:
        out.append(f"Preemptions{scope} ({len(pre)} of {shown['of']})" if shown else f"Preemptions ({len(pre)})")
        header, rows = preemption_rows(report, MAX_ROWS)
        out.extend(_columns(header, rows, "  "))
        if len(pre) > MAX_ROWS:
            out.append(f"  ... {len(pre) - MAX_ROWS} more (-o json has them all)")
        diffs = [p for p in pre if p.get("differences")]
        if follow and diffs:
            out.append("")
            out.append(f"Where the offline scheduler differs from the cluster ({len(diffs)})")
            for p in diffs[:MAX_ROWS]:
                for d in p["differences"]:
                    out.append(f"  {clock(p.get('time', ''))}  {p.get('preemptor') or '?'}: {d}")
    out.append("")
    out.extend(_summary_lines(report))
    return "\n".join(out) + "\n"


def _shown_scope(report: Mapping[str, Any]) -> str:
    """How -n/--since/--until narrowed the timeline (cli/options.py narrow_timeline); the summary
    stays whole."""
    shown = report.get("shown") or {}
    return (f" touching namespace {shown['namespace']}" if shown.get("namespace") else "") + \
        (f" from {clock(shown['since'])}" if shown.get("since") else "") + \
        (f" until {clock(shown['until'])}" if shown.get("until") else "")


def preemption_rows(report: Mapping[str, Any], limit: int | None = None) -> tuple[list[str], list[list[Any]]]:
    """The timeline's header and rows (the first `limit`): the table's, and --no-headers' rows."""
    pre = list(report.get("preemptions") or [])
    follow = report.get("mode") == "follow"
    by = any(p.get("scheduler") for p in pre)
    header = ["TIME"] + (["BY"] if by else []) + ["PREEMPTOR", "PRIORITY", "NODE", "VICTIMS"] + \
        (["VERDICT"] if follow else []) + ["WHY"]
    rows = []
    for p in pre[:limit]:
        row = [clock(p.get("time", ""))] + ([by_text(p)] if by else []) + \
            [p.get("preemptor") or "?", _prio(p), p.get("node") or "", _victims_cell(victim_labels(p))]
        if follow:
            row.append(_VERDICT_TEXT.get(p.get("verdict") or "", "not explained"))
        row.append(why_text(p))
        rows.append(row)
    return header, rows


# a follow row's verdict (replay/follow.py) as the table's VERDICT column says it
_VERDICT_TEXT = {"agrees": "agrees", "tied": "tied", "undecidable": "UNDECIDABLE", "differs": "DIFFERS",
                 "notExplained": "not explained"}


def _follow_counts(s: Mapping[str, Any]) -> str:
    """The summary's split of the explained preemptions: agree, tied, undecidable, differ."""
    parts = [f"{s.get('agree', 0)} agree"]
    if s.get("tied"):
        parts.append(f"{s['tied']} tied with the real one")
    if s.get("undecidable"):
        parts.append(f"{s['undecidable']} undecidable from the trace")
    parts.append(f"{s.get('differ', 0)} differ")
    return ", ".join(parts)


def _summary_lines(report: Mapping[str, Any]) -> list[str]:
    s = report.get("summary") or {}
    out = ["Summary"]
    if report.get("mode") == "follow":
        out.append(f"  Preemptions in the recording  {s.get('preemptions', 0)} ({plural(s.get('victims', 0), 'victim')}); "
                   f"explained {s.get('explained', 0)}: {_follow_counts(s)}"
                   + (f", {s['notExplained']} could not be explained" if s.get("notExplained") else ""))
    elif s.get("kubeBatch"):
        # two schedulers: each one's own count
        kb = s["kubeBatch"]
        mine = [p for p in report.get("preemptions") or () if p.get("scheduler") != kb.get("schedulerName")]
        victims = sum(1 for p in mine for d in p.get("victimDetails") or ()
                      if not (d.get("alreadyTerminating") or d.get("alreadyEvicting")))
        out.append(f"  kube-scheduler        {s.get('decisions', 0):,} decisions: {s.get('scheduled', 0):,} bound, "
                   f"{plural(len(mine), 'preemption')} ({plural(victims, 'victim')}), "
                   f"{plural(s.get('unschedulableAttempts', 0), 'failed attempt')}")
        by_action: dict[str, int] = {}
        for p in report.get("preemptions") or ():
            if p.get("scheduler") == kb.get("schedulerName"):
                by_action[p.get("action") or "?"] = by_action.get(p.get("action") or "?", 0) + 1
        actions = ", ".join(f"{a} {n}" for a, n in by_action.items())
        out.append(f"  kube-batch            {plural(kb.get('sessions', 0), 'session')}: {kb.get('binds', 0):,} bound, "
                   f"{plural(sum(by_action.values()), 'eviction')}{f' ({actions})' if actions else ''}, "
                   f"{plural(kb.get('evictions', 0), 'victim')}")
    else:
        out.append(f"  Scheduling decisions  {s.get('decisions', 0):,}: {s.get('scheduled', 0):,} bound, "
                   f"{plural(s.get('preemptions', 0), 'preemption')} ({plural(s.get('victims', 0), 'victim')}), "
                   f"{plural(s.get('unschedulableAttempts', 0), 'failed attempt')}")
    if report.get("mode") != "follow":
        tts = s.get("timeToSchedule") or {}
        if tts.get("pods"):
            out.append(f"  Time to schedule      p50 {duration(tts.get('p50Seconds'))}, p99 "
                       f"{duration(tts.get('p99Seconds'))}, max {duration(tts.get('maxSeconds'))} "
                       f"({plural(tts['pods'], 'pod')} bound{_across_text(tts)})")
        out.extend(_leave_and_async_lines(s))
    if s.get("byPriorityClass"):
        out.append("")
        out.extend(_columns(["PREEMPTOR CLASS", "PREEMPTIONS", "VICTIMS"],
                            [[r["priorityClass"], r["preemptions"], r["victims"]] for r in s["byPriorityClass"]], "  "))
    if s.get("victimsByPriorityClass"):
        out.append("")
        out.extend(_columns(["VICTIM CLASS", "PODS EVICTED"],
                            [[r["priorityClass"], r["victims"]] for r in s["victimsByPriorityClass"]], "  "))
    if s.get("byNamespace"):
        out.append("")
        out.extend(_columns(["NAMESPACE", "PREEMPTED OTHERS", "PODS EVICTED"],
                            [[r["namespace"], r["preemptions"], r["podsEvicted"]] for r in s["byNamespace"]], "  "))
    if report.get("mode") != "follow":
        never = s.get("neverScheduled") or []
        out.append("")
        if not s.get("podsNeverScheduled"):
            out.append("  Every pod got a node by the end of the trace.")
        else:
            out.append(f"  Pods never scheduled ({s['podsNeverScheduled']})")
            rows = [[n["pod"], _prio(n), _waiting(n), n.get("attempts", 0),
                     n.get("nominatedNode") or "-", short_reason(n, "lastMessage") or "(not tried yet)"]
                    for n in never[:MAX_NEVER_SCHEDULED_SHOWN]]
            out.extend(_columns(["POD", "PRIORITY", "WAITING", "ATTEMPTS", "NOMINATED", "LAST REASON"], rows, "    "))
            if s["podsNeverScheduled"] > MAX_NEVER_SCHEDULED_SHOWN:
                out.append(f"    ... {s['podsNeverScheduled'] - MAX_NEVER_SCHEDULED_SHOWN} more")
    return out


# which figure said when the replay's victims leave (replay/controllers.py LeaveTimes), by level
_LEAVE_LABELS = {"workload": "their workload's measured time", "namespace": "their namespace's measured time",
                 "cluster": "the cluster's measured time", "gracePeriod": "their grace period"}


def _leave_and_async_lines(s: Mapping[str, Any]) -> list[str]:
    """How many victims left after each figure (summary.victimsLeave), and asynchronous
    preemption's API call time with the decisions made before a preemptor's last delete call
    (summary.asyncPreemption); nothing when the replay preempted no one."""
    if not s.get("preemptions"):
        return []
    out = []
    used = [(_LEAVE_LABELS.get(k, k), n) for k, n in (s.get("victimsLeave") or {}).items() if n]
    if used:
        # one figure a line, with how many victims it timed ("their workload's time 14" read as a
        # duration), the others under the first as the summary's values stand: an 80-column line
        for i, (label, n) in enumerate(used):
            out.append(("  Victims leave after   " if i == 0 else " " * 24) + f"{label} ({plural(n, 'victim')})")
    ap = s.get("asyncPreemption")
    if ap:
        ms = round(float(ap.get("apiLatencySeconds") or 0) * 1000, 1)
        drawn = ap.get("apiLatencyDrawnFrom")
        before = f"{plural(ap.get('decisionsBeforeDeleteCalls', 0), 'decision')} before the last delete"
        if drawn:
            # two lines: one would not fit 80 columns
            out.append(f"  Async preemption      each API call drawn from the trace's {drawn} (median {ms:g} ms);")
            out.append(f"                        {before}")
        else:
            out.append(f"  Async preemption      {ms:g} ms per API call; {before}")
    return out


# --- markdown --------------------------------------------------------------------------------------

def _markdown(report: Mapping[str, Any]) -> str:
    head = _headline(report)
    if report.get("distribution"):
        head.append(distribution.headline(report))
    out = [f"# {head[0]}", ""] + [f"- {h}" if h.startswith("note:") else
                                  f"- {h.split(None, 1)[0]}: {h.split(None, 1)[1].strip()}" for h in head[1:]]
    if report.get("distribution"):
        out += [""] + distribution.markdown_lines(report["distribution"])
        out.append(f"## Run {(report.get('run') or {}).get('run')} (median preemptions)")
    pre = list(report.get("preemptions") or [])
    follow = report.get("mode") == "follow"
    shown = report.get("shown")
    out += ["", f"## Preemptions{_shown_scope(report)} ({len(pre)} of {shown['of']})" if shown else
            f"## Preemptions ({len(pre)})", ""]
    if pre:
        by = any(p.get("scheduler") for p in pre)
        header = ["Time"] + (["By"] if by else []) + ["Preemptor", "Priority", "Node", "Victims"] + \
            (["Verdict"] if follow else []) + ["Why"]
        rows = []
        for p in pre:
            row = [p.get("time")] + ([by_text(p)] if by else []) + \
                [f"`{p.get('preemptor') or '?'}`", _prio(p), f"`{p.get('node')}`",
                 ", ".join(f"`{v}`" for v in victim_labels(p))]
            if follow:
                v = p.get("verdict") or ""
                verdict = _VERDICT_TEXT.get(v, "not explained") if v in ("agrees", "tied") else \
                    f"**{_VERDICT_TEXT.get(v, 'not explained').lower()}**" if v in ("undecidable", "differs") \
                    else "not explained"
                if p.get("differences"):
                    verdict += ": " + "; ".join(p["differences"])
                row.append(verdict)
            row.append(why_text(p))
            rows.append(row)
        out += _md_table(header, rows)
    else:
        out.append("None.")
    out += ["", "## Summary", ""]
    s = report.get("summary") or {}
    for line in _summary_lines(report)[1:3 if s.get("kubeBatch") else 2]:
        out.append(line.strip())
    if not follow:
        tts = s.get("timeToSchedule") or {}
        if tts.get("pods"):
            out.append("")
            out.append(f"Time to schedule: p50 {duration(tts.get('p50Seconds'))}, p99 {duration(tts.get('p99Seconds'))}, "
                       f"max {duration(tts.get('maxSeconds'))} ({plural(tts['pods'], 'pod')} bound{_across_text(tts)})")
    if s.get("byPriorityClass"):
        out += ["", "### Preemptions by the preemptor's PriorityClass", ""]
        out += _md_table(["PriorityClass", "Preemptions", "Victims"],
                         [[r["priorityClass"], r["preemptions"], r["victims"]] for r in s["byPriorityClass"]])
    if s.get("victimsByPriorityClass"):
        out += ["", "### Victims by their PriorityClass", ""]
        out += _md_table(["PriorityClass", "Pods evicted"], [[r["priorityClass"], r["victims"]] for r in s["victimsByPriorityClass"]])
    if s.get("byNamespace"):
        out += ["", "### By namespace", ""]
        out += _md_table(["Namespace", "Preempted others", "Pods evicted"],
                         [[r["namespace"], r["preemptions"], r["podsEvicted"]] for r in s["byNamespace"]])
    if not follow:
        never = s.get("neverScheduled") or []
        out += ["", f"### Pods never scheduled ({s.get('podsNeverScheduled', 0)})", ""]
        if never:
            out += _md_table(["Pod", "Priority", "Waiting", "Attempts", "Last reason"],
                             [[f"`{n['pod']}`", _prio(n), _waiting(n), n.get("attempts", 0),
                               short_reason(n, "lastMessage") or "(not tried yet)"] for n in never])
        else:
            out.append("Every pod got a node by the end of the trace.")
    return "\n".join(out) + "\n"
