"""Replay throughput on four workloads; the last four lines are machine-readable, one per workload:

    workload=<name> decisions_per_s=<float> events_per_s=<float> peak_mib=<int> [runs_per_s=<float>] seconds=<float> cpu_s=<float>

(cpu_s: the CPU seconds of the measured stretch, beside its wall-clock seconds: the machine may be shared)

1. preemption_async: the shape of kube-scheduler's scheduler_perf PreemptionAsync/5000Nodes
   (test/integration/scheduler_perf/default_preemption/performance-config.yaml): 5,000 nodes
   (4 CPU, 32Gi), 20,000 low-priority pods (900m, 500Mi, grace 0) four to a node, high-priority
   preemptors (priority 10, 3 CPU) churned in every 200 ms, and 5,000 measured pods (100m) that
   always fit. Its CI floor is 570 pods/s. `--preemptors N` replaces the churn with N
   preemptors created at once after the low-priority pods (the issue's reading of the shape).
2. mixed_1000: a 1,000-node trace of 50,000 events in a steady state (about as many pods leave
   as arrive, the cluster about 70% full): pods of three classes created and deleted, jobs
   completing, status updates, nodes cordoned and uncordoned, nodes added.
   mixed_5000: the same steady state on 5,000 nodes (40,000 pods at the start, 50,000 events):
   the size of cluster the explain benchmark and kube-scheduler's own scheduler_perf use.

3. realcluster: each trace of tests/corpus/realcluster (a real control plane, 16 nodes, about 400
   events each) replayed with `--runs 20` (`--jobs`, default 1: one core's throughput), the
   distributions built; runs_per_s counts runs of any trace.

Each workload runs in its own process so that its peak memory (ru_maxrss) is its own. The clock
starts after the trace is built and stops when the replay returns (the report built).

    python benchmarks/bench_replay.py [--workload NAME] [--scale F] [--profile FILE] [--jobs N]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kubectl_preempt.api import replay  # noqa: E402 - the API layer applies the one GC policy

T0 = 1_772_359_200.0  # 2026-03-01T10:00:00Z
WORKLOADS = ("preemption_async", "mixed_1000", "mixed_5000", "realcluster")
# the mixed workloads: (nodes, events) at scale 1
MIXED = {"mixed_1000": (1000, 50000), "mixed_5000": (5000, 50000)}
REALCLUSTER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "corpus",
                           "realcluster")
REALCLUSTER_RUNS = 20


def _ts(t: float) -> str:
    from kubectl_preempt.io.trace import format_rfc3339
    return format_rfc3339(t)


def node(name: str, cpu: str = "4", memory: str = "32Gi", pods: str = "110", labels: dict | None = None,
         taints: list | None = None) -> dict[str, Any]:
    lb = {"kubernetes.io/hostname": name}
    lb.update(labels or {})
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    alloc = {"cpu": cpu, "memory": memory, "pods": pods}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": f"uid-{name}", "labels": lb},
            "spec": spec, "status": {"capacity": dict(alloc), "allocatable": alloc,
                                     "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name: str, cpu: str, memory: str, *, ns: str = "default", priority: int = 0, pc: str = "",
        node_name: str = "", grace: int | None = None, labels: dict | None = None, created: float = T0,
        tolerations: list | None = None, owner: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                            "ports": [{"containerPort": 80}],
                                            "resources": {"requests": {"cpu": cpu, "memory": memory},
                                                          "limits": {"cpu": cpu, "memory": memory}}}],
                            "schedulerName": "default-scheduler", "priority": priority}
    if pc:
        spec["priorityClassName"] = pc
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    if tolerations:
        spec["tolerations"] = tolerations
    status: dict[str, Any] = {"phase": "Pending"}
    if node_name:
        spec["nodeName"] = node_name
        status = {"phase": "Running", "startTime": _ts(created)}
    md: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "creationTimestamp": _ts(created),
                          "labels": labels or {}}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "uid": f"uid-rs-{owner}",
                                  "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def ev(t: float, typ: str, obj: dict) -> dict[str, Any]:
    return {"ts": t, "time": _ts(t), "type": typ, "object": obj}


# --- workload 1 ---------------------------------------------------------------------------------------

def preemption_async(scale: float = 1.0, preemptors: int | None = None) -> tuple[dict, int]:
    n_nodes = int(5000 * scale)
    n_low = 4 * n_nodes
    n_measured = int(5000 * scale)
    events = []
    for i in range(n_nodes):
        events.append(ev(T0, "ADDED", node(f"node-{i:05d}")))
    # the low-priority pods as the init phase leaves them: four to a node, 3.6 of 4 CPUs used
    for i in range(n_low):
        events.append(ev(T0, "ADDED", pod(f"low-{i:06d}", "900m", "500Mi", grace=0, node_name=f"node-{i // 4:05d}")))
    t = T0 + 1
    if preemptors is not None:
        for i in range(preemptors):
            events.append(ev(t, "ADDED", pod(f"high-{i:05d}", "3000m", "500Mi", priority=10, created=t)))
    else:
        # measured pods arrive at the CI floor's rate; the churn adds a preemptor every 200 ms
        rate = 570.0
        span = n_measured / rate
        k = 0
        for i in range(n_measured):
            tm = t + i / rate
            while T0 + 1 + k * 0.2 <= tm:
                tc = T0 + 1 + k * 0.2
                events.append(ev(tc, "ADDED", pod(f"high-{k:05d}", "3000m", "500Mi", priority=10, created=tc)))
                k += 1
            events.append(ev(tm, "ADDED", pod(f"measured-{i:05d}", "100m", "500Mi", created=tm)))
        t = t + span
    events.append(ev(t + 60, "BOOKMARK", {}))
    return {"header": {"startTime": _ts(T0)}, "events": events}, len(events)


# --- workload 2 ---------------------------------------------------------------------------------------

CLASSES = [("system", 100000), ("serving", 10000), ("standard", 1000), ("batch", 100)]


def _nth(d: dict, k: int) -> Any:
    """list(d)[k] without copying 40,000 keys (mixed_5000) for each event."""
    return next(itertools.islice(d, k, None))


def mixed(n_nodes: int = 1000, n_events: int = 50000, seed: int = 7) -> tuple[dict, int]:
    rng = random.Random(seed)
    zones = ["a", "b", "c"]
    events = []
    for name, value in CLASSES:
        events.append(ev(T0, "ADDED", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                       "metadata": {"name": name}, "value": value}))
    for i in range(n_nodes):
        events.append(ev(T0, "ADDED", node(f"node-{i:04d}", cpu="16", memory="64Gi",
                                           labels={"topology.kubernetes.io/zone": f"zone-{zones[i % 3]}"})))
    live: dict[str, dict] = {}
    # a cluster about 70% full at the start
    n0 = int(n_nodes * 8)
    sizes = [("250m", "512Mi"), ("500m", "1Gi"), ("1", "2Gi"), ("2", "4Gi")]
    for i in range(n0):
        cls, val = CLASSES[1 + i % 3]
        cpu, mem = sizes[i % 4]
        p = pod(f"init-{i:06d}", cpu, mem, ns=cls, priority=val, pc=cls, node_name=f"node-{i % n_nodes:04d}",
                labels={"app": f"app-{i % 50}"}, grace=30 if cls == "serving" else 10)
        live[p["metadata"]["name"]] = p
        events.append(ev(T0, "ADDED", p))
    t = T0
    count = 0
    seq = 0
    cordoned: set[str] = set()
    while count < n_events:
        t += rng.expovariate(20.0)  # about 20 events a second
        r = rng.random()
        if r < 0.36 or not live:
            cls, val = CLASSES[rng.choice((1, 1, 2, 3, 3, 3))]
            cpu, mem = sizes[rng.randrange(4)]
            if cls == "batch" and rng.random() < 0.1:
                cpu, mem = "8", "16Gi"
            seq += 1
            p = pod(f"p-{seq:06d}", cpu, mem, ns=cls, priority=val, pc=cls, created=t,
                    labels={"app": f"app-{seq % 50}"}, grace=30 if cls == "serving" else 10)
            live[p["metadata"]["name"]] = p
            events.append(ev(t, "ADDED", p))
        elif r < 0.58:
            name = rng.choice(list(live)) if len(live) < 2000 else next(iter(live))
            p = live.pop(name)
            events.append(ev(t, "DELETED", p))
        elif r < 0.72:
            # a job completes
            name = rng.choice(list(live)) if len(live) < 2000 else _nth(live, rng.randrange(min(len(live), 500)))
            p = live.pop(name)
            done = json.loads(json.dumps(p))
            done["status"]["phase"] = "Succeeded"
            events.append(ev(t, "MODIFIED", done))
        elif r < 0.98:
            # a status update the scheduler does not care about (a probe, a condition)
            name = _nth(live, rng.randrange(min(len(live), 500)))
            p = json.loads(json.dumps(live[name]))
            p["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": _ts(t)}]
            live[name] = p
            events.append(ev(t, "MODIFIED", p))
        elif r < 0.99:
            i = rng.randrange(n_nodes)
            nm = f"node-{i:04d}"
            n = node(nm, cpu="16", memory="64Gi", labels={"topology.kubernetes.io/zone": f"zone-{zones[i % 3]}"})
            if nm in cordoned:
                cordoned.discard(nm)
            else:
                n["spec"]["unschedulable"] = True
                cordoned.add(nm)
            events.append(ev(t, "MODIFIED", n))
        else:
            i = n_nodes + rng.randrange(100)
            events.append(ev(t, "ADDED", node(f"node-{i:04d}", cpu="16", memory="64Gi",
                                              labels={"topology.kubernetes.io/zone": f"zone-{zones[i % 3]}"})))
        count += 1
    events.append(ev(t + 60, "BOOKMARK", {}))
    return {"header": {"startTime": _ts(T0)}, "events": events}, count


# --- running ------------------------------------------------------------------------------------------

def realcluster(scale: float, jobs: int) -> dict[str, Any]:
    """Every real-cluster trace replayed REALCLUSTER_RUNS times (fewer with --scale)."""
    import glob

    from kubectl_preempt.io.trace import read_trace

    paths = sorted(glob.glob(os.path.join(REALCLUSTER, "*.jsonl.gz")))
    if not paths:
        raise SystemExit(f"no traces in {REALCLUSTER}")
    import orjson

    from kubectl_preempt.replay.api import run_spec
    from kubectl_preempt.replay.distribution import distribution
    from kubectl_preempt.replay.runs import _run_task, fan_out

    traces = [read_trace(p) for p in paths]
    runs = max(2, round(REALCLUSTER_RUNS * scale))
    start, cpu0 = time.perf_counter(), _cpu()
    preemptions = decisions = 0
    for tr in traces:
        # what replay(tr, runs=runs) does, keeping every run's decision count
        facts = [orjson.loads(b) for b in fan_out(_run_task, run_spec(tr), runs, jobs=jobs)]
        preemptions += distribution(facts)["preemptions"]["p50"]
        decisions += sum(f["decisions"] for f in facts)
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu0
    n_events = sum(len(tr.events) for tr in traces) * runs
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"workload": "realcluster", "seconds": elapsed, "cpu_s": cpu, "decisions": decisions, "events": n_events,
            "runs": runs * len(traces), "traces": len(traces), "scheduled": 0, "preemptions": preemptions,
            "victims": 0, "unschedulable": 0, "never": 0, "peak_mib": peak_kib // 1024}


def run_one(name: str, scale: float, profile: str | None, preemptors: int | None, jobs: int = 1,
            kubernetes_version: str | None = None) -> dict[str, Any]:
    if name == "realcluster":
        return realcluster(scale, jobs)
    if name == "preemption_async":
        trace, n_events = preemption_async(scale, preemptors)
    else:
        nodes, events = MIXED[name]
        trace, n_events = mixed(int(nodes * scale), int(events * scale))
    start, cpu0 = time.perf_counter(), _cpu()
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        report = prof.runcall(replay, trace, kubernetes_version=kubernetes_version)
        elapsed = time.perf_counter() - start
        prof.dump_stats(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
    else:
        report = replay(trace, kubernetes_version=kubernetes_version)
        elapsed = time.perf_counter() - start
    cpu = _cpu() - cpu0
    s = report["summary"]
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"workload": name, "seconds": elapsed, "cpu_s": cpu, "decisions": s["decisions"], "events": n_events,
            "scheduled": s["scheduled"], "preemptions": s["preemptions"], "victims": s["victims"],
            "unschedulable": s["unschedulableAttempts"], "never": s["podsNeverScheduled"],
            "peak_mib": peak_kib // 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", choices=WORKLOADS)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the full size (for a quick look)")
    ap.add_argument("--preemptors", type=int, default=None,
                    help="preemption_async: N preemptors at once instead of the churn")
    ap.add_argument("--profile", metavar="FILE", help="run under cProfile, write the stats to FILE")
    ap.add_argument("--jobs", type=int, default=1, help="realcluster: processes the runs fan out over")
    ap.add_argument("--kubernetes-version", metavar="V", default=None,
                    help="the kube-scheduler release the synthetic workloads imitate (default v1.34.1)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workload:
        r = run_one(args.workload, args.scale, args.profile, args.preemptors, args.jobs, args.kubernetes_version)
        if args.json:
            print(json.dumps(r))
        else:
            _print(r)
        return 0
    results = []
    for name in WORKLOADS:
        cmd = [sys.executable, os.path.abspath(__file__), "--workload", name, "--scale", str(args.scale), "--json"]
        if args.preemptors is not None and name == "preemption_async":
            cmd += ["--preemptors", str(args.preemptors)]
        if args.kubernetes_version:
            cmd += ["--kubernetes-version", args.kubernetes_version]
        if name == "realcluster":
            cmd += ["--jobs", str(args.jobs)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
    for r in results:
        if r["workload"] == "realcluster":
            print(f"# realcluster: {r['runs']} runs of {r['traces']} traces, {r['events']:,} events in "
                  f"{r['seconds']:.1f}s")
            continue
        print(f"# {r['workload']}: {r['decisions']:,} decisions ({r['scheduled']:,} bound, {r['preemptions']:,} "
              f"preemptions, {r['unschedulable']:,} failed attempts), {r['events']:,} events in {r['seconds']:.1f}s")
    for r in results:
        _print(r)
    return 0


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (realcluster's --jobs)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _print(r: dict[str, Any]) -> None:
    extra = f" runs_per_s={r['runs'] / r['seconds']:.2f}" if "runs" in r else ""
    print(f"workload={r['workload']} decisions_per_s={r['decisions'] / r['seconds']:.1f} "
          f"events_per_s={r['events'] / r['seconds']:.1f} peak_mib={r['peak_mib']}{extra} "
          f"seconds={r['seconds']:.2f} cpu_s={r['cpu_s']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
