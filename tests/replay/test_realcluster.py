"""Follow mode held to what the real kube-scheduler v1.34.1 did on ../shared/realcluster, by the
shared report tool's own rule (tools/realcluster_report.py follow_agreement).

FLOOR is what follow mode reaches today, trace by trace; the goal is 97% on every trace. Five of
the real preemptions are decided by the order of equal victims (same priority, same start second)
in the scheduler cache's list for their node, which comes from the history before the trace
(replay/cache.py PodOrder.from_history): whether a pod's binding came before or after another
pod's status write. Enumerating every history the objects allow (bindings in the order of the
status writes, each at least the kubelet's 1 s before its own) and replaying each, the real
victims need (times in the second of the creation burst, 14:09:5x in s1, 14:22:5x in s3):
- s1 14:10:12 fwqst node-04, 14:10:32 qjmvz node-09, 14:10:52 s2lmx node-01 (the same pattern):
  the batch pods created in :14 bound before the first filler's status write (in :15), and the
  catalog pod created in :15 bound after it;
- s1 14:10:52 dwcj8 node-16: report-bbpc8 (created :15) bound before filler-c6vfd's status
  write, or else catalog-dtv6k (created :16) bound between etl-qbsqj's and filler-hqqx6's;
- s3 14:23:12 6jfvs node-07: quick-n786l (created :39) bound before steady-tzsm7's status write
  (the last of :39), or after slow-pr84j's and before quick-2j2d6's.
Binding placed a measured 1.02 s before the status write (the kubelet's side) decides the first
three wrongly for qjmvz and s2lmx (by 48 and 155 ms) and for 6jfvs (by 30 ms); placed from the
creation side (the scheduler binds a pod within ms of its creation, in the order of the status
writes; the kubelet writes a burst's statuses with a backlog) they are decided by 310 to 500 ms
for node-04/09/01 and 375 ms for 6jfvs. The miss left is dwcj8: the creation side puts
report-bbpc8's binding 2 ms after filler-c6vfd's status write (55.094 against 55.092 s, the 2nd
pod created in :15 against the 3rd status write of :15), and catalog-dtv6k's 92 ms after
filler-hqqx6's write; nothing in the objects places them closer than tens of ms. Not the cause,
checked at each instant: the PDBs, victims terminating or nominated, start times, pods assumed
but not yet bound."""
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

FLOOR = {"s1-rollout": 22, "s2-cordon": 15, "s3-burst": 16}


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
