"""The allocate action (pkg/scheduler/actions/allocate): queue by queue (least share first), job by
job (the job order of the tiers), place each pending task on the best node that fits its idle
resources; where only releasing resources fit, pipeline it there instead."""
from __future__ import annotations

from ..api.node_info import NodeError
from ..api.types import PENDING
from ..framework.session import Session
from ..util.priority_queue import PriorityQueue
from ..util.scheduler_helper import predicate_nodes, prioritize_nodes, select_best_node

ACTION_NAME = "allocate"
ERR_RESOURCE_FIT = "task <{ns}/{name}> ResourceFit failed on node <{node}>"


def execute(ssn: Session) -> None:
    queues: PriorityQueue = PriorityQueue(ssn.queue_order_fn)
    jobs_map: dict[str, PriorityQueue] = {}
    for job in ssn.ranged(ssn.jobs):
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        queues.push(queue)
        if job.queue not in jobs_map:
            jobs_map[job.queue] = PriorityQueue(ssn.job_order_fn)
        jobs_map[job.queue].push(job)

    pending_tasks: dict[str, PriorityQueue] = {}
    all_nodes = ssn.ranged(ssn.nodes)

    def predicate(task, node) -> str | None:
        if not task.init_resreq.less_equal(node.idle) and not task.init_resreq.less_equal(node.releasing):
            return ERR_RESOURCE_FIT.format(ns=task.namespace, name=task.name, node=node.name)
        return ssn.predicate_fn(task, node)

    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            ssn.events.append({"action": ACTION_NAME, "kind": "overused", "queue": queue.name})
            continue
        jobs = jobs_map.get(queue.uid)
        if jobs is None or jobs.empty():
            continue
        job = jobs.pop()
        if job.uid not in pending_tasks:
            tasks: PriorityQueue = PriorityQueue(ssn.task_order_fn)
            for task in job.tasks_in(PENDING):
                if task.resreq.is_empty():
                    continue  # best-effort tasks are for backfill
                tasks.push(task)
            pending_tasks[job.uid] = tasks
        tasks = pending_tasks[job.uid]
        while not tasks.empty():
            task = tasks.pop()
            if job.nodes_fit_delta:
                job.nodes_fit_delta = type(job.nodes_fit_delta)()
            reasons: dict[str, str] = {}
            ssn.task_node_reasons[task.key] = reasons
            nodes = predicate_nodes(task, all_nodes, predicate, reasons)
            if not nodes:
                break
            priority_list = prioritize_nodes(task, nodes, ssn.node_prioritizer_list())
            node = ssn.nodes[select_best_node(priority_list, ssn.rng)]
            if task.init_resreq.less_equal(node.idle):
                try:
                    ssn.allocate(task, node.name)
                except (NodeError, LookupError):
                    pass
            else:
                delta = node.idle.clone()
                delta.fit_delta(task.init_resreq)
                job.nodes_fit_delta[node.name] = delta
                if task.init_resreq.less_equal(node.releasing):
                    try:
                        ssn.pipeline(task, node.name)
                        ssn.events.append({"action": ACTION_NAME, "kind": "pipeline", "task": task.key,
                                           "job": job.uid, "node": node.name})
                    except (NodeError, LookupError):
                        pass
            if ssn.job_ready(job) and not tasks.empty():
                jobs.push(job)
                break
        queues.push(queue)
