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
from ..util.gomap import GoMap
from ..util.priority_queue import PriorityQueue, pop_from
from ..util.scheduler_helper import per_node_scorer, predicate_nodes, prioritize_nodes, sort_nodes

ACTION_NAME = "preempt"


def push_preemptor(ssn: Session, job: JobInfo, preemptors_map: dict[str, PriorityQueue],
                   preemptor_tasks: dict[str, PriorityQueue]) -> None:
    """A job with pending tasks, as preempt.go and reclaim.go gather it: into its queue's
    preemptors (in job order) and its pending tasks into its own queue (in task order)."""
    if job.queue not in preemptors_map:
        preemptors_map[job.queue] = PriorityQueue(ssn.job_order_fn)
    preemptors_map[job.queue].push(job)
    tasks = preemptor_tasks[job.uid] = PriorityQueue(ssn.task_order_fn)
    for task in job.tasks_in(PENDING):
        tasks.push(task)


def execute(ssn: Session) -> None:
    preemptors_map: dict[str, PriorityQueue] = {}
    preemptor_tasks: dict[str, PriorityQueue] = {}
    under_request: list[JobInfo] = []
    # a Go map, filled as the jobs are ranged and then ranged itself: the queues' order is drawn
    queues: GoMap = GoMap()
    # the jobs of each queue, to know cheaply whether any task could be a victim
    queue_jobs: dict[str, list[JobInfo]] = {}
    for job, queue in ssn.jobs_with_queue():
        if queue.uid not in queues:
            queues[queue.uid] = queue
        queue_jobs.setdefault(queue.uid, []).append(job)
        if job.count(PENDING):
            push_preemptor(ssn, job, preemptors_map, preemptor_tasks)
            under_request.append(job)

    # Preemptable's victims are among what every plugin of the deciding tier returns, and only the
    # first tier with a preemptable function can decide (a later one intersects with nothing). When
    # priority is in that tier, a victim's job has a lower priority than the preemptor's: tasks of
    # other jobs are left out of the walk over the nodes, and a job never preempts its own tasks.
    by_priority = _in_deciding_tier(ssn, "priority")
    for queue in ssn.ranged(queues):
        # preemption between jobs of the same queue
        while True:
            preemptor_job = pop_from(preemptors_map, queue.uid)
            if preemptor_job is None:
                break
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
                    return (job.queue == preemptor_job.queue and preemptor.job != task.job
                            and (not by_priority or job.priority < preemptor_job.priority))

                others_running = any(j.count(RUNNING) for j in queue_jobs[queue.uid] if j.uid != preemptor.job
                                     and (not by_priority or j.priority < preemptor_job.priority))
                if preempt(ssn, stmt, preemptor, other_job_same_queue, others_running):
                    assigned = True
                if ssn.job_pipelined(preemptor_job):
                    _commit(ssn, stmt)
                    break
            if not ssn.job_pipelined(preemptor_job):
                stmt.discard()
                continue
            if assigned:
                preemptors_map[queue.uid].push(preemptor_job)

        # preemption between tasks of the same job
        for job in under_request:
            while True:
                preemptor = pop_from(preemptor_tasks, job.uid)
                if preemptor is None:
                    break
                stmt = ssn.statement()

                def same_job(task: TaskInfo, preemptor=preemptor) -> bool:
                    return task.status == RUNNING and preemptor.job == task.job

                assigned = preempt(ssn, stmt, preemptor, same_job, job.count(RUNNING) > 0 and not by_priority)
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


def preempt(ssn: Session, stmt: Statement, preemptor: TaskInfo, filter_fn: Callable[[TaskInfo], bool],
            candidates: bool = True) -> bool:
    """mirrors preempt(): on the nodes in score order, evict the preemptable victims (lowest task
    order first) until the preemptor's request is covered, and pipeline it there.

    `candidates` False says no task anywhere passes the filter: every node then has no victims and
    kube-batch's walk over the nodes changes nothing, so it is skipped."""
    if not candidates:
        return False
    # GetNodeList ranges ssn.Nodes, but the order does not matter: SortNodes orders the nodes by
    # score, then name (a total order)
    all_nodes = ssn.nodes.values()
    configs = ssn.node_prioritizer_list()
    scorer = per_node_scorer(preemptor, configs, ssn.any_pod_affinity)
    if scorer is not None:
        priority_list = [(n.name, s) for n, s in
                         ssn.node_cache.feasible(ACTION_NAME, preemptor, all_nodes, ssn.predicate_fn, scorer)]
    else:
        nodes = predicate_nodes(preemptor, all_nodes, ssn.predicate_fn)
        priority_list = prioritize_nodes(preemptor, nodes, configs)
    why = stmt.__dict__.setdefault("why", {})
    for node in sort_nodes(priority_list, ssn.nodes):
        # node.Tasks ranged in Go's order: drf's Preemptable reads the candidates in that order
        # (it takes each job's share down task by task), so it can decide which are victims; the
        # other plugins decide task by task, and the victims are then ordered by the task order
        # (victimsQueue), so the range is drawn only if drf is asked
        preemptees = [t.clone() for t in node.tasks.values() if filter_fn(t)]
        if not preemptees:
            continue

        def in_order(node=node, preemptees=preemptees) -> list[TaskInfo]:
            by_uid = {t.uid: t for t in preemptees}
            return [by_uid[t.uid] for t in ssn.ranged(node.tasks) if t.uid in by_uid]

        victims = ssn.preemptable(preemptor, preemptees, in_order)
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


def _in_deciding_tier(ssn: Session, name: str) -> bool:
    for tier in ssn.tiers:
        names = [p.name for p in tier if p.on("enablePreemptable") and p.name in ssn.preemptable_fns]
        if names:
            return name in names
    return False


def _valid_victims(victims: list[TaskInfo], resreq: Resource) -> bool:
    if not victims:
        return False
    all_res = Resource()
    for v in victims:
        all_res.add(v.resreq)
    return resreq.less_equal(all_res)
