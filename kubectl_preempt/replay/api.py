"""replay(): a trace through the offline scheduler, as plain data in and out."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..errors import UsageError, quote
from ..framework.config import SchedulerConfig, parse_config
from ..framework.versions import (FROM_DEFAULT, FROM_KUBELET, FROM_TRACE, KubernetesVersion, Resolved,
                                  apply_feature_gates, kubelet_versions, newest_kubelet, parse_version, resolve_kubernetes_version)
from ..model import limits
from ..model.limits import check_runs
from ..batch.cache.cache import DEFAULT_SCHEDULER_NAME
from .batch import DEFAULT_SCHEDULE_PERIOD, BatchOptions
from .follow import Follow
from .report import follow_report
from .runs import RunProgress, RunSpec, replay_runs, run_seed, simulate_once
from .simulate import Listener, Progress
from .timeline import normalize
from ..model.workload import refuse_other_release
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


def trace_kubelets(events: Any) -> Iterator[tuple[str, Any]]:
    """(node, kubeletVersion) of the Nodes in the trace's initial state (its events at the first
    instant): a lower bound on the release when the header names none. Lazy: read only then."""
    if isinstance(events, Mapping):
        evs = events.get("events") or []
    elif isinstance(events, (list, tuple)):
        evs = events
    else:
        evs = getattr(events, "events", None) or []

    def initial_nodes() -> Iterator[Mapping[str, Any]]:
        first: Any = None
        for i, ev in enumerate(evs):
            # a JSON object is a dict: the Mapping check (an ABC's) only for other events
            if type(ev) is not dict and not isinstance(ev, Mapping):
                return
            if i == 0:
                first = ev.get("time")
            elif ev.get("time") != first:
                return
            obj = ev.get("object")
            if isinstance(obj, dict) and obj.get("kind") == "Node":
                yield obj

    return kubelet_versions(initial_nodes())


class _TraceKubelets:
    """trace_kubelets(events), read on first use and kept: one request asks twice (its release,
    scheduler_version, and where that came from, scheduler_version_source), and each reading
    walks the trace's whole initial state."""

    def __init__(self, events: Any) -> None:
        self.events = events
        self.read: list[tuple[str, Any]] | None = None

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        if self.read is None:
            self.read = list(trace_kubelets(self.events))
        return iter(self.read)


def scheduler_version(events: Any, kubernetes_version: str | KubernetesVersion | None = None, *,
                      kubelets: Iterable[tuple[str, Any]] | None = None) -> Resolved:
    """Which kube-scheduler release replays the trace: `kubernetes_version` if given, else the one
    the trace was recorded from (nearest imitated, with a note), else its nodes' newest kubelet
    minor, else the newest imitated release (resolve_kubernetes_version; a note for either).
    `kubelets`: trace_kubelets(events) as the caller keeps it (None: read here, when needed)."""
    return resolve_kubernetes_version(kubernetes_version, trace_server_version(events), data_source="the trace",
                                      data_kind=FROM_TRACE,
                                      kubelets=trace_kubelets(events) if kubelets is None else kubelets)


# where the release a replay imitates came from (its report's schedulerVersionSource.from), and
# the same in the words every report uses (schedulerVersionFrom: framework/versions.py FROM_*)
FROM_REQUESTED = "--kubernetes-version"
VERSION_FROM = {FROM_REQUESTED: "flag", FROM_TRACE: FROM_TRACE, FROM_KUBELET: FROM_KUBELET,
                FROM_DEFAULT: FROM_DEFAULT}


