"""The scheduler's one equivalence cache: what node-local plugins answered for a pod shape on a node.

One rule decides validity: an answer computed for a pod shape on a node is reused while that
node's generation holds (NodeInfo.generation moves on every change of its node, of its pods'
requests, ports and volumes, and of its image summaries) and the cluster epoch has not moved. The
epoch moves when the scheduler is handed a snapshot that does not carry on from its last one; a
replay's rebuilt snapshot (a node added, removed or moved in the node tree) carries the unchanged
NodeInfos over, generations included (Snapshot.from_cluster's `previous`).

Only plugins that declare themselves node-local for an extension point (`node_local` next to
their `name`) are answered from here; tests/scheduler/test_node_local.py holds each declaration to
"reads nothing but the pod and its NodeInfo". Their answers are kept per node shape: what those
plugins read of a pod, its spec without the priority, the preemption policy and the grace period
(node_shape, model/podshape.py); tests/scheduler/test_node_local.py holds them to not reading those
either.

It keeps, per node, the answers of the points framework/interface.py declares (REMEMBERED_POINTS):
node-local Filter and Score, and the preemption dry runs of a PostFilter plugin declaring
MemoTraits.repeatable_dry_run (preemption/evaluator.py DryRunMemo). Beside them it holds whole
failed cycles (failed_cycles.py FailedCycles): a replay retries the pods that fit nowhere each time
an event may help them, and most such retries run on a cluster no different from the previous
failure of a pod of the same shape.

The cache is passed to the Scheduler. `equivalence=None` is model/memory.py's switch seen from
the scheduler: its cycles then run under MEMORY.off(), with no memory at all (explain's default:
one cycle over a snapshot does not pay for one), and give the same answers, as
tests/scheduler/test_equivalence_cache.py checks over generated traces and tests/test_memo_off.py
over the corpus and the traces.
"""
from __future__ import annotations

import operator
from itertools import compress, repeat
from typing import Any, Callable, Sequence, TypeVar

from ...framework.interface import REMEMBERED_POINTS
from ...framework.podinfo import UNSET, pod_info
from ...framework.status import Code, Status
from ...framework.types import NodeInfo, NodeJournal
from ...model.memory import MEMORY
from ...model.objects import Pod
from ...model.podshape import cycle_shape
from ...model.podshape import node_shape as shape_of_node
from .failed_cycles import FailedCycles

T = TypeVar("T")

_GENERATION = operator.attrgetter("generation")
_NAME = operator.attrgetter("name")
MAX_SHAPES = 64  # pod shapes remembered at once; the oldest is forgotten first
JOURNAL_READ_AHEAD = 4096  # journal entries kept before every group reads them and they go
MAX_SHARED = 4096  # score rows shared per group (NodeAnswers._rows); past it the sharing starts again


def node_shape(pod: Pod) -> bytes | None:
    """What node-local plugins read of a pod (model/podshape.py node_shape), kept in its PodInfo."""
    pi = pod.info or pod_info(pod)
    got = pi.node_shape
    if got is UNSET:
        got = pi.node_shape = shape_of_node(pod.spec)
    return got


def pod_shape(pod: Pod) -> bytes | None:
    """What a scheduling cycle reads of a pod besides its metadata (model/podshape.py
    cycle_shape), kept in the pod's PodInfo, as a pod object does not change."""
    pi = pod.info or pod_info(pod)
    got = pi.cycle_shape
    if got is UNSET:
        got = pi.cycle_shape = cycle_shape(pod.namespace, pod.priority, pod.preemption_policy, pod.spec,
                                           node_shape(pod))
    return got


