"""Task statuses and the small types of kube-batch's api package (pkg/scheduler/api/types.go)."""
from __future__ import annotations

from enum import IntFlag


class TaskStatus(IntFlag):
    PENDING = 1 << 0
    ALLOCATED = 1 << 1
    PIPELINED = 1 << 2
    BINDING = 1 << 3
    BOUND = 1 << 4
    RUNNING = 1 << 5
    RELEASING = 1 << 6
    SUCCEEDED = 1 << 7
    FAILED = 1 << 8
    UNKNOWN = 1 << 9

    def __str__(self) -> str:
        return (self.name or "Unknown").capitalize()


PENDING, ALLOCATED, PIPELINED, BINDING, BOUND, RUNNING, RELEASING, SUCCEEDED, FAILED, UNKNOWN = (
    TaskStatus.PENDING, TaskStatus.ALLOCATED, TaskStatus.PIPELINED, TaskStatus.BINDING, TaskStatus.BOUND,
    TaskStatus.RUNNING, TaskStatus.RELEASING, TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.UNKNOWN)

_ALLOCATED = BOUND | BINDING | RUNNING | ALLOCATED


def allocated_status(status: TaskStatus) -> bool:
    """mirrors AllocatedStatus: the task holds resources on a node."""
    return bool(status & _ALLOCATED)


def task_status_of(phase: str | None, node_name: str, deleting: bool) -> TaskStatus:
    """mirrors getTaskStatus"""
    if phase == "Running":
        return RELEASING if deleting else RUNNING
    if phase == "Pending":
        if deleting:
            return RELEASING
        return BOUND if node_name else PENDING
    if phase == "Succeeded":
        return SUCCEEDED
    if phase == "Failed":
        return FAILED
    return UNKNOWN


# PodGroup conditions and phases (pkg/apis/scheduling/v1alpha1 and api/pod_group_info.go)
POD_GROUP_UNSCHEDULABLE_TYPE = "Unschedulable"
POD_GROUP_PENDING = "Pending"
POD_GROUP_RUNNING = "Running"
POD_GROUP_UNKNOWN = "Unknown"
NOT_ENOUGH_RESOURCES_REASON = "NotEnoughResources"
NOT_ENOUGH_PODS_REASON = "NotEnoughTasks"
# v1.PodReasonUnschedulable, the reason of the PodScheduled condition kube-batch writes
POD_REASON_UNSCHEDULABLE = "Unschedulable"
