"""`plan --max` at scale: copies of a pod, one after another, through the replay's engine.

The cluster is tests/plan/synthetic.py's: 1,000 nodes of 4 CPU, each running three low-priority
pods of 1 CPU (one node in fifty tainted); the copies ask for 1 CPU at a higher priority. The
first copies take the free CPU (980 of them), the rest each preempt one low pod and wait out its
30 s grace period (virtual time) before the next copy comes, so 2,000 copies are about half
placements on free room and half preemptions (each a dry run over 100 candidate nodes, as
kube-scheduler's numCandidates gives for 1,000 nodes).

The clock starts after the snapshot is built and stops when plan_max returns. The last line is
machine-readable:

    workload=plan_max nodes=<int> low_per_node=<int> copies=<int> seconds=<float> without=<int> with=<int> preemptions=<int> decisions=<int> cpu_s=<float>

(cpu_s: the CPU seconds of the same stretch, beside its wall-clock seconds: the machine may be shared)

    python benchmarks/bench_plan.py [--nodes N] [--copies N] [--profile FILE]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kubectl_preempt.api import plan_max  # noqa: E402 - the API layer applies the one GC policy
from tests.plan.synthetic import copy_pod, snapshot  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--copies", type=int, default=2000)
    ap.add_argument("--low-per-node", type=int, default=3,
                    help="low pods of 1 CPU on each 4-CPU node (3: 980 copies on free room, then preemptions; "
                         "2: 1,960 on free room)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the search to FILE")
    args = ap.parse_args()
    objects = snapshot(args.nodes, low_per_node=args.low_per_node)
    t0, c0 = time.perf_counter(), time.process_time()
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        report = prof.runcall(plan_max, objects, ("synthetic", "", copy_pod()), max_count=args.copies)
        prof.dump_stats(args.profile)
    else:
        report = plan_max(objects, ("synthetic", "", copy_pod()), max_count=args.copies)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{report['withoutPreemption']['count']} copies on free room, {report['withPreemption']['count']} "
          f"counting preemption ({report['preemptions']} preemptions); stopped: "
          f"{report['withPreemption']['stoppedAt']['message']}", file=sys.stderr)
    print(f"workload=plan_max nodes={args.nodes} low_per_node={args.low_per_node} copies={report['copiesTried']} seconds={seconds:.2f} "
          f"without={report['withoutPreemption']['count']} with={report['withPreemption']['count']} "
          f"preemptions={report['preemptions']} decisions={report['decisions']} cpu_s={cpu:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
