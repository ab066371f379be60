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
from itertools import compress
from typing import Any, Callable, Sequence, TypeVar

import orjson

from ...framework.interface import REMEMBERED_POINTS
from ...framework.podinfo import UNSET, pod_info
from ...framework.status import Status
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
    """One pod shape's answers from one group of plugins, per node name, each with the node
    generation it was computed at.

    Which answers still hold is learnt from the snapshot line's NodeJournal: the answers of the
    nodes whose generation moved since this group last looked are dropped (and computed again
    when asked for), so a cycle pays for the nodes that changed, not for every node, and finds
    them at C speed. Without a journal (or when the journal forgot what this group had not read
    yet) every node's generation is compared, which gives the same answers."""

    __slots__ = ("generations", "values", "_statuses", "journal", "seen")

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        # with a journal: only answers that still hold (never None)
        self.values: dict[str, Any] = {}
        # equal rejections share one Status object, so counting reasons over thousands of nodes
        # counts a few objects (Status is immutable)
        self._statuses: dict[tuple, Status] = {}
        self.journal: NodeJournal | None = None
        self.seen = 0  # the journal's entries before this one were read

    def catch_up(self, journal: NodeJournal | None) -> None:
        """Drop the answers of the nodes whose generation moved since the last look (all of them
        when the journal cannot tell: another line of snapshots, or entries it forgot before they
        were read). Without a journal, get() compares every generation."""
        if journal is None:
            self.journal = None
            return
        if journal is not self.journal or self.seen < journal.base:
            self.generations.clear()
            self.values.clear()
        elif self.seen != journal.end:
            gens, values = self.generations, self.values
            for ni in journal.since(self.seen):
                name = ni.name
                if gens.get(name, ni.generation) != ni.generation:
                    values.pop(name, None)
        self.journal = journal
        self.seen = journal.end

    def get(self, nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T],
            names: Sequence[str] | None = None) -> list[T]:
        """Each node's answer, from here while its generation holds, else `compute(node)`.
        `names`: the nodes' names (unique), when the caller has them. With a journal, the nodes
        must be the snapshot's own NodeInfos (catch_up was called for this cycle)."""
        if names is None:
            names = list(map(_NAME, nodes))
        gens, values = self.generations, self.values
        if self.journal is not None:
            out = list(map(values.get, names))
            # the nodes without an answer, in node order (as a walk computes them: the first
            # error wins), found at C speed
            missing: list[int] = []
            k = -1
            index = out.index
            try:
                while True:
                    k = index(None, k + 1)
                    missing.append(k)
            except ValueError:
                pass
        else:
            now = list(map(_GENERATION, nodes))
            missing = list(compress(range(len(names)), map(operator.ne, now, map(gens.get, names))))
            out = None
        statuses = self._statuses
        for k in missing:
            ni = nodes[k]
            v = compute(ni)
            if type(v) is Status and v.code:
                v = statuses.setdefault((v.code, v.plugin, v._reasons, v.error), v)
            name = names[k]
            values[name] = v
            gens[name] = ni.generation
            if out is not None:
                out[k] = v
        return out if out is not None else list(map(values.__getitem__, names))


class EquivalenceCache:
    """Answers per (profile, extension point, plugins, pod shape), then per node (NodeAnswers)."""

    def __init__(self, max_shapes: int = MAX_SHAPES, *, failed_cycles: bool = True) -> None:
        self.epoch = 0
        self.max_shapes = max_shapes
        self._shapes: dict[tuple, NodeAnswers] = {}
        # the journal of the scheduler's snapshot line (Scheduler sets it with the snapshot)
        self.journal: NodeJournal | None = None
        # whole failed cycles; None: every failed cycle runs afresh
        self.failed_cycles: FailedCycles | None = FailedCycles() if failed_cycles else None
        MEMORY.track(self)

    def remembered(self) -> int:
        """Answers kept: per node and pod shape (filters, scores, preemption dry runs), and whole
        failed cycles (model/memory.py sizes())."""
        kept = sum(len(a.values) for a in self._shapes.values())
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


class PodAnswers:
    """The cache as one scheduling cycle sees it: its profile and its pod's shapes fixed
    (framework.interface.EquivalenceAnswers). Node-local answers are kept per `node_shape` (what
    those plugins read); `shape` (what the whole cycle reads of the pod besides its labels) keys
    the failed cycles."""

    __slots__ = ("cache", "profile", "shape", "node_shape")

    def __init__(self, cache: EquivalenceCache, profile: str, shape: bytes, node_shape: bytes) -> None:
        self.cache = cache
        self.profile = profile
        self.shape = shape
        self.node_shape = node_shape

    def answers(self, point: str, plugins: tuple[str, ...]) -> NodeAnswers:
        assert point in REMEMBERED_POINTS, point  # the memories this cache holds are declared there
        got = self.cache.answers((self.profile, point, plugins, self.node_shape))
        got.catch_up(self.cache.journal)
        return got
