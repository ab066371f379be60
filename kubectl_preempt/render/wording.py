"""Wording the text reports of `replay` and `check` share, so that both say things the same way."""
from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from ..model.rfc3339 import NANOS, parse_nanos
from . import width


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def clock(ts: str | None) -> str:
    """10:00:05 (with .125 when the time has milliseconds) from an RFC 3339 time, in UTC as the
    replay writes its times (the day is in the report's heading); read by the one RFC 3339 parser."""
    n = parse_nanos(ts)
    if n is None:
        return ts or ""
    secs, rem = divmod(n, NANOS)
    text = time.strftime("%H:%M:%S", time.gmtime(secs))
    if not rem:
        return text
    # milliseconds as the replay writes them; finer fractions as Go's RFC3339Nano would
    return text + (f".{rem // 1_000_000:03d}" if rem % 1_000_000 == 0 else f".{rem:09d}".rstrip("0"))


def _histogram(reasons: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{r['nodes']} {r['reason']}" for r in reasons)


def short_reason(record: Mapping[str, Any], message_key: str = "message") -> str:
    """Why a pod did not fit, without FitError's "0/N nodes are available:" preamble: the Filter
    reasons (or the PreFilter's message), then what preemption said, from the structured fields
    the scheduler put beside the message (CycleResult.fit_error_fields). A message that was no
    FitError (no such fields) is shown in full."""
    if "reasons" not in record:
        return record.get(message_key) or ""
    text = record.get("preFilterMessage") or _histogram(record["reasons"])
    if record.get("preemptionReasons"):
        pre = _histogram(record["preemptionReasons"])
    elif record.get("preemptionMessage"):
        pre = record["preemptionMessage"].rstrip(".")  # a sentence inside a sentence
    else:
        post = record.get("postFilterMessage") or ""
        return f"{text}; {post}" if post else text
    return f"{text}; preemption: {pre}"


def columns(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> list[str]:
    """Rows under a header, each column as wide as its widest cell, two spaces apart."""
    rows = [["" if c is None else str(c) for c in r] for r in rows]
    table = [list(header)] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    if width.limit() is not None:
        # on a terminal: the widest columns give way, cut with an ellipsis (render/width.py)
        widths = width.fit_table(table, widths, header, len(indent), 2)
        table = [[width.cut_cell(c, w) for c, w in zip(r, widths)] for r in table]
    out = []
    for r in table:
        line = "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
        out.append(width.cut_line(indent + line))
    return out


def md_escape(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return out
