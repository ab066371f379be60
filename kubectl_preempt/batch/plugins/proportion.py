"""The proportion plugin (pkg/scheduler/plugins/proportion): the cluster divided between queues by
weight, each capped at what it asks for (deserved); a queue at or over its deserved share is
overused and gets nothing more; a queue's task may be reclaimed while the queue stays at or over
its deserved share without it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.job_info import TaskInfo
from ..api.queue_info import QueueInfo
from ..api.resource_info import Resource, min_resource, share
from ..api.types import PENDING, allocated_status
from ..framework.session import EventHandler
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "proportion"


class QueueAttr:
    __slots__ = ("queue_id", "name", "weight", "share", "deserved", "allocated", "request")

    def __init__(self, queue: QueueInfo) -> None:
        self.queue_id = queue.uid
        self.name = queue.name
        self.weight = queue.weight
        self.share = 0.0
        self.deserved = Resource()
        self.allocated = Resource()
        self.request = Resource()


class ProportionPlugin(Plugin):
    name = PLUGIN_NAME

    def __init__(self, arguments: dict[str, str]) -> None:
        super().__init__(arguments)
        self.total_resource = Resource()
        self.queue_opts: dict[str, QueueAttr] = {}

    def update_share(self, attr: QueueAttr) -> None:
        res = 0.0
        for rn in attr.deserved.resource_names():
            s = share(attr.allocated.get(rn), attr.deserved.get(rn))
            if s > res:
                res = s
        attr.share = res

    def on_session_open(self, ssn: "Session") -> None:
        for n in ssn.nodes.values():
            self.total_resource.add(n.allocatable)
        for job in ssn.jobs.values():
            if job.queue not in self.queue_opts:
                self.queue_opts[job.queue] = QueueAttr(ssn.queues[job.queue])
            attr = self.queue_opts[job.queue]
            for status, tasks in job.task_status_index.items():
                if allocated_status(status):
                    for t in tasks.values():
                        attr.allocated.add(t.resreq)
                        attr.request.add(t.resreq)
                elif status == PENDING:
                    for t in tasks.values():
                        attr.request.add(t.resreq)

        # the deserved share: rounds of dividing what remains by weight among the queues that
        # still ask for more, until none does or nothing remains
        remaining = self.total_resource.clone()
        meet: set[str] = set()
        while True:
            total_weight = sum(a.weight for a in self.queue_opts.values() if a.queue_id not in meet)
            if total_weight == 0:
                break
            increased, decreased = Resource(), Resource()
            for attr in self.queue_opts.values():
                if attr.queue_id in meet:
                    continue
                old = attr.deserved.clone()
                attr.deserved.add(remaining.clone().multi(attr.weight / total_weight))
                if attr.request.less(attr.deserved):
                    attr.deserved = min_resource(attr.deserved, attr.request)
                    meet.add(attr.queue_id)
                self.update_share(attr)
                inc, dec = attr.deserved.diff(old)
                increased.add(inc)
                decreased.add(dec)
            remaining.sub(increased).add(decreased)
            if remaining.is_empty():
                break

        def queue_order(l: QueueInfo, r: QueueInfo) -> int:
            ls, rs = self.queue_opts[l.uid].share, self.queue_opts[r.uid].share
            if ls == rs:
                return 0
            return -1 if ls < rs else 1

        def reclaimable(_: TaskInfo, reclaimees: list[TaskInfo]) -> list[TaskInfo]:
            victims = []
            allocations: dict[str, Resource] = {}
            for r in reclaimees:
                job = ssn.jobs[r.job]
                attr = self.queue_opts[job.queue]
                if job.queue not in allocations:
                    allocations[job.queue] = attr.allocated.clone()
                allocated = allocations[job.queue]
                if allocated.less(r.resreq):
                    continue
                allocated.sub(r.resreq)
                if attr.deserved.less_equal(allocated):
                    victims.append(r)
            return victims

        def overused(queue: QueueInfo) -> bool:
            attr = self.queue_opts[queue.uid]
            return attr.deserved.less_equal(attr.allocated)

        def on_allocate(task: TaskInfo) -> None:
            attr = self.queue_opts[ssn.jobs[task.job].queue]
            attr.allocated.add(task.resreq)
            self.update_share(attr)

        def on_deallocate(task: TaskInfo) -> None:
            attr = self.queue_opts[ssn.jobs[task.job].queue]
            attr.allocated.sub(task.resreq)
            self.update_share(attr)

        ssn.add_queue_order_fn(self.name, queue_order)
        ssn.add_reclaimable_fn(self.name, reclaimable)
        ssn.add_overused_fn(self.name, overused)
        ssn.add_event_handler(EventHandler(on_allocate, on_deallocate))

    def on_session_close(self, ssn: "Session") -> None:
        # kept (kube-batch drops them) so the session's story can show each queue's share
        pass
