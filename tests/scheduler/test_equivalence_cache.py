"""Identical pods reuse a node's filter and score answers only while the node is unchanged."""
from __future__ import annotations

from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _sched(*objs):
    c = Cluster.from_objects([o.obj() for o in objs])
    return c, Scheduler(c, equivalence=EquivalenceCache())


def _pod(name, cpu="2"):
    return Pod(make_pod(name).priority(0).req(cpu=cpu).obj())


def test_a_node_filled_between_two_identical_pods_is_filtered_again() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="4", memory="8Gi"), make_node("n2").alloc(cpu="2", memory="8Gi"))
    first = s.schedule(_pod("a"))
    assert sorted(first.feasible_nodes) == ["n1", "n2"]
    filler = Pod(make_pod("filler").req(cpu="3").on("n1").obj())
    s.snapshot.add_pod(filler)
    second = s.schedule(_pod("b"))
    assert second.feasible_nodes == ["n2"]
    assert second.diagnosis.node_to_status.get("n1").reasons == ["Insufficient cpu"]


def test_scores_follow_the_node_state_not_the_cache() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="8", memory="8Gi"), make_node("n2").alloc(cpu="8", memory="8Gi"))
    r1 = s.schedule(_pod("a", cpu="1"))
    before = {n.name: n.total_score for n in r1.node_scores}
    assert before["n1"] == before["n2"]
    s.snapshot.add_pod(Pod(make_pod("busy").req(cpu="4").on("n1").obj()))
    r2 = s.schedule(_pod("b", cpu="1"))
    after = {n.name: n.total_score for n in r2.node_scores}
    assert after["n1"] < after["n2"]
    assert r2.suggested_host == "n2"


def test_a_node_with_a_nominated_pod_is_always_filtered_with_it() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="4", memory="8Gi"), make_node("n2").alloc(cpu="1", memory="8Gi"))
    assert s.schedule(_pod("a")).feasible_nodes == ["n1"]
    s.nominator.add(Pod(make_pod("big").priority(100).req(cpu="3").nominated("n1").obj()), "n1")
    r = s.schedule(_pod("b"))
    assert r.feasible_nodes == []
    assert r.diagnosis.node_to_status.get("n1").reasons == ["Insufficient cpu"]


def walks(s: Scheduler, pod: Pod, start: int, to_find: int) -> tuple:
    """The fast walk over the cache's answers and the plain walk, from `start`, `to_find` feasible
    nodes wanted: (fast feasible, its Diagnosis, plain feasible, its Diagnosis, the PodAnswers)."""
    from kubectl_preempt.framework.cycle_state import CycleState
    from kubectl_preempt.framework.diagnosis import Diagnosis
    from kubectl_preempt.scheduler import schedule_one as so
    from kubectl_preempt.scheduler.fast import filters as fast_filters

    fwk = s.framework_for(pod)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    got_d, want_d = Diagnosis(), Diagnosis()
    saved = so.num_feasible_nodes_to_find
    so.num_feasible_nodes_to_find = lambda f, n, k=to_find: k  # type: ignore[assignment]
    try:
        answers = s.equivalence.for_pod(fwk.profile_name, pod)
        got = fast_filters.find_nodes_that_pass_filters(fwk, state, pod, got_d, s.snapshot.list(), start, answers)
        want = so.find_nodes_that_pass_filters(fwk, state, pod, want_d, s.snapshot.list(), start)
    finally:
        so.num_feasible_nodes_to_find = saved  # type: ignore[assignment]
    return got, got_d, want, want_d, answers


def test_remembered_answers_give_the_same_walk_as_filtering_every_node() -> None:
    """Random clusters, shapes, start indexes and node changes: the walk over remembered answers
    (stopping early or visiting every node) finds the same feasible nodes and statuses, in the
    same order, as filtering every node afresh."""
    import random

    rnd = random.Random(7)
    nodes = [make_node(f"n{i:03d}").alloc(cpu=str(rnd.choice([2, 4, 8])), memory="16Gi") for i in range(150)]
    c, s = _sched(*nodes)
    shapes = [_pod(f"p{k}", cpu=rnd.choice(["500m", "1", "2", "3"])) for k in range(4)]
    for step in range(60):
        pod = shapes[step % len(shapes)]
        got, got_d, want, want_d, _ = walks(s, pod, rnd.randrange(150), rnd.choice([1, 10, 100, 150]))
        assert [ni.name for ni in got] == [ni.name for ni in want]
        assert ({n: st.reasons for n, st in got_d.node_to_status.statuses.items()}
                == {n: st.reasons for n, st in want_d.node_to_status.statuses.items()})
        assert list(got_d.node_to_status.statuses) == list(want_d.node_to_status.statuses)
        # change a few nodes between cycles
        for _ in range(rnd.randrange(4)):
            ni = rnd.choice(s.snapshot.list())
            s.snapshot.add_pod(Pod(make_pod(f"x{step}-{ni.name}").uid(f"x{step}-{ni.name}").req(cpu="500m")
                                   .on(ni.name).obj()))


