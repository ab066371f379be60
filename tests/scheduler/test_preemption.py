"""The preemption verdicts users rely on, on small hand-built clusters."""
from __future__ import annotations

import pytest

from kubectl_preempt import explain
from tests.builders import make_node, make_pdb, make_pod


def node(name, cpu="4"):
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods="110").obj()


def running(name, on, prio, cpu="1", **kw):
    b = make_pod(name).priority(prio).req(cpu=cpu).on(on)
    for k, v in kw.items():
        b = b.label(k, v)
    return b.obj()


def incoming(prio=1000, cpu="3", **kw):
    b = make_pod("incoming").priority(prio).req(cpu=cpu)
    return b


def test_lowest_priority_victims_are_chosen_and_the_rest_reprieved() -> None:
    objs = [node("n1"), running("low", "n1", 0, cpu="2"), running("mid", "n1", 100, cpu="1"),
            running("high", "n1", 5000, cpu="1"), incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["outcome"] == "Preempted"
    assert doc["nominatedNode"] == "n1"
    assert doc["victims"] == ["default/low"]
    assert [r["pod"] for r in doc["reprieved"]] == ["default/mid"]
    assert doc["message"] == "0/1 nodes are available: 1 Insufficient cpu."


def test_node_with_fewer_pdb_violations_wins() -> None:
    objs = [node("n1"), node("n2"),
            running("a", "n1", 0, cpu="4", app="guarded"), running("b", "n2", 0, cpu="4", app="free"),
            make_pdb("guard", {"matchLabels": {"app": "guarded"}}, 0),
            incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["nominatedNode"] == "n2"
    assert doc["tieBreak"]["decidedAt"] == 1
    by_node = {c["node"]: c for c in doc["candidates"]}
    assert by_node["n1"]["pdbViolations"] == 1 and by_node["n2"]["pdbViolations"] == 0


def test_lower_highest_victim_priority_wins_then_ties_are_reported() -> None:
    objs = [node("n1"), node("n2"), node("n3"),
            running("a", "n1", 50, cpu="4"), running("b", "n2", 10, cpu="4"), running("c", "n3", 10, cpu="4"),
            incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    # n2 and n3 are equal down the whole chain, start times included
    assert doc["nominatedNodes"] == ["n2", "n3"]
    assert doc["nominatedNode"] in ("n2", "n3")


def test_preemption_policy_never_is_not_eligible() -> None:
    objs = [node("n1"), running("low", "n1", 0, cpu="4"),
            incoming().preemption_policy("Never").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["outcome"] == "Unschedulable"
    assert doc["message"] == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                              "preemption: not eligible due to preemptionPolicy=Never.")


def test_no_lower_priority_pods_means_preemption_is_not_helpful() -> None:
    objs = [node("n1"), running("peer", "n1", 1000, cpu="4"), incoming().obj()]
    doc = explain(objs, "default/incoming")
    assert doc["outcome"] == "Unschedulable"
    assert doc["message"].endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_a_request_beyond_allocatable_cannot_be_helped() -> None:
    objs = [node("n1", cpu="2"), running("low", "n1", 0, cpu="1"), incoming(cpu="3").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["nodeStatuses"]["n1"]["code"] == "UnschedulableAndUnresolvable"
    assert doc["message"].endswith("preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def test_terminating_victim_is_listed() -> None:
    objs = [node("n1"), make_pod("going").priority(0).req(cpu="3").on("n1").terminating().obj(),
            incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["victims"] == ["default/going"]
    assert doc["victimDetails"][0]["terminating"] is True


def test_lower_priority_nominations_on_the_node_are_cleared() -> None:
    objs = [node("n1"), running("low", "n1", 0, cpu="4"),
            make_pod("waiting").priority(10).req(cpu="1").nominated("n1").obj(),
            incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["nominatedNode"] == "n1"
    assert doc["clearedNominations"] == ["default/waiting"]


def test_equal_or_higher_priority_nominated_pod_holds_its_room() -> None:
    objs = [node("n1"), node("n2", cpu="1"),
            make_pod("first").priority(2000).req(cpu="3").nominated("n1").obj(),
            incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    # n1 is free, but a more important pod is nominated there: the first filter pass adds it
    assert doc["outcome"] == "Unschedulable"
    assert doc["nodeStatuses"]["n1"]["reasons"] == ["Insufficient cpu"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeded_offsets_stay_within_the_tie(seed) -> None:
    objs = [node(f"n{i}") for i in range(4)] + [running(f"p{i}", f"n{i}", 0, cpu="4") for i in range(4)] + [
        incoming(cpu="2").obj()]
    from kubectl_preempt.api import explain as api_explain
    doc = api_explain(objs, "default/incoming", seed=seed)
    assert doc["nominatedNode"] in doc["nominatedNodes"]


def test_a_bound_pod_is_explained_as_if_pending_again() -> None:
    objs = [node("n1"), node("n2", cpu="1"), running("me", "n1", 100, cpu="3")]
    doc = explain(objs, "default/me")
    # its own node is freed of it, and spec.nodeName no longer pins it there
    assert doc["outcome"] == "Scheduled" and doc["node"] == "n1"
    assert doc["feasibleNodes"] == ["n1"]


def test_each_victim_names_the_pdbs_covering_it_and_whether_its_eviction_violates_them() -> None:
    objs = [node("n1", cpu="3"),
            running("w1", "n1", 0, app="web"), running("w2", "n1", 0, app="web"), running("w3", "n1", 0, app="web"),
            make_pdb("web", {"matchLabels": {"app": "web"}}, 1), make_pdb("other", {"matchLabels": {"app": "x"}}, 0),
            incoming(cpu="3").obj()]
    doc = explain(objs, "default/incoming")
    assert sorted(doc["victims"]) == ["default/w1", "default/w2", "default/w3"]
    details = {v["pod"]: (v["pdbs"], v["pdbViolation"]) for v in doc["victimDetails"]}
    # one disruption allowed: the first evicted pod stays within the budget, the others break it
    assert [v["pod"] for v in doc["victimDetails"]] == doc["victims"]
    assert sum(1 for _, violated in details.values() if violated) == 2
    assert {tuple(pdbs) for pdbs, _ in details.values()} == {("default/web",)}


def test_victims_without_a_pdb_list_none() -> None:
    objs = [node("n1", cpu="2"), running("low", "n1", 0, cpu="2"), incoming(cpu="2").obj()]
    doc = explain(objs, "default/incoming")
    assert doc["victimDetails"][0]["pdbs"] == []


def test_the_no_possible_victims_shortcut_answers_as_the_dry_run_would() -> None:
    """DefaultPreemption tells the Evaluator which nodes cannot hold a victim (no pod of lower
    priority) so they get no dry run; the preemption interface's default (None) dry-runs every
    node, and both give the same decision and the same status per node."""
    from kubectl_preempt.model.cluster import Cluster
    from kubectl_preempt.model.objects import Pod
    from kubectl_preempt.preemption.evaluator import PreemptionPlugin
    from kubectl_preempt.scheduler.scheduler import Scheduler

    objs = [node(f"n{i}") for i in range(6)]
    for i in range(6):
        objs.append(running(f"p{i}", f"n{i}", 5000 if i % 2 else 0, cpu="3"))
    pod = Pod(incoming(prio=1000, cpu="3").obj())

    def outcome(screen: bool):
        sched = Scheduler(Cluster.from_objects(objs))
        fwk = sched.framework_for(pod)
        plugin = fwk.plugins["DefaultPreemption"]
        if not screen:
            plugin.nodes_with_possible_victims = lambda p, nodes: PreemptionPlugin.nodes_with_possible_victims(
                plugin, p, nodes)
        res = sched.schedule(pod)
        record = res.preemption
        return (record.node, res.message, res.post_filter_status.message(),
                sorted((n, st.code, st.reasons) for n, st in record.node_statuses.items()))

    with_screen, without = outcome(True), outcome(False)
    assert with_screen[0] == "n0"
    assert with_screen == without
    assert ("n1", 3, ["No preemption victims found for incoming pod"]) in with_screen[3]
