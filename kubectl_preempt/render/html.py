"""--html: a replay as one self-contained page (timeline per node, summary, filters, why).

The page is a template with its script and styles inlined (html_assets/, shipped as package
data) and, as JSON in script elements, the replay report exactly as `replay -o json` holds it
(class kp-report) beside the view html_data derives from it (class kp-view). Nothing is fetched
at view time: the page's Content-Security-Policy forbids it.
"""
from __future__ import annotations

import html as _html
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

import orjson

from .. import KUBERNETES_VERSION, __version__
from .html_data import NO_CLASS, ActivityRecorder, build_view, class_colour

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


def render_html(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]], *, title: str | None = None) -> str:
    """The page for one replay or several side by side: (label, report, view) per replay, the
    view from html_data.build_view. Labels name the replays ("baseline", "proposed") and may be
    empty for a single one."""
    if not runs:
        raise ValueError("render_html needs at least one replay")
    if len(runs) > 1:
        runs = _same_colours(runs)
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


def _versions(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]]) -> str:
    """The kube-scheduler release(s) that replayed the page's runs."""
    seen = dict.fromkeys(str(r.get("schedulerVersion") or KUBERNETES_VERSION) for _, r, _ in runs)
    return ", ".join(seen)


def _same_colours(runs: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]]
                  ) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """One colour per PriorityClass name across every replay of a page, in the order of the
    classes' values, as a single replay's view gives them."""
    value: dict[str, int] = {}
    for _, _, view in runs:
        for c in view.get("classes") or ():
            value.setdefault(c["name"], c["value"])
    order = sorted(value, key=lambda n: (-value[n], n == NO_CLASS, n))
    colour = {n: class_colour(i, n) for i, n in enumerate(order)}
    out = []
    for label, report, view in runs:
        classes = [{**c, "colour": colour[c["name"]]} for c in view.get("classes") or ()]
        out.append((label, report, {**view, "classes": classes}))
    return out


def replay_html(report: Mapping[str, Any], trace: Any, activity: ActivityRecorder | Mapping[str, Any] | None = None,
                *, label: str = "") -> str:
    """The page of one replay: `trace` is what replay() replayed, `activity` the ActivityRecorder
    it was given as listener (simulate mode)."""
    return render_html([(label, report, build_view(report, trace, activity))])


def check_page(check_report: Mapping[str, Any], traces: Mapping[str, Any], proposed: Sequence[Mapping[str, Any]], *,
               sources: Sequence[str] | None = None, baseline: Sequence[Mapping[str, Any]] | None = None,
               config: Any = None, seed: int = 0, kubernetes_version: Any = None) -> str:
    """The page of a `check`: per trace, the baseline replay above the proposed one, on one time axis.

    check() keeps only each replay's outcome per pod, so the two replays of every trace are run
    again here with the same classes, recorded for the lanes; each is compared with the summary
    the check reported, and the page says so if they ever differ. Both carry the check's per-pod
    changes, shown beside the preemptions they concern.
    """
    from ..check.diff import replay_summary
    from ..check.validation import decode_proposal
    from ..replay.api import replay

    decoded, _ = decode_proposal(proposed, sources)
    base_objects = [dict(o) for o in baseline] if baseline is not None else None
    runs: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]] = []
    for tr in check_report.get("traces") or ():
        name = tr["trace"]
        events = traces[name]
        rejected = set(tr.get("rejected") or ())
        # the classes the proposed replay resolves with, as check() gives them: the baseline's, with
        # every proposed class the API server would accept on top
        accepted = [pc for pc in decoded if pc.effective and pc.name not in rejected]
        names = {pc.name for pc in accepted}
        overrides = [dict(o) for o in base_objects or () if (o.get("metadata") or {}).get("name") not in names]
        overrides += [pc.as_object() for pc in accepted]
        for which, classes in (("baseline", base_objects), ("proposed", overrides or None)):
            report = replay(events, config=config, priority_classes=classes, seed=seed,
                            kubernetes_version=kubernetes_version)
            view = build_view(report, events)
            if replay_summary(report) != tr.get(which):
                view["notes"] = [f"this {which} replay differs from the check's ({replay_summary(report)} here, "
                                 f"{tr.get(which)} in the check)"]
            view["changes"] = {"totals": tr.get("totals") or {}, "pods": tr.get("changes") or []}
            runs.append((f"{name}: {which}", report, view))
    verdict = "passes" if check_report.get("passed") else "fails"
    return render_html(runs, title=f"PriorityClass change {verdict}: baseline vs proposed")


def write_html(path: str | Path, page: str) -> None:
    Path(path).write_text(page, encoding="utf-8")


__all__ = ["ActivityRecorder", "build_view", "check_page", "render_html", "replay_html", "write_html"]
