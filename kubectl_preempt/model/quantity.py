"""resource.Quantity, parsed exactly as apimachinery does.

A quantity is kept as an exact Fraction; Value() and MilliValue() round up, as upstream's
do, so "0.1m" of CPU is 1 milli-CPU and "1.5" bytes is 2 bytes.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from ..errors import InputError, quote
from .memory import MEMORY

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
            "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
            "P": Fraction(10**15), "E": Fraction(10**18)}

# mirrors the grammar in apimachinery's quantity.go: sign, digits with one optional point,
# then a binary suffix, a decimal SI suffix or a decimal exponent.
_QUANTITY = re.compile(r"^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")

# quantity string -> its value: the pods of a workload repeat theirs. Strings only: a JSON number
# equal to a cached key (True == 1 == 1.0) must still be judged by its own type.
_cache: dict[object, Fraction] = {}
MEMORY.register("model.quantity values", _cache)


def parse_quantity(value: object, *, field: str | None = None) -> Fraction:
    """The exact value of a quantity string (or a JSON number), or InputError naming the field."""
    if MEMORY.on:
        try:
            return _cache[value]
        except (KeyError, TypeError):
            pass
    if isinstance(value, bool):
        raise InputError(f"quantity {quote(value)} is not a number", field=field)
    if isinstance(value, int):
        q = Fraction(value)
    elif isinstance(value, float):
        q = Fraction(str(value))
    elif isinstance(value, str):
        m = _QUANTITY.match(value.strip())
        if not m:
            raise InputError(f"quantities must match the regular expression "
                             f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {quote(value)}", field=field)
        sign, number, suffix = m.groups()
        if len(number) > 64 or (suffix and suffix[0] in "eE" and len(suffix) > 5):
            # apimachinery keeps at most int64 with a scale; a number this long or an exponent of
            # more than three digits is no amount of anything (and 10**huge would never finish)
            raise InputError(f"quantity {quote(value[:40] + ('...' if len(value) > 40 else ''))} is out of range", field=field)
        q = Fraction(number if not number.endswith(".") else number[:-1] or "0")
        if suffix:
            if suffix in _BINARY:
                q *= _BINARY[suffix]
            elif suffix in _DECIMAL:
                q *= _DECIMAL[suffix]
            else:
                q *= Fraction(10) ** int(suffix[1:])
        if sign == "-":
            q = -q
    else:
        raise InputError(f"quantity {quote(value)} is not a string or number", field=field)
    if type(value) is str and MEMORY.on and len(_cache) < 100_000:
        _cache[value] = q
    return q


def value(q: object, *, field: str | None = None) -> int:
    """Quantity.Value(): the value rounded up to an integer."""
    return math.ceil(parse_quantity(q, field=field))


def milli_value(q: object, *, field: str | None = None) -> int:
    """Quantity.MilliValue(): the value in thousandths, rounded up."""
    return math.ceil(parse_quantity(q, field=field) * 1000)


def format_milli_cpu(milli: int) -> str:
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


def format_bytes(n: int) -> str:
    for suffix, size in (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if n and n % size == 0:
            return f"{n // size}{suffix}"
    return str(n)
