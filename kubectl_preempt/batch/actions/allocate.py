"""The allocate action (pkg/scheduler/actions/allocate): queue by queue (least share first), job by
job (the job order of the tiers), place each pending task on the best node that fits its idle
resources; where only releasing resources fit, pipeline it there instead."""
from __future__ import annotations

from typing import Any

from ...model.memory import MEMORY
from ..api.node_info import NodeError
from ..api.types import PENDING
from ..framework.session import Session
from ..util.priority_queue import PriorityQueue, pop_from
from ..util.scheduler_helper import (BestNodes, per_node_scorer, predicate_nodes, prioritize_nodes,
                                     select_best_node, shape_key)

ACTION_NAME = "allocate"
ERR_RESOURCE_FIT = "task <{ns}/{name}> ResourceFit failed on node <{node}>"


def execute(ssn: Session) -> None:
    queues: PriorityQueue = PriorityQueue(ssn.queue_order_fn)
    jobs_map: dict[str, PriorityQueue] = {}
    for job, queue in ssn.jobs_with_queue():
        queues.push(queue)
        if job.queue not in jobs_map:
            jobs_map[job.queue] = PriorityQueue(ssn.job_order_fn)
        jobs_map[job.queue].push(job)

    pending_tasks: dict[str, PriorityQueue] = {}
    all_nodes = ssn.ranged(ssn.nodes)
    configs = ssn.node_prioritizer_list()
    best_nodes: dict[str, BestNodes] = {}

    def predicate(task, node) -> Any:
        if not task.init_resreq.less_equal(node.idle) and not task.init_resreq.less_equal(node.releasing):
            # ERR_RESOURCE_FIT, written out for the task when the session's result is made
            return (ERR_RESOURCE_FIT, node.name)
        return ssn.predicate_fn(task, node)

    while not queues.empty():
        queue = queues.pop()
        if ssn.overused(queue):
            ssn.events.append({"action": ACTION_NAME, "kind": "overused", "queue": queue.name})
            continue
        job = pop_from(jobs_map, queue.uid)
        if job is None:
            continue
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
            # the index is a memory (model/memory.py): with every memory off each task walks every node
            scorer = per_node_scorer(task, configs, ssn.any_pod_affinity) if MEMORY.on else None
            if scorer is not None:
                # the same draw as below, from an index of the nodes kept per task shape
                key = shape_key(task)
                index = best_nodes.get(key)
                if index is None:
                    index = best_nodes[key] = BestNodes(all_nodes, ssn.node_changes, task, predicate, scorer)
                top = index.best(task)
                chosen = (top[ssn.rng.randrange(len(top))] if len(top) > 1 else top[0]).name if top else None
            else:
                nodes = predicate_nodes(task, all_nodes, predicate)
                chosen = select_best_node(prioritize_nodes(task, nodes, configs), ssn.rng) if nodes else None
            if chosen is None:
                # every node's reason, for the story of a task left pending; ResourceFit's text is
                # written out only if the task is still pending when the session closes
                reasons: dict[str, Any] = {}
                if scorer is not None:
                    # the index holds every node's refusal; a plugin's names the task it was
                    # asked for, so it is asked again for this one
                    for i, err in index.refusals.items():
                        n = all_nodes[i]
                        reasons[n.name] = err if isinstance(err, tuple) else predicate(task, n)
                else:
                    predicate_nodes(task, all_nodes, predicate, reasons)
                ssn.task_node_reasons[task.key] = reasons
                break
            node = ssn.nodes[chosen]
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
                    ssn.pipeline_in(ACTION_NAME, task, node.name)
            if ssn.job_ready(job) and not tasks.empty():
                jobs_map[queue.uid].push(job)
                break
        queues.push(queue)
