"""Explain one preemption in a synthetic 5,000-node, 150,000-pod cluster.

Builds the snapshot (30 pods per node, mixed priorities, PDBs, taints, node and pod affinities,
spread constraints), writes it as JSON to a temporary file, then measures what a user waits for:
load (read + decode + index) and decision (one explain of a high-priority pod that must preempt).

usage: python benchmarks/bench_explain.py [--nodes 5000] [--pods-per-node 30] [--profile]
last line: load_s=<float> decision_s=<float> peak_mib=<int> load_cpu_s=<float> decision_cpu_s=<float>
(CPU seconds beside the wall-clock ones: the machine may be shared; the load's count those of the
child that answers a question about the document on the other core, io/beside.py); on stderr before
it, the load's CPU seconds split into its three steps (read, cluster, snapshot)
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import orjson  # noqa: E402

ZONES = ["zone-a", "zone-b", "zone-c"]
CLASSES = [("preemptible", -10), ("best-effort-batch", 0), ("batch", 100), ("standard", 1000), ("serving", 10000)]


def build(nodes: int, per_node: int, seed: int = 1) -> list[dict]:
    rnd = random.Random(seed)
    objs: list[dict] = []
    for name, value in CLASSES + [("critical", 1_000_000)]:
        objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                     "value": value})
    for ns in ("default", "batch", "serving"):
        objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"team": ns}}})
    for i in range(nodes):
        name = f"node-{i:05d}"
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                  "topology.kubernetes.io/zone": ZONES[i % 3], "topology.kubernetes.io/region": "region-1",
                  "pool": "gpu" if i % 50 == 0 else "general"}
        spec: dict = {}
        if i % 50 == 0:
            spec["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": f"n-{i}", "labels": labels},
                     "spec": spec,
                     "status": {"allocatable": {"cpu": "24", "memory": "128Gi", "pods": "110", "ephemeral-storage": "200Gi"},
                                "capacity": {"cpu": "24", "memory": "128Gi", "pods": "110"},
                                "images": [{"names": [f"registry.example/app:{i % 7}"], "sizeBytes": 300_000_000}]}})
    apps = ["web", "api", "etl", "train", "cache", "report"]
    k = 0
    for i in range(nodes):
        node = f"node-{i:05d}"
        for j in range(per_node):
            cls, prio = CLASSES[rnd.randrange(len(CLASSES))]
            app = apps[rnd.randrange(len(apps))]
            ns = ("batch", "serving", "default")[k % 3]
            spec = {"containers": [{"name": "main", "image": f"registry.example/{app}:1",
                                    "resources": {"requests": {"cpu": rnd.choice(["500m", "1", "750m"]),
                                                               "memory": rnd.choice(["1Gi", "2Gi", "512Mi"])}}}],
                    "priority": prio, "priorityClassName": cls, "schedulerName": "default-scheduler",
                    "nodeName": node, "terminationGracePeriodSeconds": 30}
            if k % 40 == 0:
                spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
            if k % 25 == 0:
                spec["topologySpreadConstraints"] = [{"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
                                                      "whenUnsatisfiable": "ScheduleAnyway",
                                                      "labelSelector": {"matchLabels": {"app": app}}}]
            objs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"{app}-{k}", "namespace": ns, "uid": f"p-{k}",
                                      "labels": {"app": app, "shard": str(k % 10)},
                                      "creationTimestamp": "2026-01-01T00:00:00Z"},
                         "spec": spec,
                         "status": {"phase": "Running", "startTime": f"2026-01-01T{(k // 3600) % 24:02d}:{(k // 60) % 60:02d}:{k % 60:02d}Z"}})
            k += 1
    for app in apps:
        for ns in ("batch", "serving", "default"):
            objs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                         "metadata": {"name": f"{app}-pdb", "namespace": ns},
                         "spec": {"selector": {"matchLabels": {"app": app, "shard": "3"}}},
                         "status": {"disruptionsAllowed": 2}})
    objs.append({"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "incoming", "namespace": "serving", "uid": "incoming",
                              "labels": {"app": "checkout"}, "creationTimestamp": "2026-01-02T00:00:00Z"},
                 "spec": {"containers": [{"name": "main", "image": "registry.example/checkout:1",
                                          "resources": {"requests": {"cpu": "8", "memory": "16Gi"}}}],
                          "priority": 1_000_000, "priorityClassName": "critical",
                          "schedulerName": "default-scheduler",
                          "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                              "nodeSelectorTerms": [{"matchExpressions": [
                                  {"key": "pool", "operator": "In", "values": ["general"]}]}]}},
                              "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                                  {"labelSelector": {"matchLabels": {"app": "checkout"}},
                                   "topologyKey": "kubernetes.io/hostname"}]}},
                          "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                         "whenUnsatisfiable": "DoNotSchedule",
                                                         "labelSelector": {"matchLabels": {"app": "checkout"}}}]},
                 "status": {"phase": "Pending"}})
    return objs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods-per-node", type=int, default=30)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    objs = build(a.nodes, a.pods_per_node)
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
        f.write(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
        path = f.name
    del objs
    try:
        from kubectl_preempt.api import explain
        from kubectl_preempt.io.snapshot import load_objects
        from kubectl_preempt.framework.snapshot import Snapshot
        from kubectl_preempt.model.cluster import Cluster

        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        def children_cpu() -> float:
            r = resource.getrusage(resource.RUSAGE_CHILDREN)
            return r.ru_utime + r.ru_stime

        t0, c0, k0 = time.perf_counter(), time.process_time(), children_cpu()
        # read as `kubectl preempt explain --snapshot` reads it (cli/explain.py)
        objects = load_objects(path, lean=True)
        c_read = time.process_time()
        cluster = Cluster.from_objects(objects)
        c_cluster = time.process_time()
        del objects
        snap = Snapshot.build(cluster)  # indexing (NodeInfos, aggregates) is part of loading
        load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0
        beside_cpu = children_cpu() - k0
        # the load's three steps, in CPU seconds (the decode and the pods' views; the cluster;
        # the snapshot's NodeInfos)
        print(f"load split: read_cpu_s={c_read - c0:.3f} (and {beside_cpu:.3f} beside) "
              f"cluster_cpu_s={c_cluster - c_read:.3f} snapshot_cpu_s={c0 + load_cpu - c_cluster:.3f}", file=sys.stderr)
        load_cpu += beside_cpu
        prof = None
        if a.profile:
            import cProfile
            prof = cProfile.Profile()
            prof.enable()
        t1, c1 = time.perf_counter(), time.process_time()
        doc = explain(cluster, "serving/incoming", snapshot=snap)
        decision_s, decision_cpu = time.perf_counter() - t1, time.process_time() - c1
        if prof is not None:
            prof.disable()
            import pstats
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"nodes={a.nodes} pods={a.nodes * a.pods_per_node} outcome={doc['outcome']} "
              f"node={doc.get('nominatedNode') or doc.get('node')} victims={len(doc.get('victims') or [])} "
              f"(rss before load {base_rss // 1024} MiB)", file=sys.stderr)
        print(f"load_s={load_s:.3f} decision_s={decision_s:.3f} peak_mib={peak_mib} "
              f"load_cpu_s={load_cpu:.3f} decision_cpu_s={decision_cpu:.3f}")
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
