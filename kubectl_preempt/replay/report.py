"""The replay's result as plain data: a timeline of preemptions and a summary."""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from .state import format_time
from .timeline import Gap, contradictions, find_gaps, gap_threshold

API_VERSION = "kubectl-preempt/v1"
KIND = "ReplayReport"
MAX_NEVER_SCHEDULED = 200


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of `values`, or None when there are none."""
    if not values:
        return None
    s = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(s)))
    return s[min(rank, len(s)) - 1]


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def evicts(victim: Mapping[str, Any]) -> bool:
    """A victim of a decision (one of its victimDetails) that this decision evicts: not one
    already terminating nor one an earlier decision's delete call is already on its way to."""
    return not (victim.get("alreadyTerminating") or victim.get("alreadyEvicting"))


def summarize(preemptions: list[Mapping[str, Any]], *, victim_classes: Mapping[str, str],
              victim_namespaces: Iterable[str] = ()) -> dict[str, Any]:
    """Preemptions grouped by the preemptor's PriorityClass and by namespace (preemptors and
    victims)."""
    by_class: dict[str, dict[str, int]] = {}
    by_ns: dict[str, dict[str, int]] = {}
    victims_by_class: dict[str, int] = {}
    for p in preemptions:
        cls = p.get("priorityClassName") or "(none)"
        c = by_class.setdefault(cls, {"preemptions": 0, "victims": 0})
        c["preemptions"] += 1
        again = {d["pod"] for d in p.get("victimDetails") or () if not evicts(d)}
        new = [v for v in p.get("victims") or () if v not in again]
        c["victims"] += len(new)
        ns = (p.get("preemptor") or "/").split("/")[0]
        by_ns.setdefault(ns, {"preemptions": 0, "podsEvicted": 0})["preemptions"] += 1
        for v in new:
            vns = v.split("/")[0]
            by_ns.setdefault(vns, {"preemptions": 0, "podsEvicted": 0})["podsEvicted"] += 1
            vc = victim_classes.get(v) or "(none)"
            victims_by_class[vc] = victims_by_class.get(vc, 0) + 1
    return {
        "byPriorityClass": [{"priorityClass": k, **v} for k, v in sorted(by_class.items(), key=lambda kv: (-kv[1]["preemptions"], kv[0]))],
        "victimsByPriorityClass": [{"priorityClass": k, "victims": v}
                                   for k, v in sorted(victims_by_class.items(), key=lambda kv: (-kv[1], kv[0]))],
        "byNamespace": [{"namespace": k, **v} for k, v in sorted(by_ns.items(), key=lambda kv: (-kv[1]["preemptions"] - kv[1]["podsEvicted"], kv[0]))],
    }