class NodeAnswers:
    """One pod shape's answers from one group of plugins, per node, each with the node generation
    it was computed at, kept in the order of the scheduler's snapshot (its node_info_list): the
    fast cores read a whole walk's answers as slices of lists, not one name at a time.

    Which answers still hold is learnt from the snapshot line's NodeJournal: the answers of the
    nodes whose generation moved since this group last looked are dropped (and computed again
    when asked for), so a cycle pays for the nodes that changed, not for every node. Without a
    journal (or when the journal forgot what this group had not read yet) every node's generation
    is compared, which gives the same answers. A rebuilt snapshot (a node added, removed or moved
    in the node tree) lays the answers out again by node name (use_snapshot)."""

    __slots__ = ("names", "index", "values", "generations", "states", "_statuses", "_rows", "journal", "seen",
                 "snapshot")

    def __init__(self) -> None:
        # the layout: the node names of the snapshot the answers are kept for, and their positions
        self.snapshot: Any = None
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        # per position: the answer (None: none holds; found at C speed with values.index), the
        # node generation it was computed at, and what it was (ANSWER_SUCCESS, ANSWER_ERROR,
        # else 0: a rejection, a score row, none)
        self.values: list[Any] = []
        self.generations: list[int] = []
        self.states = bytearray()
        # equal rejections share one Status object, so counting reasons over thousands of nodes
        # counts a few objects (Status is immutable)
        self._statuses: dict[tuple, Status] = {}
        self._rows: dict[tuple, tuple] = {}
        self.journal: NodeJournal | None = None
        self.seen = 0  # the journal's entries before this one were read

    def use_snapshot(self, snapshot: Any, moves: "Moves | None" = None) -> None:
        """Keep the answers in `snapshot`'s node order (its node_names): those of nodes it shares
        with the last layout move to their new places while their generation holds. `moves`:
        where each node of the last layout lands, worked out once for every group (Moves)."""
        if snapshot is self.snapshot:
            return
        names = snapshot.node_names
        n = len(self.names)
        # a position past the old ones holds nothing: nodes new to the layout land there
        pick = (moves or Moves()).landing(self.snapshot, self.index, n, snapshot)
        values = list(pick(self.values + [None]))
        generations = list(pick(self.generations + [0]))
        states = bytearray(pick(self.states + b"\0"))
        journal = self.journal
        if journal is None or journal is not snapshot.journal or self.seen != journal.end:
            # the answers whose node moved on (positions never answered hold None already);
            # caught up with the snapshot's journal (catch_up), none is left: every NodeInfo
            # whose generation moved, or that is new to the line, was noted there and dropped
            now = list(map(_GENERATION, snapshot.node_info_list))
            stale = compress(range(len(names)), map(operator.and_, map(operator.ne, generations, now),
                                                    map(operator.is_not, values, repeat(None))))
            for k in stale:
                values[k] = None
                states[k] = 0
        self.snapshot = snapshot
        self.names = names
        self.index = snapshot.node_index
        self.values, self.generations, self.states = values, generations, states

    def catch_up(self, journal: NodeJournal | None) -> None:
        """Drop the answers of the nodes whose generation moved since the last look (all of them
        when the journal cannot tell: another line of snapshots, or entries it forgot before they
        were read). Without a journal, get() compares every generation.

        Every node noted since the last look is dropped without comparing generations: a group
        looks before it computes (PodAnswers.answers), so each answer it holds was computed
        before those moves; and a drop is always safe (the answer is computed again)."""
        if journal is None:
            self.journal = None
            return
        if journal is not self.journal or self.seen < journal.base:
            self._drop_all()
        elif self.seen != journal.end:
            values, states = self.values, self.states
            for k in map(self.index.get, map(_NAME, journal.since(self.seen))):
                if k is not None:
                    values[k] = None
                    states[k] = 0
        self.journal = journal
        self.seen = journal.end

    def _drop_all(self) -> None:
        n = len(self.names)
        self.values = [None] * n
        self.states = bytearray(n)

    def _drop(self, k: int) -> None:
        self.values[k] = None
        self.states[k] = 0

    def _validate(self, nodes: Sequence[NodeInfo], at: Sequence[int]) -> None:
        """Without a journal: drop the answers at `at` (the positions of `nodes`) whose node's
        generation moved."""
        gens = self.generations
        for k, ni in zip(at, nodes):
            if gens[k] != ni.generation and self.values[k] is not None:
                self._drop(k)

    def compute(self, k: int, ni: NodeInfo, compute: Callable[[NodeInfo], T]) -> T:
        """`compute(ni)` for the node at position `k`, kept there: the one place answers are made."""
        v = compute(ni)
        state = 0
        if type(v) is Status:
            if v.code:
                v = self._statuses.setdefault((v.code, v.plugin, v._reasons, v.error), v)
                if v.code == Code.Error:
                    state = ANSWER_ERROR
            else:
                state = ANSWER_SUCCESS
        self.values[k] = v
        self.generations[k] = ni.generation
        self.states[k] = state
        return v

    def shared(self, row: tuple) -> tuple:
        """One tuple for equal rows (the score core's): nodes alike score alike, and reading a few
        hundred rows a cycle then touches a few objects instead of one per node."""
        rows = self._rows
        if len(rows) >= MAX_SHARED:
            rows.clear()
        return rows.setdefault(row, row)

    def in_order(self, nodes: Sequence[NodeInfo]) -> tuple[list[Any], bytearray]:
        """Every node's answer in the layout's order (None where none holds) and its state byte;
        `nodes` is the snapshot's node_info_list."""
        if self.journal is None:
            self._validate(nodes, range(len(nodes)))
        return self.values, self.states

    def get(self, nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T],
            names: Sequence[str] | None = None) -> list[T]:
        """Each node's answer, from here while its generation holds, else `compute(node)`, in
        node order (as a walk computes them: the first error wins). `names`: the nodes' names
        (unique), when the caller has them. The nodes must be the snapshot's own NodeInfos."""
        if names is None:
            names = list(map(_NAME, nodes))
        index = self.index
        at = list(map(index.get, names))
        if None in at:
            # a node outside the layout (not the snapshot's): computed, not kept
            return [compute(ni) if k is None else self.get([ni], compute, [name])[0]
                    for k, ni, name in zip(at, nodes, names)]
        return self.get_at(at, nodes, compute)

    def get_at(self, at: Sequence[int], nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T]) -> list[T]:
        """get() for nodes whose positions in the layout the caller knows (`at`, one per node)."""
        if self.journal is None:
            self._validate(nodes, at)
        out = list(map(self.values.__getitem__, at))
        # the nodes without an answer, in node order, found at C speed
        k = -1
        index_of = out.index
        try:
            while True:
                k = index_of(None, k + 1)
                out[k] = self.compute(at[k], nodes[k], compute)
        except ValueError:
            pass
        return out

    def get_walked(self, walk: "Walk", nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T]) -> list[T]:
        """get_at() for the feasible nodes of a walk over this layout's snapshot (`nodes`, in
        the walk's order): their answers are cut from the layout as the walk's stretches, no
        position looked up one by one; the position of a node without an answer is worked out
        when it is computed."""
        if self.journal is None:
            self._validate(nodes, walk.positions())
        out = walk.pick(self.values)
        k = -1
        index_of = out.index
        try:
            while True:
                k = index_of(None, k + 1)
                out[k] = self.compute(walk.position(k), nodes[k], compute)
        except ValueError:
            pass
        return out

    def recall(self, ni: NodeInfo) -> Any:
        """The answer kept for this node of the snapshot while its generation holds, else None."""
        k = self.index.get(ni.name)
        if k is None or self.generations[k] != ni.generation:
            return None
        return self.values[k]

    def keep(self, ni: NodeInfo, value: Any) -> None:
        """Keep `value` as this node's answer at its generation (a node outside the layout: not kept)."""
        k = self.index.get(ni.name)
        if k is not None:
            self.compute(k, ni, lambda _: value)


