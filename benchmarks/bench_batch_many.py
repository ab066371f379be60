"""The kube-batch corpus held to its distribution: every case of tests/corpus/conformance/batch/cases
run over K seeds through kubectl_preempt.batch_session and judged by the corpus's compare_many
(every outcome one of kube-batch's; the total variation distance within the case's threshold).

Prints one line per case (verdict, seconds of sessions, the rule's reason) and, last, the cases
that fail and the time of the sessions alone (what the conformance test pays, besides the
thresholds' bootstrap, which compare_many computes once per case and process).

usage: python benchmarks/bench_batch_many.py [--seeds 400] [--first-seed 0] [CASE ...]
last line: sessions_s=<float> sessions_cpu_s=<float> total_cpu_s=<float> cases=<int> failing=<int>
(wall-clock seconds of the sessions; CPU seconds of the sessions, and of everything including the
thresholds: on a machine shared with other work the CPU seconds are what one core would take)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from kubectl_preempt import batch_session  # noqa: E402
from tests.corpus import case_files, case_name, compare_many, load_json  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--seeds", type=int, default=400)
    ap.add_argument("--first-seed", type=int, default=0)
    a = ap.parse_args()

    sessions = 0.0
    sessions_cpu = 0.0
    cpu0 = time.process_time()
    failing = []
    n = 0
    for path in case_files("batch/cases"):
        if a.cases and case_name(path) not in a.cases:
            continue
        case = load_json(path)
        t, c = time.perf_counter(), time.process_time()
        outs = [batch_session(case["objects"], case.get("schedulerConf"), seed=s)
                for s in range(a.first_seed, a.first_seed + a.seeds)]
        dt = time.perf_counter() - t
        sessions += dt
        sessions_cpu += time.process_time() - c
        n += 1
        ok, reason = compare_many(outs, case)
        if not ok:
            failing.append(case_name(path))
        print(f"{case_name(path):18} {'ok  ' if ok else 'FAIL'} {dt:5.2f}s {reason}", flush=True)
    print(f"failing: {' '.join(failing) or 'none'}")
    print(f"sessions_s={sessions:.1f} sessions_cpu_s={sessions_cpu:.1f} "
          f"total_cpu_s={time.process_time() - cpu0:.1f} cases={n} failing={len(failing)}")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
