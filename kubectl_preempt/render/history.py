"""-o table / wide for `history`: one line per victim, as `kubectl get` prints (upper-case
headers, columns three spaces apart, <none> for an empty cell); json and yaml are the document;
`name` and `jsonpath=` as kubectl's (render/output.py). On a terminal the table fits its width
(render/width.py): the names (victim, preemptor, node) stay whole; `wide`, `--no-headers`, pipes
and files are never cut."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from . import width

FORMATS = ("table", "wide", "json", "yaml")
NONE = "<none>"
# kubectl's printers: text/tabwriter with a padding of 3 (cli-runtime printers/tabwriter.go)
PAD = 3


def _cells(rows: Iterable[Sequence[str]], header: Sequence[str] | None) -> list[str]:
    """The table's lines (render/width.py `layout`: on a terminal, TIME, VICTIM, PREEMPTOR and NODE
    stay whole, the other columns give way; empty columns are left out of a table with headers)."""
    rows = [list(r) for r in rows]
    if not rows and not header:
        return []
    widths, table = width.layout(header, rows, gap=PAD)
    return [width.table_line((" " * PAD).join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
            for lines in table for cells in lines]


def render_history(doc: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """The text for `-o fmt`: `name` lists the victims (`pod/NAME`, as kubectl get pods -o name);
    `no_headers`: the rows alone, never cut (a script reads them)."""
    from .output import render_habit

    habit = render_habit(fmt, document=lambda: doc, keys=lambda: [r.get("victim") for r in doc.get("items") or ()])
    if habit is not None:
        return habit
    if fmt == "json":
        from .json import dumps

        return dumps(doc)
    if fmt == "yaml":
        from .yaml import dumps as yaml_dumps

        return yaml_dumps(doc)
    if fmt == "table" and not no_headers:
        return width.finish(render_history_table(doc))
    with width.unlimited(wide=fmt == "wide"):
        return render_history_table(doc, wide=fmt == "wide", headers=not no_headers)


def _who(name: Any, uid: Any, scheduler: Any) -> str:
    if name:
        return str(name)
    if uid:
        return f"<uid {uid}>"
    return NONE if scheduler == "default-scheduler" else f"<{scheduler}>"


def _found(row: Mapping[str, Any]) -> str:
    f = str(row.get("found") or "")
    if row.get("scheduler") not in (None, "", "default-scheduler"):
        f += f" ({row['scheduler']}: {row.get('reason')})"
    if "nomination" in (row.get("sources") or ()):
        f += "+nomination"
    return f


def _remarks(row: Mapping[str, Any]) -> str:
    parts = [f"CONFLICT: {c}" for c in row.get("conflicts") or ()] + list(row.get("notes") or ())
    return "; ".join(parts)


def render_history_table(doc: Mapping[str, Any], *, wide: bool = False, headers: bool = True) -> str:
    """The rows as a table, ending in a newline; empty when there are none (the command says so
    on stderr, as kubectl's "No resources found")."""
    items = doc.get("items") or []
    if not items:
        return ""
    header = ["TIME", "VICTIM", "CLASS", "PREEMPTOR", "CLASS", "NODE", "FOUND"]
    if wide:
        header += ["VICTIM PRIORITY", "PREEMPTOR PRIORITY", "PREEMPTOR UID", "PREEMPTOR NOW", "SOURCES"]
    header.append("NOTES")
    rows = []
    day = _one_day(items) if headers and not wide and width.limit() is not None else None
    for r in items:
        victim = r.get("victim") or (f"<podgroup {r['podGroup']}>" if r.get("podGroup") else NONE)
        cells = [_clock(r.get("time"), day), victim, r.get("victimClass") or NONE,
                 _who(r.get("preemptor"), r.get("preemptorUID"), r.get("scheduler")),
                 r.get("preemptorClass") or NONE, r.get("node") or NONE, _found(r)]
        if wide:
            cells += [_num(r.get("victimPriority")), _num(r.get("preemptorPriority")), r.get("preemptorUID") or NONE,
                      r.get("preemptorState") or NONE, ", ".join(r.get("sources") or ()) or NONE]
        cells.append(_remarks(r))
        rows.append(cells)
    if day is not None:
        with width.unlimited():
            whole = max(len(line) for line in _cells(rows, header))
        if whole > (width.limit() or whole):
            # on a terminal too narrow for the whole table: the rows' one date goes (named on the
            # last line), their times stay whole; then the widest columns give way
            rows = [[_clock(r[0], day, cut=True)] + r[1:] for r in rows]
            width.note_cut(f"TIME (the date, {day}, UTC)")
    return "\n".join(_cells(rows, header if headers else None)) + "\n"


def _one_day(items: Sequence[Mapping[str, Any]]) -> str | None:
    """The UTC date every row's time falls on, if they share one (a terminal's table may drop it)."""
    days = {str(r.get("time") or "")[:10] for r in items}
    day = days.pop() if len(days) == 1 else ""
    return day if len(day) == 10 and all(str(r.get("time") or "")[10:11] == "T" for r in items) else None


def _clock(time: Any, day: str | None, *, cut: bool = False) -> str:
    text = str(time) if time else NONE
    if cut and day is not None and text.startswith(day + "T"):
        return text[len(day) + 1:].rstrip("Z")
    return text


def _num(v: Any) -> str:
    return NONE if v is None else str(v)


def summary_line(doc: Mapping[str, Any]) -> str:
    """One line for stderr: how many victims, of how many preemptions, over which window."""
    items = doc.get("items") or []
    pre = doc.get("preemptions") or []
    w = doc.get("window") or {}
    span = f" since {w['from']}" if w.get("from") else ""
    where = f' in namespace "{doc["namespace"]}"' if doc.get("namespace") else ""
    if not items:
        return f"No preemptions found{where}{span}."
    conflicts = sum(1 for r in items if r.get("conflicts"))
    v = len(items)
    text = (f"{v} victim{'s' if v != 1 else ''} of {len(pre)} preemption{'s' if len(pre) != 1 else ''}"
            f"{where}{span}")
    if conflicts:
        text += f"; {conflicts} row{'s' if conflicts != 1 else ''} where the sources disagree"
    return text + "."


def whole_pod_groups(doc: Mapping[str, Any]) -> list[str]:
    """A line per PodGroup evicted whole for one preemptor (workload-aware preemption of a group of
    disruptionMode PodGroup), with the preemption's other victims."""
    out = []
    for p in doc.get("preemptions") or []:
        for g in p.get("wholePodGroups") or ():
            mine = p["victimsByPodGroup"][g]
            others = len(p.get("victims") or ()) - len(mine)
            out.append(f"PodGroup {g} evicted whole ({len(mine)} pods) by {p.get('preemptor')}, beside "
                       f"{others} other victim{'s' if others != 1 else ''} of that preemption")
    return out
