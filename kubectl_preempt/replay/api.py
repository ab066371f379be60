"""replay(): a trace through the offline scheduler, as plain data in and out."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ..errors import UsageError, quote
from ..framework.config import SchedulerConfig, parse_config
from .follow import Follow
from .report import follow_report, simulate_report
from .activity import ActivityRecorder, Tee
from .simulate import Listener, Progress, Simulation
from .timeline import normalize
from .whatif import PriorityPolicy

MODES = ("simulate", "follow")


def replay(events: Any, *, mode: str = "simulate", config: SchedulerConfig | Mapping[str, Any] | None = None,
           priority_classes: Iterable[Mapping[str, Any]] | None = None, reresolve_existing: bool = False,
           seed: int = 0, on_decision: Callable[[dict[str, Any]], None] | None = None,
           progress: Progress | None = None, listener: Listener | None = None) -> dict[str, Any]:
    """Replay a trace through kube-scheduler v1.34.1's offline copy; returns the report.

    `events`: a trace (`io.trace.read_trace`'s result, or {"header": ..., "events": [...]}) or a
    list of {"time", "type", "object"} events; the events at the trace's start form the initial
    state. `mode`: "simulate" (the offline scheduler owns every pending pod) or "follow" (the
    recording is applied as it happened; each preemption it shows is explained and checked).
    `priority_classes`: PriorityClass objects replacing or adding to the recorded ones (what-if).
    `on_decision`: called with each preemption decision as a conformance case (--dump-decisions).
    """
    if mode not in MODES:
        raise UsageError(f"mode {quote(mode)} is not one of {', '.join(MODES)}", field="mode")
    cfg_raw = None
    if isinstance(config, SchedulerConfig):
        cfg = config
        cfg_raw = getattr(config, "raw", None)
    else:
        cfg = parse_config(config)
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
        return follow_report(f.run(), what_if=what_if)
    recorder = ActivityRecorder()
    sim = Simulation(timeline, cfg, policy=policy, seed=seed, on_decision=on_decision, progress=progress,
                     listener=Tee(recorder, listener))
    sim.config_raw = cfg_raw
    report = simulate_report(sim.run(), what_if=what_if)
    # the replayed scheduler's bindings and deletions, pod by pod: what a timeline draws
    report["activity"] = recorder.activity()
    return report
