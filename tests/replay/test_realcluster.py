"""Follow mode held to what the real kube-scheduler v1.34.1 did on ../shared/realcluster, by the
shared report tool's own rule (tools/realcluster_report.py follow_agreement).

FLOOR is what follow mode reaches today, trace by trace; the goal is 97% on every trace. The three
misses left are each decided by the order of two equal victims (same priority, same start second)
in the scheduler cache's list for the node, and that order comes from the history before the
trace: each pod was added at its binding, moved at the binding's confirmation and moved again by
the kubelet's status write about 1 s later (replay/cache.py PodOrder.from_history). What decides is
whether one pod's binding came before or after another pod's status write, a margin of 30 to
154 ms, while the objects give the status write's second and resourceVersion only, and the
kubelet's delay itself scatters over 60 to 450 ms from pod to pod in these traces:
- s1 14:10:32 qjmvz, node-09: the real victim etl-qvbl7 needs report-dbs5m before it in the cache,
  i.e. etl's binding before filler-qw8l2's status write (status writes 1.071 s apart by
  resourceVersion, the delay measured 1.023 s);
- s1 14:10:52 s2lmx, node-01: the real victim report-x286c needs etl-2nz9w before it, i.e.
  report's binding before filler-dw2tk's status write (1.177 s apart, delay 1.023 s);
- s3 14:23:12 6jfvs, node-07: the real victim slow-pr84j needs quick-2j2d6 before it, i.e.
  quick-n786l's binding after slow's status write (1.008 s apart, delay 1.038 s).
The first two need a longer delay than measured, the third a shorter one: no one delay (nor the
binding's confirmation, at the 14 ms a binding takes in these traces) gives all three. Not the
cause, checked at each instant: the PDBs (report disruptionsAllowed 2, steady 3: no victim
violates), victims terminating or nominated (none), start times (equal to the second, as
recorded), pods assumed but not yet bound (none on these nodes)."""
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
