"""replay(): a trace through the offline scheduler, as plain data in and out."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ..errors import UsageError
from ..framework.config import SchedulerConfig, parse_config
from ..framework.versions import KubernetesVersion, Resolved, resolve_kubernetes_version
from .follow import Follow
from .report import follow_report, simulate_report
from .activity import ActivityRecorder, Tee
from .simulate import Listener, Progress, Simulation
from .timeline import normalize
from .whatif import PriorityPolicy

MODES = ("simulate", "follow")


def trace_server_version(events: Any) -> str | None:
    """The server version a trace was recorded from: its header's source.serverVersion."""
    header: Any = None
    if isinstance(events, Mapping):
        header = events.get("header")
    elif not isinstance(events, (list, tuple)):
        header = getattr(events, "header", None)
    if not isinstance(header, Mapping):
        return None
    v = (header.get("source") or {}).get("serverVersion")
    return str(v) if v is not None else None


def scheduler_version(events: Any, kubernetes_version: str | KubernetesVersion | None = None) -> Resolved:
    """Which kube-scheduler release replays the trace: `kubernetes_version` if given, else the one
    the trace was recorded from (nearest imitated, with a note), else v1.34.1."""
    return resolve_kubernetes_version(kubernetes_version, trace_server_version(events), data_source="the trace")


def _named(report: dict[str, Any], version: KubernetesVersion) -> dict[str, Any]:
    """The report with the release that replayed it, right after its apiVersion and kind."""
    head = {k: report.pop(k) for k in ("apiVersion", "kind") if k in report}
    return {**head, "schedulerVersion": version.name, **report}


def replay(events: Any, *, mode: str = "simulate", config: SchedulerConfig | Mapping[str, Any] | None = None,
           priority_classes: Iterable[Mapping[str, Any]] | None = None, reresolve_existing: bool = False,
           seed: int = 0, on_decision: Callable[[dict[str, Any]], None] | None = None,
           progress: Progress | None = None, listener: Listener | None = None,
           kubernetes_version: str | KubernetesVersion | None = None) -> dict[str, Any]:
    """Replay a trace through the offline copy of kube-scheduler; returns the report.

    `kubernetes_version` ("v1.34", "v1.36") picks the release imitated; by default the trace
    header's source.serverVersion decides (see scheduler_version), else v1.34.1. The report's
    `schedulerVersion` says which replayed.

    `events`: a trace (`io.trace.read_trace`'s result, or {"header": ..., "events": [...]}) or a
    list of {"time", "type", "object"} events; the events at the trace's start form the initial
    state. `mode`: "simulate" (the offline scheduler owns every pending pod) or "follow" (the
    recording is applied as it happened; each preemption it shows is explained and checked).
    `priority_classes`: PriorityClass objects replacing or adding to the recorded ones (what-if).
    `on_decision`: called with each preemption decision as a conformance case (--dump-decisions).
    """
    if mode not in MODES:
        raise UsageError(f"mode {mode!r} is not one of {', '.join(MODES)}", field="mode")
    version = scheduler_version(events, kubernetes_version).version
    cfg_raw = None
    if isinstance(config, SchedulerConfig):
        cfg = config.for_version(version)
        cfg_raw = getattr(config, "raw", None)
    else:
        cfg = parse_config(config, version=version)
        cfg_raw = config
    timeline = normalize(events)
    policy = PriorityPolicy(priority_classes, reresolve_existing=reresolve_existing)
    what_if: dict[str, Any] = {}
    if policy.active:
        what_if["priorityClasses"] = [{"name": pc.name, "value": pc.value, "globalDefault": pc.global_default,
                                       "preemptionPolicy": pc.preemption_policy}
                                      for pc in policy.overrides.values()]
        what_if["reresolveExisting"] = reresolve_existing
    if config is not None:
        what_if["config"] = True
    if mode == "follow":
        f = Follow(timeline, cfg, policy=policy, seed=seed, on_decision=on_decision, progress=progress)
        f.config_raw = cfg_raw
        return _named(follow_report(f.run(), what_if=what_if), version)
    recorder = ActivityRecorder()
    sim = Simulation(timeline, cfg, policy=policy, seed=seed, on_decision=on_decision, progress=progress,
                     listener=Tee(recorder, listener))
    sim.config_raw = cfg_raw
    report = _named(simulate_report(sim.run(), what_if=what_if), version)
    # the replayed scheduler's bindings and deletions, pod by pod: what a timeline draws
    report["activity"] = recorder.activity()
    return report
