"""What one session did to one task and its job, as data: the story `explain` tells for a pod that
kube-batch schedules. Built from a session's result; nothing here schedules."""
from __future__ import annotations

from typing import Any, Mapping

SCHEDULER = "kube-batch"


def task_outcome(result: Mapping[str, Any], key: str, status: str, node: str) -> tuple[str, str]:
    """(outcome, node) of a task after the session: Evicted, Bound, Pipelined, Pending, or the
    status it kept (Running, Allocated, ...)."""
    if key in set(result.get("evicts") or ()):
        return "Evicted", node
    if key in (result.get("binds") or {}):
        return "Bound", result["binds"][key]
    if key in (result.get("pipelined") or {}):
        return "Pipelined", result["pipelined"][key]
    if key in (result.get("podConditions") or {}):
        return "Pending", ""
    return status, node


def explain_task(result: Mapping[str, Any], key: str, scheduler_name: str = SCHEDULER) -> dict[str, Any]:
    """The story of the pod `key` ("namespace/name") in a session result of batch_session()."""
    job_uid, job = None, None
    for uid, j in (result.get("jobs") or {}).items():
        if key in j["tasks"]:
            job_uid, job = uid, j
            break
    doc: dict[str, Any] = {"pod": key, "scheduler": scheduler_name}
    if job is None:
        doc["outcome"] = "NotInSession"
        doc["message"] = ("the session holds no job for this pod: its PodGroup's queue does not exist, or the pod "
                          "is not one kube-batch schedules")
        return doc
    t = job["tasks"][key]
    outcome, node = task_outcome(result, key, t["status"], t["node"])
    doc.update(outcome=outcome, node=node or None, job=job_uid, podGroup=job.get("podGroup"), queue=job["queue"])
    ev = next((e for e in result.get("evictions") or () if e["task"] == key), None)
    if ev is not None:
        doc["eviction"] = {k: ev.get(k) for k in ("action", "node", "preemptor", "preemptorJob", "reclaimingQueue",
                                                  "votes", "frees") if ev.get(k) is not None}
    victims = [{k: e.get(k) for k in ("task", "job", "queue", "node", "action", "votes", "frees")}
               for e in result.get("evictions") or () if e.get("preemptor") == key]
    if victims:
        doc["victims"] = victims
    if key in (result.get("podConditions") or {}):
        doc["message"] = result["podConditions"][key]
    reasons = (result.get("pendingTasks") or {}).get(key)
    if reasons:
        doc["nodeReasons"] = reasons
    pg = (result.get("podGroups") or {}).get(job.get("podGroup") or "")
    gang = {"minMember": job["minMember"], "readyTasks": job["readyTasks"], "ready": job["ready"],
            "priority": job["priority"]}
    if "drfShare" in job:
        gang["drfShare"] = job["drfShare"]
    if pg is not None:
        gang["phase"] = pg["phase"]
        gang["conditions"] = pg["conditions"]
    doc["jobState"] = gang
    tasks = {}
    for k, tt in job["tasks"].items():
        o, n = task_outcome(result, k, tt["status"], tt["node"])
        tasks[k] = {"outcome": o, "node": n or None}
    doc["tasks"] = tasks
    q = (result.get("queues") or {}).get(job["queue"])
    if q is not None:
        doc["queueState"] = q
    return doc
