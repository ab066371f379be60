"""A replay's `distribution` (replay --runs N) as table lines or markdown."""
from __future__ import annotations

from typing import Any, Mapping

from .wording import columns as _columns
from .wording import md_table as _md_table

STAT_HEADER = ["P5", "P50", "P95", "MIN", "MAX"]
MAX_PODS_SHOWN = 10


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _row(label: str, st: Mapping[str, Any]) -> list[str]:
    return [label] + [_fmt(st.get(k)) for k in ("p5", "p50", "p95", "min", "max")]


def _stat_rows(dist: Mapping[str, Any]) -> list[tuple[str, list[list[str]]]]:
    """(section title, rows) in the order a reader asks: how many, whom, who waits."""
    tts = dist.get("timeToSchedule") or {}
    overall = [_row("preemptions", dist["preemptions"]), _row("victims", dist["victims"]),
               _row("pods never scheduled", dist["podsNeverScheduled"])]
    for key, label in (("p50Seconds", "time to schedule, p50 (s)"), ("p95Seconds", "time to schedule, p95 (s)")):
        if key in tts:
            overall.append(_row(label, tts[key]))
    sections = [(f"Over {dist['runs']} runs", overall)]
    for key, title in (("victimsByWorkload", "Victims by workload"),
                       ("victimsByPriorityClass", "Victims by PriorityClass"),
                       ("victimsByNamespace", "Victims by namespace")):
        rows = [_row(k, v) for k, v in sorted((dist.get(key) or {}).items(),
                                              key=lambda kv: (-kv[1]["p50"], -kv[1]["max"], kv[0]))]
        if rows:
            sections.append((title, rows))
    return sections


def _pods(dist: Mapping[str, Any], key: str) -> list[tuple[str, float]]:
    return list((dist.get(key) or {}).items())


def headline(report: Mapping[str, Any]) -> str:
    dist = report["distribution"]
    run = report.get("run") or {}
    return (f"Runs      {dist['runs']}, each with its own random choices (ties on score, the preemption "
            f"offset, ties after the choice chain); the timeline below is run {run.get('run')}, the one with "
            f"the median number of preemptions; percentiles are {dist.get('percentiles', 'nearest-rank')}")


def table_lines(dist: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for title, rows in _stat_rows(dist):
        out.extend(_columns([title.upper()] + STAT_HEADER, rows, ""))
        out.append("")
    for key, title in (("evictionProbability", "Most likely evicted"), ("pendingProbability", "Most likely left pending")):
        pods = _pods(dist, key)
        if pods:
            rows = [[p, f"{100 * v:.0f}%"] for p, v in pods[:MAX_PODS_SHOWN]]
            out.extend(_columns([f"{title.upper()} ({len(pods)} pods)", "OF RUNS"], rows, ""))
            if len(pods) > MAX_PODS_SHOWN:
                out.append(f"  ... {len(pods) - MAX_PODS_SHOWN} more (-o json has them all)")
            out.append("")
    return out


def markdown_lines(dist: Mapping[str, Any]) -> list[str]:
    out = [f"## Distribution over {dist['runs']} runs", "",
           f"Percentiles are {dist.get('percentiles', 'nearest-rank')} over the runs.", ""]
    for title, rows in _stat_rows(dist):
        out += [f"### {title}", ""]
        out += _md_table([""] + [h.lower() for h in STAT_HEADER], rows)
        out.append("")
    for key, title in (("evictionProbability", "Probability of being evicted"),
                       ("pendingProbability", "Probability of being left pending")):
        pods = _pods(dist, key)
        if pods:
            out += [f"### {title}", ""]
            out += _md_table(["Pod", "Runs"], [[f"`{p}`", f"{100 * v:.0f}%"] for p, v in pods])
            out.append("")
    return out
