"""NodeInfo (pkg/scheduler/api/node_info.go): a node's idle, used and releasing resources and the
tasks on it, each a clone of the job's task."""
from __future__ import annotations

from typing import Any, Callable

from ...model.objects import Node
from ..util.gomap import GoMap
from .job_info import TaskInfo
from .pod_info import nonzero_request
from .resource_info import Resource
from .types import PIPELINED, RELEASING

READY, NOT_READY = "Ready", "NotReady"


class NodeError(Exception):
    """An error AddTask / RemoveTask return in kube-batch."""


class NodeInfo:
    __slots__ = ("name", "node", "phase", "reason", "releasing", "idle", "used", "allocatable", "capability",
                 "tasks", "gen", "non0_cpu", "non0_mem", "log")

    def __init__(self, node: Node | None) -> None:
        self.releasing = Resource()
        self.used = Resource()
        self.tasks: GoMap[str, TaskInfo] = GoMap()
        # bumped whenever the node's tasks change: what was computed for a node holds while it holds
        self.gen = 0
        # the session's log of changed nodes (None outside a session)
        self.log: list[str] | None = None
        # the v1.16 priorities' requested sums (non-zero defaults) over the pods on the node
        self.non0_cpu = 0
        self.non0_mem = 0
        if node is None:
            self.name = ""
            self.node = None
            self.idle = Resource()
            self.allocatable = Resource()
            self.capability = Resource()
        else:
            self.name = node.name
            self.node = node
            alloc = node.status.get("allocatable")
            self.idle = Resource.from_list(alloc, "status.allocatable")
            self.allocatable = Resource.from_list(alloc, "status.allocatable")
            self.capability = Resource.from_list(node.status.get("capacity"), "status.capacity")
        self._set_state(node)

    def _set_state(self, node: Node | None) -> None:
        # mirrors setNodeState
        if node is None:
            self.phase, self.reason = NOT_READY, "UnInitialized"
        elif not self.used.less_equal(Resource.from_list(node.status.get("allocatable"))):
            self.phase, self.reason = NOT_READY, "OutOfSync"
        else:
            self.phase, self.reason = READY, ""

    def ready(self) -> bool:
        return self.phase == READY

    def set_node(self, node: Node) -> None:
        """mirrors SetNode: a node seen after pods already placed on it."""
        self._set_state(node)
        if not self.ready():
            return
        self.name = node.name
        self.node = node
        alloc = node.status.get("allocatable")
        self.allocatable = Resource.from_list(alloc)
        self.capability = Resource.from_list(node.status.get("capacity"))
        self.idle = Resource.from_list(alloc)
        self.used = Resource()
        self.gen += 1
        for task in self.tasks.values():
            if task.status == RELEASING:
                self.releasing.add(task.resreq)
            self.idle.sub(task.resreq)
            self.used.add(task.resreq)

    def clone(self, ranged: Callable[[Any], list]) -> "NodeInfo":
        res = NodeInfo(self.node)
        for t in ranged(self.tasks):
            res.add_task(t)
        return res

    def _allocate_idle(self, ti: TaskInfo) -> None:
        if ti.resreq.less_equal(self.idle):
            self.idle.sub(ti.resreq)
            return
        raise NodeError("Selected node NotReady")

    def add_task(self, task: TaskInfo) -> None:
        if task.node_name and self.name and task.node_name != self.name:
            raise NodeError(f"task <{task.namespace}/{task.name}> already on different node <{task.node_name}>")
        key = task.key
        if key in self.tasks:
            raise NodeError(f"task <{task.namespace}/{task.name}> already on node <{self.name}>")
        ti = task.clone()
        if self.node is not None:
            if ti.status == RELEASING:
                self._allocate_idle(ti)
                self.releasing.add(ti.resreq)
            elif ti.status == PIPELINED:
                self.releasing.sub(ti.resreq)
            else:
                self._allocate_idle(ti)
            self.used.add(ti.resreq)
        task.node_name = self.name
        ti.node_name = self.name
        self.tasks[key] = ti
        self.gen += 1
        if self.log is not None:
            self.log.append(self.name)
        c, m = nonzero_request(ti.pod)
        self.non0_cpu += c
        self.non0_mem += m

    def remove_task(self, ti: TaskInfo) -> None:
        task = self.tasks.get(ti.key)
        if task is None:
            raise NodeError(f"failed to find task <{ti.namespace}/{ti.name}> on host <{self.name}>")
        if self.node is not None:
            if task.status == RELEASING:
                self.releasing.sub(task.resreq)
                self.idle.add(task.resreq)
            elif task.status == PIPELINED:
                self.releasing.add(task.resreq)
            else:
                self.idle.add(task.resreq)
            self.used.sub(task.resreq)
        del self.tasks[ti.key]
        self.gen += 1
        if self.log is not None:
            self.log.append(self.name)
        c, m = nonzero_request(task.pod)
        self.non0_cpu -= c
        self.non0_mem -= m

    def update_task(self, ti: TaskInfo) -> None:
        self.remove_task(ti)
        self.add_task(ti)

    def pods(self) -> list:
        return [t.pod for t in self.tasks.values()]

    def __repr__(self) -> str:
        return f"NodeInfo({self.name} idle=<{self.idle}> releasing=<{self.releasing}>)"
