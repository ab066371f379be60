"""`plan`: new pods created as a burst at the snapshot's time, through the replay's own engine.

Nothing here schedules: the snapshot becomes the initial state of a trace, the workloads' pods
are created in it at its start (as the controllers would create them, plan/workloads.py), and
replay/simulate.py's Simulation runs it, with its scheduling queue, nominations, asynchronous
preemption, victims' grace periods and workload controllers. Two things are added around it:

- a StatefulSet with podManagementPolicy OrderedReady gets its next ordinal only once the one
  before is bound (the StatefulSet controller's monotonic creation; readiness is taken as
  immediate once bound);
- by default the run stops once nothing changes any more (`settled`): no event is left but the
  queue's periodic flush of unschedulable pods, and no pod was bound, nominated, preempted or
  deleted for podMaxInUnschedulablePodsDuration (5 min) plus one flush period, so that every
  pod left pending has been retried once on the final state, as flushUnschedulablePodsLeftover
  does. At most MAX_DURATION of virtual time.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import orjson

from ..framework.config import SchedulerConfig
from ..framework.versions import KubernetesVersion
from ..model.objects import Pod
from ..replay.activity import ActivityRecorder, Tee
from ..replay.distribution import Distribution, Histogram
from ..replay.engine import Engine
from ..scheduler.backend.queue import DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION, UNSCHEDULABLE_FLUSH_PERIOD
from ..replay.report import evicts, simulate_report
from ..replay.runs import RunFacts, add_leave_times, fan_out, run_random_source, run_seed
from ..replay.simulate import Listener, Simulation
from ..replay.state import format_time
from ..replay.timeline import Timeline, normalize
from .workloads import Creation

MAX_DURATION = 3600.0
# with no change for this long, every pending pod has been retried on the final state
SETTLE_AFTER = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + UNSCHEDULABLE_FLUSH_PERIOD
FLUSH_TICK = "flushUnschedulablePodsLeftover"  # the name replay/simulate.py gives its periodic flush
# a scale-down reaches the controllers this long after the snapshot (a trace event must come
# after the trace's start; the ReplicaSet controller then resyncs as in replay)
SCALE_DOWN_AFTER = 0.001
KIND = "PlanReport"


class SettlingEngine(Engine):
    """The replay's engine, which can also stop once `settled(next_time)` says nothing changes.

    Checked only when the next event is the queue's periodic flush and no other event is left
    (anything else, a deletion, an API call, a backoff flush, a scheduling cycle, may change the
    cluster)."""

    settled: Callable[[float], bool] | None = None
    stopped: bool = False

    def _only_ticks(self) -> bool:
        heap = self._heap
        if not heap or heap[0][3].name != FLUSH_TICK:
            return False
        return all(e[3].cancelled or e[3].name == FLUSH_TICK for e in heap)

    def run(self, until: float | None = None) -> None:
        if self.settled is None:
            super().run(until)
            return
        limit = float("inf") if until is None else until
        while self._heap:
            t = self.peek()
            if t > limit:
                break
            if self._only_ticks() and self.settled(t):
                self.stopped = True
                return
            self.step()
        if until is not None and until > self.now:
            self.now = until


class PlanSimulation(Simulation):
    """replay's Simulation on a SettlingEngine; nothing else differs."""

    engine_type = SettlingEngine


@dataclass
class PlanSpec:
    """Everything one run of a plan needs; picklable for --runs' processes."""

    timeline: Timeline
    config: SchedulerConfig
    config_raw: Mapping[str, Any] | None
    seed: int
    creations: list[Creation]
    duration: float | None            # None: until settled, at most MAX_DURATION
    trace: dict[str, Any] = field(default_factory=dict)   # {"header", "events"}: what --html draws
    source: str = ""
    version_from: str = "default"     # where the release came from (schedulerVersionFrom)


class PlanListener(Listener):
    """When the cluster last changed, and the StatefulSet pods still to create in order."""

    def __init__(self, creations: Sequence[Creation], start: float) -> None:
        self.last_change = start
        self.sim: Simulation | None = None
        # an OrderedReady StatefulSet's pod -> the next one to create once it is bound
        self.next_of: dict[str, dict[str, Any]] = {}
        for c in creations:
            for a, b in zip(c.ordered, c.ordered[1:]):
                self.next_of[_key(a)] = b

    def settled(self, t: float) -> bool:
        return t - self.last_change >= SETTLE_AFTER

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.last_change = t
        nxt = self.next_of.pop(pod.key, None)
        if nxt is not None and self.sim is not None:
            host = self.sim.controllers.host
            host.at(t, lambda raw=nxt: host.create_pod(dict(raw, metadata={**raw["metadata"],
                                                                            "creationTimestamp": format_time(t)})),
                    f"create {_key(nxt)} (StatefulSet, OrderedReady)")

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        self.last_change = t

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        self.last_change = t

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        self.last_change = t