class Moves:
    """Where the nodes of one layout land in a new snapshot's node order, worked out once for
    every group of answers laid out anew from that layout (a replay's rebuilt snapshot relays
    each group: ten of them on 5,000 nodes were as many name lookups per node). A landing is
    handed out as the function that lays a list out anew: the old layout's runs that keep their
    order, as slices, when there are few (a node joining its zone's end in the node tree shifts
    the nodes after it by one), else an itemgetter over every landing; either way the three
    lists of each group are picked at C speed."""

    __slots__ = ("snapshot", "_landings")

    def __init__(self) -> None:
        self.snapshot: Any = None
        self._landings: list[tuple[Any, Callable[[Sequence], Sequence]]] = []  # (old layout's snapshot, pick)

    def landing(self, old: Any, old_index: dict[str, int], n_old: int,
                snapshot: Any) -> Callable[[Sequence[T]], Sequence[T]]:
        """What lays a sequence kept in the layout of `old` (indexed by `old_index`, `n_old`
        nodes, with one more item after them: what a node new to it gets) out in `snapshot`'s
        node order."""
        if snapshot is not self.snapshot:
            self.snapshot, self._landings = snapshot, []
        for was, pick in self._landings:
            if was is old and old is not None:
                return pick
        at = list(map(old_index.get, snapshot.node_names, repeat(n_old)))
        pick = _Runs.of(at)
        if pick is None:
            # itemgetter of one position gives the item, not a tuple of it
            pick = operator.itemgetter(*at) if len(at) > 1 else (lambda seq: [seq[k] for k in at])
        if old is not None:
            self._landings.append((old, pick))
        return pick


