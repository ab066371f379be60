"""The preempt action (pkg/scheduler/actions/preempt): within a queue, a job's pending tasks evict
running tasks of other jobs the tiers find preemptable, committed only if the job is then
pipelined (gang); then, within a job, its pending tasks evict its own running tasks."""
from __future__ import annotations

from typing import Callable

from ..api.job_info import JobInfo, TaskInfo
from ..api.resource_info import Resource
from ..api.types import PENDING, RUNNING
from ..framework.session import Session
from ..framework.statement import Statement
from ..util.priority_queue import PriorityQueue
from ..util.scheduler_helper import predicate_nodes, prioritize_nodes, sort_nodes

ACTION_NAME = "preempt"


def execute(ssn: Session) -> None:
    preemptors_map: dict[str, PriorityQueue] = {}
    preemptor_tasks: dict[str, PriorityQueue] = {}
    under_request: list[JobInfo] = []
    queues = {}
    for job in ssn.ranged(ssn.jobs):
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        queues.setdefault(queue.uid, queue)
        if job.count(PENDING):
            if job.queue not in preemptors_map:
                preemptors_map[job.queue] = PriorityQueue(ssn.job_order_fn)
            preemptors_map[job.queue].push(job)
            under_request.append(job)
            preemptor_tasks[job.uid] = PriorityQueue(ssn.task_order_fn)
            for task in job.tasks_in(PENDING):
                preemptor_tasks[job.uid].push(task)

    for queue in ssn.ranged(queues):
        # preemption between jobs of the same queue
        while True:
            preemptors = preemptors_map.get(queue.uid)
            if preemptors is None or preemptors.empty():
                break
            preemptor_job = preemptors.pop()
            stmt = ssn.statement()
            assigned = False
            while True:
                if preemptor_tasks[preemptor_job.uid].empty():
                    break
                preemptor = preemptor_tasks[preemptor_job.uid].pop()

                def other_job_same_queue(task: TaskInfo, preemptor=preemptor, preemptor_job=preemptor_job) -> bool:
                    if task.status != RUNNING:
                        return False
                    job = ssn.jobs.get(task.job)
                    if job is None:
                        return False
                    return job.queue == preemptor_job.queue and preemptor.job != task.job

                if preempt(ssn, stmt, preemptor, other_job_same_queue):
                    assigned = True
                if ssn.job_pipelined(preemptor_job):
                    _commit(ssn, stmt)
                    break
            if not ssn.job_pipelined(preemptor_job):
                stmt.discard()
                continue
            if assigned:
                preemptors.push(preemptor_job)

        # preemption between tasks of the same job
        for job in under_request:
            while True:
                tasks = preemptor_tasks.get(job.uid)
                if tasks is None or tasks.empty():
                    break
                preemptor = tasks.pop()
                stmt = ssn.statement()

                def same_job(task: TaskInfo, preemptor=preemptor) -> bool:
                    return task.status == RUNNING and preemptor.job == task.job

                assigned = preempt(ssn, stmt, preemptor, same_job)
                _commit(ssn, stmt)
                if not assigned:
                    break


def _commit(ssn: Session, stmt: Statement) -> None:
    meta = getattr(stmt, "why", {})
    for task in stmt.commit():
        ev = {"action": ACTION_NAME, "kind": "evict", "task": task.key, "job": task.job,
              "queue": ssn.jobs[task.job].queue if task.job in ssn.jobs else "", "node": task.node_name}
        ev.update(meta.get(task.uid, {}))
        ssn.events.append(ev)
    for name, task, host in stmt.operations:
        if name == "pipeline":
            ssn.events.append({"action": ACTION_NAME, "kind": "pipeline", "task": task.key, "job": task.job,
                               "node": host})


def preempt(ssn: Session, stmt: Statement, preemptor: TaskInfo, filter_fn: Callable[[TaskInfo], bool]) -> bool:
    """mirrors preempt(): on the nodes in score order, evict the preemptable victims (lowest task
    order first) until the preemptor's request is covered, and pipeline it there."""
    all_nodes = ssn.ranged(ssn.nodes)
    reasons: dict[str, str] = {}
    nodes = predicate_nodes(preemptor, all_nodes, ssn.predicate_fn, reasons)
    ssn.task_node_reasons.setdefault(preemptor.key, reasons)
    priority_list = prioritize_nodes(preemptor, nodes, ssn.node_prioritizer_list())
    why = stmt.__dict__.setdefault("why", {})
    for node in sort_nodes(priority_list, ssn.nodes):
        preemptees = [t.clone() for t in ssn.ranged(node.tasks) if filter_fn(t)]
        victims = ssn.preemptable(preemptor, preemptees)
        votes = ssn.last_votes
        resreq = preemptor.init_resreq.clone()
        if not _valid_victims(victims, resreq):
            continue
        victims_queue: PriorityQueue = PriorityQueue(lambda l, r: not ssn.task_order_fn(l, r))
        for v in victims:
            victims_queue.push(v)
        preempted = Resource()
        while not victims_queue.empty():
            preemptee = victims_queue.pop()
            stmt.evict(preemptee, "preempt")
            why[preemptee.uid] = {"preemptor": preemptor.key, "preemptorJob": preemptor.job,
                                  "votes": sorted(p for p, ids in votes.items() if preemptee.uid in ids),
                                  "frees": preemptee.resreq.as_dict()}
            preempted.add(preemptee.resreq)
            if resreq.less_equal(preempted):
                break
        if preemptor.init_resreq.less_equal(preempted):
            stmt.pipeline(preemptor, node.name)
            return True
    return False


def _valid_victims(victims: list[TaskInfo], resreq: Resource) -> bool:
    if not victims:
        return False
    all_res = Resource()
    for v in victims:
        all_res.add(v.resreq)
    return resreq.less_equal(all_res)
