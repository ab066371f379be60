"""One kube-batch session (reclaim, allocate, backfill, preempt; every plugin) on a synthetic cluster.

1,000 nodes (8 cpu, 32Gi), 1,000 jobs of 10 tasks (1 cpu, 2Gi; minMember 5) in four queues of equal
weight. Half the jobs run (5,000 tasks spread over the nodes): four in five of them in queues q0 and
q1, which are so over their deserved share, the rest in q2 and q3. The other half wait in q2 and q3,
one in three at a higher priority: reclaim takes from q0 and q1 for them, allocate places what fits,
and preempt evicts the lower-priority running jobs of q2 and q3. Measures what a user waits for: building the cache from the objects and the session itself.

usage: python benchmarks/bench_session.py [--scale 1.0] [--profile]
last line: session_s=<float> cpu_s=<float> peak_mib=<int>
(cpu_s: the session's user+sys CPU seconds, steadier than the wall clock on a loaded machine)
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from kubectl_preempt.batch.conf import ALL_ACTIONS_CONF  # noqa: E402

CONF = ALL_ACTIONS_CONF


def build(nodes: int, jobs: int, tasks: int = 10) -> list[dict]:
    objs: list[dict] = []
    for i in range(nodes):
        name = f"node-{i:04d}"
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                     "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                                "conditions": [{"type": "Ready", "status": "True"}]}})
    for q in range(4):
        objs.append({"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "Queue",
                     "metadata": {"name": f"q{q}"}, "spec": {"weight": 1}})
    for name, value in (("low", 10), ("high", 1000)):
        objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                     "value": value})
    slot = 0
    for j in range(jobs):
        running = j < jobs // 2
        queue = f"q{j % 2}" if running and j < jobs * 2 // 5 else f"q{2 + j % 2}"
        prio = ("low", 10) if running or j % 3 else ("high", 1000)
        ns = f"team-{j % 7}"
        objs.append({"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "PodGroup",
                     "metadata": {"name": f"job-{j:04d}", "namespace": ns},
                     "spec": {"minMember": tasks // 2, "queue": queue, "priorityClassName": prio[0]}})
        for t in range(tasks):
            spec: dict = {"schedulerName": "kube-batch", "priority": prio[1], "priorityClassName": prio[0],
                          "containers": [{"name": "main", "image": "registry.example/job:1",
                                          "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}
            status = {"phase": "Pending"}
            if running:
                spec["nodeName"] = f"node-{slot % nodes:04d}"
                slot += 1
                status = {"phase": "Running"}
            objs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"job-{j:04d}-{t}", "namespace": ns, "uid": f"u-{j}-{t}",
                                      "annotations": {"scheduling.k8s.io/group-name": f"job-{j:04d}"},
                                      "creationTimestamp": f"2026-01-01T{j // 60 % 24:02d}:{j % 60:02d}:{t:02d}Z"},
                         "spec": spec, "status": status})
    return objs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the nodes and jobs (e.g. 0.1)")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    from kubectl_preempt import batch_session
    import kubectl_preempt.batch.scheduler  # noqa: F401 - imported before the clock starts

    objs = build(max(1, int(1000 * a.scale)), max(2, int(1000 * a.scale)))
    t0 = time.perf_counter()
    c0 = time.process_time()
    if a.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
    result = batch_session(objs, CONF)
    if a.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
    session_s = time.perf_counter() - t0
    cpu_s = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"binds={len(result['binds'])} evicts={len(result['evicts'])} pipelined={len(result['pipelined'])} "
          f"pending={len(result['podConditions'])}")
    print(f"session_s={session_s:.2f} cpu_s={cpu_s:.2f} peak_mib={peak}")


if __name__ == "__main__":
    main()
