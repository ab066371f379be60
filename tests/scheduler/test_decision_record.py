"""The scheduling cycle returns its whole decision, preemption included, as one frozen record."""
from __future__ import annotations

import dataclasses

import pytest

from kubectl_preempt import explain
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.preemption.decision import CHAIN, CHAIN_STEPS, ONLY_CANDIDATE, TIED_TO_THE_END
from kubectl_preempt.render.table import render_table
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pdb, make_pod


def node(name: str, cpu: str = "4") -> dict:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods="110").obj()


def running(name: str, on: str, prio: int, cpu: str = "1", start: str = "2026-03-01T08:00:00Z", **labels: str) -> dict:
    b = make_pod(name).priority(prio).req(cpu=cpu, memory="1Gi").on(on).start_time(start)
    for k, v in labels.items():
        b = b.label(k, v)
    return b.obj()


def cycle(objs: list[dict], key: str = "default/incoming"):
    cluster = Cluster.from_objects(objs)
    return Scheduler(cluster).schedule(cluster.pod(key))


def three_nodes() -> list[dict]:
    # n1: one victim of priority 10 guarded by a PDB allowing none; n2: two of priority 0;
    # n3: one of priority 0 (fewest victims among those violating no PDB)
    return [node("n1"), node("n2"), node("n3"),
            running("guarded", "n1", 10, cpu="4", app="guarded"),
            make_pdb("guard", {"matchLabels": {"app": "guarded"}}, 0),
            running("a", "n2", 0, cpu="2"), running("b", "n2", 0, cpu="2", start="2026-03-01T09:00:00.5Z"),
            running("c", "n3", 0, cpu="4", start="2026-03-01T07:00:00Z"),
            make_pod("incoming").priority(1000).req(cpu="3").obj()]


def test_a_preemption_leaves_the_cycle_as_a_frozen_record_with_raw_numbers() -> None:
    res = cycle(three_nodes())
    rec = res.preempted
    assert rec is not None and rec is res.preemption
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.message = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.outcome = "Scheduled"  # type: ignore[misc]
    assert rec.node == "n3"
    assert [c.name for c in rec.candidates] == ["n2", "n3", "n1"]  # PDB-violating candidates last
    # n1 loses on PDB violations (step 1), n2 on the priority sum (step 3: two victims weigh more)
    assert rec.eliminated_at("n1") == 1 and rec.eliminated_at("n2") == 3 and rec.eliminated_at("n3") is None
    assert rec.decided_at == 3 and rec.runner_up == "n2"
    assert rec.decided_by == CHAIN[2].criterion
    [victim] = rec.victims
    d = victim.to_dict()
    assert d["requests"] == {"milliCPU": 4000, "memory": 1024**3}
    assert d["startTime"] == "2026-03-01T07:00:00Z" and d["pdbs"] == [] and d["pdbViolation"] is False
    out = rec.to_dict()
    assert out["node"] == "n3" and out["decidedAt"] == 3 and out["runnerUp"] == "n2"
    assert out["steps"] == list(CHAIN_STEPS)
    n1 = next(c for c in out["candidates"] if c["node"] == "n1")
    assert n1["pdbViolations"] == 1 and n1["highestVictimPriority"] == 10 and n1["eliminatedAt"] == 1


def test_a_pdb_covered_victim_carries_the_pdbs_it_violates() -> None:
    objs = [node("n1"), running("guarded", "n1", 10, cpu="4", app="guarded"),
            make_pdb("guard", {"matchLabels": {"app": "guarded"}}, 0),
            make_pod("incoming").priority(1000).req(cpu="3").obj()]
    rec = cycle(objs).preempted
    assert rec is not None and rec.decided_by == ONLY_CANDIDATE
    [victim] = rec.victims
    assert victim.pdbs == ("default/guard",) and victim.pdb_violation
    assert victim.to_dict()["pdbs"] == ["default/guard"]


def test_the_failure_paths_return_the_record_too() -> None:
    never = [node("n1"), running("low", "n1", 0, cpu="4"),
             make_pod("incoming").priority(1000).req(cpu="3").preemption_policy("Never").obj()]
    res = cycle(never)
    assert res.outcome == "Unschedulable" and res.preempted is None
    assert res.preemption is not None and not res.preemption.eligible
    assert res.preemption.ineligible_reason == "not eligible due to preemptionPolicy=Never."

    higher = [node("n1"), running("high", "n1", 5000, cpu="4"), make_pod("incoming").priority(1000).req(cpu="3").obj()]
    res = cycle(higher)
    rec = res.preemption
    assert res.outcome == "Unschedulable" and rec is not None and rec.eligible and rec.selected is None
    assert rec.candidates == () and rec.potential_nodes == ["n1"]
    assert rec.node_statuses["n1"].reasons == ["No preemption victims found for incoming pod"]
    assert rec.message == ("0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_candidates_tied_after_the_whole_chain() -> None:
    objs = [node("n1"), node("n2"), running("a", "n1", 0, cpu="4"), running("b", "n2", 0, cpu="4"),
            make_pod("incoming").priority(1000).req(cpu="3").obj()]
    rec = cycle(objs).preempted
    assert rec is not None
    assert rec.tied_nodes == ["n1", "n2"] and rec.decided_at is None and rec.decided_by == TIED_TO_THE_END


def test_explain_and_its_table_read_the_record_and_the_one_list_of_chain_steps() -> None:
    objs = three_nodes()
    doc = explain(objs, "default/incoming")
    rec = cycle(objs).preempted
    assert rec is not None
    assert doc["candidates"] == rec.candidate_dicts()
    assert doc["tieBreak"]["decidedAt"] == rec.decided_at and doc["tieBreak"]["runnerUp"] == rec.runner_up
    assert doc["victims"] == [v.key for v in rec.victims]
    text = render_table([doc])
    for step in CHAIN:
        assert step.label in text
    assert f"decided at step 3 ({CHAIN_STEPS[2]})" in text
    assert f"lost at step 1 ({CHAIN[0].short} 1)" in text


def test_a_bound_pod_keeps_no_record_of_a_preemption() -> None:
    objs = [node("n1"), make_pod("incoming").priority(0).req(cpu="1").obj()]
    res = cycle(objs)
    assert res.outcome == "Scheduled" and res.preemption is None and res.preempted is None
    assert isinstance(res.pod, Pod)
