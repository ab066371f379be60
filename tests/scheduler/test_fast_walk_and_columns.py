"""The replay speed-ups of the filter walk and the score columns (scheduler/fast/filters.py
_walk_in_order, scheduler/fast/scores.py, scheduler/memo/equivalence.py): the walk reads the
remembered answers in place and leaves the feasible nodes' positions to the score core, equal
score rows are one object, a rebuilt snapshot's landings are worked out once for every group of
answers, and plain columns are cut from the rows only when read; each gives what the plain
functions give."""
from __future__ import annotations

import random

import pytest

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NamedNodes, node_names_of
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.scheduler.fast import scores as fast_scores
from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache, NodeAnswers
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod
from tests.scheduler.test_equivalence_cache import walks


def _sched(n: int, seed: int = 7) -> tuple[Cluster, Scheduler]:
    rnd = random.Random(seed)
    objs = [make_node(f"n{i:03d}").alloc(cpu=str(rnd.choice([2, 4, 8])), memory="16Gi").obj() for i in range(n)]
    c = Cluster.from_objects(objs)
    return c, Scheduler(c, equivalence=EquivalenceCache())


def _pod(name: str, cpu: str) -> Pod:
    return Pod(make_pod(name).priority(0).req(cpu=cpu).obj())


def test_the_walk_with_pods_nominated_to_some_nodes_gives_the_plain_walk() -> None:
    """Nodes with nominated pods are filtered with them wherever they fall in the walk (before,
    inside and past the stretch it visits, across the wrap), never from the cache."""
    rnd = random.Random(11)
    c, s = _sched(120)
    shapes = [_pod(f"p{k}", rnd.choice(["500m", "1", "2", "3"])) for k in range(4)]
    for step in range(50):
        s.nominator.by_node.clear()
        for k in range(rnd.randrange(5)):
            node = f"n{rnd.randrange(120):03d}"
            s.nominator.add(Pod(make_pod(f"nom{step}-{k}").uid(f"nom{step}-{k}").priority(100)
                                .req(cpu=rnd.choice(["1", "3"])).nominated(node).obj()), node)
        got, got_d, want, want_d, _ = walks(s, shapes[step % 4], rnd.randrange(120), rnd.choice([1, 7, 40, 120]))
        assert [ni.name for ni in got] == [ni.name for ni in want]
        # the names the walk hands the cycle (schedule_one reads them instead of each node's)
        assert node_names_of(got) == [ni.name for ni in want]
        assert list(got_d.node_to_status.statuses) == list(want_d.node_to_status.statuses)
        assert ({n: st.reasons for n, st in got_d.node_to_status.statuses.items()}
                == {n: st.reasons for n, st in want_d.node_to_status.statuses.items()})
        for _ in range(rnd.randrange(3)):
            ni = rnd.choice(s.snapshot.list())
            s.snapshot.add_pod(Pod(make_pod(f"x{step}-{ni.name}").uid(f"x{step}-{ni.name}").req(cpu="500m")
                                   .on(ni.name).obj()))


@pytest.mark.parametrize("start,to_find", [(0, 10), (100, 30), (37, 120)])
def test_the_walk_leaves_each_feasible_nodes_position_in_the_snapshot_to_the_score_core(start: int,
                                                                                         to_find: int) -> None:
    _, s = _sched(120)
    pod = _pod("a", "3")
    got, _, want, _, answers = walks(s, pod, start, to_find)
    assert [ni.name for ni in got] == [ni.name for ni in want]
    assert isinstance(got, NamedNodes) and got.names == [ni.name for ni in want]
    index = s.snapshot.node_index
    assert answers.positions_of(got, s.snapshot) == [index[ni.name] for ni in got]
    # another list of the same nodes, or another snapshot, is looked up by name
    assert answers.positions_of(list(got), s.snapshot) is None
    assert answers.positions_of(got, object()) is None


