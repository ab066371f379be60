"""DefaultPreemption's filterPodsWithPDBViolation: which PDBs count a pod, found through the index
by namespace and first matchLabels pair (plugins/defaultpreemption _pdbs_by_namespace)."""
from __future__ import annotations

import pytest

from kubectl_preempt.model.objects import Pod, PodDisruptionBudget
from kubectl_preempt.plugins.defaultpreemption import filter_pods_with_pdb_violation
from tests.builders import make_pdb, make_pod

PDBS = [
    make_pdb("web", {"matchLabels": {"app": "web"}}, allowed=1),
    make_pdb("web-shard", {"matchLabels": {"app": "web", "shard": "3"}}, allowed=0),
    make_pdb("other-ns", {"matchLabels": {"app": "web"}}, allowed=5, namespace="batch"),
    make_pdb("tier", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]}, allowed=3),
    make_pdb("everything-empty", {}, allowed=3),
    make_pdb("by-shard", {"matchLabels": {"shard": "3"}}, allowed=2, disrupted={"gone": "2026-01-01T00:00:00Z"}),
]

CASES = {
    "a pod is counted by the PDBs of its namespace whose selectors match, in list order":
        (make_pod("a").labels(app="web", shard="3", tier="front"), ["default/web", "default/web-shard",
                                                                    "default/tier", "default/by-shard"]),
    "a pod whose first pair differs is counted only by the PDBs it matches otherwise":
        (make_pod("b").labels(app="api", shard="3"), ["default/by-shard"]),
    "a selector of matchExpressions alone is tested on every pod of its namespace":
        (make_pod("c").labels(tier="front"), ["default/tier"]),
    "an empty selector counts no pod":
        (make_pod("d").labels(app="nothing"), []),
    "a pod among a PDB's disrupted pods is not counted by it":
        (make_pod("gone").labels(shard="3"), []),
    "a PDB of another namespace does not count the pod":
        (make_pod("e").ns("batch").labels(app="api"), []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_pdbs_that_count_a_pod(case: str) -> None:
    builder, want = CASES[case]
    pod = Pod(builder.obj())
    pdbs = [PodDisruptionBudget(p) for p in PDBS]
    for generation in (None, 7):  # computed afresh, and kept in the PodInfo for the list's generation
        _, _, matched = filter_pods_with_pdb_violation([pod], pdbs, generation)
        assert matched.get(pod.key, []) == want


def test_pod_deletions_are_registered_under_async_preemption_from_v1_34() -> None:
    # default_preemption.go EventsToRegister: v1.33.0 returns nil (the preemptor is moved back once
    # its API calls are done); v1.34.1 registers Pod/Delete with a hint that always says QueueSkip
    from kubectl_preempt.framework import events as ev
    from kubectl_preempt.framework.versions import V1_33_0, V1_34_1
    from kubectl_preempt.plugins import defaultpreemption
    assert defaultpreemption.new({}, None, V1_33_0).events_to_register() == []
    [reg] = defaultpreemption.new({}, None, V1_34_1).events_to_register()
    assert (reg.event.resource, reg.event.action) == (ev.POD, ev.DELETE)