class _Runs:
    """A landing as slices of the old layout: `runs`, (start, end) in the old layout for each
    stretch of the new order that keeps the old one's (a node new to the layout is a run of
    its own over the one item past the old ones)."""

    __slots__ = ("runs",)

    MAX_RUNS = 32  # past it, an itemgetter over every landing is as quick

    def __init__(self, runs: list[tuple[int, int]]) -> None:
        self.runs = runs

    @classmethod
    def of(cls, at: list[int]) -> "_Runs | None":
        n = len(at)
        if n < 2:
            return None
        # where the new order stops following the old one (found at C speed)
        breaks = list(compress(range(1, n), map(operator.ne, map(operator.sub, at[1:], at), repeat(1))))
        if len(breaks) >= cls.MAX_RUNS:
            return None
        starts = [0] + breaks
        return cls([(at[b], at[b] + e - b) for b, e in zip(starts, breaks + [n])])

    def __call__(self, seq: Sequence[T]) -> Sequence[T]:
        parts = [seq[lo:hi] for lo, hi in self.runs]
        if isinstance(seq, (bytes, bytearray)):
            return bytearray().join(parts)
        out: list = []
        for part in parts:
            out += part
        return out


# NodeAnswers.states: what the answer at a position is
ANSWER_SUCCESS = 1
ANSWER_ERROR = 2


class EquivalenceCache:
    """Answers per (profile, extension point, plugins, pod shape), then per node (NodeAnswers)."""

    def __init__(self, max_shapes: int = MAX_SHAPES, *, failed_cycles: bool = True) -> None:
        self.epoch = 0
        self.max_shapes = max_shapes
        self._shapes: dict[tuple, NodeAnswers] = {}
        # the scheduler's snapshot and the journal of its line (Scheduler sets them: use_snapshot)
        self.snapshot: Any = None
        self.journal: NodeJournal | None = None
        self.moves = Moves()
        # whole failed cycles; None: every failed cycle runs afresh
        self.failed_cycles: FailedCycles | None = FailedCycles() if failed_cycles else None
        MEMORY.track(self)

    def remembered(self) -> int:
        """Answers kept: per node and pod shape (filters, scores, preemption dry runs), and whole
        failed cycles (model/memory.py sizes())."""
        kept = sum(len(a.values) - a.values.count(None) for a in self._shapes.values())
        if self.failed_cycles is not None:
            kept += self.failed_cycles.remembered()
        return kept

    def new_epoch(self) -> None:
        """The snapshot was replaced: nothing remembered holds any more."""
        self.epoch += 1
        self._shapes.clear()
        if self.failed_cycles is not None:
            self.failed_cycles.clear()

    def use_journal(self, journal: NodeJournal | None) -> None:
        self.journal = journal

    def use_snapshot(self, snapshot: Any) -> None:
        """The scheduler's snapshot now: answers are kept in its node order, and learn what moved
        from its journal."""
        self.snapshot = snapshot
        self.journal = snapshot.journal

    def for_pod(self, profile: str, pod: Pod) -> "PodAnswers | None":
        shape = pod_shape(pod)
        if shape is None:
            return None
        local = node_shape(pod)
        assert local is not None  # a part of what pod_shape could carry
        journal = self.journal
        if journal is not None and len(journal.entries) > JOURNAL_READ_AHEAD:
            # every group reads what it has not read yet, then the journal forgets it
            for got in self._shapes.values():
                got.catch_up(journal)
            journal.forget_before(journal.end)
        return PodAnswers(self, profile, shape, local)

    def answers(self, key: tuple) -> NodeAnswers:
        got = self._shapes.get(key)
        if got is None:
            if len(self._shapes) >= self.max_shapes:
                del self._shapes[next(iter(self._shapes))]
            got = self._shapes[key] = NodeAnswers()
        return got


