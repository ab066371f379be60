"""kube-batch beside kube-scheduler in a simulate-mode replay.

Pods whose schedulerName is kube-batch's are left to it, as in a cluster running both: kube-batch
runs one session every --schedule-period (cmd/kube-batch: `wait.Until(runOnce, schedulePeriod)`,
default 1 s, the first at once) over the replay's cluster as its informers would show it then
(nodes, PriorityClasses, Queues, PodGroups, every pod: kube-scheduler's bound pods take room on
the nodes), and what the session does is applied at that instant: binds (only whole gangs, as
its statements commit them), and evictions by `reclaim` and `preempt`, which delete the victim
(defaultEvictor: a plain Delete, so it terminates over its grace period). Pipelined tasks are
not written anywhere, as kube-batch writes them nowhere: the next session sees them pending.

Every eviction is one entry of the replay's preemptions, with the scheduler and the action that
made it, the task it was made for (the reclaiming queue too) and the plugins whose votes made the
victim eligible; kube-scheduler's own preemptions say `default-scheduler` (the preemptor's
schedulerName) and `DefaultPreemption`.

A session is run only while some pod of kube-batch's is pending: with none, every action has
nothing to do. Otherwise every period, even over an unchanged cluster: kube-batch's random draws
(map order, ties) can change the outcome, e.g. the preempt action's step within each job, run
inside its loop over the queues, uses up the pending tasks of a job whose queue comes later.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from ..batch.api.types import PIPELINED
from ..batch.cache.cache import (BATCH_KINDS, DEFAULT_QUEUE, DEFAULT_SCHEDULER_NAME, build_cache, check_batch_object,
                                 is_batch_kind)
from ..batch.framework.session import SESSION_UID
from ..batch.conf import SchedulerConf, parse_scheduler_conf
from ..batch.scheduler import run_once
from ..framework.randomness import RandomSource
from ..model.objects import Pod
from ..model.schema import object_label
from .engine import PRIORITY_SCHEDULE
from .state import format_time, grace_period, is_mirror_pod, pod_manifest

DEFAULT_SCHEDULE_PERIOD = 1.0  # kube-batch's --schedule-period
# kube-scheduler's preemption as the replay names it beside kube-batch's actions
KUBE_SCHEDULER_ACTION = "DefaultPreemption"


@dataclass(frozen=True)
class BatchOptions:
    """How the replay runs kube-batch: which pods are its (`scheduler_name`), its configuration
    file as text (None: kube-batch's default, allocate and backfill), the period between sessions,
    and the queue of PodGroups that name none."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    conf: str | None = None
    conf_source: str = "kube-batch's default configuration"
    schedule_period: float = DEFAULT_SCHEDULE_PERIOD
    default_queue: str = DEFAULT_QUEUE

    def parsed(self) -> SchedulerConf:
        """The configuration, or InputError naming the file and field."""
        return parse_scheduler_conf(self.conf, self.conf_source)


class BatchScheduler:
    """kube-batch's side of a Simulation (replay/simulate.py): its sessions on the engine's clock."""

    def __init__(self, sim: Any, options: BatchOptions, rng: random.Random) -> None:
        self.sim = sim
        self.options = options
        self.conf = options.parsed()
        self.rng = rng
        # Queues and PodGroups as kube-batch's informers hold them: (kind, namespace/name) -> object
        self.store: dict[tuple[str, str], Mapping[str, Any]] = {}
        for ev in sim.timeline.initial + sim.timeline.events:
            # a Queue or PodGroup kube-batch's informers could not decode: bad input, before any session
            if ev.type != "BOOKMARK" and any(is_batch_kind(ev.obj, k) for k in BATCH_KINDS):
                check_batch_object(ev.obj, f"{ev.where} ({object_label(ev.obj)})")
        for ev in sim.timeline.initial:
            self.observe(ev)
        self.sessions = 0
        self.binds = 0
        self.evictions = 0
        self.pipelined: dict[str, str] = {}   # task -> node, as the last session left them
        self.sessions_pending: dict[str, int] = {}  # pod uid -> sessions that found it pending

    # ---------------------------------------------------------------- what kube-batch watches
    def owns(self, pod: Pod) -> bool:
        return pod.scheduler_name == self.options.scheduler_name and not is_mirror_pod(pod.raw)

    def observe(self, ev: Any) -> bool:
        """Keep a Queue or PodGroup event (either API group kube-batch's informers read); False
        for any other object."""
        obj = ev.obj
        if ev.type == "BOOKMARK" or not any(is_batch_kind(obj, k) for k in BATCH_KINDS):
            return False
        md = obj.get("metadata") or {}
        ns = md.get("namespace") or "" if obj.get("kind") == "PodGroup" else ""
        key = (obj["kind"], f"{ns}/{md.get('name')}")
        if ev.type == "DELETED":
            self.store.pop(key, None)
        else:
            self.store[key] = obj
        return True

    # ---------------------------------------------------------------- the sessions
    def start(self) -> None:
        self._arm(self.sim.timeline.start)

    def _arm(self, at: float) -> None:
        if at <= self.sim.timeline.end:
            self.sim.engine.schedule(at, self._run_once, priority=PRIORITY_SCHEDULE, name="kube-batch runOnce")

    def _pending(self) -> list[Pod]:
        return [p for p in self.sim.state.cluster.pods.values()
                if self.owns(p) and not p.node_name and not p.deletion_timestamp]

    def objects(self) -> list[Mapping[str, Any]]:
        """The cluster as kube-batch's cache lists it now."""
        state = self.sim.state
        out: list[Mapping[str, Any]] = []
        for n in state.cluster.nodes.values():
            out.append({"apiVersion": "v1", "kind": "Node", **n.raw})
        for pc in state.cluster.priority_classes.values():
            out.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", **pc.raw})
        out.extend(self.store.values())
        out.extend(pod_manifest(p) for p in state.cluster.pods.values())
        return out

    def _run_once(self) -> None:
        sim = self.sim
        now = sim.engine.now
        # wait.Until: the next session one period after this one (which takes no virtual time)
        self._arm(now + self.options.schedule_period)
        pending = self._pending()
        if not pending:
            return
        for p in pending:
            sim.enqueued_at.setdefault(p.uid, now)
            self.sessions_pending[p.uid] = self.sessions_pending.get(p.uid, 0) + 1
        # one generator per session for the maps' seeds and every random choice (batch/util/gomap.py)
        cache = build_cache(self.objects(), self.options.scheduler_name, self.options.default_queue, strict=False)
        ssn = run_once(cache, self.conf, RandomSource.drawn(self.rng.getrandbits(32)))
        self.sessions += 1
        pods = sim.state.cluster.pods
        for task, node in cache.binds:
            pod = pods.get(task.key)
            if pod is not None and not pod.node_name and node in sim.state.cluster.nodes:
                self.binds += 1
                sim._bind(pod, node, self.sessions_pending.get(pod.uid, 1))
        self._evict(ssn.events, now)
        self.pipelined = {t.key: t.node_name for job in ssn.jobs.values() for t in job.tasks_in(PIPELINED)}
        for key_, cond in cache.pod_conditions.items():
            pod = pods.get(key_)
            if pod is not None and not pod.node_name:
                # UpdatePodCondition: PodScheduled=False, reason Unschedulable, the job's fit error
                sim.last_failure[pod.uid] = f"{cond['reason']}: {cond['message']}"
                if sim.listener is not None:
                    sim.listener.unschedulable(now, pod, cond["message"])
        for uid, pg in cache.pod_group_updates.items():
            self._write_status(uid, pg)
        sim._kick()

    def _write_status(self, uid: str, pg: Any) -> None:
        """UpdateJobStatus: the PodGroup's status as the session closed, which the next session
        reads. Each real session has its own UID, so a condition written by an earlier one never
        counts as this one's: the written transitionID names the session that wrote it."""
        raw = self.store.get(("PodGroup", uid))
        if raw is None:
            return
        old = raw.get("status") or {}
        conditions = [{**c, "transitionID": f"{c['transitionID']}/{self.sessions}"} if c.get("transitionID") == SESSION_UID
                      else dict(c) for c in pg.status.conditions]
        if _status_key(old.get("phase"), old.get("running"), old.get("conditions")) == \
                _status_key(pg.status.phase, pg.status.running, conditions):
            return
        self.store[("PodGroup", uid)] = {**raw, "status": {**old, "phase": pg.status.phase,
                                                          "running": pg.status.running, "conditions": conditions}}

    def _evict(self, events: list[Mapping[str, Any]], now: float) -> bool:
        """The session's evictions, one preemption entry per (action, task evicted for, node)."""
        sim = self.sim
        pods = sim.state.cluster.pods
        groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
        for e in events:
            if e.get("kind") == "evict":
                groups.setdefault((e.get("action") or "", e.get("preemptor") or "", e.get("node") or ""), []).append(e)
        done = False
        for (action, preemptor_key, node), evs in groups.items():
            preemptor = pods.get(preemptor_key)
            victims: list[Pod] = []
            details = []
            for e in evs:
                v = pods.get(e["task"])
                if v is None:
                    continue
                victims.append(v)
                details.append({"pod": v.key, "priority": v.priority, "priorityClassName": v.priority_class_name,
                                "alreadyTerminating": v.terminating, "gracePeriodSeconds": grace_period(v),
                                "pdbViolation": False, "job": e.get("job") or "", "queue": e.get("queue") or "",
                                "eligibleBy": list(e.get("votes") or [])})
            if not victims:
                continue
            done = True
            self.evictions += sum(1 for v in victims if not v.terminating)
            first = evs[0]
            frees: dict[str, float] = {}
            for e in evs:
                for k, q in (e.get("frees") or {}).items():
                    frees[k] = frees.get(k, 0) + q
            sim.preemptions.append({
                "time": format_time(now),
                "scheduler": self.options.scheduler_name,
                "action": action,
                "preemptor": preemptor_key,
                "preemptorJob": first.get("preemptorJob") or "",
                "priority": preemptor.priority if preemptor is not None else None,
                "priorityClassName": preemptor.priority_class_name if preemptor is not None else "",
                "node": node,
                "victims": [v.key for v in victims],
                "victimDetails": details,
                "why": {"action": action, "reclaimingQueue": first.get("reclaimingQueue") or "",
                        "preemptorJob": first.get("preemptorJob") or "",
                        "eligibleBy": sorted({p for e in evs for p in e.get("votes") or ()}),
                        "frees": frees},
            })
            if sim.listener is not None and preemptor is not None:
                sim.listener.preempting(now, preemptor, node, [v for v in victims if not v.terminating])
            for v in victims:
                if v.terminating:
                    continue
                sim.evicted[v.uid] = {"pod": v.key, "by": preemptor_key, "time": now, "node": node,
                                      "scheduler": self.options.scheduler_name, "action": action}
                # defaultEvictor.Evict: Delete with the pod's own grace period
                sim.state.mark_terminating(v, now, preempted=False)
                sim.controllers.terminating(v)
                if sim.listener is not None and preemptor is not None:
                    sim.listener.preempted(now, v, preemptor, node)
                sim._delete_at(v, now + grace_period(v), "preempted")
        return done

    # ---------------------------------------------------------------- for the report
    def never_scheduled(self, end: float) -> list[dict[str, Any]]:
        out = []
        sim = self.sim
        for pod in self._pending():
            enq = sim.enqueued_at.get(pod.uid, sim.timeline.start)
            out.append({"pod": pod.key, "namespace": pod.namespace, "priority": pod.priority, "priorityClassName": pod.priority_class_name,
                        "nominatedNode": None, "waitingSeconds": round(end - enq, 3),
                        "attempts": self.sessions_pending.get(pod.uid, 0), "queue": self.options.scheduler_name,
                        "lastMessage": sim.last_failure.get(pod.uid, "")})
        return out

    def summary(self) -> dict[str, Any]:
        return {"schedulerName": self.options.scheduler_name, "schedulePeriodSeconds": self.options.schedule_period,
                "actions": list(self.conf.actions), "sessions": self.sessions, "binds": self.binds,
                "evictions": self.evictions, "pipelinedAtEnd": dict(sorted(self.pipelined.items()))}


def _status_key(phase: Any, running: Any, conditions: Any) -> tuple:
    return (phase or "", int(running or 0),
            tuple((c.get("type"), c.get("status"), c.get("reason"), c.get("message")) for c in conditions or ()))
