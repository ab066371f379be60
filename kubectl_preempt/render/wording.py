"""Wording the text reports of `replay` and `check` share, so that both say things the same way."""
from __future__ import annotations

import re

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
