"""`plan -f POD` decides for that pod what `explain -f POD` decides, on the corpus's cases.

Each case whose pod is the only pending one becomes a snapshot without that pod plus the pod as
a manifest; the plan's first scheduling cycle of the pod (through the replay's engine) must give
explain's verdict: the same node when scheduled, the same nominated node, victims and message
when it preempts, the same message and node statuses when it cannot be scheduled."""
from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_preempt import api

from tests.corpus import case_files, case_key, load_json

from .helpers import as_manifest, plan_first_cycle


def _key(o: dict) -> str:
    return f"{o['metadata'].get('namespace') or 'default'}/{o['metadata']['name']}"


def _single_pending_cases() -> list[Path]:
    out = []
    for f in case_files("cases", "cases-real"):
        case = load_json(f)
        pending = [o for o in case["objects"] if o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName")
                   and (o.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        if [_key(o) for o in pending] == [case["pod"]]:
            out.append(f)
    return out


CASES = _single_pending_cases()


@pytest.mark.parametrize("case_file", CASES, ids=[case_key(p) for p in CASES])
def test_plan_of_one_pod_gives_explain_verdict(case_file: Path) -> None:
    case = load_json(case_file)
    pod = next(o for o in case["objects"] if o.get("kind") == "Pod" and _key(o) == case["pod"])
    rest = [o for o in case["objects"] if o is not pod]
    manifest = as_manifest(pod)
    doc = api.explain_pods(rest, [], case.get("config"), extra_pods=[manifest])[0]
    first, report = plan_first_cycle(rest, manifest, case["pod"], case.get("config"))
    try:
        _same_verdict(case, doc, first, report)
    except AssertionError as e:
        moved = _pdb_status_recomputed(rest)
        if moved:
            pytest.xfail("the replay's disruption controller recomputes PDB status at the start "
                         f"({', '.join(moved)}), while explain reads the recorded status; replay/state.py "
                         f"recompute_pdb_status, being changed under issue 26 (item 4): {e}")
        raise


def _pdb_status_recomputed(objects: list) -> list[str]:
    """The PDBs whose disruptionsAllowed the replay (and so the plan) recomputes to another value
    than the snapshot recorded, when the run starts."""
    from kubectl_preempt.framework.config import parse_config
    from kubectl_preempt.plan.run import PlanSimulation, build_spec

    spec = build_spec(objects, 0.0, [], parse_config(None))
    sim = PlanSimulation(spec.timeline, spec.config)
    recorded = {(o["metadata"].get("namespace") or "default", o["metadata"]["name"]):
                (o.get("status") or {}).get("disruptionsAllowed") or 0
                for o in objects if o.get("kind") == "PodDisruptionBudget"}
    return [f"{ns}/{name} {recorded[(ns, name)]} -> {p.disruptions_allowed}" for p in sim.state.cluster.pdbs
            for ns, name in [(p.namespace, p.name)] if recorded.get((ns, name)) != p.disruptions_allowed]


def _same_verdict(case: dict, doc: dict, first, report: dict) -> None:
    assert first.outcome == doc["outcome"], (first.outcome, doc["outcome"], doc.get("message"))
    if doc["outcome"] == "Scheduled":
        assert first.node == doc["node"]
    elif doc["outcome"] == "Preempted":
        rec = next(p for p in report["preemptions"] if p["preemptor"] == case["pod"])
        assert first.node == doc["nominatedNode"]
        assert sorted(rec["victims"]) == sorted(doc["victims"])
        assert rec["why"]["message"] == doc["message"]
    else:
        assert first.message == doc["message"]