def test_a_rebuilt_snapshot_keeps_unchanged_nodes_and_their_answers() -> None:
    """A replay rebuilds the snapshot when a node comes: the nodes it did not touch keep their
    NodeInfo and generation (the cache keeps answering for them), a node whose pods changed
    meanwhile is built afresh, and nodes holding images get a new generation because
    ImageLocality's spread counts all nodes."""
    from kubectl_preempt.framework.snapshot import Snapshot

    objs = [make_node(f"n{i}").alloc(cpu="4", memory="8Gi") for i in range(3)]
    objs[0].image("app:1", 500 * 1024 * 1024)
    c, s = _sched(*objs)
    pod = Pod(make_pod("a").priority(0).req(cpu="1").image("app:1").obj())
    s.schedule(pod)
    before = {ni.name: (ni, ni.generation) for ni in s.snapshot.list()}
    c.nodes["n3"] = Node(make_node("n3").alloc(cpu="4", memory="8Gi").obj())
    filler = Pod(make_pod("filler").req(cpu="3").on("n2").obj())
    c.pods[filler.key] = filler
    s.snapshot = Snapshot.from_cluster(c, previous=s.snapshot)
    after = {ni.name: ni for ni in s.snapshot.list()}
    assert after["n1"] is before["n1"][0] and after["n1"].generation == before["n1"][1]
    assert after["n0"] is before["n0"][0] and after["n0"].generation != before["n0"][1]  # holds the image
    assert after["n2"] is not before["n2"][0]  # its pods changed
    epoch = s.equivalence.epoch
    got = s.schedule(Pod(make_pod("b").priority(0).req(cpu="1").image("app:1").obj()))
    assert s.equivalence.epoch == epoch  # the rebuilt snapshot carried on
    fresh = Scheduler(c, snapshot=Snapshot.from_cluster(c))
    want = fresh.schedule(Pod(make_pod("b").priority(0).req(cpu="1").image("app:1").obj()))
    assert ({n.name: n.total_score for n in got.node_scores} == {n.name: n.total_score for n in want.node_scores})
    assert got.feasible_nodes == want.feasible_nodes


def test_a_snapshot_that_does_not_carry_on_starts_a_new_epoch() -> None:
    from kubectl_preempt.framework.snapshot import Snapshot

    c, s = _sched(make_node("n1").alloc(cpu="4", memory="8Gi"))
    s.schedule(_pod("a"))
    epoch = s.equivalence.epoch
    s.snapshot = Snapshot.from_cluster(c)
    assert s.equivalence.epoch == epoch + 1


def test_answers_hold_across_the_journal_forgetting_what_moved(monkeypatch) -> None:
    """The cache learns which nodes moved from the snapshot line's journal. Whether the cache
    trims the journal after every group read it, or the journal drops entries no group read
    yet, the answers stay those of a scheduler without a cache."""
    import random

    from kubectl_preempt.framework.types import NodeJournal
    from kubectl_preempt.scheduler.memo import equivalence

    for read_ahead, max_entries in ((3, 1 << 18), (1 << 20, 5)):
        monkeypatch.setattr(equivalence, "JOURNAL_READ_AHEAD", read_ahead)
        monkeypatch.setattr(NodeJournal, "MAX_ENTRIES", max_entries)
        rnd = random.Random(read_ahead)
        objs = [make_node(f"n{i}").alloc(cpu=str(rnd.choice([2, 4])), memory="8Gi") for i in range(12)]
        c, cached = _sched(*objs)
        fresh = Scheduler(c, snapshot=cached.snapshot)
        for step in range(40):
            pod = _pod(f"p{step}", cpu=rnd.choice(["500m", "1", "2"]))
            got, want = cached.schedule(pod), fresh.schedule(pod)
            fresh.next_start_node_index = cached.next_start_node_index
            assert got.feasible_nodes == want.feasible_nodes
            assert [(s.name, s.total_score) for s in got.node_scores] == [(s.name, s.total_score) for s in want.node_scores]
            assert ({n: st.reasons for n, st in got.diagnosis.node_to_status.statuses.items()}
                    == {n: st.reasons for n, st in want.diagnosis.node_to_status.statuses.items()})
            ni = rnd.choice(cached.snapshot.list())
            cached.snapshot.add_pod(Pod(make_pod(f"x{step}").uid(f"x{step}").req(cpu="500m").on(ni.name).obj()))
        assert len(cached.snapshot.journal.entries) <= max(read_ahead, max_entries) + 1


