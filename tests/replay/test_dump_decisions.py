"""--dump-decisions: every replayed preemption as a conformance case that kubectl_preempt.explain
decides the same way, checked with the corpus's own comparison rule (tests/corpus/conformance/compare.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubectl_preempt
from kubectl_preempt.cli.main import main
from kubectl_preempt.io.trace import write_trace
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pdb, make_pod, make_priority_class
from tests.corpus import compare

from .helpers import T0, ev, trace


def _busy_trace() -> dict[str, Any]:
    evs = [ev(0, "ADDED", make_priority_class("batch", 10)), ev(0, "ADDED", make_priority_class("serving", 1000))]
    for i in range(6):
        evs.append(ev(0, "ADDED", make_node(f"n{i}").alloc(cpu="4", memory="8Gi").zone(f"z{i % 2}").obj()))
    evs.append(ev(0, "ADDED", make_pdb("etl", {"matchLabels": {"app": "etl"}}, 1, namespace="batch")))
    for i in range(12):
        evs.append(ev(0, "ADDED", make_pod(f"etl-{i}").ns("batch").label("app", "etl").priority(10)
                      .priority_class("batch").req(cpu="2", memory="1Gi").start_time(f"2026-03-01T0{i % 10}:00:00Z")
                      .set("spec.terminationGracePeriodSeconds", 15).on(f"n{i % 6}").obj()))
    for i in range(5):
        evs.append(ev(2 + 3 * i, "ADDED", make_pod(f"web-{i}").ns("shop").label("app", "web").priority(1000)
                      .priority_class("serving").req(cpu="3", memory="1Gi").obj()))
    return trace(*evs, end=300)


@pytest.mark.parametrize("release,name", [("v1.34", "v1.34.1"), ("v1.35", "v1.35.6"), ("v1.36", "v1.36.2"),
                                          (None, "v1.36.2")])
def test_every_dumped_decision_names_its_release_and_is_decided_the_same_way_by_explain(release: str | None,
                                                                                        name: str) -> None:
    cases: list[dict[str, Any]] = []
    report = replay(_busy_trace(), on_decision=cases.append, kubernetes_version=release)
    assert report["schedulerVersion"] == name
    assert len(cases) == len(report["preemptions"]) >= 3
    for case in cases:
        case = json.loads(json.dumps(case))  # as written to a file and read back
        assert case["kubernetesVersion"] == name
        result = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                         kubernetes_version=case["kubernetesVersion"])
        assert compare(case["expect"], result) == [], case["name"]


def test_dumped_cases_name_the_pod_and_the_replayed_state(tmp_path: Path) -> None:
    cases: list[dict[str, Any]] = []
    replay(_busy_trace(), on_decision=cases.append, kubernetes_version="v1.34")
    second = cases[1]
    assert second["pod"] == "shop/web-1"
    assert second["kubernetesVersion"] == "v1.34.1"
    pods = {o["metadata"]["namespace"] + "/" + o["metadata"]["name"]: o for o in second["objects"] if o["kind"] == "Pod"}
    # the first preemption's victims are terminating in the second case's snapshot, and its
    # preemptor is nominated
    first_victims = cases[0]["expect"]["victims"]
    node = cases[0]["expect"]["nominatedNodes"][0]
    for v in first_victims[node]:
        assert pods[v]["metadata"]["deletionTimestamp"]
        assert pods[v]["status"]["conditions"][-1]["reason"] == "PreemptionByScheduler"
    assert pods["shop/web-0"]["status"]["nominatedNodeName"] == node


def test_the_cli_writes_one_case_file_per_preemption(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tr = _busy_trace()
    path = tmp_path / "t.jsonl.gz"
    write_trace(str(path), {**tr["header"], "apiVersion": "kubectl-preempt/v1", "kind": "Trace"}, tr["events"])
    out_dir = tmp_path / "cases"
    assert main(["replay", str(path), "--dump-decisions", str(out_dir), "-o", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    files = sorted(out_dir.glob("*.json"))
    assert len(files) == len(report["preemptions"])
    case = json.loads(files[0].read_text())
    result = kubectl_preempt.explain(case["objects"], case["pod"])
    assert compare(case["expect"], result) == []
    assert T0 < case["description"].split(" at ")[1]
