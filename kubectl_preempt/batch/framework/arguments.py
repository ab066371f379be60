"""framework.Arguments: a plugin's arguments as strings, read as Go's strconv would."""
from __future__ import annotations

import re

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


def get_int(args: dict[str, str], key: str, default: int) -> int:
    """mirrors Arguments.GetInt: the default unless the value parses as an integer."""
    v = args.get(key) or ""
    if re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    return default


def get_bool(args: dict[str, str], key: str, default: bool) -> bool:
    """mirrors Arguments.GetBool"""
    v = args.get(key) or ""
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return default
