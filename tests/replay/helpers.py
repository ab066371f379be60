"""Small traces for replay tests: a header time, events and objects from tests/builders."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.io.trace import format_rfc3339, parse_rfc3339

T0 = "2026-03-01T10:00:00Z"
START = parse_rfc3339(T0)


def at(seconds: float) -> str:
    """The time `seconds` after the trace's start."""
    return format_rfc3339(START + seconds)


def ev(seconds: float, typ: str, obj: dict[str, Any]) -> dict[str, Any]:
    return {"time": at(seconds), "type": typ, "object": obj}


def trace(*events: dict[str, Any], end: float | None = None) -> dict[str, Any]:
    evs = list(events)
    if end is not None:
        evs.append(ev(end, "BOOKMARK", {}))
    return {"header": {"startTime": T0}, "events": evs}


def seconds(ts: str) -> float:
    return parse_rfc3339(ts) - START
