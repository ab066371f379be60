"""TaskInfo and JobInfo (pkg/scheduler/api/job_info.go): a task is a pod, a job is a PodGroup
and its tasks, indexed by status."""
from __future__ import annotations

from typing import Any, Callable

from ...model.objects import Pod
from ..util.gomap import GoMap
from .resource_info import Resource
from .types import (ALLOCATED, PENDING, PIPELINED, SUCCEEDED, TaskStatus, allocated_status,
                    task_status_of)

GROUP_NAME_ANNOTATION_KEY = "scheduling.k8s.io/group-name"
GROUP_MIN_MEMBER_ANNOTATION_KEY = "scheduling.k8s.io/group-min-member"


def pod_resource_without_init_containers(pod: Pod) -> Resource:
    """mirrors GetPodResourceWithoutInitContainers: the sum of the containers' requests."""
    r = Resource()
    for i, c in enumerate(pod.spec.get("containers") or ()):
        r.add(Resource.from_list((c.get("resources") or {}).get("requests"),
                                 f"spec.containers[{i}].resources.requests"))
    return r


def pod_resource_request(pod: Pod, without_init: Resource | None = None) -> Resource:
    """mirrors GetPodResourceRequest: containers' sum, raised to any init container's request."""
    r = without_init.clone() if without_init is not None else pod_resource_without_init_containers(pod)
    for i, c in enumerate(pod.spec.get("initContainers") or ()):
        r.set_max_resource(Resource.from_list((c.get("resources") or {}).get("requests"),
                                              f"spec.initContainers[{i}].resources.requests"))
    return r


def job_id_of(pod: Pod) -> str:
    """mirrors getJobID: "namespace/group" from the group-name annotation, "" without it."""
    gn = (pod.metadata.get("annotations") or {}).get(GROUP_NAME_ANNOTATION_KEY)
    return f"{pod.namespace}/{gn}" if gn else ""


class TaskInfo:
    __slots__ = ("uid", "job", "name", "namespace", "resreq", "init_resreq", "node_name", "status",
                 "priority", "pod", "key")

    def __init__(self, pod: Pod | None = None) -> None:
        if pod is None:
            return
        self.uid: str = pod.metadata.get("uid") or pod.key
        self.job: str = job_id_of(pod)
        self.name = pod.name
        self.namespace = pod.namespace
        self.key = pod.key
        self.node_name: str = pod.node_name
        self.status: TaskStatus = task_status_of(pod.phase, pod.node_name, pod.terminating)
        prio = pod.spec.get("priority")
        self.priority: int = prio if isinstance(prio, int) and not isinstance(prio, bool) else 1
        self.pod = pod
        self.resreq = pod_resource_without_init_containers(pod)
        self.init_resreq = pod_resource_request(pod, self.resreq)

    def clone(self) -> "TaskInfo":
        t = TaskInfo()
        t.uid, t.job, t.name, t.namespace, t.key = self.uid, self.job, self.name, self.namespace, self.key
        t.node_name, t.status, t.priority, t.pod = self.node_name, self.status, self.priority, self.pod
        # a task's requests are never changed in place (they are only ever added to or taken
        # from other resources), so clones share them
        t.resreq, t.init_resreq = self.resreq, self.init_resreq
        return t

    def __repr__(self) -> str:
        return f"Task({self.key} {self.status} on {self.node_name or '-'})"


class PodGroupStatus:
    __slots__ = ("phase", "conditions", "running", "succeeded", "failed")

    def __init__(self, raw: dict[str, Any] | None = None) -> None:
        raw = raw or {}
        self.phase: str = raw.get("phase") or ""
        self.conditions: list[dict[str, Any]] = [dict(c) for c in raw.get("conditions") or ()]
        self.running: int = int(raw.get("running") or 0)
        self.succeeded: int = int(raw.get("succeeded") or 0)
        self.failed: int = int(raw.get("failed") or 0)


class PodGroup:
    """api.PodGroup: the fields of a v1alpha1 / v1alpha2 / Volcano PodGroup kube-batch reads."""

    __slots__ = ("name", "namespace", "min_member", "queue", "priority_class_name", "creation_timestamp",
                 "status", "shadow", "raw")

    def __init__(self, name: str, namespace: str, min_member: int, queue: str, priority_class_name: str,
                 creation_timestamp: str, status: PodGroupStatus, shadow: bool = False,
                 raw: dict[str, Any] | None = None) -> None:
        self.name, self.namespace, self.min_member, self.queue = name, namespace, min_member, queue
        self.priority_class_name, self.creation_timestamp = priority_class_name, creation_timestamp
        self.status, self.shadow, self.raw = status, shadow, raw


