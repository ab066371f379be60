"""Follow mode held to what the real kube-scheduler v1.34.1 did on tests/corpus/realcluster, by the
shared report tool's own rule (tests/corpus/tools/realcluster_report.py follow_agreement).

FLOOR is what follow mode reaches today, trace by trace; the goal is 97% on every trace. The three
misses left, and two agreeing preemptions, are decided by the order of equal victims (same
priority, same start second) in the scheduler cache's list for the node, which comes from the
history before the trace (scheduler/backend/cache.py PodOrder.from_history): whether a pod's binding came
before or after another pod's status write. Every history the objects allow (bindings in the
order of the status writes, each at least 1 s before its own) was replayed; the real victims need
(s1's burst created pods in 14:09:14-16, s3's in 14:22:38-39):
- s1 14:10:12 fwqst node-04 (agrees), 14:10:32 qjmvz node-09, 14:10:52 s2lmx node-01 (misses),
  one pattern: the batch pods created in :14 bound before the node's first filler status write
  (in :15), the catalog pod created in :15 bound after it;
- s1 14:10:52 dwcj8 node-16 (agrees): catalog-dtv6k (created :16) bound before report-bbpc8's
  status write, except when etl-qbsqj and filler-hqqx6 were bound before filler-c6vfd's status
  write and bbpc8 (created :15) after it: then dtv6k bound between qbsqj's and hqqx6's writes;
- s3 14:23:12 6jfvs node-07 (miss): quick-n786l (created :39) bound before steady-tzsm7's status
  write (the last of :39), or after slow-pr84j's and before quick-2j2d6's.
Placing each binding the measured 1.02 s before its status write (today's rule) misses qjmvz,
s2lmx and 6jfvs by 48, 155 and 30 ms. Placing it from the scheduler's side (within ms of the
pod's creation, the pods created in one second spread through it in status-write order, never
later than 1.02 s before the write: a kubelet with a backlog writes later than its delay)
decides all three (s1 by 310 to 670 ms, 6jfvs by 375 ms) and keeps fwqst, but puts bbpc8's
binding 2 ms after c6vfd's write and dtv6k's 92 ms after hqqx6's, losing dwcj8 (53/54); a Monte
Carlo of that model (creation uniform in its second, binding 1-60 ms later, status writes uniform
in theirs, each at least 1 s after its binding) gives the real victims with probability 1.0, 1.0,
0.997, 0.70 and 0.994 on node-09, -01, -04, -16 and -07. It costs issue 14: `--runs 30` on s3 then
gives steady 4/5/6 victims (p5/p50/p95) against the real 7 (today 7/7/8), as slow pods become the
victims on more nodes of the burst. So the objects do not decide these histories. Not the cause,
checked at each instant: the PDBs (report disruptionsAllowed 2, steady 3: no victim violates),
victims terminating or nominated (none), start times (equal to the second, as recorded), pods
assumed but not yet bound (none on these nodes)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay
from tests.corpus import follow_agreement, load_json, trace_of, truth_files

FLOOR = {"s1-rollout": 21, "s2-cordon": 15, "s3-burst": 15}
TRUTHS = truth_files()


@pytest.mark.parametrize("truth_file", TRUTHS, ids=lambda p: p.name.split(".")[0])
def test_follow_agrees_with_the_real_schedulers_preemptions(truth_file: Path) -> None:
    truth = load_json(truth_file)
    report = replay(read_trace(str(trace_of(truth_file))), mode="follow")
    agree, misses = follow_agreement(truth, report)
    assert agree >= FLOOR[truth["scenario"]], "\n".join(misses)
