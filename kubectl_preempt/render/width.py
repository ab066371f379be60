"""Tables that fit the terminal, as kubectl's do: on a terminal, `-o table` fits COLUMNS (or the
terminal's width); the widest descriptive columns are cut with `…` (or left out when even cut they
do not fit) and named on a last line. A column that names something (a pod, a node, a preemptor, a
victim: `identifying`) is never cut, as kubectl never cuts a NAME: a list of names in it goes one
name a line instead, a name's note (`Noted`) under the name where even that is too wide, and when
the names alone are wider than the terminal the line is too. Empty columns are not shown.
`-o wide` is never cut, its lists one item a line; nor is output to a pipe or a file (scripts and
saved reports get every character).

The command line says once how wide the terminal is (`set_limit`, from `terminal_limit`); the
table helpers (render/table.py `columns`, render/wording.py `columns`, render/history.py) lay each
table out with `layout`, and each report's renderer ends with `finish`, which wraps the remaining
long prose lines and names what was cut. Renderers called from Python (api users, the HTML page)
see no limit.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import textwrap
from typing import IO, Iterator, Optional, Sequence, Union

ELLIPSIS = "…"
# a column is cut no narrower than this (or its header, or its widest cell when that is narrower)
MIN_COLUMN = 6
# the narrowest terminal fitted; below it, fitting would leave nothing legible
MIN_LIMIT = 40
# KUBECTL_PREEMPT_TERMINAL=1 treats standard output as a terminal and =0 as a pipe, whatever it is:
# the seam tests (and a user recording a session with `script`) use; COLUMNS then gives the width
FORCE_ENV = "KUBECTL_PREEMPT_TERMINAL"

_limit: Optional[int] = None
_cut: list[str] = []
_left_out: list[str] = []
_wide = False
# the lines of tables laid out since the last `finish`: never wrapped (a name stays on its line)
_table_lines: set[str] = set()

# a table cell: text, or a list of items (names) shown joined by ", " where the line has room and
# one a line where it has not, and always one a line in -o wide
Cell = Union[str, Sequence[str]]
LIST_SEPARATOR = ", "
# how far under its name an item's note starts when it goes on a line of its own (Noted)
NOTE_INDENT = "  "


class Noted(str):
    """A list item: a name, and after it in parentheses what sets it apart ("batch/etl-1 (PDB
    violated)"). It reads as that text wherever the line has room. Where a column of names one a
    line is still wider than the terminal, the note goes on a line of its own under the name
    (`NOTE_INDENT`): the name keeps every character and the table its width."""

    name: str
    note: str

    def __new__(cls, name: str, note: str) -> "Noted":
        item = super().__new__(cls, f"{name} ({note})")
        item.name, item.note = name, note
        return item

    def lines(self) -> list[str]:
        """The item as two lines: the name, then its note under it."""
        return [self.name, f"{NOTE_INDENT}({self.note})"]


# the columns that name something, by the first word of their header: never cut. The first column
# of every table (its rows' key, kubectl's NAME) is one too.
IDENTIFYING = frozenset({"POD", "PODS", "PREEMPTOR", "NODE", "NODES", "VICTIM", "VICTIMS", "NOMINATED",
                         "WORKLOAD", "JOB", "TASK", "QUEUE", "NAMESPACE", "TRACE", "FOR", "EVICTS",
                         "PLACEMENTS"})
# a cell that says nothing: a column of only these is left out of a table with headers
EMPTY_CELLS = frozenset({"", "-"})


def terminal_limit(stream: IO[str]) -> Optional[int]:
    """The width to fit for output written to `stream`: None when it is not a terminal."""
    forced = os.environ.get(FORCE_ENV)
    if forced is not None and forced.strip() not in ("", "1", "0"):
        forced = None
    is_terminal = forced == "1" if forced in ("0", "1") else _isatty(stream)
    if not is_terminal:
        return None
    # COLUMNS first, then the terminal's own size, as kubectl's term.GetSize and shutil do
    cols = shutil.get_terminal_size(fallback=(80, 24)).columns
    return max(MIN_LIMIT, cols) if cols > 0 else 80


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def set_limit(limit: Optional[int]) -> None:
    """The width every table is fitted to from now on (None: never cut)."""
    global _limit
    _limit = limit
    _cut.clear()
    _left_out.clear()
    _table_lines.clear()


def limit() -> Optional[int]:
    return _limit


@contextlib.contextmanager
def unlimited(*, wide: bool = False) -> Iterator[None]:
    """-o wide (`wide`: lists one item a line), markdown, or any text that must keep every
    character: no fitting inside."""
    global _limit, _wide
    saved = _limit, _wide
    _limit, _wide = None, wide
    try:
        yield
    finally:
        _limit, _wide = saved


def identifying(name: str, index: int) -> bool:
    """Whether a column names something (never cut): the first, or one whose header starts with a
    name's word (POD, NODE, PREEMPTOR, VICTIMS...)."""
    words = name.strip().upper().split()
    return index == 0 or (bool(words) and words[0] in IDENTIFYING)


