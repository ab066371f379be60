"""One kube-batch scheduling pass (pkg/scheduler/scheduler.go runOnce): open a session over the
cache, run the configured actions in order, close it; and the result as plain data, with the why."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..framework.randomness import RandomSource
from ..model.memory import remembered
from .actions import ACTIONS
from .api.types import PENDING, PIPELINED, status_name
from .cache.cache import DEFAULT_QUEUE, DEFAULT_SCHEDULER_NAME, SchedulerCache, build_cache
from .conf import SchedulerConf, parse_scheduler_conf
from .framework.session import Session, close_session, open_session
from .plugins import PLUGIN_BUILDERS


def run_once(cache: SchedulerCache, conf: SchedulerConf, random_source: RandomSource) -> Session:
    """One session; `random_source`'s generator draws every random choice it makes."""
    ssn = open_session(cache, conf.tiers, PLUGIN_BUILDERS, random_source)
    for name in conf.actions:
        ssn.action = name
        ACTIONS[name](ssn)
    ssn.action = ""
    close_session(ssn)
    return ssn


def _condition_text(c: Mapping[str, Any]) -> dict[str, str]:
    return {k: c.get(k) or "" for k in ("type", "status", "reason", "message")}


def session_result(ssn: Session, conf: SchedulerConf) -> dict[str, Any]:
    cache = ssn.cache
    out: dict[str, Any] = {
        "binds": {t.key: node for t, node in cache.binds},
        "evicts": sorted(t.key for t, _ in cache.evicts),
        "pipelined": {},
        "podConditions": {k: f"{c['reason']}: {c['message']}" for k, c in cache.pod_conditions.items()},
        "podGroups": {},
    }
    for job in ssn.jobs.values():
        for t in job.tasks_in(PIPELINED):
            out["pipelined"][t.key] = t.node_name
    for uid, pg in cache.pod_group_updates.items():
        out["podGroups"][uid] = {"phase": pg.status.phase, "running": pg.status.running,
                                 "conditions": [_condition_text(c) for c in pg.status.conditions]}
    # the why
    out["actions"] = list(conf.actions)
    out["tiers"] = [[p.name for p in tier] for tier in conf.tiers]
    out["evictions"] = [dict(e, victim=e["task"]) for e in ssn.events if e["kind"] == "evict"]
    out["allocations"] = [e for e in ssn.events if e["kind"] in ("bind", "pipeline")]
    drf = ssn.plugins.get("drf")
    jobs: dict[str, Any] = {}
    # jobs and tasks listed by name: the maps' slot order is one run's draw, not a user's order
    for job in sorted(ssn.jobs.values(), key=lambda j: j.uid):
        j: dict[str, Any] = {
            "name": job.name, "namespace": job.namespace, "queue": job.queue,
            "minMember": job.min_available, "readyTasks": job.ready_task_num(),
            "ready": job.ready(), "pipelined": job.pipelined(), "priority": job.priority,
            "tasks": {t.key: {"status": status_name(t.status), "node": t.node_name}
                      for t in sorted(job.tasks.values(), key=lambda t: t.key)},
            "fitError": job.fit_error(),
        }
        if drf is not None and job.uid in drf.job_opts:
            j["drfShare"] = drf.job_opts[job.uid].share
        if job.pod_group is not None:
            j["podGroup"] = None if job.pod_group.shadow else f"{job.namespace}/{job.name}"
        jobs[job.uid] = j
    out["jobs"] = jobs
    prop = ssn.plugins.get("proportion")
    queues: dict[str, Any] = {}
    for q in ssn.queues.values():
        entry: dict[str, Any] = {"weight": q.weight}
        if prop is not None and q.uid in prop.queue_opts:
            a = prop.queue_opts[q.uid]
            entry.update(deserved=a.deserved.as_dict(), allocated=a.allocated.as_dict(),
                         request=a.request.as_dict(), share=a.share, overused=a.deserved.less_equal(a.allocated))
        queues[q.name] = entry
    out["queues"] = queues
    pending = {}
    for job in ssn.jobs.values():
        for t in job.tasks_in(PENDING):
            reasons = {}
            for node, r in sorted((ssn.task_node_reasons.get(t.key) or {}).items()):
                # a (template, node) pair is a reason whose text was left to be written here
                reasons[node] = r if isinstance(r, str) else r[0].format(ns=t.namespace, name=t.name, node=r[1])
            pending[t.key] = reasons
    out["pendingTasks"] = pending
    return out


@remembered("batch.scheduler configurations", 32)
def _conf(text: str | None, source: str) -> SchedulerConf:
    # parsed once per text: K runs of one case (compare_many, `session --runs`) read the same
    # file, and nothing changes a SchedulerConf once parsed (a parse error is not remembered)
    return parse_scheduler_conf(text, source)


def batch_session(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *,
                  scheduler_name: str = DEFAULT_SCHEDULER_NAME, default_queue: str = DEFAULT_QUEUE,
                  conf_source: str = "scheduler configuration", seed: int = 0) -> dict[str, Any]:
    """One kube-batch session over `objects`: a fresh cache, then runOnce. `seed` draws every random
    choice of the run (the cache's and session's map seeds, each map range's start, the ties
    between nodes) from one generator: seeds 0..K-1 are K independent runs of kube-batch."""
    conf = _conf(scheduler_conf, conf_source)
    cache = build_cache(objects, scheduler_name, default_queue)
    return session_result(run_once(cache, conf, RandomSource.drawn(seed)), conf)
