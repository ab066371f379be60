"""The ranges of kube-batch's actions whose order decides an outcome, each on a small input built
for it: the share of runs in which the first-inserted entry comes first is what the Go runtime's
ranges give (two rotations compose: Snapshot/Clone ranges the cache's map into the session's, the
action ranges that), not what one rotation, or none, would."""
from __future__ import annotations

from typing import Any

import kubectl_preempt

SEEDS = 2000
# P(the first of two entries comes first) after two independent ranges of a 2-entry small map:
# each rotates by one slot with chance 1/8 (a start on slot 1 of 8), and the two cancel out
TWO_RANGES = (7 / 8) ** 2 + (1 / 8) ** 2  # 0.78; one range alone: 0.875; slot order: 1.0
TOLERANCE = 0.04  # 4 standard deviations over 2,000 runs


def node(name: str, cpu: str, pods: str) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": pods}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": alloc, "capacity": alloc}}


def queue() -> dict[str, Any]:
    return {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "Queue",
            "metadata": {"name": "default"}, "spec": {"weight": 1}}


def group(name: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ns"}, "spec": {"minMember": min_member, "queue": "default"}}


def pod(name: str, grp: str, cpu: str | None = None, node_name: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "c"}
    if cpu:
        c["resources"] = {"requests": {"cpu": cpu}}
    spec: dict[str, Any] = {"schedulerName": "kube-batch", "containers": [c]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": name,
                         "creationTimestamp": "2026-01-01T00:00:00Z",
                         "annotations": {"scheduling.k8s.io/group-name": grp}},
            "spec": spec, "status": {"phase": "Running" if node_name else "Pending"}}


def test_backfill_ranges_a_jobs_pending_tasks() -> None:
    # backfill.go: `for _, task := range job.TaskStatusIndex[api.Pending]`, the first task takes
    # the node's one free pod slot
    objects = [node("n0", "4", "1"), queue(), group("j", 1), pod("t0", "j"), pod("t1", "j")]
    conf = 'actions: "backfill"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n'
    bound = [kubectl_preempt.batch_session(objects, conf, seed=s)["binds"] for s in range(SEEDS)]
    assert all(len(b) == 1 for b in bound)
    share = sum("ns/t0" in b for b in bound) / SEEDS
    assert abs(share - TWO_RANGES) < TOLERANCE, share


def test_preempt_ranges_a_nodes_tasks_and_drf_takes_the_first() -> None:
    # preempt.go: `for _, task := range node.Tasks` makes the preemptees; drf's preemptableFn
    # takes each job's share down task by task, so only the first of the victim job's two tasks
    # leaves its share at or above the preemptor's
    objects = [node("n0", "2", "10"), queue(), group("v", 1), group("p", 1),
               pod("v0", "v", "1", "n0"), pod("v1", "v", "1", "n0"), pod("p0", "p", "1")]
    conf = 'actions: "preempt"\ntiers:\n- plugins:\n  - name: drf\n'
    evicted = [kubectl_preempt.batch_session(objects, conf, seed=s)["evicts"] for s in range(SEEDS)]
    assert all(len(e) == 1 for e in evicted)
    share = sum(e == ["ns/v0"] for e in evicted) / SEEDS
    assert abs(share - TWO_RANGES) < TOLERANCE, share
