"""Check reports as text: `table`, `markdown` (a pull-request comment or a CI step summary),
`json`, `yaml`; `--junit` writes JUnit XML beside them (render/check_junit.py)."""
from __future__ import annotations

from typing import Any, Mapping

from . import json as _json
from . import yaml as _yaml
from .check_markdown import render_markdown
from . import width
from .check_table import change_rows, render_table
from .output import no_headers_rows, render_habit
from ..errors import quote

CHECK_FORMATS = ("table", "wide", "markdown", "json", "yaml")


def render_check(report: Mapping[str, Any], fmt: str = "table", *, no_headers: bool = False) -> str:
    """The text for `-o fmt`, ending in a newline. On a terminal `table` fits its width
    (render/width.py), `wide` is the same table never cut; `name` lists the pods whose outcome
    changes and `jsonpath=` reads the report (render/output.py); `no_headers`: those pods' rows."""
    habit = render_habit(fmt, document=lambda: report,
                         keys=lambda: [row[1] for row in change_rows(report)])
    if habit is not None:
        return habit
    if fmt in ("table", "wide") and no_headers:
        return no_headers_rows(change_rows(report))
    if fmt == "table":
        return width.finish(render_table(report))
    with width.unlimited(wide=fmt == "wide"):
        return _uncut(report, fmt)


def _uncut(report: Mapping[str, Any], fmt: str) -> str:
    if fmt == "wide":
        return render_table(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "json":
        return _json.dumps(report)
    if fmt == "yaml":
        return _yaml.dumps(report)
    raise ValueError(f"unknown output format {quote(fmt)}; expected one of {', '.join(CHECK_FORMATS)}")
