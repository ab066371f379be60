"""Wording the text reports of `replay` and `check` share, so that both say things the same way."""
from __future__ import annotations

import re
from typing import Any, Sequence

_AVAILABLE = re.compile(r"0/\d+ nodes are available: ")


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def clock(ts: str | None) -> str:
    """10:00:05 (with .125 when the time has milliseconds) from an RFC 3339 time (the day is in
    the report's heading)."""
    m = re.match(r"\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d(?:\.\d+)?)", ts or "")
    return m.group(1) if m else (ts or "")


def short_reason(message: str) -> str:
    """A FitError without its "0/N nodes are available:" preamble, and what preemption said,
    shortened the same way."""
    text = message or ""
    m = _AVAILABLE.match(text)
    if not m:
        return text
    rest = text[m.end():]
    reasons, _, post = rest.partition(". ")
    reasons = reasons.rstrip(".")
    i = post.find("preemption: ")
    if i == -1:
        return reasons
    pre = _AVAILABLE.sub("", post[i + len("preemption: "):]).strip().rstrip(".")
    return f"{reasons}; preemption: {pre}" if pre else reasons


def columns(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> list[str]:
    """Rows under a header, each column as wide as its widest cell, two spaces apart."""
    rows = [["" if c is None else str(c) for c in r] for r in rows]
    table = [list(header)] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    out = []
    for r in table:
        line = "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
        out.append(indent + line)
    return out


def md_escape(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return out
