"""--html: a replay as one self-contained page (timeline per node, summary, filters, why).

The page is a template with its script and styles inlined (html_assets/, shipped as package
data) and, as JSON in script elements, the replay report exactly as `replay -o json` holds it
(class kp-report) beside the view replay/view.py derives from it (class kp-view): the page only
formats what it is given. Nothing is fetched at view time: the page's Content-Security-Policy
forbids it.
"""
from __future__ import annotations

import html as _html
from importlib import resources
from typing import Any, Mapping, Sequence

import orjson

from ..version import KUBERNETES_VERSION, __version__

ASSETS = "html_assets"


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(ASSETS, name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    # "<" only occurs inside JSON strings, where \u003c means the same: no "</script>" can close
    # the element early
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode().replace("<", "\\u003c")


def _title(report: Mapping[str, Any]) -> str:
    src = (report.get("trace") or {}).get("source") or {}
    where = src.get("context") or src.get("form") or "trace"
    return f"Replay of {where}"


def _versions(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]]) -> str:
    """The kube-scheduler release(s) that replayed the page's runs."""
    seen = dict.fromkeys(str(r.get("schedulerVersion") or KUBERNETES_VERSION) for _, r, _ in runs)
    return ", ".join(seen)


def render_html(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]], *, title: str | None = None) -> str:
    """The page for one replay or several side by side: (label, report, view) per replay, the
    view from replay.view.build_view (several: through replay.view.share_colours). Labels name
    the replays ("baseline", "proposed") and may be empty for a single one."""
    if not runs:
        raise ValueError("render_html needs at least one replay")
    blocks = []
    for i, (label, report, view) in enumerate(runs):
        lab = _html.escape(label, quote=True)
        blocks.append(f'<script type="application/json" class="kp-report" data-run="{i}" data-label="{lab}">'
                      f"{_json_for_script(report)}</script>")
        blocks.append(f'<script type="application/json" class="kp-view" data-run="{i}">{_json_for_script(view)}</script>')
    page = _asset("report.html")
    # replaced last to first so a placeholder's text inside the data can never be substituted
    parts = {
        "{{GENERATOR}}": _html.escape(f"kubectl-preempt {__version__} (kube-scheduler {_versions(runs)})", quote=True),
        "{{TITLE}}": _html.escape(title or _title(runs[0][1])),
        "{{CSS}}": _asset("report.css"),
        "{{JS}}": _asset("report.js").replace("</", "<\\/"),
        "{{DATA}}": "\n".join(blocks),
    }
    out = []
    rest = page
    for key in ("{{GENERATOR}}", "{{TITLE}}", "{{CSS}}", "{{DATA}}", "{{JS}}"):
        head, sep, rest = rest.partition(key)
        if not sep:
            raise RuntimeError(f"html template lacks {key}")
        out.append(head)
        out.append(parts[key])
    out.append(rest)
    return "".join(out)


__all__ = ["render_html"]
