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


def cell(value: Any) -> width.Cell:
    """A table cell from a value: None is empty, a list or tuple is a list of items (names: one a
    line where the table is narrow, and in -o wide), anything else its text."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        # an item that is text already is kept as it is (a Noted name carries its note apart)
        return [v if isinstance(v, str) else str(v) for v in value]
    return str(value)


def columns(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "", *,
            hide_empty: bool = True) -> list[str]:
    """Rows under a header, each column as wide as its widest cell, two spaces apart; on a
    terminal fitted to it as render/width.py `layout` says (names whole, empty columns left out)."""
    widths, table = width.layout(header, [[cell(c) for c in r] for r in rows], fixed=len(indent), gap=2,
                                 hide_empty=hide_empty)
    return [width.table_line((indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths))).rstrip())
            for lines in table for cells in lines]


def md_escape(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return out
