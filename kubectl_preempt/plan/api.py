"""plan() and plan_max(): plain data in and out (the layer of explain, replay and check)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InputError, UsageError, quote
from ..framework.config import SchedulerConfig, parse_config
from ..framework.versions import (KubernetesVersion, Resolved, apply_feature_gates, kubelet_versions,
                                  resolve_kubernetes_version)
from ..model.limits import check_runs
from ..model.cluster import Cluster
from ..replay.state import parse_time
from .run import MAX_DURATION, PlanSpec, build_spec, named_release, plan_once, plan_runs
from .workloads import Creation, Maker

Manifest = tuple[str, str, Mapping[str, Any]]   # (file, where in it, object)


def snapshot_time(objects: Sequence[Mapping[str, Any]], captured_at: str | None = None) -> float:
    """The snapshot's instant: when `capture` took it, else its newest creationTimestamp (as the
    replay reads a snapshot as a trace of one instant, io/trace.py)."""
    t = parse_time(captured_at) if captured_at else None
    if t is not None:
        return t
    times = [parse_time((o.get("metadata") or {}).get("creationTimestamp")) for o in objects]
    known = [x for x in times if x is not None]
    return max(known) if known else 0.0


def _config(config: Any, version: KubernetesVersion) -> tuple[SchedulerConfig, Mapping[str, Any] | None]:
    if isinstance(config, SchedulerConfig):
        cfg, raw = config.for_version(version), getattr(config, "raw", None)
    else:
        cfg, raw = parse_config(config, version=version), config
    if version.gates:
        # --feature-gates were checked against the release (apply_feature_gates); those the replay
        # itself honours (SchedulerAsyncPreemption) are read from the configuration, as replay's
        cfg = replace(cfg, feature_gates={**cfg.feature_gates, **dict(version.gates)})
    return cfg, raw


def plan_version(kubernetes_version: str | KubernetesVersion | Resolved | None, server_version: str | None,
                 feature_gates: str | Mapping[str, bool] | None = None,
                 objects: Sequence[Mapping[str, Any]] = ()) -> Resolved:
    """The release a plan imitates (resolve_kubernetes_version's rule: the snapshot's server version,
    else its nodes' newest kubelet, else the newest imitated), with kube-scheduler's --feature-gates
    set on it, and where it came from."""
    resolved = resolve_kubernetes_version(kubernetes_version, server_version, data_source="the snapshot",
                                          kubelets=kubelet_versions(objects))
    return replace(resolved, version=apply_feature_gates(resolved.version, feature_gates))


def make_creations(objects: Sequence[Mapping[str, Any]], start: float, manifests: Iterable[Manifest] = (),
                   scale: Iterable[str] = (), *, seed: int = 0, namespace: str | None = None,
                   source: str = "", workload_with_job: bool = False) -> list[Creation]:
    """The pods the manifests' and --scale targets' controllers make (plan/workloads.py);
    `workload_with_job`: the controller manager's WorkloadWithJob gate (Indexed Jobs as gangs)."""
    try:
        classes = Cluster.from_objects([o for o in objects if o.get("kind") == "PriorityClass"]).priority_classes
    except InputError as e:
        raise e.located(source=source) from None
    maker = Maker(objects, classes, start, seed=seed, namespace=namespace, workload_with_job=workload_with_job)
    out = [maker.from_manifest(obj, src, where) for src, where, obj in manifests]
    for target in scale:
        try:
            out.append(maker.scale(target))
        except InputError as e:
            raise (e if e.source or not source else e.located(source=source)) from None
    return out


def plan_spec(objects: Sequence[Mapping[str, Any]], manifests: Iterable[Manifest] = (), scale: Iterable[str] = (), *,
              config: Any = None, seed: int = 0, duration: float | None = None, namespace: str | None = None,
              captured_at: str | None = None, kubernetes_version: str | KubernetesVersion | Resolved | None = None,
              server_version: str | None = None, source: str = "",
              feature_gates: str | Mapping[str, bool] | None = None) -> PlanSpec:
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))
                                 or not 0 < duration <= MAX_DURATION):
        raise UsageError(f"must be above 0 and at most {MAX_DURATION:g} seconds (1h), got {quote(duration)}",
                         field="--duration")
    objects = list(objects)
    resolved = plan_version(kubernetes_version, server_version, feature_gates, objects)
    cfg, cfg_raw = _config(config, resolved.version)
    start = snapshot_time(objects, captured_at)
    # --feature-gates stand for the whole control plane's (as the v1.36 traces were made): the
    # Job controller turns Indexed Jobs into gangs under WorkloadWithJob
    creations = make_creations(objects, start, manifests, scale, seed=seed, namespace=namespace, source=source,
                               workload_with_job=resolved.version.gate_enabled("WorkloadWithJob"))
    if not creations:
        raise UsageError("nothing to plan: give -f MANIFEST or --scale NS/KIND/NAME=N")
    spec = build_spec(objects, start, creations, cfg, cfg_raw, seed=seed, duration=duration, source=source)
    spec.version_from = resolved.source
    return spec


def plan(objects: Sequence[Mapping[str, Any]], manifests: Iterable[Manifest] = (), scale: Iterable[str] = (), *,
         config: Any = None, seed: int = 0, duration: float | None = None, runs: int = 1, jobs: int | None = None,
         ray_address: str | None = None, namespace: str | None = None, captured_at: str | None = None,
         kubernetes_version: str | KubernetesVersion | Resolved | None = None, server_version: str | None = None,
         on_decision: Any = None, source: str = "", trace_out: dict[str, Any] | None = None,
         feature_gates: str | Mapping[str, bool] | None = None) -> dict[str, Any]:
    """What creating `manifests` (Pods, Deployments, ReplicaSets, StatefulSets, Jobs; each
    (file, where, object)) and scaling `scale` targets ("NS/KIND/NAME=N") at the snapshot's time
    would do: the replay of the snapshot with those pods created as a burst (plan/run.py).

    `duration`: seconds of virtual time to run; None runs until nothing changes (at most 1h).
    `runs` > 1: distributions over runs with their own random choices, as replay --runs.
    `on_decision`: each preemption decision as a conformance case (--dump-decisions; runs 1).
    `trace_out`: filled with the trace replayed ({"header", "events"}), for replay_html()."""
    check_runs(runs)
    if runs > 1 and on_decision is not None:
        raise UsageError("--dump-decisions writes the decisions of one run; use it with --runs 1", field="--runs")
    spec = plan_spec(objects, manifests, scale, config=config, seed=seed, duration=duration, namespace=namespace,
                     captured_at=captured_at, kubernetes_version=kubernetes_version, server_version=server_version,
                     source=source, feature_gates=feature_gates)
    if trace_out is not None:
        trace_out.update(spec.trace)  # what the HTML page draws the cluster from
    if runs > 1:
        report = plan_runs(spec, runs, jobs=jobs, ray_address=ray_address)
    else:
        report, _ = plan_once(spec, on_decision=on_decision)
    return {"apiVersion": report.pop("apiVersion"), "kind": report.pop("kind"),
            **named_release(spec.config.version, spec.version_from), **report}
