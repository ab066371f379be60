"""check(): proposed PriorityClasses against recorded traffic, as plain data.

For each trace: the proposal is applied over the classes that existed (the trace's own, or a
given baseline) as the API server would take it; the trace is replayed twice, with the baseline
classes and with the proposed ones, and the two replays are compared pod by pod; the policy
decides whether the differences fail the change.
"""
from __future__ import annotations

from ..errors import InputError

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..framework.config import SchedulerConfig
from ..framework.versions import KubernetesVersion, Resolved, apply_feature_gates
from ..model.limits import check_runs
from ..replay.api import replay, run_spec
from ..replay.api import scheduler_version as replay_scheduler_version
from ..replay.api import VERSION_FROM, scheduler_version_source
from ..replay.report import gaps_info
from ..replay.simulate import initial_objects
from ..replay.state import finished, format_time
from ..replay.timeline import normalize
from .diff import OutcomeRecorder, diff_outcomes, replay_summary, totals
from .policy import Policy, RuleResult, evaluate_trace, evaluate_validation
from .runs import PairSpec, paired_runs
from .validation import (MSG_NO_CLASS, SYSTEM_PRIORITY_CLASSES, WARNING, Applied, ExistingClass, Finding,
                         ProposedClass, apply_proposal, decode_proposal)

API_VERSION = "kubectl-preempt/v1"
KIND = "CheckReport"
BASELINE_CONTEXT = "--baseline"
# pods listed per re-created class; the count is always whole
MAX_PODS_LISTED = 200
RULE_REMOVED = "removed"
RULE_RECREATE = "recreate"

Progress = Callable[[str, str], None]


def _system_classes() -> dict[str, ExistingClass]:
    # every cluster has them, whether a trace or a baseline lists them or not
    return {name: ExistingClass(name, value, default, "PreemptLowerPriority")
            for name, (value, default) in SYSTEM_PRIORITY_CLASSES.items()}


def _existing(objects: Sequence[Mapping[str, Any]]) -> dict[str, ExistingClass]:
    out = _system_classes()
    for o in objects:
        if o.get("kind") == "PriorityClass":
            c = ExistingClass.from_object(o)
            out[c.name] = c
    return out


def _recreate_findings(applied: Applied) -> list[Finding]:
    out = []
    for rc in applied.recreates:
        what = "; ".join(f"{k} {a} -> {b}" for k, (a, b) in rc.changes().items())
        old = rc.old.value
        out.append(Finding(RULE_RECREATE, rc.name,
                           f"{what}: the API server refuses it as an update ({rc.update_error}), so the class "
                           f"is deleted and re-created; pods that exist keep priority {old} until they are "
                           "re-created themselves", severity=WARNING, source=rc.new.source))
    return out


def _merge(findings: list[Finding], new: Sequence[Finding], context: str) -> None:
    """Findings that hold in several traces are listed once, with the traces they hold in."""
    for f in new:
        same = next((g for g in findings if (g.rule, g.name, g.message) == (f.rule, f.name, f.message)), None)
        if same is None:
            f.contexts = [context]
            findings.append(f)
        elif context not in same.contexts:
            same.contexts.append(context)


def _pods_using(objects: Sequence[Mapping[str, Any]], name: str) -> list[str]:
    """Pods at the trace's start whose class is `name`: admission fixed their priority already."""
    out = []
    for o in objects:
        if o.get("kind") != "Pod" or finished(o):
            continue
        md = o.get("metadata") or {}
        if ((o.get("spec") or {}).get("priorityClassName") or "") == name and not md.get("deletionTimestamp"):
            out.append(f"{md.get('namespace') or 'default'}/{md.get('name')}")
    return sorted(out)


