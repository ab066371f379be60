"""Go's int64 and float64 arithmetic where Python's differs.

Upstream scores are computed with int64 division, which truncates toward zero, and with
math.Round, which rounds halves away from zero; Python's // floors and round() rounds halves
to even.
"""
from __future__ import annotations

import math


def go_div(a: int, b: int) -> int:
    """a / b as Go divides int64s: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_round(x: float) -> int:
    """math.Round: the nearest integer, halves away from zero."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)
