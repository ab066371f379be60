"""`plan` and `plan --max` reports as text (table, wide) or data (json, yaml).

A plan's table answers in the order a planner asks: did my replicas get placed, whom did that
evict and why there, who pays (per class, namespace, workload), and what is left pending and why.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import UsageError, quote
from . import width
from .replay import scheduler_version, victim_labels, why_text
from .wording import clock, columns, plural, short_reason

PLAN_FORMATS = ("table", "wide", "json", "yaml")
MAX_ROWS = 200
MAX_PODS_SHOWN = 20


def render_plan(report: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """The text for `-o fmt`. On a terminal `table` fits its width (render/width.py); `wide` is
    never cut. `name` and `jsonpath=` as kubectl's (render/output.py): `name` lists the pods the
    plan creates (each workload's new pods, placed or pending; with --max, the copies tried);
    `no_headers`: one row a pod of that list."""
    from .output import no_headers_rows, render_habit

    habit = render_habit(fmt, document=lambda: _data(report), keys=lambda: pod_keys(report))
    if habit is not None:
        return habit
    if fmt in ("table", "wide") and no_headers:
        return no_headers_rows(pod_rows(report))
    if fmt == "table":
        return width.finish(_table(report, wide=False))
    with width.unlimited(wide=fmt == "wide"):
        if fmt == "wide":
            return _table(report, wide=True)
        if fmt == "json":
            from .json import dumps

            return dumps(_data(report))
        if fmt == "yaml":
            import orjson

            from .json import dumps as json_dumps
            from .yaml import dumps as yaml_dumps

            return yaml_dumps(orjson.loads(json_dumps(_data(report))))
    # a usage error, not a crash, should an unknown format reach the renderer from Python
    raise UsageError(f"{quote(fmt)} is not one of {', '.join(PLAN_FORMATS)}", field="--output")


def _table(report: Mapping[str, Any], *, wide: bool) -> str:
    if report.get("kind") == "PlanMaxReport":
        return "\n".join(_max_table(report, wide)) + "\n"
    return "\n".join(_plan_table(report, wide)) + "\n"


def _new_pods(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The pods the plan created, workload after workload (an OrderedReady StatefulSet's pods
    that were never created are not among them)."""
    return [p for w in report.get("workloads") or () for p in w.get("pods") or ()
            if p.get("status") != "NotCreated"]


def pod_keys(report: Mapping[str, Any]) -> list[str]:
    """The pods `-o name` lists: a plan's new pods; --max's copies, in the order they arrived."""
    if report.get("kind") == "PlanMaxReport":
        return [c["pod"] for c in report.get("copies") or ()]
    return [p["pod"] for p in _new_pods(report)]


def pod_rows(report: Mapping[str, Any]) -> list[list[Any]]:
    """--no-headers: one row a pod of `pod_keys`, every one (a script reads them), `-` for an
    empty cell so that columns split on blanks. A plan's: POD, STATUS, NODE (or the node it is
    nominated to), REASON (the last reason it did not fit, or why it is gone). --max's: COPY,
    ARRIVED, FIRST CYCLE (its first scheduling cycle's outcome), NODE."""
    if report.get("kind") == "PlanMaxReport":
        return [[c["pod"], c.get("arrived") or "-", c.get("firstOutcome") or "-", c.get("node") or "-"]
                for c in report.get("copies") or ()]
    rows = []
    for p in _new_pods(report):
        why = short_reason(p, "lastMessage") if p.get("lastMessage") else (p.get("note") or "")
        rows.append([p["pod"], p["status"], p.get("node") or p.get("nominatedNode") or "-", why or "-"])
    return rows


def _data(report: Mapping[str, Any]) -> Mapping[str, Any]:
    # the per-pod activity is what the HTML page draws; as data it repeats the rest
    return {k: v for k, v in report.items() if k != "activity"}


def _runs_line(report: Mapping[str, Any]) -> list[str]:
    run = report.get("run")
    if not run:
        return []
    return [f"Runs       {run['of']}, each with its own random choices; shown: run {run['run']} (the median number "
            "of preemptions)"]


def _plan_table(report: Mapping[str, Any], wide: bool) -> list[str]:
    until = report.get("until") or {}
    snap = report.get("snapshot") or {}
    lines = [f"Plan       against {snap.get('source') or 'the snapshot'} at {snap.get('time')} "
             f"(kube-scheduler {scheduler_version(report)})",
             f"Ran        {until.get('virtualSeconds')}s of virtual time, "
             + ("until nothing changed" if until.get("settled") else
                ("the --duration given" if until.get("rule", "").startswith("--duration") else
                 "up to the 1h limit (still changing)"))]
    lines += _runs_line(report)
    lines.append("")
    rows = []
    for w in report.get("workloads") or ():
        asked = w["replicas"]
        extra = f"scale down to {w['scaleDownTo']}" if w.get("scaleDownTo") is not None else ""
        if w.get("notCreated"):
            extra = f"{w['notCreated']} not created (OrderedReady: the one before never ran)"
        rows.append([w["workload"], w["kind"], asked, w["placed"], w["pending"], extra])
    lines += columns(["WORKLOAD", "KIND", "NEW PODS", "PLACED", "PENDING", ""], rows)
    if wide:
        for w in report.get("workloads") or ():
            lines.append("")
            lines.append(f"Pods of {w['workload']}")
            prow = []
            for p in w["pods"][: MAX_ROWS]:
                where = p.get("node") or p.get("nominatedNode") or ""
                prow.append([p["pod"], p["status"], where, short_reason(p, "lastMessage") if p.get("lastMessage") else
                             (p.get("note") or "")])
            lines += columns(["POD", "STATUS", "NODE", "WHY"], prow, "  ")
    lines.append("")
    pre = report.get("preemptions") or []
    if not pre:
        lines.append("Preemptions  none")
    else:
        lines.append(f"Preemptions ({len(pre)})")
        rows = []
        for p in pre[:MAX_ROWS]:
            victims = victim_labels(p)
            shown = victims if wide else victims[:3]
            more = len(victims) - len(shown)
            rows.append([clock(p.get("time")), p["preemptor"], p.get("node"),
                         shown + ([f"+{more}"] if more else []), why_text(p)])
        lines += columns(["TIME", "PREEMPTOR", "NODE", "VICTIMS", "WHY THIS NODE"], rows, "  ")
        if len(pre) > MAX_ROWS:
            lines.append(f"  ... {len(pre) - MAX_ROWS} more (-o json has all)")
    v = report.get("victims") or {}
    lines.append("")
    lines.append(f"Victims    {v.get('total', 0)}")
    for title, key, name in (("by class", "byPriorityClass", "priorityClass"), ("by namespace", "byNamespace", "namespace"),
                             ("by workload", "byWorkload", "workload")):
        items = v.get(key) or []
        if items:
            lines.append(f"  {title:<13}" + ", ".join(f"{i[name]} {i['victims']}" for i in items[:12])
                         + (f" (+{len(items) - 12} more)" if len(items) > 12 else ""))
    pending = report.get("pending") or []
    lines.append("")
    if not pending:
        lines.append("Pending    none")
    else:
        lines.append(f"Pending    {plural(len(pending), 'pod')} left pending")
        rows = [[p["pod"], p.get("priority"), p.get("nominatedNode") or "", short_reason(p, "lastMessage")]
                for p in pending[: MAX_ROWS if wide else MAX_PODS_SHOWN]]
        lines += columns(["POD", "PRIORITY", "NOMINATED", "LAST REASON"], rows, "  ")
        if wide:
            for p in pending[:MAX_ROWS]:
                if p.get("lastMessage"):
                    lines.append(f"  {p['pod']}: {p['lastMessage']}")
        elif len(pending) > MAX_PODS_SHOWN:
            lines.append(f"  ... {len(pending) - MAX_PODS_SHOWN} more (-o wide or -o json)")
    dist = report.get("distribution")
    if dist:
        lines.append("")
        lines.append("Over the runs (p5 / p50 / p95)")
        for w in dist.get("workloads") or ():
            pl, pe = w["placed"], w["pending"]
            lines.append(f"  {w['workload']}: placed {pl['p5']} / {pl['p50']} / {pl['p95']}, "
                         f"pending {pe['p5']} / {pe['p50']} / {pe['p95']}")
        pre_stat = dist.get("preemptions")
        if isinstance(pre_stat, Mapping):
            lines.append(f"  preemptions: {pre_stat.get('p5')} / {pre_stat.get('p50')} / {pre_stat.get('p95')}")
    return lines


def _max_table(report: Mapping[str, Any], wide: bool) -> list[str]:
    snap = report.get("snapshot") or {}
    t = report.get("template") or {}
    wo = report.get("withoutPreemption") or {}
    wi = report.get("withPreemption") or {}
    lines = [f"Copies of  {t.get('pod')}   priority {t.get('priority')}"
             + (f" ({t['priorityClassName']})" if t.get("priorityClassName") else "")
             + f"   preemptionPolicy {t.get('preemptionPolicy')}",
             f"Against    {snap.get('source') or 'the snapshot'} at {snap.get('time')} "
             f"(kube-scheduler {scheduler_version(report)}), once its own pending pods settled",
             "",
             f"Fit on free room (no preemption)   {wo.get('count')}",
             f"Fit counting preemption            {wi.get('count')}   "
             f"(+{report.get('extraCopies')} by preempting; {plural(report.get('preemptions') or 0, 'preemption')}, "
             f"{plural((report.get('victims') or {}).get('total', 0), 'victim')})"]
    v = report.get("victims") or {}
    if v.get("total"):
        lines.append("")
        lines.append("Victims of the extra copies")
        for title, key, name in (("by class", "byPriorityClass", "priorityClass"), ("by namespace", "byNamespace", "namespace")):
            items = v.get(key) or []
            lines.append(f"  {title:<13}" + ", ".join(f"{i[name]} {i['victims']}" for i in items))
        if wide:
            lines.append("  pods         " + ", ".join(v.get("pods") or []))
    lines.append("")
    stop = wo.get("stoppedAt")
    if stop:
        lines.append(f"Free room ends at {stop['pod']} ({'needs preemption' if stop['outcome'] == 'Preempted' else 'does not fit'}):")
        lines.append(f"  {stop.get('message')}")
    s = wi.get("stoppedAt") or {}
    if s.get("reason") == "Unschedulable":
        lines.append(f"Stops at   {s['pod']}: cannot be placed even by preempting")
        lines.append(f"  {s.get('message')}")
    else:
        lines.append(f"Stops      {s.get('message')}")
    if wide:
        lines.append("")
        rows = [[c["pod"], c["arrived"], c.get("firstOutcome") or "", c.get("node") or ""]
                for c in (report.get("copies") or [])[:MAX_ROWS]]
        lines += columns(["COPY", "ARRIVED", "FIRST CYCLE", "NODE"], rows)
    return lines

