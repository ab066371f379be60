"""What the HTML page of a `check` draws: per trace, the baseline replay above the proposed one.

check() keeps only each replay's outcome per pod, so the two replays of every trace are run
again here with the same classes, each with its view (replay/view.py); each is compared with
the summary the check reported, and the page says so if they ever differ. Both carry the check's
per-pod changes, shown beside the preemptions they concern. render/html.py draws the result.

With `--runs N` each side is drawn as the replay page draws `replay --runs N`: one run on the
timeline (the pair of the proposal's median run, both sides with that run's seed, and that pair's
per-pod changes) above the band chart of the side's distribution over the N runs, as check()
reported it.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..replay.api import replay
from ..replay.view import build_view, share_colours
from .diff import OutcomeRecorder, diff_outcomes, replay_summary, totals
from .validation import decode_proposal

Run = tuple[str, Mapping[str, Any], Mapping[str, Any]]


def check_page_runs(check_report: Mapping[str, Any], traces: Mapping[str, Any], proposed: Sequence[Mapping[str, Any]],
                    *, sources: Sequence[str] | None = None, baseline: Sequence[Mapping[str, Any]] | None = None,
                    config: Any = None, seed: int = 0, kubernetes_version: Any = None,
                    feature_gates: Any = None) -> tuple[list[Run], str]:
    """(label, report, view) per replay, in page order, and the page's title."""
    decoded, _ = decode_proposal(proposed, sources)
    base_objects = [dict(o) for o in baseline] if baseline is not None else None
    runs: list[Run] = []
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
        paired = tr.get("distribution")
        if paired:
            runs.extend(_runs_of_pair(name, events, paired, base_objects, overrides or None, config=config, seed=seed,
                                      kubernetes_version=kubernetes_version, feature_gates=feature_gates))
            continue
        for which, classes in (("baseline", base_objects), ("proposed", overrides or None)):
            report = replay(events, config=config, priority_classes=classes, seed=seed,
                            kubernetes_version=kubernetes_version, feature_gates=feature_gates)
            view = build_view(report, events)
            if replay_summary(report) != tr.get(which):
                view["notes"] = [f"this {which} replay differs from the check's ({replay_summary(report)} here, "
                                 f"{tr.get(which)} in the check)"]
            view["changes"] = {"totals": tr.get("totals") or {}, "pods": tr.get("changes") or []}
            runs.append((f"{name}: {which}", report, view))
    return share_colours(runs), f"PriorityClass change {page_verdict(check_report)}: baseline vs proposed"


def page_verdict(check_report: Mapping[str, Any]) -> str:
    """"passes", or "fails" with the rules that failed, as the page's title says it: the page
    alone (a CI artifact) tells which rule to look at."""
    if check_report.get("passed"):
        return "passes"
    failed: list[str] = []
    for r in check_report.get("rules") or ():
        if not r.get("passed", True):
            name = f"{r.get('rule')} ({r['trace']})" if r.get("trace") else str(r.get("rule"))
            if name not in failed:
                failed.append(name)
    return "fails " + ("rule " if len(failed) == 1 else "rules ") + ", ".join(failed) if failed else "fails"


def _runs_of_pair(name: str, events: Any, paired: Mapping[str, Any], baseline: Any, proposed: Any, *,
                  config: Any, seed: int, kubernetes_version: Any, feature_gates: Any = None) -> list[Run]:
    """Both sides of `check --runs N` for one trace: pair k (k the proposal's median run) drawn,
    each side with its distribution over the N runs."""
    k = int(paired["proposed"]["medianRun"])
    n = int(paired["runs"])
    drawn: list[tuple[str, dict[str, Any], OutcomeRecorder]] = []
    for which, classes in (("baseline", baseline), ("proposed", proposed)):
        rec = OutcomeRecorder()
        report = replay(events, config=config, priority_classes=classes, seed=seed, listener=rec,
                        kubernetes_version=kubernetes_version, feature_gates=feature_gates, run=k)
        report["run"] = {**(report.get("run") or {"run": 1, "seed": None}), "of": n}
        report["distribution"] = paired[which]
        drawn.append((which, report, rec))
    entries = diff_outcomes(drawn[0][2].pods, drawn[1][2].pods)
    out: list[Run] = []
    for which, report, _ in drawn:
        view = build_view(report, events)
        view["changes"] = {"totals": totals(entries), "pods": entries}
        out.append((f"{name}: {which}", report, view))
    return out
