"""The priority plugin (pkg/scheduler/plugins/priority): tasks and jobs of higher priority first; a
task may preempt only tasks of jobs with lower priority than its own."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.job_info import JobInfo, TaskInfo
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "priority"


class PriorityPlugin(Plugin):
    name = PLUGIN_NAME

    def on_session_open(self, ssn: "Session") -> None:
        def task_order(l: TaskInfo, r: TaskInfo) -> int:
            if l.priority == r.priority:
                return 0
            return -1 if l.priority > r.priority else 1

        def job_order(l: JobInfo, r: JobInfo) -> int:
            if l.priority > r.priority:
                return -1
            if l.priority < r.priority:
                return 1
            return 0

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            preemptor_job = ssn.jobs[preemptor.job]
            return [p for p in preemptees if ssn.jobs[p.job].priority < preemptor_job.priority]

        ssn.add_task_order_fn(self.name, task_order)
        ssn.add_job_order_fn(self.name, job_order)
        ssn.add_preemptable_fn(self.name, preemptable)
