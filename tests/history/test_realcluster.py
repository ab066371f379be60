"""history --trace on the real-cluster traces (tests/corpus/realcluster), held to what the real kube-scheduler v1.34.1
did (its log, in NAME.truth.json).

On the v2 traces, recorded with the scheduler's Preempted Events, the preemptions (preemptor,
node, victims) are exactly the truth's. On the first-round traces (no Events), every victim is
listed, and the preemptor where a nomination on the victim's node at the same instant names it;
none names another pod than the truth's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_preempt.cli.main import main
from tests.corpus import load_json, trace_of, truth_files

V2 = truth_files("v2")
FIRST = truth_files()


def _history(trace: Path, capsys: pytest.CaptureFixture[str], release: str = "v1.34") -> dict:
    # the traces' header names the API server (v1.36.2); the scheduler that wrote the records was
    # kube-scheduler v1.34.1 (the corpus's realcluster/README.md)
    capsys.readouterr()
    assert main(["history", "-A", "--trace", str(trace), "--kubernetes-version", release, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("truth_file", V2, ids=lambda p: p.name.split(".")[0])
def test_on_a_trace_with_events_history_lists_exactly_the_real_preemptions(
        truth_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth = load_json(truth_file)
    doc = _history(trace_of(truth_file), capsys)

    want = sorted((p["preemptor"], p["node"], sorted(p["victims"])) for p in truth["preemptions"])
    got = sorted((p["preemptor"], p["node"], sorted(p["victims"])) for p in doc["preemptions"])
    assert got == want
    victims = sorted(v for p in truth["preemptions"] for v in p["victims"])
    assert sorted(r["victim"] for r in doc["items"]) == victims
    # each victim's own Event and condition, and nothing contradicting them
    assert {r["found"] for r in doc["items"]} == {"both"}
    assert all(r["conflicts"] == [] for r in doc["items"])
    assert len(doc["items"]) == truth["checks"]["preemptedEvents"]


@pytest.mark.parametrize("truth_file", FIRST, ids=lambda p: p.name.split(".")[0])
def test_on_a_trace_without_events_history_lists_every_victim_and_the_nominated_preemptor(
        truth_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth = load_json(truth_file)
    doc = _history(trace_of(truth_file), capsys)

    preemptor_of = {v: p["preemptor"] for p in truth["preemptions"] for v in p["victims"]}
    node_of = {v: p["node"] for p in truth["preemptions"] for v in p["victims"]}
    rows = {r["victim"]: r for r in doc["items"]}
    assert sorted(rows) == sorted(preemptor_of)
    assert all(r["found"] == "condition" for r in rows.values())
    assert {v: r["node"] for v, r in rows.items()} == node_of
    named = {v: r["preemptor"] for v, r in rows.items() if r["preemptor"]}
    assert {v: preemptor_of[v] for v in named} == named
    # in these recordings every victim's preemptor was nominated to its node at the same instant
    assert len(named) == len(rows)
    assert all("nomination" in r["sources"] for r in rows.values())
    assert sorted((p["preemptor"], p["node"], sorted(p["victims"])) for p in doc["preemptions"]) == \
        sorted((p["preemptor"], p["node"], sorted(p["victims"])) for p in truth["preemptions"])


def test_read_as_a_v136_schedulers_records_a_nomination_alone_names_no_preemptor(
        capsys: pytest.CaptureFixture[str]) -> None:
    # v1.35+ nominates pods it placed that wait at Permit or PreBind (NominatedNodeNameForExpectation)
    doc = _history(trace_of(FIRST[0]), capsys, release="v1.36")
    assert doc["items"] and all(r["preemptor"] is None for r in doc["items"])
    assert all(any("a nomination alone is no preemption" in n for n in r["notes"]) for r in doc["items"])