def _key(raw: Mapping[str, Any]) -> str:
    md = raw.get("metadata") or {}
    return f"{md.get('namespace') or 'default'}/{md.get('name')}"


def named_release(version: KubernetesVersion, version_from: str) -> dict[str, Any]:
    """The report's release fields: which kube-scheduler decided, where that release came from,
    with the gates given."""
    return {"schedulerVersion": version.name, "schedulerVersionFrom": version_from, **version.gates_document()}


def build_spec(objects: Sequence[Mapping[str, Any]], start: float, creations: list[Creation], config: SchedulerConfig,
               config_raw: Mapping[str, Any] | None = None, *, seed: int = 0, duration: float | None = None,
               header: Mapping[str, Any] | None = None, source: str = "") -> PlanSpec:
    """The trace of a plan: the snapshot (with the workloads' owners at their new scale) and the
    new pods at `start`, then the scale-downs just after; its end `duration` after `start`, or
    MAX_DURATION when the run stops once settled."""
    from .workloads import merge_owners

    stamp = format_time(start)
    owners = [o for c in creations for o in c.owners]
    initial = list(merge_owners(objects, owners))
    initial += [p for c in creations for p in c.pods]
    initial += [c.ordered[0] for c in creations if c.ordered]
    events: list[dict[str, Any]] = [{"time": stamp, "ts": start, "type": "ADDED", "object": o} for o in initial]
    for c in creations:
        for o in c.scale_down:
            t = start + SCALE_DOWN_AFTER
            events.append({"time": format_time(t), "ts": t, "type": "MODIFIED", "object": o})
    span = MAX_DURATION if duration is None else duration
    end = start + span
    hdr = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": stamp,
           "source": dict((header or {}).get("source") or {"form": "plan"})}
    # the run's end is the timeline's; the trace a replay or the HTML page reads says it with a
    # BOOKMARK, which the engine need not carry (it would keep a settled run from looking settled)
    timeline = replace(normalize({"header": hdr, "events": events}), end=end)
    trace = {"header": hdr, "events": events + [{"time": format_time(end), "ts": end, "type": "BOOKMARK",
                                                  "object": {}}]}
    return PlanSpec(timeline, config, config_raw, seed, creations, duration, trace, source)


