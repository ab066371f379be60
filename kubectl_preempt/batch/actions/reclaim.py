"""The reclaim action (pkg/scheduler/actions/reclaim): a queue under its deserved share takes
resources back from running tasks of other queues that the tiers find reclaimable, one pending
task at a time, and pipelines the task onto what the evictions release."""
from __future__ import annotations

from ..api.job_info import JobInfo, TaskInfo
from ..api.node_info import NodeError
from ..api.resource_info import Resource
from ..api.types import PENDING, RUNNING
from ..framework.session import Session
from ..util.priority_queue import PriorityQueue, pop_from
from .preempt import push_preemptor

ACTION_NAME = "reclaim"


def execute(ssn: Session) -> None:
    queues: PriorityQueue = PriorityQueue(ssn.queue_order_fn)
    queue_map = {}
    preemptors_map: dict[str, PriorityQueue] = {}
    preemptor_tasks: dict[str, PriorityQueue] = {}
    for job, queue in ssn.jobs_with_queue():
        if queue.uid not in queue_map:
            queue_map[queue.uid] = queue
            queues.push(queue)
        if job.count(PENDING):
            push_preemptor(ssn, job, preemptors_map, preemptor_tasks)

    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            ssn.events.append({"action": ACTION_NAME, "kind": "overused", "queue": queue.name})
            continue
        job: JobInfo | None = pop_from(preemptors_map, queue.uid)
        if job is None:
            continue
        task: TaskInfo | None = pop_from(preemptor_tasks, job.uid)
        if task is None:
            continue
        assigned = False
        reasons: dict[str, str] = {}
        ssn.task_node_reasons.setdefault(task.key, reasons)
        for n in ssn.ranged(ssn.nodes):
            err = ssn.predicate_fn(task, n)
            if err is not None:
                reasons[n.name] = err
                continue
            resreq = task.init_resreq.clone()
            reclaimed = Resource()
            reclaimees = []
            for t in ssn.ranged(n.tasks):
                if t.status != RUNNING:
                    continue
                j = ssn.jobs.get(t.job)
                if j is not None and j.queue != job.queue:
                    reclaimees.append(t.clone())
            victims = ssn.reclaimable(task, reclaimees)
            votes = ssn.last_votes
            if not victims:
                continue
            all_res = Resource()
            for v in victims:
                all_res.add(v.resreq)
            if not resreq.less_equal(all_res):
                continue
            for reclaimee in victims:
                try:
                    ssn.evict(reclaimee, "reclaim")
                except (LookupError, NodeError):
                    continue
                ssn.events.append({"action": ACTION_NAME, "kind": "evict", "task": reclaimee.key,
                                   "job": reclaimee.job, "queue": ssn.jobs[reclaimee.job].queue,
                                   "node": n.name, "preemptor": task.key, "preemptorJob": task.job,
                                   "reclaimingQueue": job.queue,
                                   "votes": sorted(p for p, ids in votes.items() if reclaimee.uid in ids),
                                   "frees": reclaimee.resreq.as_dict()})
                reclaimed.add(reclaimee.resreq)
                if resreq.less_equal(reclaimed):
                    break
            if task.init_resreq.less_equal(reclaimed):
                ssn.pipeline_in(ACTION_NAME, task, n.name)
                assigned = True
                break
        if assigned:
            queues.push(queue)