def _text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else LIST_SEPARATOR.join(cell)


def _items(cell: Cell, notes_apart: bool = False) -> list[str]:
    """A cell's items, one a line; with `notes_apart`, each Noted item as its two lines."""
    if isinstance(cell, str):
        return [cell]
    if not notes_apart:
        return list(cell) or [""]
    return [line for item in cell for line in (item.lines() if isinstance(item, Noted) else [item])] or [""]


def _is_empty(cell: Cell) -> bool:
    return _text(cell).strip() in EMPTY_CELLS


def layout(header: Optional[Sequence[str]], rows: Sequence[Sequence[Cell]], *, names: Optional[Sequence[str]] = None,
           fixed: int = 0, gap: int = 2, hide_empty: bool = True) -> tuple[list[int], list[list[list[str]]]]:
    """Lay a table out: (the width of each column shown, and each line of each row, header first,
    as cells of text). `names` name the columns where the header does not (the last line's
    words; default the header); `fixed` is what every line holds besides the columns (its indent).

    Empty columns (every row's cell "" or "-") are left out when the table has headers. On a
    terminal (`limit()`), a table wider than it: list cells of identifying columns go one item a
    line, and where such a column is still too wide its names' notes (Noted) go under them; then
    descriptive columns give way, cut with `…` down to their floor (their header, or MIN_COLUMN);
    then descriptive columns that still do not fit are left out, from the right. Identifying
    columns keep every character, and may leave the line wider than the terminal."""
    ncol = max([len(r) for r in rows] + [len(header) if header else 0])
    head = list(header or []) + [""] * (ncol - len(header or []))
    body = [list(r) + [""] * (ncol - len(r)) for r in rows]
    labels = list(names) + [""] * (ncol - len(names)) if names is not None else head
    shown = list(range(ncol))
    if header is not None and hide_empty and body:
        shown = [c for c in shown if c == 0 or not all(_is_empty(r[c]) for r in body)]
    ident = {c: identifying(labels[c], c) for c in shown}
    stacked = {c: _wide and any(not isinstance(r[c], str) for r in body) for c in shown}
    # the columns of names one a line whose notes go under their names (Noted)
    apart = {c: False for c in shown}

    def width_of(c: int) -> int:
        cells = [head[c]] + [x for r in body for x in (_items(r[c], apart[c]) if stacked[c] else [_text(r[c])])]
        return max(len(x) for x in cells)

    widths = {c: width_of(c) for c in shown}
    available = None if _limit is None else _limit - fixed - gap * (len(shown) - 1)
    if available is not None and sum(widths.values()) > available:
        for c in shown:  # names stay whole: a list of them one a line
            if ident[c] and any(not isinstance(r[c], str) and len(r[c]) > 1 for r in body):
                stacked[c] = True
                widths[c] = width_of(c)
        for c in shown:  # still too wide: the notes of names one a line go under them
            if sum(widths.values()) <= available:
                break
            if ident[c] and any(isinstance(x, Noted) for r in body if not isinstance(r[c], str) for x in r[c]):
                stacked[c] = apart[c] = True
                widths[c] = width_of(c)
        floors = {c: widths[c] if ident[c] else min(widths[c], max(MIN_COLUMN, len(labels[c].strip()))) for c in shown}
        while sum(floors[c] for c in shown) + gap * (len(shown) - 1) > _limit - fixed:
            gone = next((c for c in reversed(shown) if not ident[c]), None)
            if gone is None:
                break  # the names alone are wider than the terminal: the line is too
            shown.remove(gone)
            note_left_out(labels[gone] or f"column {gone + 1}")
        available = _limit - fixed - gap * (len(shown) - 1)
        fitted = fit([widths[c] for c in shown], [floors[c] for c in shown], max(available, 0))
        for c, w in zip(shown, fitted):
            if w < widths[c]:
                note_cut(labels[c] if labels[c].strip() else f"column {c + 1}")
            widths[c] = w
    out_rows: list[list[list[str]]] = []
    for r in ([head] if header is not None else []) + body:
        columns_lines = [_items(r[c], apart[c]) if stacked[c] else [_text(r[c])] for c in shown]
        height = max(len(x) for x in columns_lines)
        lines = []
        for i in range(height):
            lines.append([cut_cell(col[i], widths[c]) if i < len(col) else ""
                          for c, col in zip(shown, columns_lines)])
        out_rows.append(lines)
    return [widths[c] for c in shown], out_rows


