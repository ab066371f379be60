"""A synthetic cluster for `plan --max` at scale (tests and benchmarks/bench_plan.py).

`nodes` nodes of 4 CPU and 16Gi, each running `low_per_node` pods of 1 CPU and 1Gi in class
`low` (value 10, grace 30 s), one node in `tainted_every` tainted NoSchedule; a copy of
`copy_pod()` (class `high`, 1 CPU, 1Gi) fits on the free CPU of an untainted node, and on the
room one low pod frees when preempted.
"""
from __future__ import annotations

from typing import Any

T0 = "2026-03-01T10:00:00Z"


def _node(i: int, tainted: bool) -> dict[str, Any]:
    name = f"node-{i:04d}"
    spec: dict[str, Any] = {}
    if tainted:
        spec["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    alloc = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": T0,
                         "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
            "spec": spec, "status": {"capacity": dict(alloc), "allocatable": alloc}}


def _pod(name: str, node: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "creationTimestamp": T0,
                         "labels": {"app": name.rsplit("-", 1)[0]}},
            "spec": {"nodeName": node, "priorityClassName": "low", "priority": 10,
                     "preemptionPolicy": "PreemptLowerPriority", "terminationGracePeriodSeconds": 30,
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running", "startTime": T0}}


def snapshot(nodes: int = 1000, low_per_node: int = 3, tainted_every: int = 50, free_every: int = 0) -> list[dict[str, Any]]:
    """`free_every` > 0: only every free_every-th node has room for a copy (one low pod fewer)."""
    objs: list[dict[str, Any]] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
    ]
    for i in range(nodes):
        objs.append(_node(i, tainted_every > 0 and i % tainted_every == tainted_every - 1))
    for i in range(nodes):
        n_low = low_per_node - 1 if free_every and i % free_every == 0 else low_per_node
        for j in range(n_low):
            ns = ("batch", "reports")[j % 2]
            objs.append(_pod(f"low-{i:04d}-{j}", f"node-{i:04d}", ns))
    return objs


def copy_pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "api", "namespace": "shop", "labels": {"app": "api"}},
            "spec": {"priorityClassName": "high",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}
