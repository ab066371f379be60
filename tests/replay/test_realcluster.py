"""Follow mode held to what the real kube-scheduler v1.34.1 did on ../shared/realcluster, by the
shared report tool's own rule (tools/realcluster_report.py follow_agreement).

FLOOR is what follow mode reaches today, trace by trace; the goal is 97% on every trace. The
misses left and their causes are in the note on issue 13: three are equal victims whose order in
the cache comes from the history before the trace, which the replay rebuilds from the initial
pods (replay/cache.py PodOrder.from_history) but which the objects do not pin down to the tens of
milliseconds that decide these (s1 qjmvz and s2lmx, s3 6jfvs)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
REAL = SHARED / "realcluster"
TOOL = SHARED / "tools" / "realcluster_report.py"

FLOOR = {"s1-rollout": 21, "s2-cordon": 15, "s3-burst": 15}


def _tool():
    spec = importlib.util.spec_from_file_location("realcluster_report", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


TRUTHS = sorted(REAL.glob("*.truth.json")) if REAL.is_dir() else []


@pytest.mark.skipif(not TRUTHS or not TOOL.exists(), reason="../shared/realcluster is not beside the project")
@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.split(".")[0])
def test_follow_agrees_with_the_real_schedulers_preemptions(truth_file: Path) -> None:
    truth = json.loads(truth_file.read_text())
    report = replay(read_trace(str(REAL / truth["trace"])), mode="follow")
    agree, misses = _tool().follow_agreement(truth, report)
    assert agree >= FLOOR[truth["scenario"]], "\n".join(misses)
