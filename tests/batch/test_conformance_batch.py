"""Every recorded kube-batch session (../shared/conformance/batch/cases, kube-batch at 86b2ba21)
through kubectl_preempt.batch_session, compared by the corpus's own rule (compare_batch). One test
per case file."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import kubectl_preempt
from kubectl_preempt.batch.scheduler import batch_session

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
CASES = sorted((SHARED / "batch" / "cases").glob("*.json")) if (SHARED / "batch" / "cases").is_dir() else []

# Cases where the session with the default seed is a valid kube-batch run that the 24 recorded runs
# happen not to include. kube-batch breaks ties at random (SelectBestNode: rand.Intn over the
# top-scored nodes; every `range` over a Go map starts at a random slot), so a case with many ties
# has more distinct outcomes than 24 runs can record. For these the test still compares the
# default run, and also requires that the session, drawn with other seeds, reproduces EVERY recorded
# outcome: the rules are right (kube-batch's outcomes are all ours), only the draw differs. A change
# that loses one of kube-batch's outcomes fails the test; no seed is chosen to make a case pass.
NONDETERMINISTIC = {
    "b0034-reclaim": "48 outcomes of equal weight: reclaim pipelines job3-0 and job4-0 one on n0, one on n4, in "
                     "either way (2), and allocate's SelectBestNode (rand.Intn over nodes tied on every score) "
                     "orders job0-1..3 over n2/n3/n4 (6) and pairs job1-0..3 over n2/n3 (4). kube-batch's 24 runs "
                     "hold 19 of them (24 draws from 48 show 19.0 on average), 12 of the 24 allocate draws beside "
                     "one reclaim result and 7 beside the other, so a run of ANY model whose ties are fair matches "
                     "a recorded outcome with chance at most 1/2 (ours: 19/48); seed 0 draws an unrecorded one",
}
# seeds tried to find every recorded outcome of a NONDETERMINISTIC case (b0034 needs 134)
COVERAGE_SEEDS = 600

if SHARED.is_dir():
    sys.path.insert(0, str(SHARED))
    from compare import compare_batch  # type: ignore  # noqa: E402


@pytest.mark.skipif(not CASES, reason="../shared/conformance/batch is absent (a clone outside the workspace)")
@pytest.mark.parametrize("case_file", CASES, ids=[p.stem for p in CASES])
def test_session_is_one_of_kube_batchs_recorded_outcomes(case_file: Path) -> None:
    case = json.loads(case_file.read_text())
    result = kubectl_preempt.batch_session(case["objects"], case.get("schedulerConf"))
    diffs = compare_batch(case["expect"], result)
    if diffs and case_file.stem in NONDETERMINISTIC:
        missing = _outcomes_not_reproduced(case)
        assert not missing, (f"{case_file.name}: recorded outcomes {missing} not reproduced by seeds 0..{COVERAGE_SEEDS - 1}; "
                             "default run: " + "; ".join(diffs))
        pytest.xfail(NONDETERMINISTIC[case_file.stem])
    assert not diffs, f"{case_file.name}: " + "; ".join(diffs)


def _outcomes_not_reproduced(case: dict) -> list[int]:
    """Indexes of the recorded outcomes that no seed in 0..COVERAGE_SEEDS-1 reproduces."""
    outcomes = case["expect"]["outcomes"]
    missing = set(range(len(outcomes)))
    for seed in range(COVERAGE_SEEDS):
        result = batch_session(case["objects"], case.get("schedulerConf"), seed=seed)
        missing -= {i for i in missing if not compare_batch({"outcomes": [outcomes[i]]}, result)}
        if not missing:
            break
    return sorted(missing)
