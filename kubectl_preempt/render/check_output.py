"""Check reports as text: `table`, `markdown` (a pull-request comment or a CI step summary),
`json`, `yaml`; `--junit` writes JUnit XML beside them (render/check_junit.py)."""
from __future__ import annotations

from typing import Any, Mapping

from . import json as _json
from . import yaml as _yaml
from .check_markdown import render_markdown
from .check_table import render_table
from ..errors import quote

CHECK_FORMATS = ("table", "markdown", "json", "yaml")


def render_check(report: Mapping[str, Any], fmt: str = "table") -> str:
    """The text for `-o fmt`, ending in a newline."""
    if fmt == "table":
        return render_table(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "json":
        return _json.dumps(report)
    if fmt == "yaml":
        return _yaml.dumps(report)
    raise ValueError(f"unknown output format {quote(fmt)}; expected one of {', '.join(CHECK_FORMATS)}")