def scheduler_version_source(events: Any, kubernetes_version: str | KubernetesVersion | None = None, *,
                             kubelets: Iterable[tuple[str, Any]] | None = None) -> dict[str, Any]:
    """Where scheduler_version's release comes from, for the report: asked for (FROM_REQUESTED),
    inferred from the trace header's source.serverVersion (FROM_TRACE), bounded by the newest
    kubelet of its nodes (FROM_KUBELET), or the default (FROM_DEFAULT, also when that header names
    no Kubernetes release). A trace's serverVersion is kube-apiserver's: the version-skew policy lets
    kube-scheduler be up to one minor older, so an inferred release is a guess a reader should know
    about."""
    if isinstance(kubernetes_version, KubernetesVersion):
        return {"from": FROM_REQUESTED, "requested": kubernetes_version.name}
    if kubernetes_version is not None and str(kubernetes_version).strip():
        return {"from": FROM_REQUESTED, "requested": str(kubernetes_version).strip()}
    server = trace_server_version(events)
    text = (server or "").strip()
    if text and text != "unknown" and parse_version(text) is not None:
        return {"from": FROM_TRACE, "serverVersion": text}
    newest = newest_kubelet(trace_kubelets(events) if kubelets is None else kubelets)
    if newest is not None:
        return {"from": FROM_KUBELET, "kubeletVersion": newest[0]}
    return {"from": FROM_DEFAULT}