def test_nodes_that_score_alike_share_one_remembered_row() -> None:
    objs = [make_node(f"n{i}").alloc(cpu="8", memory="16Gi").obj() for i in range(6)]
    c = Cluster.from_objects(objs)
    s = Scheduler(c, equivalence=EquivalenceCache())
    s.snapshot.add_pod(Pod(make_pod("busy").req(cpu="4").on("n5").obj()))
    r = s.schedule(_pod("a", "1"))
    assert len(r.feasible_nodes) == 6
    (answers,) = [a for key, a in s.equivalence._shapes.items() if key[1] == "score"]
    rows = [answers.values[answers.index[f"n{i}"]] for i in range(6)]
    assert all(row is rows[0] for row in rows[:5])  # five empty nodes alike: one tuple
    assert rows[5] != rows[0]


def test_a_rebuilt_snapshots_landings_are_worked_out_once_for_every_group() -> None:
    from kubectl_preempt.scheduler.memo.equivalence import Moves

    c, s = _sched(30)
    old = s.snapshot
    c.nodes["n999"] = Node(make_node("n999").alloc(cpu="4", memory="8Gi").obj())
    new = Snapshot.from_cluster(c, previous=old)
    moves = Moves()
    first = moves.landing(old, old.node_index, len(old.node_names), new)
    assert moves.landing(old, old.node_index, len(old.node_names), new) is first
    # the landing lays out a list kept in the old layout (one item more: what a new node gets)
    at = list(first(list(range(len(old.node_names) + 1))))
    assert [old.node_names[k] if k < len(old.node_names) else None for k in at] == [
        n if n in old.node_index else None for n in new.node_names]
    # two groups laid out anew keep each node's answer under its name
    groups = [NodeAnswers(), NodeAnswers()]
    for g in groups:
        g.use_snapshot(old, moves)
        for ni in old.list():
            g.keep(ni, ni.name)
        g.use_snapshot(new, moves)
        assert [g.recall(ni) for ni in new.list()] == [n if n in old.node_index else None for n in new.node_names]


def test_plain_columns_are_cut_from_the_rows_only_when_read_and_match_the_plain_score_loop() -> None:
    _, s = _sched(40)
    pod = _pod("a", "1")
    fwk = s.framework_for(pod)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    nodes = s.snapshot.list()
    fwk.run_pre_score_plugins(state, pod, nodes)
    answers = s.equivalence.for_pod(fwk.profile_name, pod)
    table, status = fast_scores.run_score_plugins(fwk, state, pod, nodes, answers)
    assert status.is_success()
    assert isinstance(table, fast_scores._ScoreColumns) and table._rows is not None  # nothing cut yet
    plain, plain_status = fwk.run_score_plugins(state, pod, nodes)
    assert plain_status.is_success()
    assert table.totals == [p.total_score for p in plain]
    assert [[ps.score for ps in t.scores] for t in table] == [[ps.score for ps in p.scores] for p in plain]


@pytest.mark.parametrize("column,refusal", [
    ([101] * 4, "returns an invalid score 101"),
    ([50, 50, 101, 50], "returns an invalid score 101"),
    ([-1] * 4, "returns an invalid score -1"),
])
def test_a_constant_or_varied_column_out_of_range_refuses_the_cycle_with_upstreams_message(column: list[int],
                                                                                            refusal: str) -> None:
    with pytest.raises(fast_scores._Refused) as e:
        fast_scores._weigh({"X": 2}, ("X",), [], set(), [column], None, 4)
    assert refusal in e.value.status.message()
    assert "should in the range of [0, 100] after normalizing" in e.value.status.message()


def test_a_constant_column_adds_its_weighted_value_to_every_total() -> None:
    weighted, totals = fast_scores._weigh({"A": 3, "Z": 2}, ("A", "Z", "P"), [2], {1}, [[100] * 3, [0] * 3, None],
                                          [5, 6, 7], 3)
    assert totals == [305, 306, 307]
    assert weighted[0] == [300, 300, 300] and weighted[1] == [0, 0, 0] and weighted[2] is None


WALKS = [
    ("one stretch, every node feasible", [(3, 9)], None),
    ("one stretch with rejections", [(3, 9)], bytes([1, 0, 0, 1, 1, 0])),
    ("two stretches across the wrap, every node feasible", [(7, 10), (0, 2)], None),
    ("two stretches across the wrap with rejections", [(7, 10), (0, 2)], bytes([0, 1, 1, 0, 1])),
]


