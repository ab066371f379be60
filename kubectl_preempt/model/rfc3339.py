"""RFC 3339 times, read and written in one place for the whole project.

Kubernetes writes times as RFC 3339 with up to nine fractional digits (metav1.MicroTime,
events.k8s.io eventTime) or none (metav1.Time). Go's `time.Time` compares them to the
nanosecond, so they are read here into integer nanoseconds since the epoch, exactly: a float of
seconds cannot hold nanoseconds in 2026, and `datetime` stops at microseconds (and, before
Python 3.11, `fromisoformat` refuses anything but 3 or 6 fractional digits). Seconds as a float
are derived from the nanoseconds for the replay's clock.
"""
from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timezone
from typing import Any

from .memory import remembered

NANOS = 1_000_000_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_MIN_DATETIME_SECONDS = (1 - _EPOCH_ORDINAL) * 86400  # 0001-01-01T00:00:00Z

# mirrors what time.Parse(time.RFC3339Nano, ...) accepts: 'T' or 't', an optional fraction of
# any length (digits past the ninth are dropped), 'Z'/'z' or a numeric offset; ASCII digits only
# (Go's parser reads '0'..'9', where Python's \d takes any Unicode digit)
_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$",
    re.ASCII)


def parse_nanos(value: Any) -> int | None:
    """Nanoseconds since the epoch of an RFC 3339 time, or None when it is not one."""
    if not isinstance(value, str):
        return None
    return parse_text_nanos(value)


_EPOCH = datetime(1970, 1, 1)


def parse_text_nanos(value: str) -> int | None:
    """parse_nanos of a str, without the type test: for hot paths (victim ordering) that test the
    type themselves. The form metav1.Time always writes (20 characters, no fraction, UTC) is read
    by datetime's C parser, not remembered: an explain's dry runs ask the start time of every pod
    of 490 nodes once each, mostly distinct seconds, and a remembered parse missed on nearly every
    one at more than the parse's cost. With '-' and ':' where the pattern has them the parser
    takes only ASCII digits between, as the pattern does; what it refuses (hour 24, second 60,
    year 0) and every other form go by the pattern."""
    # the separators of that form are every third character from the fifth: one slice tested
    # (a dry run's victim ordering asks this of every potential victim of every candidate)
    if len(value) == 20 and value[4::3] == "--T::Z" and value.isascii():
        try:
            # whole days and the seconds of the day (0..86399, so exact before 1970 too): a
            # third of the cost of dividing the timedelta by a second
            since = datetime.fromisoformat(value[:19]) - _EPOCH
            return (since.days * 86_400 + since.seconds) * NANOS
        except ValueError:
            pass
    return _parse_pattern(value)


# The other forms (fractions, offsets: events' eventTime, a replay's times) repeat: remembered (a
# memory under model/memory.py's switch: off, each time is parsed afresh).
@remembered("model.rfc3339 times", 1 << 16)
def _parse_pattern(value: str) -> int | None:
    m = _RFC3339.match(value.strip())
    if m is None:
        return None
    g = m.groups()
    year, month, day, hour, minute, sec = map(int, g[:6])
    if not (hour < 24 and minute < 60 and sec < 60):
        return None
    try:
        # date() checks the month and the day in it (in C: victim ordering parses every
        # candidate's start time, most of them distinct)
        days = date(year, month, day).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
            return None
        # year 0, which Go's time reads and datetime does not: 400 years (one cycle of the
        # Gregorian calendar, 146,097 days) later, less the cycle
        days = date(year + 400, month, day).toordinal() - _EPOCH_ORDINAL - 146_097
    frac = (g[6] or "")[:9]
    nanos = int(frac.ljust(9, "0")) if frac else 0
    offset = 0
    if g[8]:
        oh, om = int(g[9]), int(g[10])
        if oh > 23 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (1 if g[8] == "+" else -1)
    secs = days * 86400 + hour * 3600 + minute * 60 + sec - offset
    return secs * NANOS + nanos


def parse_seconds(value: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (a datetime or a number of seconds are taken
    as they are), or None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    n = parse_nanos(value)
    return None if n is None else n / NANOS


def parse_datetime(value: Any) -> datetime | None:
    """An aware datetime (microseconds) of an RFC 3339 time, or None."""
    n = parse_nanos(value)
    if n is None:
        return None
    secs, rem = divmod(n, NANOS)
    if secs < _MIN_DATETIME_SECONDS:
        # year 0, which Go reads and datetime cannot hold: the earliest datetime keeps the order
        # against every later time (parse_nanos is exact for comparisons that need more)
        return datetime.min.replace(tzinfo=timezone.utc)
    return datetime.fromtimestamp(secs, tz=timezone.utc).replace(microsecond=rem // 1000)


def format_seconds(t: float) -> str:
    """RFC 3339 in UTC with milliseconds only when the time has them (the replay's times)."""
    ms = int(round(t * 1000))
    secs, rem = divmod(ms, 1000)
    base = _format_whole_seconds(secs)
    return f"{base}.{rem:03d}Z" if rem else f"{base}Z"


def format_nanos(n: int, *, fraction: bool = False) -> str:
    """RFC 3339 in UTC: whole seconds as metav1.Time writes them, or with the fraction Go's
    RFC3339Nano writes (trailing zeros dropped) when `fraction`."""
    secs, rem = divmod(n, NANOS)
    base = _format_whole_seconds(secs)
    if fraction and rem:
        return f"{base}.{str(rem).rjust(9, '0').rstrip('0')}Z"
    return f"{base}Z"


def _format_whole_seconds(secs: int) -> str:
    """`2006-01-02T15:04:05` of seconds since the epoch, as Go's time.Format writes it for any
    year: four digits at least (`0001`, which strftime writes `1`), year 0, and a sign before
    years before it; datetime holds only years 1 to 9999. The civil date from the day count is
    the proleptic Gregorian calendar's, computed in eras of 400 years (146,097 days)."""
    days, rest = divmod(secs, 86400)
    hour, rest = divmod(rest, 3600)
    minute, sec = divmod(rest, 60)
    z = days + 719_468  # days since 0000-03-01, the start of an era
    era, doe = divmod(z, 146_097)
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = era * 400 + yoe + (month <= 2)
    sign = "-" if year < 0 else ""
    return f"{sign}{abs(year):04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{sec:02d}"