def _named(report: dict[str, Any], version: KubernetesVersion,
           source: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report with the release that replayed it (and where that release came from), right
    after its apiVersion and kind."""
    head = {k: report.pop(k) for k in ("apiVersion", "kind") if k in report}
    extra: dict[str, Any] = {"schedulerVersion": version.name}
    if source is not None:
        extra["schedulerVersionFrom"] = VERSION_FROM[source["from"]]
        extra["schedulerVersionSource"] = dict(source)
    # --feature-gates, as given: the release decided with them
    extra.update(version.gates_document())
    return {**head, **extra, **report}


def replay(events: Any, *, mode: str = "simulate", config: SchedulerConfig | Mapping[str, Any] | None = None,
           priority_classes: Iterable[Mapping[str, Any]] | None = None, reresolve_existing: bool = False,
           seed: int = 0, on_decision: Callable[[dict[str, Any]], None] | None = None,
           progress: Progress | None = None, listener: Listener | None = None,
           runs: int = 1, jobs: int | None = None, ray_address: str | None = None,
           run_progress: RunProgress | None = None, api_latency: float | None = None,
           feature_gates: Mapping[str, bool] | None = None,
           kubernetes_version: str | KubernetesVersion | None = None, resolved: Resolved | None = None,
           batch_scheduler_name: str = DEFAULT_SCHEDULER_NAME, batch_scheduler_conf: str | None = None,
           batch_scheduler_conf_source: str | None = None,
           schedule_period: float = DEFAULT_SCHEDULE_PERIOD, run: int = 1) -> dict[str, Any]:
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
    `runs` > 1 (simulate mode): that many runs, each with its own random choices (replay/runs.py),
    fanned out over `jobs` processes (default: the number of cores) or the Ray cluster at
    `ray_address`; the report is the run with the median number of preemptions, with
    `distribution` over all runs.
    `feature_gates`: kube-scheduler's --feature-gates, checked against the release's gates: those
    the plugins read (framework/versions.py GATE_FIELDS) and SchedulerAsyncPreemption (the release's
    default: on since v1.33); `api_latency`: seconds each API call of the scheduler takes in simulate mode
    (asynchronous preemption's victim patches and deletions; default: what the trace's own victims
    took, api_dispatcher.api_latency_of, else DEFAULT_API_LATENCY; without it, run k >= 2 of `runs`
    draws each call's time from the trace's measured calls, simulate.py _api_latency_draw).
    Pods whose schedulerName is `batch_scheduler_name` are kube-batch's (simulate mode): a session
    every `schedule_period` seconds with `batch_scheduler_conf` (kube-batch's configuration file
    as text, named `batch_scheduler_conf_source` in errors; None: its default) places them and
    may evict (replay/batch.py); each preemption then says its `scheduler` and `action`.
    `run` (simulate mode, `runs` 1): replay run `run` of a `--runs` replay alone, with its random
    choices (its seed, replay/runs.py); the report says which in `run`. Run 1 is the single replay.
    `resolved`: the release a request resolved already for `kubernetes_version` and this trace
    (replay/request.py), carried rather than resolved again.
    """
    if mode not in MODES:
        raise UsageError(f"mode {quote(mode)} is not one of {', '.join(MODES)}", field="mode")
    check_runs(runs)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise UsageError(f"must be 1 or more, got {quote(jobs)}", field="--jobs")
    if runs > 1 and mode == "follow":
        raise UsageError("--runs needs simulate mode: --follow applies the recording as it happened, "
                         "with nothing left to chance", field="--runs")
    if isinstance(run, bool) or not isinstance(run, int) or run < 1:
        raise UsageError(f"must be 1 or more, got {quote(run)}", field="run")
    if run > 1 and (runs > 1 or mode == "follow"):
        raise UsageError("a run of its own is one simulate-mode run: give runs=1", field="run")
    if runs > 1 and (on_decision is not None or listener is not None):
        raise UsageError("--dump-decisions writes the decisions of one run; use it with --runs 1",
                         field="--runs")
    # the release is resolved once per request: here, unless the request resolved it already (a
    # Resolved) or a caller hands the release itself over (check: both sides by one release)
    kubelets = _TraceKubelets(events)
    if resolved is not None:
        release = resolved.version
    elif isinstance(kubernetes_version, KubernetesVersion):
        release = kubernetes_version
    else:
        release = scheduler_version(events, kubernetes_version, kubelets=kubelets).version
    spec = run_spec(events, config=config, priority_classes=priority_classes,
                    reresolve_existing=reresolve_existing, seed=seed, api_latency=api_latency,
                    feature_gates=feature_gates, kubernetes_version=release,
                    batch=batch_options(batch_scheduler_name, batch_scheduler_conf, batch_scheduler_conf_source,
                                        schedule_period))
    version = spec.config.version
    source = scheduler_version_source(events, kubernetes_version, kubelets=kubelets)
    if mode == "follow":
        policy = PriorityPolicy(spec.priority_classes, reresolve_existing=reresolve_existing)
        f = Follow(spec.timeline, spec.config, policy=policy, seed=seed, on_decision=on_decision, progress=progress)
        f.config_raw = spec.config_raw
        return _named(follow_report(f.run(), what_if=spec.what_if), version, source)
    if runs > 1:
        report = replay_runs(spec, runs, jobs=jobs, ray_address=ray_address, progress=run_progress)
        if (report.get("trace") or {}).get("gaps"):
            # every run replays the same stretch: its time-to-schedule figures take in the recorder's
            # stalls (replay/timeline.py), which the median run's report lists
            report["distribution"]["timeToSchedule"]["spansRecorderGaps"] = len(report["trace"]["gaps"])
        return _named(report, version, source)
    report, _ = simulate_once(spec, run, on_decision=on_decision, progress=progress, listener=listener)
    if run > 1:
        report["run"] = {"run": run, "seed": run_seed(seed, run)}
    return _named(report, version, source)


def run_spec(events: Any, *, config: SchedulerConfig | Mapping[str, Any] | None = None,
             priority_classes: Iterable[Mapping[str, Any]] | None = None, reresolve_existing: bool = False,
             seed: int = 0, api_latency: float | None = None,
             feature_gates: Mapping[str, bool] | None = None,
             kubernetes_version: str | KubernetesVersion | None = None,
             batch: BatchOptions | None = None) -> RunSpec:
    """What a simulate-mode run of `events` needs (replay/runs.py), with the report's `whatIf`;
    its configuration carries the kube-scheduler release (scheduler_version's rule)."""
    # --feature-gates are checked against the release's own gates, and set on it
    # a release handed over is carried as it is: resolved once, by the caller
    release = kubernetes_version if isinstance(kubernetes_version, KubernetesVersion) else \
        scheduler_version(events, kubernetes_version).version
    version = apply_feature_gates(release, feature_gates)
    cfg_raw = None
    if isinstance(config, SchedulerConfig):
        cfg = config.for_version(version)
        cfg_raw = getattr(config, "raw", None)
    else:
        cfg = parse_config(config, version=version)
        cfg_raw = config
    if feature_gates or api_latency is not None:
        cfg = _with_gates(cfg, feature_gates or {}, api_latency)
    timeline = normalize(events)
    # a Workload or PodGroup of another release's API version is an object this scheduler never reads
    refuse_other_release([ev.obj for ev in timeline.initial + timeline.events if ev.kind in ("PodGroup", "Workload")],
                         version.name, version.minor)
    classes = list(priority_classes) if priority_classes is not None else None
    policy = PriorityPolicy(classes, reresolve_existing=reresolve_existing)
    what_if: dict[str, Any] = {}
    if policy.active:
        what_if["priorityClasses"] = [{"name": pc.name, "value": pc.value, "globalDefault": pc.global_default,
                                       "preemptionPolicy": pc.preemption_policy}
                                      for pc in policy.overrides.values()]
        what_if["reresolveExisting"] = reresolve_existing
    if config is not None:
        what_if["config"] = True
    if batch is not None:
        batch.parsed()  # a bad configuration fails here, before any run
        _check_sessions(timeline, batch)
    return RunSpec(timeline, cfg, cfg_raw, classes, reresolve_existing, seed, what_if, batch)


def batch_options(scheduler_name: str = DEFAULT_SCHEDULER_NAME, conf: str | None = None, conf_source: str | None = None,
                  schedule_period: float = DEFAULT_SCHEDULE_PERIOD) -> BatchOptions:
    """BatchOptions from the replay's arguments, or UsageError naming the option."""
    if not isinstance(scheduler_name, str) or not scheduler_name:
        raise UsageError(f"must be a schedulerName, got {quote(scheduler_name)}", field="--batch-scheduler-name")
    if isinstance(schedule_period, bool) or not isinstance(schedule_period, (int, float)) or not schedule_period > 0 \
            or schedule_period == float("inf"):
        raise UsageError(f"must be a number of seconds above 0, got {quote(schedule_period)}", field="--schedule-period")
    return BatchOptions(scheduler_name=scheduler_name, conf=conf,
                        conf_source=conf_source or ("kube-batch's default configuration" if conf is None
                                                    else "kube-batch configuration"),
                        schedule_period=float(schedule_period))


def _check_sessions(timeline: Any, batch: BatchOptions) -> None:
    """kube-batch runs a session every period from the trace's start to its end while a pod of its
    is pending (cmd/kube-batch: `wait.Until(runOnce, schedulePeriod)`; replay/batch.py), so a
    replay's work grows with the span over the period: it is bounded as a trace's events are
    (--max-trace-events), and a period that makes more sessions than that is refused before any
    run. A trace without a pod of kube-batch's runs no session at all, whatever the period."""
    span = timeline.end - timeline.start
    sessions = span / batch.schedule_period
    most = limits.current().max_trace_events
    if sessions <= most:
        return
    name = batch.scheduler_name
    if not any(ev.kind == "Pod" and (ev.obj.get("spec") or {}).get("schedulerName") == name
               for ev in timeline.initial + timeline.events):
        return
    raise UsageError(f"a session every {batch.schedule_period:g}s over the trace's {span:g}s is {sessions:.3g} "
                     f"sessions of {name}, more than the {most:,} a replay runs (--max-trace-events raises it)",
                     field="--schedule-period")


def _with_gates(cfg: SchedulerConfig, gates: Mapping[str, bool], api_latency: float | None) -> SchedulerConfig:
    # the gates were checked against the release's (apply_feature_gates); those the replay itself
    # honours (FEATURE_GATES: SchedulerAsyncPreemption) are read from here
    if api_latency is not None and (isinstance(api_latency, bool) or not isinstance(api_latency, (int, float))
                                    or not 0 <= api_latency < math.inf):
        raise UsageError(f"must be a number of seconds, 0 or more, got {quote(api_latency)}", field="--api-latency")
    # (the gates as a mapping, or as the (name, value) pairs --feature-gates parses into)
    return replace(cfg, feature_gates={**cfg.feature_gates, **dict(gates)},
                   api_latency=cfg.api_latency if api_latency is None else float(api_latency))
