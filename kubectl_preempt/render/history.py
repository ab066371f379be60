"""-o table / wide for `history`: one line per victim, as `kubectl get` prints (upper-case
headers, columns three spaces apart, <none> for an empty cell); json and yaml are the document."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

FORMATS = ("table", "wide", "json", "yaml")
NONE = "<none>"
# kubectl's printers: text/tabwriter with a padding of 3 (cli-runtime printers/tabwriter.go)
PAD = 3


def _cells(rows: Iterable[Sequence[str]], header: Sequence[str] | None) -> list[str]:
    rows = [list(r) for r in rows]
    all_rows = ([list(header)] if header else []) + rows
    if not all_rows:
        return []
    widths = [max(len(r[c]) for r in all_rows) for c in range(len(all_rows[0]))]
    return [(" " * PAD).join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in all_rows]


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
    for r in items:
        victim = r.get("victim") or (f"<podgroup {r['podGroup']}>" if r.get("podGroup") else NONE)
        cells = [r.get("time") or NONE, victim, r.get("victimClass") or NONE,
                 _who(r.get("preemptor"), r.get("preemptorUID"), r.get("scheduler")),
                 r.get("preemptorClass") or NONE, r.get("node") or NONE, _found(r)]
        if wide:
            cells += [_num(r.get("victimPriority")), _num(r.get("preemptorPriority")), r.get("preemptorUID") or NONE,
                      r.get("preemptorState") or NONE, ", ".join(r.get("sources") or ()) or NONE]
        cells.append(_remarks(r))
        rows.append(cells)
    return "\n".join(_cells(rows, header if headers else None)) + "\n"


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
