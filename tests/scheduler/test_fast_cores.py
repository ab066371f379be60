"""The fast cores beside the decision (scheduler/fast/, framework/interface.py FastCores) give what
the upstream-shaped functions give: the whole conformance corpus, explained as every imitated
release, comes out byte-identical with them on (the default) and off (model/memory.py
MEMORY.off(), which also turns every memory off); and each core on its own agrees with its plain
function on small inputs built for it."""
from __future__ import annotations

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.model.memory import MEMORY

from tests.corpus import case_files, case_name, load_json

CASES = case_files("cases", "cases-real")
RELEASES = ["v1.30", "v1.31", "v1.32", "v1.33", "v1.34", "v1.35", "v1.36"]


def _doc(case: dict, release: str) -> bytes:
    return orjson.dumps(kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                                kubernetes_version=release),
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


@pytest.mark.parametrize("release", RELEASES)
def test_the_corpus_explains_alike_with_the_fast_cores_on_and_off(release: str) -> None:
    differ = []
    for case_file in CASES:
        case = load_json(case_file)
        on = _doc(case, release)
        with MEMORY.off():
            off = _doc(case, release)
        if on != off:
            differ.append(case_name(case_file))
    assert differ == []


# --- the dry runs in arithmetic (scheduler/fast/preemption.py _DryRunCycle) -------------------------

from tests.builders import make_node, make_pdb, make_pod  # noqa: E402

ANTI_WEB = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
SPREAD_WEB = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]


def _cluster(victim_app: str = "batch", victim_port: int = 0, pdb: bool = False) -> list[dict]:
    objs = []
    for i in range(4):
        objs.append(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods="110").zone(f"z{i % 2}").obj())
        for j in range(4):
            b = (make_pod(f"p{i}-{j}").priority(j * 10).req(cpu="1").labels(app=victim_app if j % 2 else "batch")
                 .on(f"n{i}").start_time(f"2026-01-01T00:0{j}:00Z"))
            if victim_port and j == 1:
                b = b.host_port(victim_port)
            objs.append(b.obj())
    if pdb:
        objs.append(make_pdb("batch", {"matchLabels": {"app": "batch"}}, allowed=1))
    return objs


def _incoming(port: int = 0, affinity: dict | None = None, spread: list | None = None) -> dict:
    b = make_pod("incoming").priority(1000).req(cpu="3").labels(app="web")
    if port:
        b = b.host_port(port)
    if affinity:
        b = b.affinity(affinity)
    if spread:
        b = b.spread(spread)
    return b.obj()


def _pdb_cluster(disrupted: bool = False) -> list[dict]:
    """Victims of two workloads (pods of one share their labels) and a third of their own, under
    PDBs of one pair, two pairs and matchExpressions; `disrupted`: one PDB lists a victim."""
    objs = []
    for i in range(3):
        objs.append(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods="110").obj())
        for j in range(5):
            app = ("batch", "batch", "etl", "etl", f"solo-{i}")[j]
            objs.append(make_pod(f"p{i}-{j}").priority(j % 2).req(cpu="1").labels(app=app, tier="low")
                        .on(f"n{i}").start_time(f"2026-01-01T00:0{j}:00Z").obj())
    objs.append(make_pdb("batch", {"matchLabels": {"app": "batch"}}, allowed=1,
                         disrupted={"p0-0": "2026-01-01T00:00:00Z"} if disrupted else None))
    objs.append(make_pdb("etl", {"matchLabels": {"app": "etl", "tier": "low"}}, allowed=0))
    objs.append(make_pdb("solo", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["solo-1"]}]},
                         allowed=0))
    return objs


def _extended_cluster(pods: str = "110") -> list[dict]:
    """Victims holding an extended resource the incoming pod asks for, on nodes of `pods` slots."""
    objs = []
    for i in range(2):
        objs.append(make_node(f"n{i}").alloc(cpu="8", memory="8Gi", pods=pods, example_com__gpu="2").obj())
        for j in range(3):
            objs.append(make_pod(f"p{i}-{j}").priority(j).req(cpu="1", example_com__gpu="1" if j < 2 else "0")
                        .on(f"n{i}").start_time(f"2026-01-01T00:0{j}:00Z").obj())
    return objs


