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
        self._apply(reclaimee, RELEASING, reclaimee.node_name, "update_task", allocated=False)
        self.operations.append(("evict", reclaimee, reason))

    def _unevict(self, reclaimee: TaskInfo) -> None:
        self._apply(reclaimee, RUNNING, reclaimee.node_name, "update_task", allocated=True)

    def pipeline(self, task: TaskInfo, hostname: str) -> None:
        self._apply(task, PIPELINED, hostname, "add_task", allocated=True)
        self.operations.append(("pipeline", task, hostname))

    def _unpipeline(self, task: TaskInfo) -> None:
        self._apply(task, PENDING, task.node_name, "remove_task", allocated=False)

    def _apply(self, task: TaskInfo, status: int, hostname: str, on_node: str, *, allocated: bool) -> None:
        """The three steps statement.go's evict, pipeline, unevict and unpipeline each take: the
        task's status in its job, the task on the node (NodeInfo UpdateTask, AddTask or
        RemoveTask; an error there is logged and passed over), then the session's allocate or
        deallocate event handlers."""
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, status)
        node = ssn.nodes.get(hostname)
        if node is not None:
            try:
                getattr(node, on_node)(task)
            except NodeError:
                pass
        if allocated:
            ssn._allocate_event(task)
        else:
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