def plan_once(spec: PlanSpec, run: int = 1, *, on_decision: Callable[[dict[str, Any]], None] | None = None,
              listener: Listener | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """One run: the plan's report and the run's facts (replay.runs.RunFacts)."""
    recorder = ActivityRecorder()
    facts = RunFacts()
    watch = PlanListener(spec.creations, spec.timeline.start)
    sim = PlanSimulation(spec.timeline, spec.config, on_decision=on_decision,
                         listener=Tee(recorder, facts, watch, listener),
                         random_source=run_random_source(spec.seed, run))
    sim.config_raw = spec.config_raw
    watch.sim = sim
    engine = sim.engine
    assert isinstance(engine, SettlingEngine)
    if spec.duration is None:
        engine.settled = watch.settled
    sim.run()
    if engine.stopped:
        # the report's end is when the cluster last changed, not when the run noticed it settled
        sim.timeline = replace(sim.timeline, end=max(watch.last_change, spec.timeline.start))
    report = simulate_report(sim)
    report["activity"] = recorder.activity()
    add_leave_times(report, sim)
    f = facts.facts(sim)
    return plan_report(spec, sim, report, f, settled=engine.stopped), f


def plan_report(spec: PlanSpec, sim: Simulation, report: dict[str, Any], facts: Mapping[str, Any], *,
                settled: bool) -> dict[str, Any]:
    """The replay's report with what a planner asks: per workload, replicas placed and pending;
    victims per class, namespace and workload; the pods left pending and why."""
    new_keys: dict[str, str] = {}       # pod key -> its workload
    for c in spec.creations:
        for p in c.all_pods:
            new_keys[_key(p)] = c.workload
    bound: dict[str, str] = {}
    for s in sim.scheduled.values():
        bound[s["pod"]] = s["node"]
    pending_info = {info.pod.key: info for info in sim.queue.pending()}
    gone = {p for p in new_keys if p not in sim.state.cluster.pods}
    workloads = []
    for c in spec.creations:
        pods = []
        for p in c.all_pods:
            k = _key(p)
            cur = sim.state.cluster.pods.get(k)
            if k in pending_info:
                uid = pending_info[k].pod.uid
                row = {"pod": k, "status": "Pending", "nominatedNode": pending_info[k].pod.nominated_node_name or None,
                       "lastMessage": sim.last_failure.get(uid, "")}
            elif cur is not None and cur.node_name:
                row = {"pod": k, "status": "Placed", "node": cur.node_name}
            elif k in gone and k in bound:
                row = {"pod": k, "status": "Placed", "node": bound[k], "note": "gone since (preempted or deleted)"}
            else:
                # an OrderedReady StatefulSet pod never created: its predecessor is not running
                row = {"pod": k, "status": "NotCreated"}
            pods.append(row)
        placed = sum(1 for r in pods if r["status"] == "Placed")
        entry: dict[str, Any] = {"workload": c.workload, "kind": c.kind, "source": c.source, "replicas": c.replicas,
                                 "placed": placed, "pending": sum(1 for r in pods if r["status"] == "Pending"),
                                 "notCreated": sum(1 for r in pods if r["status"] == "NotCreated"), "pods": pods}
        if c.scale_down:
            entry["scaleDownTo"] = (c.scale_down[0].get("spec") or {}).get("replicas")
        workloads.append(entry)
    victims = [v for v in facts["victims"]]
    by_class: dict[str, int] = {}
    by_ns: dict[str, int] = {}
    by_wl: dict[str, int] = {}
    for v in victims:
        by_class[v["priorityClass"] or "(none)"] = by_class.get(v["priorityClass"] or "(none)", 0) + 1
        by_ns[v["namespace"]] = by_ns.get(v["namespace"], 0) + 1
        by_wl[v["workload"]] = by_wl.get(v["workload"], 0) + 1

    def ranked(d: Mapping[str, int], key: str) -> list[dict[str, Any]]:
        return [{key: k, "victims": n} for k, n in sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))]

    tl = sim.timeline
    out = {
        "apiVersion": report["apiVersion"],
        "kind": KIND,
        "mode": "simulate",
        "snapshot": {"source": spec.source, "time": format_time(spec.timeline.start)},
        "until": {"settled": settled, "end": format_time(tl.end), "virtualSeconds": round(tl.end - tl.start, 3),
                  "rule": ("until nothing changes" if spec.duration is None else f"--duration {spec.duration:g}s")},
        "workloads": workloads,
        "victims": {"total": len(victims), "byPriorityClass": ranked(by_class, "priorityClass"),
                    "byNamespace": ranked(by_ns, "namespace"), "byWorkload": ranked(by_wl, "workload"),
                    "pods": [v["pod"] for v in victims]},
        "pending": report["summary"]["neverScheduled"],
        "preemptions": report["preemptions"],
        "summary": report["summary"],
        "trace": report["trace"],
        "whatIf": report.get("whatIf") or {},
        "activity": report["activity"],
    }
    return out


# ------------------------------------------------------------------------------ --runs
def _plan_task(spec: PlanSpec, run: int) -> bytes:
    """What one run of `plan --runs` sends back: its facts and each workload's placed and pending
    pods (the median run's whole report is made again once the median is known)."""
    report, facts = plan_once(spec, run)
    return orjson.dumps({"facts": facts,
                         "workloads": [[w["workload"], w["placed"], w["pending"]] for w in report["workloads"]]})


def plan_runs(spec: PlanSpec, runs: int, *, jobs: int | None = None, ray_address: str | None = None,
              progress: Any = None) -> dict[str, Any]:
    """`runs` runs, each with its own random choices (replay/runs.py's seeds): the run with the
    median number of preemptions, with `distribution` over all runs (as replay --runs), folded as
    the runs finish."""
    dist = Distribution()
    per_wl: dict[str, tuple[Histogram, Histogram]] = {}
    with contextlib.closing(fan_out(_plan_task, spec, runs, jobs=jobs, ray_address=ray_address,
                                    progress=progress)) as results:
        for raw in results:
            got = orjson.loads(raw)
            dist.add(got["facts"])
            for wl, placed, pending in got["workloads"]:
                hists = per_wl.setdefault(wl, (Histogram(), Histogram()))
                hists[0].add(placed)
                hists[1].add(pending)
    k = dist.median_run()
    report = orjson.loads(orjson.dumps(plan_once(spec, k)[0]))
    report["run"] = {"run": k, "of": runs, "seed": run_seed(spec.seed, k)}
    report["distribution"] = dist.result()
    # placed / pending per workload over the runs
    report["distribution"]["workloads"] = [{"workload": wl, "placed": placed.stat(), "pending": pending.stat()}
                                           for wl, (placed, pending) in per_wl.items()]
    return report


def evicting(preemption: Mapping[str, Any]) -> list[str]:
    """The victims a preemption evicts (not those already terminating or being evicted)."""
    return [d["pod"] for d in preemption.get("victimDetails") or () if evicts(d)]