class JobInfo:
    __slots__ = ("uid", "name", "namespace", "queue", "priority", "min_available", "nodes_fit_delta",
                 "task_status_index", "tasks", "allocated", "total_request", "creation_timestamp",
                 "pod_group", "ready_count")

    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.name = ""
        self.namespace = ""
        self.queue = ""
        self.priority = 0
        self.min_available = 0
        self.nodes_fit_delta: GoMap[str, Resource] = GoMap()
        self.task_status_index: GoMap[TaskStatus, GoMap[str, TaskInfo]] = GoMap()
        self.tasks: GoMap[str, TaskInfo] = GoMap()
        self.allocated = Resource()
        self.total_request = Resource()
        self.creation_timestamp = ""
        self.pod_group: PodGroup | None = None
        # tasks in an allocated status or succeeded: ReadyTaskNum, kept as tasks come and go
        self.ready_count = 0

    def set_pod_group(self, pg: PodGroup) -> None:
        self.name = pg.name
        self.namespace = pg.namespace
        self.min_available = pg.min_member
        self.queue = pg.queue
        self.creation_timestamp = pg.creation_timestamp
        self.pod_group = pg

    def add_task_info(self, ti: TaskInfo) -> None:
        self.tasks[ti.uid] = ti
        idx = self.task_status_index.get(ti.status)
        if idx is None:
            idx = self.task_status_index[ti.status] = GoMap()
        idx[ti.uid] = ti
        self.total_request.add(ti.resreq)
        if allocated_status(ti.status):
            self.allocated.add(ti.resreq)
            self.ready_count += 1
        elif ti.status == SUCCEEDED:
            self.ready_count += 1

    def delete_task_info(self, ti: TaskInfo) -> None:
        task = self.tasks.get(ti.uid)
        if task is None:
            raise LookupError(f"failed to find task <{ti.namespace}/{ti.name}> in job <{self.namespace}/{self.name}>")
        self.total_request.sub(task.resreq)
        if allocated_status(task.status):
            self.allocated.sub(task.resreq)
            self.ready_count -= 1
        elif task.status == SUCCEEDED:
            self.ready_count -= 1
        del self.tasks[task.uid]
        idx = self.task_status_index.get(task.status)
        if idx is not None and task.uid in idx:
            del idx[task.uid]
            if not idx:
                del self.task_status_index[task.status]

    def update_task_status(self, task: TaskInfo, status: TaskStatus) -> None:
        if task.uid in self.tasks:
            self.delete_task_info(task)
        task.status = status
        self.add_task_info(task)

    def tasks_in(self, status: TaskStatus) -> list[TaskInfo]:
        idx = self.task_status_index.get(status)
        return list(idx.values()) if idx is not None else []

    def count(self, status: TaskStatus) -> int:
        idx = self.task_status_index.get(status)
        return len(idx) if idx is not None else 0

    def clone(self, ranged: Callable[[Any], list]) -> "JobInfo":
        info = JobInfo(self.uid)
        info.name, info.namespace, info.queue, info.priority = self.name, self.namespace, self.queue, self.priority
        info.min_available, info.pod_group = self.min_available, self.pod_group
        info.creation_timestamp = self.creation_timestamp
        for task in ranged(self.tasks):
            info.add_task_info(task.clone())
        return info

    def fit_error(self) -> str:
        """mirrors JobInfo.FitError: how many nodes lacked each resource for the last task tried."""
        if not self.nodes_fit_delta:
            return "0 nodes are available"
        reasons: dict[str, int] = {}
        for v in self.nodes_fit_delta.values():
            if v.get("cpu") < 0:
                reasons["cpu"] = reasons.get("cpu", 0) + 1
            if v.get("memory") < 0:
                reasons["memory"] = reasons.get("memory", 0) + 1
            for name, q in (v.scalar or {}).items():
                if q < 0:
                    reasons[name] = reasons.get(name, 0) + 1
        hist = sorted(f"{n} insufficient {k}" for k, n in reasons.items())
        return f"0/{len(self.nodes_fit_delta)} nodes are available, {', '.join(hist)}."

    def ready_task_num(self) -> int:
        return self.ready_count

    def waiting_task_num(self) -> int:
        return self.count(PIPELINED)

    def valid_task_num(self) -> int:
        n = 0
        for status, tasks in self.task_status_index.items():
            if allocated_status(status) or status in (SUCCEEDED, PIPELINED, PENDING):
                n += len(tasks)
        return n

    def ready(self) -> bool:
        return self.ready_count >= self.min_available

    def pipelined(self) -> bool:
        return self.waiting_task_num() + self.ready_task_num() >= self.min_available

    def __repr__(self) -> str:
        return f"Job({self.uid} queue={self.queue} min={self.min_available})"


__all__ = ["TaskInfo", "JobInfo", "PodGroup", "PodGroupStatus", "ALLOCATED", "job_id_of"]
