"""Small clusters built for `plan`'s tests."""
from __future__ import annotations

from typing import Any

T0 = "2026-03-01T10:00:00Z"


def node(name: str, cpu: str = "4", zone: str = "zone-1", taints: list | None = None) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": T0,
                         "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
            "spec": {"taints": taints} if taints else {}, "status": {"capacity": dict(alloc), "allocatable": alloc}}


def pclass(name: str, value: int, *, default: bool = False, policy: str | None = None) -> dict[str, Any]:
    pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                          "value": value, "globalDefault": default}
    if policy:
        pc["preemptionPolicy"] = policy
    return pc


def pod(name: str, ns: str, cpu: str, *, node: str = "", cls: str = "", prio: int | None = None,
        owner: tuple[str, str] | None = None, labels: dict | None = None) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "creationTimestamp": T0,
                          "labels": labels or {"app": name.rsplit("-", 1)[0]}}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                  "uid": f"uid-{owner[1]}", "controller": True}]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
                            "terminationGracePeriodSeconds": 30}
    if cls:
        spec["priorityClassName"] = cls
    if prio is not None:
        spec["priority"] = prio
        spec["preemptionPolicy"] = "PreemptLowerPriority"
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec,
            "status": {"phase": "Running" if node else "Pending", **({"startTime": T0} if node else {})}}


def replica_set(name: str, ns: str, replicas: int, cpu: str, cls: str, owner: str | None = None) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{name}", "creationTimestamp": T0}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": owner,
                                  "uid": f"uid-{owner}", "controller": True}]
        md["annotations"] = {"deployment.kubernetes.io/revision": "1"}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": md,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"priorityClassName": cls, "terminationGracePeriodSeconds": 30,
                                           "containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}}}}


def busy_cluster() -> list[dict[str, Any]]:
    """4 nodes of 4 CPU; a low-priority ReplicaSet batch/etl (8 pods of 1.5 CPU, two a node) that
    its controller re-creates when evicted; a pending medium pod; room for little else."""
    objs = [pclass("low", 10), pclass("medium", 100), pclass("high", 1000), pclass("default-prio", 5, default=True)]
    objs += [node(f"node-{i}", zone=f"zone-{i % 2}") for i in range(4)]
    objs.append(replica_set("etl", "batch", 8, "1500m", "low"))
    for i in range(8):
        objs.append(pod(f"etl-{i}", "batch", "1500m", node=f"node-{i // 2}", cls="low", prio=10,
                        owner=("ReplicaSet", "etl"), labels={"app": "etl"}))
    objs.append(pod("report", "batch", "2", cls="medium", prio=100))
    return objs


def deployment(name: str, ns: str, replicas: int, cpu: str, cls: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    if cls is not None:
        spec["priorityClassName"] = cls
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}
