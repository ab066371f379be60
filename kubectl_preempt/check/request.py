"""check's inputs, read before any replay: the traces (each with the release that replays it),
the proposed and baseline PriorityClasses, the configuration."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..errors import InputError
from ..framework.versions import apply_feature_gates
from ..io.proposals import TRACE_SUFFIXES, expand, load_priority_classes
from ..io.snapshot import load_config_document
from ..io.trace import Trace, read_trace
from ..replay.api import scheduler_version as _replay_scheduler_version


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


def check_inputs(trace_paths: Sequence[str], proposed: Sequence[str], *, baseline: Sequence[str] | None = None,
                 config: str | None = None, kubernetes_version: str | None = None,
                 feature_gates: Mapping[str, bool] | None = None) -> CheckInputs:
    """Read everything `check` needs before any replay: the traces (directories expanded), the
    proposed and baseline PriorityClass files, the configuration. Each trace's release is picked
    and the feature gates checked against it here, so that a refusal comes before any replay."""
    notes: list[str] = []
    traces: dict[str, Trace] = {}
    for path in expand(trace_paths, TRACE_SUFFIXES, "traces", recursive=False):
        tr = read_trace(path)
        notes += [f"note: {n}" for n in tr.notes]
        traces[tr.source or path] = tr
        # each trace is replayed by the release it was recorded from, unless one is asked for
        picked = _replay_scheduler_version(tr, kubernetes_version)
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
        base, _, _ = load_priority_classes(baseline)
    cfg = load_config_document(config) if config else None
    return CheckInputs(traces, classes, sources, base, cfg, notes)