@pytest.mark.parametrize("stretches,mask", [(s, m) for _, s, m in WALKS], ids=[d for d, _, _ in WALKS])
def test_a_walk_cuts_the_feasible_nodes_rows_from_the_layout_as_positions_would(stretches, mask) -> None:  # noqa: ANN001
    from kubectl_preempt.scheduler.memo.equivalence import Walk

    visited = [k for lo, hi in stretches for k in range(lo, hi)]
    want = [k for r, k in enumerate(visited) if mask is None or mask[r]]
    # one node's position asked before every position is listed (a cycle with few new rows)
    assert [Walk(stretches, mask).position(k) for k in range(len(want))] == want
    walk = Walk(stretches, mask)
    assert walk.positions() == want
    assert [walk.position(k) for k in range(len(want))] == want
    layout = [f"row{k}" for k in range(10)]
    assert walk.pick(layout) == [layout[k] for k in want]


def test_the_score_core_reads_the_walks_rows_and_computes_the_missing_ones_at_their_positions() -> None:
    """The rows the score core reads through the walk (get_walked) are those read position by
    position (get_at), the nodes without a row computed and kept at their own place."""
    c, s = _sched(60)
    pod = _pod("a", "3")
    got, _, _, _, answers = walks(s, pod, 45, 20)  # wraps around, rejects the 2-CPU nodes
    walk = answers.walk_of(got, s.snapshot)
    assert walk is not None and len(walk.stretches) == 2 and walk.mask is not None
    rows = answers.answers("score", ("X",))
    for ni in got[::3]:  # a row kept for every third feasible node
        rows.keep(ni, ("kept", ni.name))
    computed: list[str] = []

    def row(ni):  # noqa: ANN001, ANN202
        computed.append(ni.name)
        return ("computed", ni.name)

    out = rows.get_walked(walk, got, row)
    assert out == [("kept" if k % 3 == 0 else "computed", ni.name) for k, ni in enumerate(got)]
    assert computed == [ni.name for k, ni in enumerate(got) if k % 3]
    assert [rows.recall(ni) for ni in got] == out
    assert rows.get_at(walk.positions(), got, row) == out


class _Names:
    def __init__(self, names: list[str]) -> None:
        self.node_names = names


LAYOUTS = [
    ("a node joins the end of the order", ["a", "b", "c", "d"], ["a", "b", "c", "d", "e"], True),
    ("a node joins in the middle and shifts the rest", ["a", "b", "c", "d"], ["a", "b", "x", "c", "d"], True),
    ("two nodes join apart and one leaves", ["a", "b", "c", "d", "e"], ["x", "a", "c", "d", "y", "e"], True),
    ("the order is turned around", [f"n{k}" for k in range(80)], [f"n{k}" for k in reversed(range(81))], False),
    ("one node only", ["a"], ["b"], False),
]


@pytest.mark.parametrize("old,new,as_slices", [(o, n, r) for _, o, n, r in LAYOUTS], ids=[d for d, *_ in LAYOUTS])
def test_a_landing_lays_lists_and_state_bytes_out_in_the_new_order(old: list[str], new: list[str],
                                                                   as_slices: bool) -> None:
    """Slices of the runs that keep their order, or an itemgetter when there are many: each
    node's item lands at its new place, a node new to the layout gets the item past the old ones."""
    from kubectl_preempt.scheduler.memo.equivalence import Moves, _Runs

    was = _Names(old)
    pick = Moves().landing(was, {nm: k for k, nm in enumerate(old)}, len(old), _Names(new))
    assert isinstance(pick, _Runs) == as_slices
    assert list(pick(old + ["NEW"])) == [nm if nm in old else "NEW" for nm in new]
    states = bytearray(range(1, len(old) + 1)) + b"\0"
    assert bytearray(pick(states)) == bytearray(old.index(nm) + 1 if nm in old else 0 for nm in new)