def simulate_report(sim: Any, *, what_if: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report of a finished Simulation."""
    tl = sim.timeline
    gaps = find_gaps(tl)
    victim_classes = {}
    for p in sim.preemptions:
        for d in p.get("victimDetails") or ():
            victim_classes[d["pod"]] = d.get("priorityClassName") or ""
    waits = [s["waited"] for s in sim.scheduled.values()]
    never = []
    for info in sim.queue.pending():
        pod = info.pod
        enq = sim.enqueued_at.get(pod.uid, tl.start)
        never.append({"pod": pod.key, "namespace": pod.namespace, "priority": pod.priority, "priorityClassName": pod.priority_class_name,
                      "nominatedNode": pod.nominated_node_name or None,
                      "waitingSeconds": round(tl.end - enq, 3), "attempts": info.attempts,
                      "queue": info.where, "lastMessage": sim.last_failure.get(pod.uid, ""),
                      **sim.last_failure_fields.get(pod.uid, {}),
                      **({"waitedAcrossGap": True} if _across(gaps, enq, tl.end) else {})})
    batch = getattr(sim, "batch", None)
    if batch is not None:
        never.extend(batch.never_scheduled(tl.end))
    never.sort(key=lambda d: (-d["priority"], -d["waitingSeconds"], d["pod"]))
    summary: dict[str, Any] = {
        "decisions": sim.decisions,
        "scheduled": sim.outcomes.get("Scheduled", 0),
        "preemptions": len(sim.preemptions),
        # pods evicted: a victim already terminating, or already being evicted by an earlier
        # decision, is taken over, not evicted again
        "victims": sum(1 for p in sim.preemptions for d in p["victimDetails"] if evicts(d)),
        "unschedulableAttempts": sim.outcomes.get("Unschedulable", 0),
        # asynchronous preemption's race: decisions of a preemptor made after its release but
        # before its earlier victims' delete calls (prepareCandidateAsync), and the call's time
        **({"asyncPreemption": {"apiLatencySeconds": sim.api_latency,
                                "apiLatencyFrom": getattr(sim, "api_latency_from", "default"),
                                # a run of --runs that drew each call (simulate.py _api_latency_draw):
                                # from how many measured calls; apiLatencySeconds is then their median
                                **({"apiLatencyDrawnFrom": len(sim.calibration.api_latencies)}
                                   if getattr(sim, "api_latency_draw", None) is not None else {}),
                                "decisionsBeforeDeleteCalls": sim.decided_before_deletes}}
           if getattr(sim, "async_preemption", False) else {}),
        "podsNeverScheduled": len(never),
        "timeToSchedule": {"pods": len(waits), "p50Seconds": _round(percentile(waits, 50)),
                           "p99Seconds": _round(percentile(waits, 99)),
                           "maxSeconds": _round(max(waits) if waits else None),
                           # waits that ran through a recorder gap: part of them is the recorder's stall
                           **({"podsWaitingAcrossGaps": sum(1 for s in sim.scheduled.values()
                                                            if _across(gaps, s["time"] - s["waited"], s["time"]))}
                              if gaps else {})},
        **summarize(sim.preemptions, victim_classes=victim_classes),
        "neverScheduled": never[:MAX_NEVER_SCHEDULED],
    }
    if batch is not None:
        summary["kubeBatch"] = batch.summary()
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "mode": "simulate",
        "trace": _trace_info(sim, gaps),
        "whatIf": dict(what_if or {}),
        "preemptions": list(sim.preemptions),
        "summary": summary,
    }


def _across(gaps: list[Gap], start: float, end: float) -> bool:
    return any(g.overlaps(start, end) for g in gaps)


def gaps_info(tl: Any, gaps: list[Gap] | None = None) -> dict[str, Any]:
    """The trace's recorder gaps (replay/timeline.py's rule) as report fields: `gaps` always,
    the length that made them gaps when there are any; `notes` on events that contradict each
    other when there are any."""
    gaps = find_gaps(tl) if gaps is None else gaps
    out: dict[str, Any] = {"gaps": [g.to_dict() for g in gaps]}
    if gaps:
        out["gapThresholdSeconds"] = round(gap_threshold(tl), 3)
    # events that contradict earlier ones (replay/timeline.py), when there are any
    notes = contradictions(tl)
    if notes:
        out["notes"] = notes
    return out


def _trace_info(sim: Any, gaps: list[Gap] | None = None) -> dict[str, Any]:
    tl = sim.timeline
    src = tl.header.get("source") if isinstance(tl.header, Mapping) else None
    return {"start": format_time(tl.start), "end": format_time(tl.end),
            "durationSeconds": round(tl.end - tl.start, 3),
            "initialObjects": len(tl.initial), "events": len(tl.events),
            "eventsApplied": getattr(sim, "events_applied", 0),
            "source": src or {}, **gaps_info(tl, gaps)}


def follow_report(f: Any, *, what_if: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The report of a finished Follow: the cluster's preemptions, each explained and checked."""
    victim_classes: dict[str, str] = {}
    for p in f.preemptions:
        for d in p.get("victimDetails") or ():
            victim_classes[d["pod"]] = d.get("priorityClassName") or ""
    verdicts = [p.get("verdict") for p in f.preemptions]
    explained = [v for v in verdicts if v != "notExplained"]
    summary: dict[str, Any] = {
        "preemptions": len(f.preemptions),
        "victims": sum(len(p["victims"]) for p in f.preemptions),
        "explained": len(explained),
        # the replay's own choice is the cluster's; the cluster's is one the replay finds equally
        # possible (a tie, another order of pods placed before the trace); the trace cannot decide
        # (writes in the decision's window change the verdict); the replay's differs
        "agree": verdicts.count("agrees"),
        "tied": verdicts.count("tied"),
        "undecidable": verdicts.count("undecidable"),
        "differ": verdicts.count("differs"),
        "notExplained": len(f.preemptions) - len(explained),
        "renominations": sum(1 for p in f.preemptions if p.get("renomination")),
        "decisions": f.decisions,
        "recordedBindings": f.bindings,
        **summarize(f.preemptions, victim_classes=victim_classes),
    }
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "mode": "follow",
        "trace": _trace_info(f),
        "whatIf": dict(what_if or {}),
        "preemptions": list(f.preemptions),
        "summary": summary,
    }
