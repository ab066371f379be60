"""Task statuses and the small types of kube-batch's api package (pkg/scheduler/api/types.go)."""
from __future__ import annotations

# statuses are plain ints (as Go's TaskStatus), compared and hashed at C speed
TaskStatus = int

PENDING, ALLOCATED, PIPELINED, BINDING, BOUND, RUNNING, RELEASING, SUCCEEDED, FAILED, UNKNOWN = (
    1 << i for i in range(10))

_NAMES = {PENDING: "Pending", ALLOCATED: "Allocated", PIPELINED: "Pipelined", BINDING: "Binding", BOUND: "Bound",
          RUNNING: "Running", RELEASING: "Releasing", SUCCEEDED: "Succeeded", FAILED: "Failed", UNKNOWN: "Unknown"}
_ALLOCATED = frozenset((BOUND, BINDING, RUNNING, ALLOCATED))


def status_name(status: TaskStatus) -> str:
    return _NAMES.get(status, "Unknown")


def allocated_status(status: TaskStatus) -> bool:
    """mirrors AllocatedStatus: the task holds resources on a node."""
    return status in _ALLOCATED


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
