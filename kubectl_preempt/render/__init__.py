"""Explanation documents as text: a human table (`table`, `wide`) or data (`json`, `yaml`).

Renderers take the plain dicts `api` returns and never compute scheduling facts themselves.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..errors import quote

FORMATS = ("table", "wide", "json", "yaml")
LIST_API_VERSION = "kubectl-preempt/v1"
LIST_KIND = "ExplanationList"


def as_document(docs: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """One explanation as itself; none or several inside an ExplanationList."""
    if len(docs) == 1:
        return docs[0]
    return {"apiVersion": LIST_API_VERSION, "kind": LIST_KIND, "items": list(docs)}


def render(docs: Sequence[Mapping[str, Any]], fmt: str = "table", *, no_headers: bool = False) -> str:
    """The text for `-o fmt`, ending in a newline (but a jsonpath template's, as kubectl prints it).
    `no_headers`: with table or wide, the summary's rows only (one a pod), for scripts."""
    from .output import render_habit

    habit = render_habit(fmt, document=lambda: as_document(docs), keys=lambda: [d.get("pod") for d in docs])
    if habit is not None:
        return habit
    if fmt in ("table", "wide"):
        from .table import render_table, summary_rows

        if no_headers:
            from .output import no_headers_rows

            return no_headers_rows(summary_rows(docs))
        return render_table(docs, wide=fmt == "wide")
    if fmt == "json":
        from .json import dumps

        return dumps(as_document(docs))
    if fmt == "yaml":
        from .yaml import dumps

        return dumps(as_document(docs))
    raise ValueError(f"unknown output format {quote(fmt)}; expected one of {', '.join(FORMATS)}")