def _recreate_entries(applied: Applied, initial: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for rc in applied.recreates:
        pods = _pods_using(initial, rc.name)
        out.append({"priorityClass": rc.name, "changes": rc.changes(), "updateError": rc.update_error,
                    "podsKeepingOldPriority": pods[:MAX_PODS_LISTED], "podCount": len(pods)})
    return out


def _proposed_overrides(proposed: Sequence[ProposedClass], applied: Applied,
                        baseline: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """The classes the proposed replay resolves with: the baseline's, with every proposed class
    the API server would accept on top."""
    accepted = [pc for pc in proposed if pc.effective and pc.name not in applied.rejected]
    names = {pc.name for pc in accepted}
    out = [dict(o) for o in baseline or () if (o.get("metadata") or {}).get("name") not in names]
    out += [pc.as_object() for pc in accepted]
    return out


def check(traces: Mapping[str, Any], proposed: Sequence[Mapping[str, Any]], *,
          sources: Sequence[str] | None = None, baseline: Sequence[Mapping[str, Any]] | None = None,
          policy: Policy | None = None, config: SchedulerConfig | Mapping[str, Any] | None = None,
          seed: int = 0, progress: Progress | None = None, runs: int = 1, jobs: int | None = None,
          ray_address: str | None = None, kubernetes_version: str | KubernetesVersion | None = None,
          feature_gates: str | Mapping[str, bool] | None = None,
          releases: Mapping[str, Resolved] | None = None) -> dict[str, Any]:
    """Check proposed PriorityClasses against recorded traces.

    `traces`: name -> a trace (io.trace's Trace, {"header", "events"}, or a list of events).
    `proposed`: PriorityClass objects as the change holds them (`sources`: where each is, for
    messages). `baseline`: the classes before the change; by default each trace's own, and then
    the proposal adds and replaces classes; given, it is the whole set before and `proposed` the
    whole set after (a class it leaves out is deleted). `runs` > 1: both sides replayed over the
    same `runs` seeds and the rules decided on the paired runs (check/runs.py), fanned out over
    `jobs` processes or the Ray cluster at `ray_address`. `kubernetes_version` picks the
    kube-scheduler release both sides imitate; by default each trace's own (replay's rule);
    `feature_gates` (kube-scheduler's --feature-gates) are checked against it and set on it.
    `releases`: trace name -> the release already resolved for it (check/request.py, which read
    the traces), carried rather than resolved again.
    """
    check_runs(runs)
    policy = policy or Policy()
    proposal, findings = decode_proposal(proposed, sources)
    base_objects = [dict(o) for o in baseline] if baseline is not None else None

    base_applied: Applied | None = None
    if base_objects is not None:
        base_applied = apply_proposal(proposal, _existing(base_objects), complete=True)
        _merge(findings, base_applied.findings + _recreate_findings(base_applied), BASELINE_CONTEXT)

    trace_reports = []
    all_rules: list[RuleResult] = []
    for name, events in traces.items():
        # each trace is replayed by its own release (replay's rule) unless one is asked for
        picked = releases[name] if releases is not None and name in releases else \
            replay_scheduler_version(events, kubernetes_version)
        side = _Sides(events, config, base_objects, seed, apply_feature_gates(picked.version, feature_gates))
        try:
            report, rules = _check_trace(name, side, proposal, base_applied, findings, policy, progress, runs,
                                         jobs, ray_address, kubernetes_version)
        except InputError as e:
            # bad input found while replaying it (a workload object of another release): its trace named
            raise e.located(source=name) from None
        all_rules.extend(rules)
        trace_reports.append(report)

    if base_applied is not None:
        for n in base_applied.removed:
            msg = ("deleted by this change (not simulated: the replay keeps it); a pod created with it is "
                   "refused: " + MSG_NO_CLASS % n)
            findings.append(Finding(RULE_REMOVED, n, msg, severity=WARNING, contexts=[BASELINE_CONTEXT]))
    return _check_report(policy, proposal, base_objects, findings, trace_reports, all_rules)


@dataclass(frozen=True)
class _Sides:
    """What both sides of one trace's replays share: the trace, the configuration, the baseline
    classes (None: the trace's own), the seed and the release (gates set) that replays both."""
    events: Any
    config: SchedulerConfig | Mapping[str, Any] | None
    base_objects: list[dict[str, Any]] | None
    seed: int
    version: KubernetesVersion


def _check_trace(name: str, side: _Sides, proposal: Sequence[ProposedClass], base_applied: Applied | None,
                 findings: list[Finding], policy: Policy, progress: Progress | None, runs: int,
                 jobs: int | None, ray_address: str | None,
                 kubernetes_version: str | KubernetesVersion | None) -> tuple[dict[str, Any], list[RuleResult]]:
    """One trace replayed with the baseline and with the proposed classes: its part of the
    report, and the rules decided on it."""
    events = side.events
    try:
        timeline = normalize(events)
    except InputError as e:
        raise e.located(source=name) from None
    initial = initial_objects(timeline.initial)
    if base_applied is None:
        applied = apply_proposal(proposal, _existing(initial))
        _merge(findings, applied.findings + _recreate_findings(applied), name)
    else:
        applied = base_applied
    overrides = _proposed_overrides(proposal, applied, side.base_objects)
    paired: dict[str, Any] | None = None
    if runs > 1:
        entries, base_summary, prop_summary, rules, paired = _paired_sides(
            name, side, overrides, policy, progress, runs, jobs, ray_address)
    else:
        entries, base_summary, prop_summary = _one_run_each(name, side, overrides, progress)
        rules = evaluate_trace(policy, name, entries)
    removed = [{"priorityClass": n, "podCount": len(_pods_using(initial, n))} for n in applied.removed]
    source = scheduler_version_source(events, kubernetes_version)
    return {
        "trace": name,
        "schedulerVersion": side.version.name,
        "schedulerVersionFrom": VERSION_FROM[source["from"]],
        "schedulerVersionSource": source,
        **side.version.gates_document(),
        "start": format_time(timeline.start), "end": format_time(timeline.end),
        "durationSeconds": round(timeline.end - timeline.start, 3),
        **gaps_info(timeline),
        "recreated": _recreate_entries(applied, initial),
        "rejected": list(applied.rejected),
        "removed": removed,
        "baseline": base_summary,
        "proposed": prop_summary,
        "totals": totals(entries),
        "changes": entries,
        # with --runs: run 1's changes above, the paired distributions here
        **({"distribution": paired} if paired is not None else {}),
    }, rules


def _paired_sides(name: str, side: _Sides, overrides: list[dict[str, Any]], policy: Policy,
                  progress: Progress | None, runs: int, jobs: int | None,
                  ray_address: str | None) -> tuple[list[dict[str, Any]], Any, Any, list[RuleResult], dict[str, Any]]:
    """--runs > 1: both sides over the same seeds (check/runs.py); run 1's changes and summaries,
    the rules decided on the pairs, and the paired distributions."""
    if progress is not None:
        progress(name, "baseline and proposed")
    spec = PairSpec(run_spec(side.events, config=side.config, priority_classes=side.base_objects, seed=side.seed,
                             kubernetes_version=side.version),
                    run_spec(side.events, config=side.config, priority_classes=overrides or None, seed=side.seed,
                             kubernetes_version=side.version))
    folded = paired_runs(spec, runs, policy, name, jobs=jobs, ray_address=ray_address)
    first = folded.first or {}
    return first["entries"], first["baseline"], first["proposed"], folded.rules(), folded.report()


def _one_run_each(name: str, side: _Sides, overrides: list[dict[str, Any]],
                  progress: Progress | None) -> tuple[list[dict[str, Any]], Any, Any]:
    """One replay per side: the per-pod changes between them, and each side's summary."""
    if progress is not None:
        progress(name, "baseline")
    base_rec = OutcomeRecorder()
    base_report = replay(side.events, config=side.config, priority_classes=side.base_objects, seed=side.seed,
                         listener=base_rec, kubernetes_version=side.version)
    if progress is not None:
        progress(name, "proposed")
    prop_rec = OutcomeRecorder()
    prop_report = replay(side.events, config=side.config, priority_classes=overrides or None, seed=side.seed,
                         listener=prop_rec, kubernetes_version=side.version)
    return diff_outcomes(base_rec.pods, prop_rec.pods), replay_summary(base_report), replay_summary(prop_report)


def _check_report(policy: Policy, proposal: Sequence[ProposedClass], base_objects: list[dict[str, Any]] | None,
                  findings: list[Finding], trace_reports: list[dict[str, Any]],
                  all_rules: list[RuleResult]) -> dict[str, Any]:
    """check's document: the validation rule first, then every trace's rules, and the totals."""
    finding_dicts = [f.to_dict() for f in findings]
    validation_rule = evaluate_validation(finding_dicts)
    rules_all = [validation_rule, *all_rules]
    grand = {k: sum(t["totals"][k] for t in trace_reports) for k in (trace_reports[0]["totals"] if trace_reports else {})}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "passed": all(r.passed for r in rules_all),
        "policy": policy.to_dict(),
        "proposed": [{"name": pc.name, "source": pc.source, "value": pc.value, "globalDefault": pc.global_default,
                      "preemptionPolicy": pc.preemption_policy, "valid": pc.valid,
                      **({"superseded": True} if pc.superseded else {})} for pc in proposal],
        "baseline": "the classes in each trace" if base_objects is None else f"{len(base_objects)} given classes",
        "validation": {"passed": validation_rule.passed, "findings": finding_dicts},
        "traces": trace_reports,
        "totals": grand,
        "rules": [r.to_dict() for r in rules_all],
        "violations": sum(len(r.violations) for r in rules_all),
    }


__all__ = ["check", "API_VERSION", "KIND"]
