"""`plan -f DEPLOYMENT` is the replay of the snapshot with the Deployment's pods created at its
time, decision by decision; and every preemption decision it dumps is a case explain reproduces."""
from __future__ import annotations

import json
import re
from pathlib import Path

import kubectl_preempt
from kubectl_preempt.io.trace import TraceWriter, read_trace
from kubectl_preempt.plan.api import plan_spec
from kubectl_preempt.plan.run import plan_once
from kubectl_preempt.plan.workloads import RAND_ALPHABET
from tests.corpus import compare

from .scenarios import busy_cluster, deployment



def _plan(objects, manifests, **kw):
    cases: list[dict] = []
    spec = plan_spec(objects, manifests, **kw)
    report, _ = plan_once(spec, on_decision=cases.append)
    return spec, report, cases


def test_the_deployments_pods_are_what_its_controllers_make() -> None:
    objects = busy_cluster()
    spec, report, _ = _plan(objects, [("web.yaml", "", deployment("web", "shop", 3, "2", "high"))])
    creation = spec.creations[0]
    rs = creation.owners[0]
    assert rs["kind"] == "ReplicaSet" and rs["spec"]["replicas"] == 3
    h = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{h}" and rs["metadata"]["ownerReferences"][0]["kind"] == "Deployment"
    assert re.fullmatch(f"[{RAND_ALPHABET}]+", h)
    names = [p["metadata"]["name"] for p in creation.pods]
    assert len(set(names)) == 3
    for p in creation.pods:
        assert re.fullmatch(f"web-{h}-[{RAND_ALPHABET}]{{5}}", p["metadata"]["name"])
        assert p["metadata"]["ownerReferences"][0]["name"] == f"web-{h}"
        assert p["metadata"]["labels"] == {"app": "web", "pod-template-hash": h}
        assert p["spec"]["priority"] == 1000 and p["spec"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert report["workloads"][0]["workload"] == "shop/web"


def test_plan_of_a_deployment_is_the_replay_of_the_same_creations(tmp_path: Path) -> None:
    objects = busy_cluster()
    spec, report, cases = _plan(objects, [("web.yaml", "", deployment("web", "shop", 4, "2", "high"))])
    assert report["preemptions"], "the scenario is built to preempt"
    assert report["until"]["settled"]
    # the trace: the snapshot and the creations at its time, ending when the plan's cluster last changed
    path = tmp_path / "plan.jsonl"
    w = TraceWriter(str(path), spec.trace["header"])
    for ev in spec.trace["events"]:
        if ev["type"] != "BOOKMARK":
            w.event(ev["ts"], ev["type"], ev["object"])
    from kubectl_preempt.replay.state import parse_time

    w.event(parse_time(report["until"]["end"]), "BOOKMARK", {"kind": "Pod", "metadata": {}})
    w.close()
    replayed: list[dict] = []
    rep = kubectl_preempt.replay(read_trace(str(path)), on_decision=replayed.append)
    assert [c["pod"] for c in cases] == [c["pod"] for c in replayed]
    assert cases == replayed  # each decision: the cluster at that instant and what was decided
    assert report["preemptions"] == rep["preemptions"]
    changes = ("bound", "nominated", "preempted", "deleted")
    assert [e for e in report["activity"]["events"] if e[0] in changes] == \
        [e for e in rep["activity"]["events"] if e[0] in changes]


def test_every_dumped_decision_is_a_case_explain_reproduces() -> None:
    objects = busy_cluster()
    _, report, cases = _plan(objects, [("web.yaml", "", deployment("web", "shop", 4, "2", "high")),
                                       ("job.yaml", "", deployment("api", "shop", 2, "1", "medium"))])
    assert len(cases) >= 3
    for case in cases:
        result = kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"))
        assert compare(case["expect"], result) == [], (case["name"], json.dumps(case["expect"])[:300])


def test_plan_with_a_duration_is_the_replay_to_that_time_to_the_decision(tmp_path: Path) -> None:
    objects = busy_cluster()
    spec, report, cases = _plan(objects, [("web.yaml", "", deployment("web", "shop", 4, "2", "high"))], duration=600)
    assert not report["until"]["settled"] and report["until"]["virtualSeconds"] == 600
    path = tmp_path / "plan.jsonl"
    w = TraceWriter(str(path), spec.trace["header"])
    for ev in spec.trace["events"]:
        w.event(ev["ts"], ev["type"], ev["object"] if ev["type"] != "BOOKMARK" else {"kind": "Pod", "metadata": {}})
    w.close()
    replayed: list[dict] = []
    rep = kubectl_preempt.replay(read_trace(str(path)), on_decision=replayed.append)
    assert cases == replayed
    assert report["summary"] == rep["summary"]  # every cycle, the failed ones too
    assert report["activity"] == rep["activity"]


def test_a_plan_stops_once_every_pending_pod_was_retried_on_an_unchanged_cluster() -> None:
    from kubectl_preempt.plan.run import SETTLE_AFTER

    objects = busy_cluster()
    # each replica of 3.5 CPU evicts both etl pods of a node; the ReplicaSet re-creates them and
    # they stay pending: nothing has room for them
    spec, report, _ = _plan(objects, [("web.yaml", "", deployment("big", "shop", 2, "3500m", "high"))])
    u = report["until"]
    assert u["settled"] and report["workloads"][0]["placed"] == 2
    pending = [p for p in report["pending"] if p["pod"].startswith("batch/etl-")]
    assert len(pending) >= 4  # (the pending medium pod of the snapshot may evict one more)
    assert all(p["attempts"] >= 2 for p in pending)  # tried again by the leftover flush, in vain
    last_change = u["virtualSeconds"]
    assert last_change < SETTLE_AFTER  # the report ends at the last change, not when the run noticed
