"""-o table for kube-batch: one session action by action (`kubectl preempt session`), and the story
of a pod kube-batch schedules (`kubectl preempt explain`). Formats what batch_session() returns."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ..model.quantity import format_bytes
from . import width
from .table import columns


def _num(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.2f}".rstrip("0").rstrip(".")


def _mem(b: float) -> str:
    if b == int(b):
        return format_bytes(int(b)) if b else "0"
    for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if b >= size:
            return f"{b / size:.2f}".rstrip("0").rstrip(".") + suffix
    return f"{b:.0f}"


def resources(r: Mapping[str, float] | None) -> str:
    """cpu in cores, memory in binary units, other resources as counts."""
    if not r:
        return "-"
    parts = []
    for name, v in r.items():
        parts.append(f"{name} {_mem(v) if name == 'memory' else _num(v)}")
    return ", ".join(parts)


def _for(ev: Mapping[str, Any]) -> str:
    who = ev.get("preemptor") or "-"
    if ev.get("reclaimingQueue"):
        return f"{who} (queue {ev['reclaimingQueue']})"
    if ev.get("preemptorJob"):
        return f"{who} (job {ev['preemptorJob']})"
    return who


SESSION_FORMATS = ("table", "wide", "json", "yaml")
EVICTION_HEADER = ["ACTION", "VICTIM", "JOB", "QUEUE", "NODE", "FREES", "FOR", "ELIGIBLE BY"]


def eviction_rows(result: Mapping[str, Any]) -> list[list[str]]:
    """One row an eviction: the session table's, and what --no-headers prints."""
    return [[e["action"], e["task"], e["job"], e.get("queue") or "-", e.get("node") or "-",
             resources(e.get("frees")), _for(e), ", ".join(e.get("votes") or []) or "-"]
            for e in result.get("evictions") or []]