def _storage_cluster() -> list[dict]:
    """Victims of memory and ephemeral storage (and cpu), on nodes the incoming pod fills by
    memory and storage alone: its cpu bound is none (it asks for no cpu)."""
    objs = []
    for i in range(2):
        objs.append(make_node(f"n{i}").alloc(cpu="8", memory="4Gi", ephemeral_storage="10Gi", pods="110").obj())
        for j in range(4):
            objs.append(make_pod(f"p{i}-{j}").priority(j).req(cpu="1", memory="1Gi", ephemeral_storage=f"{j + 1}Gi")
                        .on(f"n{i}").start_time(f"2026-01-01T00:0{j}:00Z").obj())
    return objs


# (objects, incoming pod, whether every dry run may be done in arithmetic)
ARITHMETIC_CASES = {
    "PDBs of one pair, two pairs and matchExpressions count victims that share labels alike":
        (_pdb_cluster(), _incoming(), True),
    "a PDB listing a victim among its disrupted pods counts it no more":
        (_pdb_cluster(disrupted=True), _incoming(), True),
    "an extended resource the victims hold is counted in the reprieves":
        (_extended_cluster(), make_pod("incoming").priority(1000).req(cpu="1", example_com__gpu="2").obj(), True),
    "a node out of pod slots reprieves no more than it has slots for":
        (_extended_cluster(pods="3"), make_pod("incoming").priority(1000).req(cpu="1").obj(), True),
    "a pod that asks for resources alone is reprieved in arithmetic": (_cluster(), _incoming(), True),
    "a pod asking for memory and ephemeral storage but no cpu is reprieved on those sums alone":
        (_storage_cluster(), make_pod("incoming").priority(1000).req(memory="2Gi", ephemeral_storage="5Gi").obj(),
         True),
    "PDB-violating victims are reprieved first in arithmetic too": (_cluster(pdb=True), _incoming(), True),
    "a host port no victim holds leaves NodePorts out of the reprieves": (_cluster(), _incoming(port=8080), True),
    "a host port a victim holds needs the plain steps": (_cluster(victim_port=8080), _incoming(port=8080), False),
    "anti-affinity to pods no victim is leaves InterPodAffinity out": (_cluster(), _incoming(affinity=ANTI_WEB), True),
    "anti-affinity to a victim's labels needs the plain steps": (_cluster("web"), _incoming(affinity=ANTI_WEB), False),
    "spreading over pods no victim is leaves PodTopologySpread out": (_cluster(), _incoming(spread=SPREAD_WEB), True),
    "spreading over a victim's labels needs the plain steps": (_cluster("web"), _incoming(spread=SPREAD_WEB), False),
}


