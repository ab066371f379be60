"""check's inputs, read before any replay: the traces (each with the release that replays it),
the proposed and baseline PriorityClasses, the configuration."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import InputError
from ..framework.versions import Resolved, apply_feature_gates, parse_feature_gates
from ..io.files import STDOUT, is_private, refuse_link
from ..io.proposals import TRACE_SUFFIXES, expand, load_priority_classes
from ..io.snapshot import load_config_document
from ..io.trace import Trace, read_trace
from ..replay.api import scheduler_version as _replay_scheduler_version
from ..model.schema import check_object, object_label
from .api import check
from .policy import Policy


@dataclass
class CheckInputs:
    """What `check` compares: the traces by name, the proposed classes (with the file each came
    from), the baseline classes when given, the scheduler configuration, and the notes on them."""
    traces: dict[str, Trace]
    classes: list[dict]
    sources: Any
    baseline: list[dict] | None
    config: Any
    notes: list[str]
    # trace name -> the release that replays it (gates not set), resolved once, carried to check()
    releases: dict[str, Resolved] = field(default_factory=dict)


def check_inputs(trace_paths: Sequence[str], proposed: Sequence[str], *, baseline: Sequence[str] | None = None,
                 config: str | None = None, kubernetes_version: str | None = None,
                 feature_gates: Mapping[str, bool] | None = None) -> CheckInputs:
    """Read everything `check` needs before any replay: the traces (directories expanded), the
    proposed and baseline PriorityClass files, the configuration. Each trace's release is picked
    and the feature gates checked against it here, so that a refusal comes before any replay."""
    notes: list[str] = []
    traces: dict[str, Trace] = {}
    releases: dict[str, Resolved] = {}
    for path in expand(trace_paths, TRACE_SUFFIXES, "traces", recursive=False):
        tr = read_trace(path)
        notes += [f"note: {n}" for n in tr.notes]
        traces[tr.source or path] = tr
        # each trace is replayed by the release it was recorded from, unless one is asked for
        picked = releases[tr.source or path] = _replay_scheduler_version(tr, kubernetes_version)
        if picked.note:
            notes.append(f"{tr.source or path}: {picked.note}")
        # refused before any replay, as kube-scheduler refuses them at start
        apply_feature_gates(picked.version, feature_gates)

    classes, sources, skipped = load_priority_classes(proposed)
    others = ", ".join(f"{k} ({n})" for k, n in skipped.items())
    if not classes:
        raise InputError("no PriorityClass in " + ", ".join(proposed) + (f" (only {others})" if others else ""),
                         field="--proposed")
    if skipped:
        notes.append(f"note: --proposed: skipped {others}: only PriorityClasses are checked")
    base = None
    if baseline:
        base, base_sources, base_skipped = load_priority_classes(baseline)
        if not base:
            # a failed `kubectl get priorityclasses -o yaml > before.yaml` leaves an empty file: a
            # cluster without a class (not even system-node-critical) is a broken baseline
            only = ", ".join(f"{k} ({n})" for k, n in base_skipped.items())
            raise InputError("no PriorityClass in " + ", ".join(baseline) + (f" (only {only})" if only else ""),
                             field="--baseline")
        # the cluster's classes as the API server stored them: their shape checked by the schema,
        # the error naming the file and the item (model/schema.py)
        for obj, where in zip(base, base_sources):
            try:
                check_object(obj)
            except InputError as e:
                raise InputError(e.detail, source=where.split(": ", 1)[0],
                                 field=f"{where.split(': ', 1)[1]} ({object_label(obj)}).{e.field}"
                                 if ": " in where else f"{object_label(obj)}.{e.field}") from None
    cfg = load_config_document(config) if config else None
    return CheckInputs(traces, classes, sources, base, cfg, notes, releases)


@dataclass
class CheckResult:
    """What `check` made: the report, and what its HTML page replays again (`page`, set by api,
    which may import render); whether what is made from the traces is private."""
    report: dict[str, Any]
    inputs: CheckInputs
    seed: int
    kubernetes_version: str | None
    feature_gates: Mapping[str, bool]
    private: bool
    page: Callable[[], str] | None = None


def check_request(trace_paths: Sequence[str], proposed: Sequence[str], *, baseline: Sequence[str] | None = None,
                  fail_on: Sequence[str] | None = None, protect_namespace: Sequence[str] | None = None,
                  max_new_victims: int | None = None, config: str | None = None, seed: int = 0,
                  kubernetes_version: str | None = None, feature_gates: str | None = None, runs: int = 1,
                  jobs: int | None = None, ray_address: str | None = None, html: str | None = None,
                  junit: str | None = None, progress: Callable[[str, str], None] | None = None,
                  note: Callable[[str], None] | None = None) -> CheckResult:
    """`kubectl preempt check`: the policy and --feature-gates read, --html's and --junit's paths
    checked, every input read before any replay (check_inputs: each trace's release resolved once,
    carried), the notes on them told to `note`, then the check (check/api.py)."""
    policy = Policy.from_options(fail_on, protect_namespace, max_new_victims)
    gates = parse_feature_gates(feature_gates)
    for flag, out_path in (("--html", html), ("--junit", junit)):
        if out_path and out_path != STDOUT:
            refuse_link(out_path, flag)  # before the replays, not after them
    inputs = check_inputs(trace_paths, proposed, baseline=baseline, config=config,
                          kubernetes_version=kubernetes_version, feature_gates=gates)
    report = check(inputs.traces, inputs.classes, sources=inputs.sources, baseline=inputs.baseline, policy=policy,
                   config=inputs.config, seed=seed, progress=progress, runs=runs, jobs=jobs, ray_address=ray_address,
                   kubernetes_version=kubernetes_version, feature_gates=gates, releases=inputs.releases)
    # every input read and checked: what is worth knowing about them (bad input found by the
    # replays ends with its one error line, no note before it)
    for n in inputs.notes:
        if note is not None:
            note(n)
    # what is made from a private trace (readable by its owner only, or unredacted) is private too
    private = any(is_private(p) or tr.header.get("redacted") is False for p, tr in inputs.traces.items())
    return CheckResult(report, inputs, seed, kubernetes_version, gates, private)
