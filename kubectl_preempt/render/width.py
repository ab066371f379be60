"""Tables that fit the terminal, as kubectl's do: on a terminal, `-o table` fits COLUMNS (or the
terminal's width); the widest columns are cut with `…` and the cut columns are named on a last
line. `-o wide` is never cut, nor is output to a pipe or a file (scripts and saved reports get
every character).

The command line says once how wide the terminal is (`set_limit`, from `terminal_limit`); the
table helpers (render/table.py `columns`, render/wording.py `columns`) fit each table to it, and
each report's renderer ends with `finish`, which wraps the remaining long prose lines and names
what was cut. Renderers called from Python (api users, the HTML page) see no limit.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import textwrap
from typing import IO, Iterator, Optional, Sequence

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


def limit() -> Optional[int]:
    return _limit


@contextlib.contextmanager
def unlimited() -> Iterator[None]:
    """-o wide, markdown, or any text that must keep every character: no fitting inside."""
    global _limit
    saved = _limit
    _limit = None
    try:
        yield
    finally:
        _limit = saved


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


def fit_table(table: list[list[str]], widths: list[int], names: Sequence[str], fixed: int,
              gap: int) -> list[int]:
    """Fit the columns of `table` (cells as strings; `widths` measured, the first column's including
    its indent) within the limit, cutting cells in place; `names` says each column's name for the
    last line, `fixed` is what every line holds besides the columns (indent, margin)."""
    if _limit is None or not widths:
        return widths
    available = _limit - fixed - gap * (len(widths) - 1)
    floors = [min(w, max(MIN_COLUMN, len(n.strip()) if i else MIN_COLUMN))
              for i, (w, n) in enumerate(zip(widths, names))]
    new = fit(widths, floors, available)
    for i, (old, w) in enumerate(zip(widths, new)):
        if w < old:
            note_cut(names[i] if i < len(names) and names[i].strip() else f"column {i + 1}")
    return new


def note_cut(name: str) -> None:
    name = " ".join(name.split())
    if name not in _cut:
        _cut.append(name)


def cut_line(line: str) -> str:
    """A table line still wider than the limit (its floors did not fit): cut at the limit."""
    if _limit is None or len(line) <= _limit:
        return line
    return line[:_limit - 1] + ELLIPSIS


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
        return text
    lines: list[str] = []
    for line in text.split("\n"):
        lines.extend(wrap_line(line))
    out = "\n".join(lines)
    if _cut:
        names = ", ".join(_cut)
        tail = f"(cut to {_limit} columns: {names}; -o wide or a pipe shows every character)"
        _cut.clear()
        body = out.rstrip("\n")
        out = body + "\n" + "\n".join(wrap_line(tail)) + "\n"
    return out