def test_a_failed_cycle_is_recalled_only_while_nothing_it_read_changed() -> None:
    c, s = _sched(make_node("n1").alloc(cpu="2", memory="8Gi"), make_node("n2").alloc(cpu="2", memory="8Gi"))
    memo = s.equivalence.failed_cycles
    first = s.schedule(_pod("a", cpu="3"))
    assert first.outcome == "Unschedulable" and memo.hits == 0
    again = s.schedule(_pod("b", cpu="3"))
    assert memo.hits == 1
    assert again.pod.name == "b" and again.message == first.message and again.diagnosis is not first.diagnosis
    # a node changes: the next failure runs afresh
    s.snapshot.add_pod(Pod(make_pod("x").req(cpu="1").on("n1").obj()))
    assert s.schedule(_pod("c", cpu="3")).outcome == "Unschedulable" and memo.hits == 1
    # so does a nomination
    s.nominator.add(Pod(make_pod("nom").priority(5).req(cpu="1").nominated("n2").obj()), "n2")
    assert s.schedule(_pod("d", cpu="3")).outcome == "Unschedulable" and memo.hits == 1
    # and another shape is another key
    assert s.schedule(_pod("e", cpu="4")).outcome == "Unschedulable" and memo.hits == 1
    # nothing changed since "d": recalled
    assert s.schedule(_pod("f", cpu="3")).message == first.message and memo.hits == 2
    # a pod that fits is never answered from the memo
    fits = s.schedule(_pod("g", cpu="500m"))
    assert fits.outcome == "Scheduled" and memo.hits == 2


def test_a_failed_cycle_is_checked_against_the_nodes_that_changed() -> None:
    """Only nodes changed: the remembered failure holds while each changed node rejects the pod
    alike and holds no pod it could preempt; a node that gains a possible victim runs the cycle
    again. Every answer is the one a scheduler without the memo gives."""
    def fresh(c: Cluster, pod: Pod):  # noqa: ANN202
        return Scheduler(c).schedule(pod)

    fillers = [make_pod(f"filler-{n}").priority(10).req(cpu="1").on(n) for n in ("n1", "n2")]
    c, s = _sched(make_node("n1").alloc(cpu="2", memory="8Gi"), make_node("n2").alloc(cpu="2", memory="8Gi"),
                  *fillers)
    memo = s.equivalence.failed_cycles
    first = s.schedule(_pod("a", cpu="1500m"))
    assert "2 No preemption victims found" in first.message
    # a pod that could not be preempted (higher priority) lands on n2: n2 still rejects alike
    important = Pod(make_pod("important").priority(10).req(cpu="100m").on("n2").obj())
    c.pods[important.key] = important
    s.snapshot.add_pod(important)
    again = s.schedule(_pod("b", cpu="1500m"))
    assert memo.checked == 1 and again.message == first.message == fresh(c, _pod("b", cpu="1500m")).message
    # a pod it could preempt lands on n1: the dry run must look there, so the cycle runs again
    low = Pod(make_pod("low").priority(-5).req(cpu="100m").on("n1").obj())
    c.pods[low.key] = low
    s.snapshot.add_pod(low)
    third = s.schedule(_pod("c", cpu="1500m"))
    assert third.message == fresh(c, _pod("c", cpu="1500m")).message
    assert third.message != first.message


def test_a_recalled_failure_lists_the_rejected_nodes_from_its_own_start() -> None:
    nodes = [make_node(f"n{i}").alloc(cpu="1", memory="8Gi") for i in range(5)]
    c, s = _sched(*nodes)
    first = s.schedule(_pod("a", cpu="3"))
    assert list(first.diagnosis.node_to_status.statuses) == ["n0", "n1", "n2", "n3", "n4"]
    s.next_start_node_index = 3
    again = s.schedule(_pod("b", cpu="3"))
    assert s.equivalence.failed_cycles.hits == 1
    assert list(again.diagnosis.node_to_status.statuses) == ["n3", "n4", "n0", "n1", "n2"]
    fresh = Scheduler(c)
    fresh.next_start_node_index = 3
    want = fresh.schedule(_pod("b", cpu="3")).diagnosis.node_to_status
    got = again.diagnosis.node_to_status
    assert len(got) == 5
    assert [(n, st.to_dict()) for n, st in got.statuses.items()] == [(n, st.to_dict()) for n, st in want.statuses.items()]


def test_a_failure_is_recalled_without_its_pre_filter_only_when_no_plugin_reads_the_labels(monkeypatch) -> None:
    c, s = _sched(make_node("n1").alloc(cpu="1", memory="8Gi"))
    fwk = s.framework_for(_pod("x"))
    ran: list[str] = []
    real = fwk.run_pre_filter_plugins

    def counting(state, pod):  # noqa: ANN001, ANN202
        ran.append(pod.name)
        return real(state, pod)

    monkeypatch.setattr(fwk, "run_pre_filter_plugins", counting)
    first = s.schedule(_pod("a", cpu="3"))
    again = s.schedule(_pod("b", cpu="3"))
    assert ran == ["a"] and again.message == first.message and again.pod.name == "b"
    # a pod with required anti-affinity joins the cluster: labels may matter, PreFilter runs
    anti = Pod(make_pod("anti").req(cpu="100m").on("n1").affinity({"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}]}}).obj())
    c.pods[anti.key] = anti
    s.snapshot.add_pod(anti)
    s.schedule(_pod("c", cpu="3"))
    s.schedule(_pod("d", cpu="3"))
    assert ran == ["a", "c", "d"]
