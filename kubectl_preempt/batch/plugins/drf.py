"""The drf plugin (pkg/scheduler/plugins/drf): dominant resource fairness between jobs. A job's
share is its largest fraction of any cluster resource; jobs with the smaller share go first, and a
task may preempt a task whose job would still hold at least the preemptor's share."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.job_info import JobInfo, TaskInfo
from ..api.resource_info import Resource, share
from ..api.types import allocated_status
from ..framework.session import EventHandler
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "drf"
SHARE_DELTA = 0.000001


class DrfAttr:
    __slots__ = ("share", "allocated")

    def __init__(self) -> None:
        self.share = 0.0
        self.allocated = Resource()


class DrfPlugin(Plugin):
    name = PLUGIN_NAME
    # drf.go preemptableFn takes each job's allocation down preemptee by preemptee, so which
    # preemptees are victims depends on their order (the range over node.Tasks in preempt.go)
    PREEMPTEES_IN_ORDER = True

    def __init__(self, arguments: dict[str, str]) -> None:
        super().__init__(arguments)
        self.total_resource = Resource()
        self.job_opts: dict[str, DrfAttr] = {}

    def calculate_share(self, allocated: Resource, total: Resource) -> float:
        res = 0.0
        for rn in total.resource_names():
            s = share(allocated.get(rn), total.get(rn))
            if s > res:
                res = s
        return res

    def update_share(self, attr: DrfAttr) -> None:
        attr.share = self.calculate_share(attr.allocated, self.total_resource)

    def on_session_open(self, ssn: "Session") -> None:
        for n in ssn.nodes.values():
            self.total_resource.add(n.allocatable)
        for job in ssn.jobs.values():
            attr = DrfAttr()
            for status, tasks in job.task_status_index.items():
                if allocated_status(status):
                    for t in tasks.values():
                        attr.allocated.add(t.resreq)
            self.update_share(attr)
            self.job_opts[job.uid] = attr

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            victims = []
            latt = self.job_opts[preemptor.job]
            lalloc = latt.allocated.clone().add(preemptor.resreq)
            ls = self.calculate_share(lalloc, self.total_resource)
            allocations: dict[str, Resource] = {}
            for p in preemptees:
                if p.job not in allocations:
                    allocations[p.job] = self.job_opts[p.job].allocated.clone()
                ralloc = allocations[p.job].sub(p.resreq)
                rs = self.calculate_share(ralloc, self.total_resource)
                if ls < rs or abs(ls - rs) <= SHARE_DELTA:
                    victims.append(p)
            return victims

        def job_order(l: JobInfo, r: JobInfo) -> int:
            ls, rs = self.job_opts[l.uid].share, self.job_opts[r.uid].share
            if ls == rs:
                return 0
            return -1 if ls < rs else 1

        def on_allocate(task: TaskInfo) -> None:
            attr = self.job_opts[task.job]
            attr.allocated.add(task.resreq)
            self.update_share(attr)

        def on_deallocate(task: TaskInfo) -> None:
            attr = self.job_opts[task.job]
            attr.allocated.sub(task.resreq)
            self.update_share(attr)

        ssn.add_preemptable_fn(self.name, preemptable)
        ssn.add_job_order_fn(self.name, job_order)
        ssn.add_event_handler(EventHandler(on_allocate, on_deallocate))