@pytest.mark.parametrize("case", list(ARITHMETIC_CASES))
def test_dry_runs_in_arithmetic_give_the_plain_dry_runs_answers(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_preempt.scheduler.fast import preemption as fast
    objects, pod, arithmetic = ARITHMETIC_CASES[case]
    inner = fast._DryRunCycle._in_arithmetic
    done: list[str] = []

    def counted(self, base, potential, pdbs):  # noqa: ANN001, ANN202
        done.append(base.name)
        return inner(self, base, potential, pdbs)

    monkeypatch.setattr(fast._DryRunCycle, "_in_arithmetic", counted)
    on = orjson.dumps(kubectl_preempt.explain(objects + [pod], "default/incoming"), option=orjson.OPT_SORT_KEYS)
    with MEMORY.off():
        off = orjson.dumps(kubectl_preempt.explain(objects + [pod], "default/incoming"), option=orjson.OPT_SORT_KEYS)
    assert on == off
    assert orjson.loads(on)["outcome"] == "Preempted"
    nodes = sum(o["kind"] == "Node" for o in objects)
    assert (len(done) == nodes) is arithmetic, done


def test_a_bulk_removal_leaves_the_node_as_one_removal_after_another() -> None:
    from kubectl_preempt.framework.types import NodeInfo
    from kubectl_preempt.model.objects import Node, Pod
    pods = [Pod(make_pod(f"p{i}").priority(i).req(cpu="1").host_port(9000 + i).affinity(ANTI_WEB if i % 2 else {})
                .on("n").obj()) for i in range(6)]
    one, bulk = NodeInfo(Node(make_node("n").alloc(cpu="8", memory="8Gi").obj()), pods), None
    bulk = one.snapshot()
    gone = [pods[4], pods[0], pods[2]]
    for p in gone:
        one.remove_pod(p)
    bulk.remove_pods(gone)
    assert [pi.pod.name for pi in bulk.pods] == [pi.pod.name for pi in one.pods]
    assert [pi.pod.name for pi in bulk.pods_with_affinity] == [pi.pod.name for pi in one.pods_with_affinity]
    assert (bulk.requested.milli_cpu, bulk.lowest_priority, dict(bulk.used_ports)) == \
        (one.requested.milli_cpu, one.lowest_priority, dict(one.used_ports))


def test_an_emptied_node_is_read_as_one_whose_pods_were_removed_one_after_another() -> None:
    from kubectl_preempt.framework.types import NodeInfo
    from kubectl_preempt.model.objects import Node, Pod
    pods = [Pod(make_pod(f"p{i}").priority(i).req(cpu="1", memory="1Gi").host_port(9000 + i).on("n").obj())
            for i in range(3)]
    one = NodeInfo(Node(make_node("n").alloc(cpu="8", memory="8Gi").obj()), pods)
    empty = one.emptied()
    for p in pods:
        one.remove_pod(p)
    assert (empty.pods, empty.pods_with_affinity, empty.lowest_priority, dict(empty.used_ports)) == \
        (one.pods, one.pods_with_affinity, one.lowest_priority, dict(one.used_ports))
    assert (empty.requested.milli_cpu, empty.requested.memory, empty.non_zero_requested.milli_cpu) == \
        (one.requested.milli_cpu, one.requested.memory, one.non_zero_requested.milli_cpu)
    assert empty.image_states is one.image_states and empty.node is one.node


# --- Score's failures (scheduler/fast/scores.py, phase by phase as runtime/framework.go RunScorePlugins) -

from kubectl_preempt.framework.status import Code, Status  # noqa: E402
from kubectl_preempt.plugins.interpodaffinity.plugin import InterPodAffinity  # noqa: E402
from kubectl_preempt.plugins.tainttoleration import TaintToleration  # noqa: E402


def _score_failing_on_n1(plugin: type):  # noqa: ANN202 - a Score that fails on node n1 alone
    inner = plugin.score

    def score(self, state, pod, node_info):  # noqa: ANN001, ANN202
        if node_info.name == "n1":
            return 0, Status(Code.Error, "the disk is gone", plugin=self.name)
        return inner(self, state, pod, node_info)
    return score


def _normalize_failing(self, state, pod, scores):  # noqa: ANN001, ANN202
    return Status(Code.Error, "no range", plugin=self.name)


def _normalize_out_of_range(self, state, pod, scores):  # noqa: ANN001, ANN202
    scores[1].score = 101
    return Status()


SCORE_FAILURES = {
    "a node-local plugin whose Score fails on one node": (TaintToleration, "score", _score_failing_on_n1(TaintToleration),
                                                           "plugin \"TaintToleration\" failed with: the disk is gone"),
    "a plugin reading other nodes whose Score fails on one node": (
        InterPodAffinity, "score", _score_failing_on_n1(InterPodAffinity),
        "plugin \"InterPodAffinity\" failed with: the disk is gone"),
    "a normalizer that fails": (InterPodAffinity, "normalize_score", _normalize_failing,
                                "plugin \"InterPodAffinity\" failed with: no range"),
    "a normalizer that leaves a score above MaxNodeScore": (
        InterPodAffinity, "normalize_score", _normalize_out_of_range,
        "plugin \"InterPodAffinity\" returns an invalid score 101, it should in the range of [0, 100] after normalizing"),
}


@pytest.mark.parametrize("case", list(SCORE_FAILURES))
def test_a_failing_score_phase_is_reported_alike_by_the_score_columns_and_the_plain_loop(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin, method, replacement, message = SCORE_FAILURES[case]
    monkeypatch.setattr(plugin, method, replacement)
    objects = [make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods="110").zone(f"z{i % 2}").obj() for i in range(3)]
    pod = make_pod("incoming").req(cpu="1").obj()
    # a preferred term, so that InterPodAffinity scores (its PreScore skips a pod without one)
    pod["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                           "topologyKey": "topology.kubernetes.io/zone"}}]}}
    web = make_pod("web").req(cpu="1").labels(app="web").on("n2").obj()
    on = orjson.dumps(kubectl_preempt.explain(objects + [web, pod], "default/incoming"), option=orjson.OPT_SORT_KEYS)
    with MEMORY.off():
        off = orjson.dumps(kubectl_preempt.explain(objects + [web, pod], "default/incoming"),
                           option=orjson.OPT_SORT_KEYS)
    assert on == off
    assert orjson.loads(on).get("error") == message


# --- which PDBs count a pod, once per label set (scheduler/fast/preemption.py PDBMatches) ---------

def _pdb_objects(disrupted: bool) -> tuple[list, list]:
    from kubectl_preempt.model.objects import PodDisruptionBudget, Pod
    pdbs = [PodDisruptionBudget(make_pdb("web", {"matchLabels": {"app": "web"}}, allowed=1,
                                         disrupted={"w1": "2026-01-01T00:00:00Z"} if disrupted else None)),
            PodDisruptionBudget(make_pdb("web-front", {"matchLabels": {"app": "web", "tier": "front"}}, allowed=0)),
            PodDisruptionBudget(make_pdb("db", {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]},
                                         allowed=0)),
            PodDisruptionBudget(make_pdb("web-other", {"matchLabels": {"app": "web"}}, allowed=0, namespace="other"))]
    pods = [Pod(make_pod(name).ns(ns).labels(**labels).obj()) for name, ns, labels in (
        ("w0", "default", {"app": "web", "tier": "front"}), ("w1", "default", {"app": "web", "tier": "front"}),
        ("w2", "default", {"app": "web"}), ("d0", "default", {"app": "db"}), ("o0", "other", {"app": "web"}),
        ("x0", "default", {"app": "cache"}))]
    return pdbs, pods


@pytest.mark.parametrize("generation", [None, 7])
@pytest.mark.parametrize("disrupted", [False, True], ids=["no PDB lists disrupted pods", "a PDB lists a disrupted pod"])
def test_pdb_matches_per_label_set_are_each_pods_own(disrupted: bool, generation: int | None) -> None:
    from kubectl_preempt.framework.podinfo import pod_info
    from kubectl_preempt.plugins.defaultpreemption import _matching_pdbs, _pdbs_by_namespace
    from kubectl_preempt.scheduler.fast.preemption import PDBMatches
    pdbs, pods = _pdb_objects(disrupted)
    index = _pdbs_by_namespace(pdbs)
    want = {p.name: _matching_pdbs(p, pdbs, index) for p in pods}
    matches = PDBMatches(pdbs, generation)
    assert dict(zip((p.name for p in pods), matches.each(pods))) == want
    assert want["w1"] == ([1] if disrupted else [0, 1])
    if generation is not None:
        # kept in each PodInfo for the PDB list's generation, and read back from there by the next preemption
        assert {p.name: pod_info(p).pdb_matches for p in pods} == {n: (generation, m) for n, m in want.items()}
        assert dict(zip((p.name for p in pods), PDBMatches(pdbs, generation).each(pods))) == want


@pytest.mark.parametrize("generation", [None, 7])
@pytest.mark.parametrize("disrupted", [False, True], ids=["no PDB lists disrupted pods", "a PDB lists a disrupted pod"])
def test_pdb_split_with_the_matches_of_a_node_asked_together_is_the_plain_split(disrupted: bool,
                                                                               generation: int | None) -> None:
    from kubectl_preempt.model.objects import Pod
    from kubectl_preempt.plugins.defaultpreemption import filter_pods_with_pdb_violation
    from kubectl_preempt.scheduler.fast.preemption import PDBMatches
    pdbs, pods = _pdb_objects(disrupted)
    pods.append(Pod(make_pod("bare").obj()))  # no labels: counted by no PDB, never asked
    want = filter_pods_with_pdb_violation(list(pods), pdbs, None)
    matches = PDBMatches(pdbs, generation)
    assert filter_pods_with_pdb_violation(list(pods), pdbs, generation, matches.each) == want
    # asked again (the next dry run over the same pods): the kept answers give the same split
    assert filter_pods_with_pdb_violation(list(pods), pdbs, generation, PDBMatches(pdbs, generation).each) == want


def _refusals_cluster() -> list[dict]:
    """One node of 4 CPU and 8Gi; victims in reprieve order: two kept (2 CPU, 5Gi), two of one
    shape refused for CPU, one without CPU requests kept, then one of the refused shape again,
    now short of CPU and memory both."""
    objs = [make_node("n0").alloc(cpu="4", memory="8Gi", pods="110").obj()]
    shapes = [{"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "4Gi"}, {"cpu": "1", "memory": "1Gi"},
              {"cpu": "1", "memory": "1Gi"}, {"memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}]
    for j, req in enumerate(shapes):
        objs.append(make_pod(f"v{j}").priority(60 - 10 * j).req(**req).on("n0")
                    .start_time(f"2026-01-01T00:0{j}:00Z").obj())
    return objs


def test_a_refused_shape_is_worded_afresh_once_a_pod_was_kept_since() -> None:
    """The reprieve loop in arithmetic words a pod whose requests were refused on the same sums
    as the one before it; a pod kept in between changes the sums, and the next refusal of that
    shape names what is short then."""
    objects = _refusals_cluster() + [make_pod("incoming").priority(1000).req(cpu="2", memory="2Gi").obj()]
    on = kubectl_preempt.explain(objects, "default/incoming")
    with MEMORY.off():
        off = kubectl_preempt.explain(objects, "default/incoming")
    assert orjson.dumps(on, option=orjson.OPT_SORT_KEYS) == orjson.dumps(off, option=orjson.OPT_SORT_KEYS)
    blocking = {v["pod"]: v["blocking"] for v in on["victimDetails"]}
    assert blocking == {"default/v2": ["Insufficient cpu"], "default/v3": ["Insufficient cpu"],
                        "default/v5": ["Insufficient cpu", "Insufficient memory"]}, blocking


def _alike_full_nodes(n: int) -> list[dict]:
    """_refusals_cluster's node `n` times over (n0, n1, ...), each with its own six victims."""
    objs: list[dict] = []
    shapes = [{"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "4Gi"}, {"cpu": "1", "memory": "1Gi"},
              {"cpu": "1", "memory": "1Gi"}, {"memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}]
    for i in range(n):
        objs.append(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods="110").obj())
        for j, req in enumerate(shapes):
            objs.append(make_pod(f"v{i}-{j}").priority(60 - 10 * j).req(**req).on(f"n{i}")
                        .start_time(f"2026-01-01T00:0{j}:0{i}Z").obj())
    return objs


def test_a_refusal_worded_once_serves_every_dry_run_where_the_same_resources_are_short(monkeypatch) -> None:
    """Fit's Filter words a refusal by which resources are short: the dry runs in arithmetic ask
    it once per such set for the whole preemption (here 'Insufficient cpu', then 'Insufficient
    cpu, Insufficient memory'), not on every node, and every victim is blocked as the plain
    SelectVictimsOnNode blocks it."""
    from kubectl_preempt.plugins.noderesources.fit import Fit
    objects = _alike_full_nodes(3) + [make_pod("incoming").priority(1000).req(cpu="2", memory="2Gi").obj()]
    asked: list[tuple[str, ...]] = []
    plain = Fit.filter

    def counting(self, state, pod, node_info):  # noqa: ANN001, ANN202
        st = plain(self, state, pod, node_info)
        if type(node_info).__name__ == "_FitView":  # a reprieve check of the fast dry runs
            asked.append(tuple(st.reasons))
        return st

    monkeypatch.setattr(Fit, "filter", counting)
    on = kubectl_preempt.explain(objects, "default/incoming")
    assert sorted(asked) == [("Insufficient cpu",), ("Insufficient cpu", "Insufficient memory")]
    with MEMORY.off():
        off = kubectl_preempt.explain(objects, "default/incoming")
    assert orjson.dumps(on, option=orjson.OPT_SORT_KEYS) == orjson.dumps(off, option=orjson.OPT_SORT_KEYS)
    blocking = {v["pod"]: v["blocking"] for v in on["victimDetails"]}
    node = on["nominatedNode"]
    i = node[1:]
    assert blocking == {f"default/v{i}-2": ["Insufficient cpu"], f"default/v{i}-3": ["Insufficient cpu"],
                        f"default/v{i}-5": ["Insufficient cpu", "Insufficient memory"]}, blocking