def render_session(result: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """`kubectl preempt session -o fmt`: the table (fitted to a terminal; `wide` never cut), the
    document (json, yaml, jsonpath=), or the evicted pods (`name`, as kubectl prints them)."""
    return _render(result, fmt, no_headers, keys=lambda: [e.get("task") for e in result.get("evictions") or ()],
                   rows=lambda: eviction_rows(result), table=lambda: render_session_table(result))


def _render(doc: Mapping[str, Any], fmt: str, no_headers: bool, *, keys: Callable[[], Iterable[str]],
            rows: Callable[[], list[list[Any]]], table: Callable[[], str]) -> str:
    """A session command's document in `fmt`: `keys` the pods `name` prints, `rows` the table's
    list (--no-headers), `table` the table."""
    from .json import dumps as json_dumps
    from .output import no_headers_rows, render_habit
    from .yaml import dumps as yaml_dumps

    habit = render_habit(fmt, document=lambda: doc, keys=keys)
    if habit is not None:
        return habit
    if fmt == "json":
        return json_dumps(doc)
    if fmt == "yaml":
        return yaml_dumps(doc)
    if no_headers:
        return no_headers_rows(rows())
    if fmt == "wide":
        with width.unlimited(wide=True):
            return table()
    return table()


def render_session_table(result: Mapping[str, Any]) -> str:
    return width.finish(_session_table(result))


def _session_table(result: Mapping[str, Any]) -> str:
    out: list[str] = []
    out.append(f"Session    actions: {', '.join(result.get('actions') or [])}")
    tiers = " | ".join(", ".join(t) for t in result.get("tiers") or [])
    out.append(f"           tiers: {tiers}")
    out.append("")
    evictions = result.get("evictions") or []
    if evictions:
        out.extend(columns([f"Evictions ({len(evictions)})"], []))
        out.extend(columns(["  " + EVICTION_HEADER[0]] + EVICTION_HEADER[1:], eviction_rows(result), indent="  "))
    else:
        out.append("Evictions  none")
    out.append("")
    placed = [(k, "bound", n) for k, n in (result.get("binds") or {}).items()]
    placed += [(k, "pipelined", n) for k, n in (result.get("pipelined") or {}).items()]
    if placed:
        out.extend(columns([f"Placements ({len(placed)})"], []))
        out.extend(columns(["  TASK", "HOW", "NODE"], [[k, how, n] for k, how, n in placed], indent="  "))
    else:
        out.append("Placements none")
    pending_jobs = []
    for uid, j in (result.get("jobs") or {}).items():
        pg = (result.get("podGroups") or {}).get(j.get("podGroup") or "")
        waiting = [k for k in j["tasks"] if k in (result.get("podConditions") or {})]
        if not waiting:
            continue
        reason = next((c["message"] for c in (pg or {}).get("conditions") or () if c.get("type") == "Unschedulable"),
                      None) or j.get("fitError")
        pending_jobs.append([uid, j["queue"], j["minMember"], j["readyTasks"], len(waiting), reason])
    out.append("")
    if pending_jobs:
        out.extend(columns([f"Jobs left pending ({len(pending_jobs)})"], []))
        out.extend(columns(["  JOB", "QUEUE", "MIN", "READY", "WAITING", "WHY"], pending_jobs, indent="  "))
    else:
        out.append("Jobs left pending  none")
    out.append("")
    queues = result.get("queues") or {}
    rows = []
    for name, q in queues.items():
        rows.append([name, q["weight"], resources(q.get("deserved")), resources(q.get("allocated")),
                     _num(round(q["share"], 2)) if "share" in q else "-",
                     ("yes" if q.get("overused") else "no") if "overused" in q else "-"])
    out.extend(columns(["Queues", "WEIGHT", "DESERVED", "ALLOCATED", "SHARE", "OVERUSED"], rows))
    return "\n".join(out).rstrip() + "\n"


def render_batch_explain_table(docs: Sequence[Mapping[str, Any]], *, wide: bool = False) -> str:
    if wide:
        with width.unlimited(wide=True):
            return _batch_explain_table(docs)
    return width.finish(_batch_explain_table(docs))


def _batch_explain_table(docs: Sequence[Mapping[str, Any]]) -> str:
    blocks = []
    for d in docs:
        out: list[str] = []
        head = f"Pod        {d['pod']}   scheduler {d['scheduler']}"
        if d.get("job"):
            head += f"   job {d['job']}   queue {d['queue']}"
        out.append(head)
        outcome = d["outcome"]
        line = {"Evicted": "EVICTED", "Bound": "BOUND", "Pipelined": "PIPELINED", "Pending": "PENDING"}.get(
            outcome, outcome.upper())
        if d.get("node") and outcome in ("Bound", "Pipelined"):
            line += f" on {d['node']}" if outcome == "Bound" else \
                f" on {d['node']}: waits there for the resources evictions release"
        elif d.get("node") and outcome == "Evicted":
            line += f" from {d['node']}"
        out.append(f"Outcome    {line}")
        ev = d.get("eviction")
        if ev:
            by = ev["action"]
            if ev.get("reclaimingQueue"):
                why = (f"{by}: queue {ev['reclaimingQueue']} takes back its deserved share for "
                       f"{ev.get('preemptor')}")
            elif ev.get("preemptorJob") == d.get("job"):
                why = f"{by}: for {ev.get('preemptor')}, a pending task of its own job"
            else:
                why = f"{by}: for {ev.get('preemptor')} of job {ev.get('preemptorJob')}, in the same queue"
            out.append(f"Why        {why}")
            out.append(f"           eligible by {', '.join(ev.get('votes') or []) or '-'}; frees "
                       f"{resources(ev.get('frees'))}")
        if d.get("victims"):
            out.append("")
            out.extend(columns([f"Evicted for it ({len(d['victims'])})", "ACTION", "JOB", "NODE", "FREES",
                                "ELIGIBLE BY"],
                               [[v["task"], v["action"], v["job"], v.get("node") or "-", resources(v.get("frees")),
                                 ", ".join(v.get("votes") or []) or "-"] for v in d["victims"]]))
            out.append("")
        if d.get("message"):
            out.append(f"Condition  PodScheduled=False {d['message']}")
        js = d.get("jobState")
        if js:
            gang = f"minMember {js['minMember']}, {js['readyTasks']} ready"
            if "phase" in js:
                gang += f", PodGroup {js['phase']}"
            out.append(f"Gang       {gang}")
            for c in js.get("conditions") or ():
                out.append(f"           {c['type']}={c['status']} {c['reason']}: {c['message']}")
        if d.get("tasks"):
            out.append("")
            out.extend(columns(["Tasks of the job", "OUTCOME", "NODE"],
                               [[k, t["outcome"], t.get("node") or "-"] for k, t in d["tasks"].items()]))
        if d.get("nodeReasons"):
            out.append("")
            out.extend(columns(["Nodes", "WHY NOT"], [[n, r] for n, r in d["nodeReasons"].items()]))
        qs = d.get("queueState")
        if qs and "share" in qs:
            out.append("")
            out.append(f"Queue      {d['queue']}: weight {qs['weight']}, deserved {resources(qs.get('deserved'))}, "
                       f"allocated {resources(qs.get('allocated'))}, share {_num(round(qs['share'], 2))}")
        if outcome == "NotInSession":
            out.append(f"Why        {d['message']}")
        blocks.append("\n".join(out))
    return "\n\n".join(blocks) + "\n"


def _placements(o: Mapping[str, Any]) -> list[str] | str:
    """An outcome's placements, task and node each (a list cell: one a line where the terminal has
    no room for them on one, never cut), "-" for none."""
    parts = [f"{k} -> {n}" for k, n in (o.get("binds") or {}).items()]
    parts += [f"{k} => {n} (pipelined)" for k, n in (o.get("pipelined") or {}).items()]
    return parts or "-"


MAX_OUTCOMES_SHOWN = 20


def render_session_runs(dist: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """`kubectl preempt session --runs N -o fmt`: as render_session, for the distribution of the
    runs. The table's list is the outcomes (--no-headers: their rows); `name` prints each pod
    evicted in some run, the most frequent outcome's first, once."""
    return _render(dist, fmt, no_headers,
                   keys=lambda: dict.fromkeys(t for o in dist.get("outcomes") or () for t in o.get("evicts") or ()),
                   rows=lambda: _outcome_rows(dist.get("outcomes") or []), table=lambda: render_session_runs_table(dist))


def _outcome_rows(outcomes: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """The runs table's rows: share, runs, first seed, the tasks evicted, the placements."""
    # the evicted tasks and the placements name tasks and nodes: list cells, never cut
    return [[f"{100 * o['share']:.1f}%", str(o["runs"]), str(o["firstSeed"]),
             list(o.get("evicts") or []) or "-", _placements(o)] for o in outcomes]


def render_session_runs_table(dist: Mapping[str, Any]) -> str:
    """`session --runs N`: each distinct outcome with its share of the runs (most frequent first),
    then the evictions per job and per queue over the runs."""
    runs = dist["runs"]
    first, last = dist["seeds"]
    outcomes = dist.get("outcomes") or []
    out = [f"Runs       {runs} sessions (seeds {first}..{last}), each one run kube-batch can make: "
           f"{len(outcomes)} distinct outcome{'s' if len(outcomes) != 1 else ''}", ""]
    rows = _outcome_rows(outcomes[:MAX_OUTCOMES_SHOWN])
    out.extend(columns(["SHARE", "RUNS", "SEED", "EVICTS", "PLACEMENTS (-> bound, => pipelined)"], rows))
    if len(outcomes) > MAX_OUTCOMES_SHOWN:
        rest = outcomes[MAX_OUTCOMES_SHOWN:]
        out.append(f"  ... {len(rest)} more outcomes, {100 * sum(o['share'] for o in rest):.1f}% of the runs "
                   "(-o json has them all)")
    out.append("")
    ev = dist.get("evictions") or {}
    stat_header = ["P5", "P50", "P95", "MIN", "MAX"]

    def stat_row(label: str, st: Mapping[str, Any]) -> list[str]:
        return [label] + [f"{st[k]:g}" for k in ("p5", "p50", "p95", "min", "max")]

    pct = dist.get("percentiles", "nearest-rank")
    if not ev.get("jobs"):
        out.append("Evictions  none in any run")
    else:
        out.append(f"Evictions per run ({pct} percentiles over the runs)")
        rows = [stat_row("  all", ev["total"])]
        rows += [stat_row(f"  job {k}", v) for k, v in ev["jobs"].items()]
        rows += [stat_row(f"  queue {k}", v) for k, v in ev["queues"].items()]
        out.extend(columns(["  TASKS EVICTED"] + stat_header, rows))
    out.append("(one session with its binds, evictions and reasons: --seed N without --runs)")
    # on a terminal, its prose wrapped and what was fitted named, as every other table's
    return width.finish("\n".join(out) + "\n")
