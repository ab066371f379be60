"""The scheduler's one equivalence cache: what node-local plugins answered for a pod shape on a node.

One rule decides validity: an answer computed for a pod shape on a node is reused while that
node's generation holds (NodeInfo.generation moves on every change of its node, of its pods'
requests, ports and volumes, and of its image summaries) and the cluster epoch has not moved. The
epoch moves when the scheduler is handed a snapshot that does not carry on from its last one; a
replay's rebuilt snapshot (a node added, removed or moved in the node tree) carries the unchanged
NodeInfos over, generations included (Snapshot.from_cluster's `previous`).

Only plugins that declare themselves node-local for an extension point (`node_local` next to
their `name`) are answered from here; tests/scheduler/test_node_local.py holds each declaration to
"reads nothing but the pod and its NodeInfo". A pod shape is what those plugins can read of a
pod: its namespace, priority, preemption policy and whole spec.

The cache is passed to the Scheduler; None switches it off (explain's default: one cycle over a
snapshot does not pay for it) and gives the same answers, as tests/scheduler/test_equivalence_cache.py
checks over generated traces.
"""
from __future__ import annotations

import operator
from itertools import compress
from typing import Any, Callable, Sequence, TypeVar

import orjson

from ..framework.podinfo import pod_info
from ..framework.status import Status
from ..framework.types import NodeInfo
from ..model.objects import Pod

T = TypeVar("T")

_GENERATION = operator.attrgetter("generation")
_NAME = operator.attrgetter("node.name")
MAX_SHAPES = 64  # pod shapes remembered at once; the oldest is forgotten first


def pod_shape(pod: Pod) -> bytes | None:
    """What node-local plugins can read of a pod (None: the spec holds a value JSON cannot carry);
    kept in the pod's PodInfo, as a pod object does not change."""
    pi = pod.info or pod_info(pod)
    try:
        return pi.shape
    except AttributeError:
        pass
    try:
        shape: bytes | None = orjson.dumps((pod.namespace, pod.priority, pod.preemption_policy, pod.spec))
    except TypeError:
        shape = None
    pi.shape = shape
    return shape


class NodeAnswers:
    """One pod shape's answers from one group of plugins, per node name, each with the node
    generation it was computed at."""

    __slots__ = ("generations", "values", "_statuses")

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        self.values: dict[str, Any] = {}
        # equal rejections share one Status object, so counting reasons over thousands of nodes
        # counts a few objects (Status is immutable)
        self._statuses: dict[tuple, Status] = {}

    def get(self, nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T]) -> list[T]:
        """Each node's answer, from here while its generation holds, else `compute(node)`."""
        names = list(map(_NAME, nodes))
        now = list(map(_GENERATION, nodes))
        gens, values = self.generations, self.values
        for k in compress(range(len(names)), map(operator.ne, now, map(gens.get, names))):
            v = compute(nodes[k])
            if type(v) is Status and v.code:
                v = self._statuses.setdefault((v.code, v.plugin, v._reasons, v.error), v)
            values[names[k]] = v
            gens[names[k]] = now[k]
        return list(map(values.__getitem__, names))


class EquivalenceCache:
    """Answers per (profile, extension point, plugins, pod shape), then per node (NodeAnswers)."""

    def __init__(self, max_shapes: int = MAX_SHAPES) -> None:
        self.epoch = 0
        self.max_shapes = max_shapes
        self._shapes: dict[tuple, NodeAnswers] = {}

    def new_epoch(self) -> None:
        """The snapshot was replaced: nothing remembered holds any more."""
        self.epoch += 1
        self._shapes.clear()

    def for_pod(self, profile: str, pod: Pod) -> "PodAnswers | None":
        shape = pod_shape(pod)
        return None if shape is None else PodAnswers(self, profile, shape)

    def answers(self, key: tuple) -> NodeAnswers:
        got = self._shapes.get(key)
        if got is None:
            if len(self._shapes) >= self.max_shapes:
                del self._shapes[next(iter(self._shapes))]
            got = self._shapes[key] = NodeAnswers()
        return got


class PodAnswers:
    """The cache as one scheduling cycle sees it: its profile and its pod's shape fixed
    (framework.interface.EquivalenceAnswers)."""

    __slots__ = ("cache", "profile", "shape")

    def __init__(self, cache: EquivalenceCache, profile: str, shape: bytes) -> None:
        self.cache = cache
        self.profile = profile
        self.shape = shape

    def answers(self, point: str, plugins: tuple[str, ...]) -> NodeAnswers:
        return self.cache.answers((self.profile, point, plugins, self.shape))
