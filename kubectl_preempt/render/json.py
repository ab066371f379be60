"""-o json: the explanation document as indented JSON."""
from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def dumps(doc: Any) -> str:
    return orjson.dumps(doc, option=_OPTIONS).decode()
