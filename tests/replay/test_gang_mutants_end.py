"""Every replay of a gang trace ends: the real v1.36 gang traces (tests/corpus/realcluster/v136)
with their values changed (requests, priorities, minCount, node sizes, some updates and deletions
left out), each replayed in simulate mode under the gates it was recorded with.

A replay's virtual clock moves only by what the cluster does; a scheduler whose cycles change
nothing would cycle at one instant for ever (replay/podgroups.py Spin sets such groups aside).
The listener fails a replay that decides the same pods again and again at one virtual instant,
long before a test run would notice a hang. Mutants are drawn from a seed per case: the same
inputs on every run."""
from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from typing import Any

import pytest

from kubectl_preempt.io.trace import parse_rfc3339
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.corpus import corpus_path

TRACES = {
    "s9-gang-nowap": {"GenericWorkload": True, "GangScheduling": True},
    "s9-gang-wap-bare": {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True},
}
# decisions at one virtual instant: a few per group at most in a replay that moves on (a cycle's
# members each fail once); thousands when groups let each other back for ever
MOST_AT_ONE_INSTANT = 500
# 24 draws, and three that cycled at one instant for ever before Spin compared the nominations held
# rather than the nominator's version (found by replaying further draws of s9-gang-nowap on the old code)
SEEDS = [*range(24), 140, 286, 359]


def _read(name: str) -> list[dict[str, Any]]:
    with gzip.open(corpus_path("realcluster") / "v136" / f"{name}.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]


def _millicpu(v: str) -> int:
    return int(v[:-1]) if v.endswith("m") else int(float(v) * 1000)


def mutate(lines: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The trace with its values changed, one draw per pod, PodGroup and node size."""
    events = json.loads(json.dumps(lines[1:]))
    pods = sorted({e["object"]["metadata"]["name"] for e in events
                   if (e.get("object") or {}).get("kind") == "Pod" and e.get("type") != "BOOKMARK"})
    factor = {p: rng.choice([0.5, 1, 1, 1, 1.5, 2, 3]) for p in pods}
    priority = {p: rng.choice([None, None, None, 0, 50, 1000, 10000, 100000]) for p in pods}
    min_count = rng.choice([None, 1, 2, 3, 5, 8])
    node_cpu = rng.choice([None, "2", "3", "6", "8"])
    drop = rng.random() * 0.2
    kept = []
    for i, e in enumerate(events):
        o = e.get("object") or {}
        kind = o.get("kind")
        if kind == "Pod" and e.get("type") != "BOOKMARK":
            name = o["metadata"]["name"]
            for c in (o.get("spec") or {}).get("containers") or ():
                requests = (c.get("resources") or {}).get("requests") or {}
                if "cpu" in requests and factor[name] != 1:
                    requests["cpu"] = f"{int(_millicpu(requests['cpu']) * factor[name])}m"
            if priority[name] is not None and "spec" in o:
                o["spec"]["priority"] = priority[name]
        elif kind == "PodGroup" and min_count is not None and rng.random() < 0.7:
            gang = ((o.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
            if gang:
                gang["minCount"] = min_count
        elif kind == "Node" and node_cpu and rng.random() < 0.5:
            o["status"]["allocatable"]["cpu"] = node_cpu
        if i and e.get("type") in ("DELETED", "MODIFIED") and rng.random() < drop:
            continue
        kept.append(e)
    return {"header": lines[0], "events": kept}


class _AtOneInstant(Listener):
    def __init__(self) -> None:
        self.at: Counter[float] = Counter()

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Any = None) -> None:
        self.at[t] += 1
        assert self.at[t] <= MOST_AT_ONE_INSTANT, \
            f"{self.at[t]} decisions at one instant (the last of {pod.key}): the replay does not move on"


@pytest.mark.parametrize("name", sorted(TRACES))
@pytest.mark.parametrize("seed", SEEDS)
def test_a_mutated_gang_trace_replays_to_its_end(name: str, seed: int) -> None:
    lines = _read(name)
    rng = random.Random(f"{name}-{seed}")
    tr = mutate(lines, rng)
    gates = dict(TRACES[name])
    if rng.random() < 0.5:  # the other setting of workload-aware preemption
        gates["WorkloadAwarePreemption"] = not gates.get("WorkloadAwarePreemption", False)
    report = replay(tr, listener=_AtOneInstant(), kubernetes_version="v1.36", feature_gates=gates)
    # it ran to the trace's last event, deciding under the gates asked
    assert parse_rfc3339(report["trace"]["end"]) == parse_rfc3339(tr["events"][-1]["time"])
    assert report["featureGates"] == gates and report["summary"]["decisions"] > 0