_COUNT: list[int] = []


def _counting(n: int) -> list[int]:
    """A list holding 0, 1, 2, ... up to at least n - 1, one for every caller, grown as asked."""
    if len(_COUNT) < n:
        _COUNT.extend(range(len(_COUNT), n))
    return _COUNT


class Walk:
    """Where a filter walk's feasible nodes lie in the layout it read (scheduler/fast/filters.py
    _walk_in_order): the visited stretches of positions, (lo, hi) in visiting order (one, or two
    when the walk wrapped around), and `mask`, one byte per visited node, nonzero for a feasible
    one (None: every visited node is feasible). The score core cuts its rows from the layout by
    it (NodeAnswers.get_walked) instead of one position at a time."""

    __slots__ = ("stretches", "mask", "_positions")

    def __init__(self, stretches: list[tuple[int, int]], mask: bytes | bytearray | None) -> None:
        self.stretches = stretches
        self.mask = mask
        self._positions: list[int] | None = None

    def pick(self, seq: Sequence[T]) -> list[T]:
        """The items of `seq` (kept in the layout's order) at the feasible nodes, in walk order."""
        got = _Runs(self.stretches)(seq)  # the stretches' slices, one after another
        return got if self.mask is None else list(compress(got, self.mask))

    def position(self, k: int) -> int:
        """The layout position of the k-th feasible node (from 0)."""
        if self.mask is not None:
            return self.positions()[k]
        for lo, hi in self.stretches:
            if k < hi - lo:
                return lo + k
            k -= hi - lo
        raise IndexError(k)

    def positions(self) -> list[int]:
        """Every feasible node's layout position, in walk order (worked out once, when asked)."""
        if self._positions is None:
            # the positions' int objects are those of one list kept for every walk (_counting),
            # cut as the walk's stretches are: no int made per node
            visited = _Runs(self.stretches)(_counting(max(hi for _, hi in self.stretches)))
            self._positions = visited if self.mask is None else list(compress(visited, self.mask))
        return self._positions


class PodAnswers:
    """The cache as one scheduling cycle sees it: its profile and its pod's shapes fixed
    (framework.interface.EquivalenceAnswers). Node-local answers are kept per `node_shape` (what
    those plugins read); `shape` (what the whole cycle reads of the pod besides its labels) keys
    the failed cycles."""

    __slots__ = ("cache", "profile", "shape", "node_shape", "_walked")

    def __init__(self, cache: EquivalenceCache, profile: str, shape: bytes, node_shape: bytes) -> None:
        self.cache = cache
        self.profile = profile
        self.shape = shape
        self.node_shape = node_shape
        # the last filter walk over the whole snapshot: (its feasible list, where they lie in
        # the snapshot's node order, the snapshot)
        self._walked: tuple[list, Walk, Any] | None = None

    def walked(self, feasible: list, walk: Walk, snapshot: Any) -> None:
        """The filter walk's feasible nodes and where they lie in `snapshot`'s node order: the
        score core reads their remembered rows by the walk's stretches, not by name (walk_of)."""
        self._walked = (feasible, walk, snapshot)

    def walk_of(self, nodes: list, snapshot: Any) -> Walk | None:
        """The walk over `snapshot` that returned `nodes` (the same list object), else None."""
        got = self._walked
        if got is None or got[0] is not nodes or got[2] is not snapshot:
            return None
        return got[1]

    def positions_of(self, nodes: list, snapshot: Any) -> list[int] | None:
        """The positions of `nodes` in `snapshot`'s node order when they are the list the last
        walk over it returned (the same object), else None."""
        walk = self.walk_of(nodes, snapshot)
        return None if walk is None else walk.positions()

    def answers(self, point: str, plugins: tuple[str, ...]) -> NodeAnswers:
        assert point in REMEMBERED_POINTS, point  # the memories this cache holds are declared there
        cache = self.cache
        got = cache.answers((self.profile, point, plugins, self.node_shape))
        got.catch_up(cache.journal)
        if cache.snapshot is not None:
            got.use_snapshot(cache.snapshot, cache.moves)
        return got
