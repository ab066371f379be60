"""Every recorded case through kubectl_preempt.explain, compared by the corpus's own rule
(tests/corpus/conformance/compare.py): as the release named by the case's `kubernetesVersion` decided
it (its `expect`; v1.34.1 for every shared case) and as every other imitated release decided it
(tests/corpus/conformance/v1.3X/expects.json, same
objects). One test per case file and release."""
from __future__ import annotations

from pathlib import Path

import pytest

import kubectl_preempt
from tests.corpus import case_files, case_key, case_name, compare, expects, load_json

CASES = case_files("cases", "cases-real")
IDS = [case_key(p) for p in CASES]

# Cases whose recorded answer no deterministic scheduler can reproduce, with the field and why.
# They stay in the run (the comparison is not changed) and are reported on the issue.
NONDETERMINISTIC = {
    "0184-resources": "nodeStatuses reasons: kube-scheduler lists insufficient scalar resources in Go map "
                      "iteration order (fitsRequest ranges over podRequest.ScalarResources), which is random per "
                      "call; the recording has 'Insufficient hugepages-2Mi' before 'Insufficient nvidia.com/gpu' "
                      "on two nodes and after it on three, for the same pod in the same cycle",
}


@pytest.mark.parametrize("case_file", CASES, ids=IDS)
def test_case_matches_kube_scheduler(case_file: Path) -> None:
    case = load_json(case_file)
    # the case's own release (the one whose code recorded `expect`), never the default
    result = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                     kubernetes_version=case["kubernetesVersion"])
    assert result["schedulerVersion"] == case["kubernetesVersion"]
    diffs = compare(case["expect"], result)
    if diffs and case_name(case_file) in NONDETERMINISTIC:
        pytest.xfail(f"{NONDETERMINISTIC[case_name(case_file)]}: " + "; ".join(diffs))
    assert not diffs, f"{case_file.name}: " + "; ".join(diffs)


# every other release recorded over the same cases: folder, the release it must be explained as
RELEASES = [("v1.36", "v1.36.2"), ("v1.35", "v1.35.6"), ("v1.33", "v1.33.0"), ("v1.32", "v1.32.2"), ("v1.31", "v1.31.1"),
            ("v1.30", "v1.30.1")]


@pytest.mark.parametrize("folder,release", RELEASES, ids=[f for f, _ in RELEASES])
@pytest.mark.parametrize("case_file", CASES, ids=IDS)
def test_case_matches_kube_scheduler_release(case_file: Path, folder: str, release: str) -> None:
    """The case as that release decided it (tests/corpus/conformance/<folder>/expects.json)."""
    verdicts = expects(folder)
    key = case_key(case_file)
    assert key in verdicts, f"{key} has no {release} verdict in {folder}/expects.json"
    case = load_json(case_file)
    result = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                     kubernetes_version=folder)
    assert result["schedulerVersion"] == release
    diffs = compare(verdicts[key], result)
    if diffs and case_name(case_file) in NONDETERMINISTIC:
        pytest.xfail(f"{NONDETERMINISTIC[case_name(case_file)]}: " + "; ".join(diffs))
    assert not diffs, f"{case_file.name} ({release}): " + "; ".join(diffs)


def _has_pod_level_requests(case: dict) -> bool:
    return any(o.get("kind") == "Pod" and ((o.get("spec") or {}).get("resources") or {}).get("requests")
               for o in case["objects"])


POD_LEVEL_CASES = [p for p in CASES if _has_pod_level_requests(load_json(p))]


def _verdict(expect: dict, result: dict) -> list[str]:
    """Where the decision differs (outcome, node, scores, nomination, victims), leaving out the
    message and node statuses, which v1.33 words its own way (tests/corpus/conformance/v1.33/README.md)."""
    out = []
    if result["outcome"] != expect["outcome"]:
        return [f"outcome {result['outcome']} != {expect['outcome']}"]
    if expect["outcome"] == "Scheduled":
        if result["node"] not in expect["bestNodes"]:
            out.append(f"node {result['node']} not in {expect['bestNodes']}")
        if "scores" in expect and result.get("scores") != expect["scores"]:
            out.append(f"scores {result.get('scores')} != {expect['scores']}")
    elif expect["outcome"] == "Preempted":
        node = result["nominatedNode"]
        if node not in expect["nominatedNodes"]:
            out.append(f"nominated {node} not in {expect['nominatedNodes']}")
        elif sorted(result["victims"]) != expect["victims"][node]:
            out.append(f"victims {sorted(result['victims'])} != {expect['victims'][node]}")
    return out


@pytest.mark.parametrize("case_file", POD_LEVEL_CASES, ids=[case_key(p) for p in POD_LEVEL_CASES])
def test_v1_33_with_pod_level_resources_on_decides_as_v1_34(case_file: Path) -> None:
    """--feature-gates PodLevelResources=true on v1.33: v1.34.1's decision on every case with
    pod-level requests (the v1.33 README: all its outcome, victim and nomination changes are this gate)."""
    case = load_json(case_file)
    result = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                     kubernetes_version="v1.33", feature_gates="PodLevelResources=true")
    assert (result["schedulerVersion"], result["featureGates"]) == ("v1.33.0", {"PodLevelResources": True})
    assert not _verdict(case["expect"], result), "; ".join(_verdict(case["expect"], result))


def test_the_pod_level_gate_is_what_changes_those_verdicts() -> None:
    """The gate is not idle: without it v1.33 decides some of those cases otherwise."""
    changed = 0
    for case_file in POD_LEVEL_CASES:
        case = load_json(case_file)
        plain = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                        kubernetes_version="v1.33")
        changed += bool(_verdict(case["expect"], plain))
    assert changed >= 6  # m0003, m0009, m0011, m0015, m0025, m0036 change outcome alone

