"""Statement (pkg/scheduler/framework/statement.go): evictions and pipelinings the preempt action
tries on the session and then commits or discards together."""
from __future__ import annotations

from typing import Any

from ..api.job_info import TaskInfo
from ..api.node_info import NodeError
from ..api.types import PENDING, PIPELINED, RELEASING, RUNNING


class Statement:
    def __init__(self, ssn: Any) -> None:
        # the Session; not imported, as the session module imports this one
        self.ssn = ssn
        self.operations: list[tuple[str, TaskInfo, str]] = []

    def evict(self, reclaimee: TaskInfo, reason: str) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(reclaimee.job)
        if job is not None:
            job.update_task_status(reclaimee, RELEASING)
        node = ssn.nodes.get(reclaimee.node_name)
        if node is not None:
            try:
                node.update_task(reclaimee)
            except NodeError:
                pass
        ssn._deallocate_event(reclaimee)
        self.operations.append(("evict", reclaimee, reason))

    def _unevict(self, reclaimee: TaskInfo) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(reclaimee.job)
        if job is not None:
            job.update_task_status(reclaimee, RUNNING)
        node = ssn.nodes.get(reclaimee.node_name)
        if node is not None:
            try:
                node.update_task(reclaimee)
            except NodeError:
                pass
        ssn._allocate_event(reclaimee)

    def pipeline(self, task: TaskInfo, hostname: str) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, PIPELINED)
        node = ssn.nodes.get(hostname)
        if node is not None:
            try:
                node.add_task(task)
            except NodeError:
                pass
        ssn._allocate_event(task)
        self.operations.append(("pipeline", task, hostname))

    def _unpipeline(self, task: TaskInfo) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, PENDING)
        node = ssn.nodes.get(task.node_name)
        if node is not None:
            try:
                node.remove_task(task)
            except NodeError:
                pass
        ssn._deallocate_event(task)

    def discard(self) -> None:
        for name, task, _ in reversed(self.operations):
            if name == "evict":
                self._unevict(task)
            else:
                self._unpipeline(task)

    def commit(self) -> list[TaskInfo]:
        """The evictions sent to the cache; a refused one is undone on the session."""
        done = []
        for name, task, reason in self.operations:
            if name == "evict":
                try:
                    self.ssn.cache.evict(task, reason)
                    done.append(task)
                except (LookupError, NodeError):
                    self._unevict(task)
        return done