def table_line(line: str) -> str:
    """A line of a table, kept as it is by `finish` (prose lines are wrapped; a table's are not:
    their names stay whole even where the terminal is narrower)."""
    if _limit is not None:
        _table_lines.add(line)
    return line


def note_left_out(name: str) -> None:
    name = " ".join(name.split())
    if name not in _left_out:
        _left_out.append(name)


def cut_cell(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[:max(0, width - 1)] + ELLIPSIS


def fit(widths: Sequence[int], floors: Sequence[int], available: int) -> list[int]:
    """Column widths that fit `available` (the gaps already taken off): the widest columns give
    way first, down to a common cap, never below their floor."""
    widths = list(widths)
    if sum(widths) <= available:
        return widths
    lo, hi = 0, max(widths)
    # the largest cap whose capped widths fit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(max(f, min(w, mid)) for w, f in zip(widths, floors)) <= available:
            lo = mid
        else:
            hi = mid - 1
    fitted = [max(f, min(w, lo)) for w, f in zip(widths, floors)]
    # what is left under the cap goes to the cut columns, left to right
    spare = available - sum(fitted)
    for i, (w, f) in enumerate(zip(widths, fitted)):
        if spare <= 0:
            break
        if f < w:
            extra = min(spare, w - f)
            fitted[i] += extra
            spare -= extra
    return fitted


def note_cut(name: str) -> None:
    name = " ".join(name.split())
    if name not in _cut:
        _cut.append(name)


_LABEL = re.compile(r"^(\s*\S+(?: \S+)?\s{2,})\S")


def wrap_line(line: str) -> list[str]:
    """A prose line wider than the limit, wrapped under itself: after a label (`Outcome    ...`)
    the continuation lines start under the text, else two spaces in."""
    if _limit is None or len(line) <= _limit:
        return [line]
    m = _LABEL.match(line)
    lead = len(line) - len(line.lstrip(" "))
    indent = len(m.group(1)) if m and len(m.group(1)) <= _limit // 2 else lead + 2
    return textwrap.wrap(line, width=_limit, subsequent_indent=" " * indent, break_long_words=True,
                         break_on_hyphens=False, drop_whitespace=True) or [line]


def finish(text: str) -> str:
    """A report's text on a terminal: prose lines wrapped to the limit, and a last line naming the
    columns cut (then forgotten, for the next report)."""
    if _limit is None:
        _cut.clear()
        _left_out.clear()
        _table_lines.clear()
        return text
    lines: list[str] = []
    for line in text.split("\n"):
        lines.extend([line] if line in _table_lines else wrap_line(line))
    _table_lines.clear()
    out = "\n".join(lines)
    if _cut or _left_out:
        said = ([f"cut {', '.join(_cut)}"] if _cut else []) + ([f"left out {', '.join(_left_out)}"] if _left_out else [])
        tail = f"(fitted to {_limit} columns: {'; '.join(said)}; -o wide or a pipe shows every character)"
        _cut.clear()
        _left_out.clear()
        body = out.rstrip("\n")
        out = body + "\n" + "\n".join(wrap_line(tail)) + "\n"
    return out
