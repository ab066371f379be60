"""The gang plugin (pkg/scheduler/plugins/gang): a job is ready when minMember of its tasks hold
resources; a task may be evicted only if its job stays ready without it (or minMember is 1); jobs
not yet ready go first; at close, a job not ready gets the Unschedulable condition."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.job_info import JobInfo, TaskInfo
from ..api.types import NOT_ENOUGH_PODS_REASON, NOT_ENOUGH_RESOURCES_REASON, POD_GROUP_UNSCHEDULABLE_TYPE
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "gang"
# the PodGroup condition's message, as gangPlugin.OnSessionClose writes it
GANG_UNSCHEDULABLE_MESSAGE = "{unready}/{tasks} tasks in gang unschedulable: {fit_error}"
NOT_ENOUGH_VALID_TASKS_MESSAGE = "Not enough valid tasks for gang-scheduling, valid: {valid}, min: {min}"


class GangPlugin(Plugin):
    name = PLUGIN_NAME

    def on_session_open(self, ssn: "Session") -> None:
        def valid_job(job: JobInfo) -> dict | None:
            vtn = job.valid_task_num()
            if vtn < job.min_available:
                return {"pass": False, "reason": NOT_ENOUGH_PODS_REASON,
                        "message": NOT_ENOUGH_VALID_TASKS_MESSAGE.format(valid=vtn, min=job.min_available)}
            return None

        def preemptable(_: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            victims = []
            for p in preemptees:
                job = ssn.jobs[p.job]
                occupied = job.ready_task_num()
                if job.min_available <= occupied - 1 or job.min_available == 1:
                    victims.append(p)
            return victims

        def job_order(l: JobInfo, r: JobInfo) -> int:
            lr, rr = l.ready(), r.ready()
            if lr and rr:
                return 0
            if lr:
                return 1
            if rr:
                return -1
            return 0

        ssn.add_job_valid_fn(self.name, valid_job)
        ssn.add_reclaimable_fn(self.name, preemptable)
        ssn.add_preemptable_fn(self.name, preemptable)
        ssn.add_job_order_fn(self.name, job_order)
        ssn.add_job_ready_fn(self.name, lambda job: job.ready())
        ssn.add_job_pipelined_fn(self.name, lambda job: job.pipelined())

    def on_session_close(self, ssn: "Session") -> None:
        for job in ssn.jobs.values():
            if not job.ready():
                msg = GANG_UNSCHEDULABLE_MESSAGE.format(unready=job.min_available - job.ready_task_num(),
                                                        tasks=len(job.tasks), fit_error=job.fit_error())
                ssn.update_job_condition(job, {"type": POD_GROUP_UNSCHEDULABLE_TYPE, "status": "True",
                                               "transitionID": ssn.uid, "reason": NOT_ENOUGH_RESOURCES_REASON,
                                               "message": msg})
