"""Distributions held to a real cluster: on ../shared/realcluster's s2-cordon trace (a real
kube-scheduler v1.34.1 with its controllers), the real number of preemptions and of victims of each
workload fall within the replay's p5..p95 over paired runs. The other two traces are measured by
../shared/tools/realcluster_report.py --runs 30 (too long for every test run)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realcluster"
SCENARIO = "s2-cordon"


@pytest.mark.skipif(not (REAL / f"{SCENARIO}.truth.json").exists() and not os.environ.get("CI"),
                    reason="../shared/realcluster is not beside this clone")
def test_the_real_counts_fall_within_the_replay_p5_to_p95() -> None:
    truth = json.loads((REAL / f"{SCENARIO}.truth.json").read_text())
    dist = replay(read_trace(str(REAL / truth["trace"])), runs=12, jobs=2)["distribution"]
    checks = [("preemptions", len(truth["preemptions"]), dist["preemptions"])]
    checks += [(w, n, dist["victimsByWorkload"].get(w)) for w, n in truth["victimsByWorkload"].items()]
    outside = [f"{what}: real {real}, replay {st}" for what, real, st in checks
               if st is None or not st["p5"] <= real <= st["p95"]]
    assert not outside, "; ".join(outside)
