"""What kube-scheduler v1.16's priorities read of a pod (priorities/util/non_zero.go), kept with
kube-batch's api so that a node can keep its running sum."""
from __future__ import annotations

from typing import Any

from ...framework.podinfo import derived
from ...model.quantity import milli_value, value

DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


def nonzero_request(pod: Any) -> tuple[int, int]:
    """nonzero_request_of the pod, kept in its PodInfo."""
    return derived(pod, "batch_nonzero_request", nonzero_request_of)


def nonzero_request_of(pod: Any) -> tuple[int, int]:
    """mirrors GetNonzeroRequests summed over the containers: 100m CPU and 200 MB of memory for
    a container that requests none."""
    cpu = mem = 0
    for c in pod.spec.get("containers") or ():
        req = (c.get("resources") or {}).get("requests") or {}
        cpu += milli_value(req["cpu"]) if "cpu" in req else DEFAULT_MILLI_CPU_REQUEST
        mem += value(req["memory"]) if "memory" in req else DEFAULT_MEMORY_REQUEST
    return cpu, mem
