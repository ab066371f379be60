"""Issue 35: a preemption is written once (preemption/document.py preemption_object). For the same
decision, the replay's row, the conformance case it dumps (--dump-decisions) and explain's document
of that case agree field for field, over the bundled traces and the real-cluster corpus."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay
from tests.corpus import trace_of, truth_files

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = [ROOT / "traces" / n for n in ("demo.jsonl.gz", "gpu-training-vs-inference.jsonl.gz",
                                         "priorityclass-rollout.jsonl.gz", "two-schedulers.jsonl.gz")]
# the first round of real-cluster traces: one control plane, kube-scheduler v1.34.1
REAL = [trace_of(t) for t in truth_files()]
# decisions checked per trace: each one is an explain over the whole cluster at its instant
PER_TRACE = 6


def _disagreements(row: dict[str, Any], case: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    """Each field the three name that differs, as `field: row / case / document`."""
    why, expect = row["why"], case["expect"]
    out: list[str] = []

    def same(field: str, *values: Any) -> None:
        if any(v != values[0] for v in values[1:]):
            out.append(f"{field}: " + " / ".join(json.dumps(v, sort_keys=True) for v in values))

    same("preemptor", row["preemptor"], case["pod"], doc["pod"])
    same("message", why["message"], expect["message"], doc["message"])
    same("postFilterMessage", expect["postFilterMessage"], doc["postFilterMessage"])
    same("postFilterCode", expect["postFilterCode"], doc["postFilterCode"])
    same("nominatedNodes", why["tiedNodes"], expect["nominatedNodes"], doc["nominatedNodes"])
    same("nodeStatuses", expect["nodeStatuses"],
         {n: {k: v for k, v in st.items() if k != "preemption"} for n, st in doc["nodeStatuses"].items()})
    if len(doc["nominatedNodes"]) > 1 and doc["nominatedNode"] != row["node"]:
        return out  # a tie the two broke differently (a random pick): the rest is another node's
    same("node", row["node"], doc["nominatedNode"], doc["tieBreak"]["winner"])
    same("victims", row["victims"], doc["victims"])
    same("victims on the node", expect["victims"][row["node"]], sorted(doc["victims"]))
    same("clearedNominations", why["clearedNominations"], doc["clearedNominations"],
         (expect.get("clearedNominations") or {}).get(row["node"], []))
    same("runnerUp", why["runnerUp"], doc["tieBreak"]["runnerUp"])
    same("candidates", why["candidates"], len(doc["candidates"]))
    for r, d in zip(row["victimDetails"], doc["victimDetails"]):
        for field in sorted(set(r) & set(d)):
            same(f"victimDetails[{d['pod']}].{field}", r[field], d[field])
        same(f"victimDetails[{d['pod']}].terminating", r["alreadyTerminating"], d["terminating"])
    return out


@pytest.mark.parametrize("path", BUNDLED + REAL, ids=lambda p: p.name)
def test_the_row_the_dumped_case_and_explain_agree_on_each_preemption(path: Path) -> None:
    cases: list[dict[str, Any]] = []
    report = replay(read_trace(str(path)), on_decision=cases.append)
    rows = {(p["preemptor"], p["time"]): p for p in report["preemptions"] if "podGroup" not in p}
    checked = 0
    for case in cases:
        # "replayed preemption at <time>: <pod> on <node>"
        when = case["description"].split(" at ", 1)[1].split(": ", 1)[0]
        row = rows.get((case["pod"], when))
        if row is None or checked == PER_TRACE:
            continue  # a pod group's member (its row is the group's), or enough seen
        case = json.loads(json.dumps(case))  # as written to a file and read back
        doc = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                      kubernetes_version=case["kubernetesVersion"])
        assert _disagreements(row, case, doc) == [], f"{path.name}: {case['pod']} at {when}"
        checked += 1
    assert checked == min(PER_TRACE, len(rows)) and (checked > 0 or not report["preemptions"])


def test_the_check_finds_a_field_that_differs() -> None:
    row = {"preemptor": "a/p", "node": "n1", "victims": ["a/v"], "why": {
        "message": "m", "tiedNodes": ["n1"], "clearedNominations": [], "runnerUp": None, "candidates": 1},
        "victimDetails": [{"pod": "a/v", "priority": 1, "alreadyTerminating": False}]}
    case = {"pod": "a/p", "expect": {"message": "m", "postFilterMessage": "", "postFilterCode": "Success",
                                     "nominatedNodes": ["n1"], "nodeStatuses": {}, "victims": {"n1": ["a/v"]}}}
    doc = {"pod": "a/p", "message": "m", "postFilterMessage": "", "postFilterCode": "Success", "nominatedNodes": ["n1"],
           "nodeStatuses": {}, "nominatedNode": "n1", "victims": ["a/v"], "clearedNominations": [],
           "tieBreak": {"winner": "n1", "runnerUp": None}, "candidates": [{}],
           "victimDetails": [{"pod": "a/v", "priority": 1, "terminating": False}]}
    assert _disagreements(row, case, doc) == []
    doc["victimDetails"][0]["priority"] = 2
    assert _disagreements(row, case, doc) == ["victimDetails[a/v].priority: 1 / 2"]
