"""util/scheduler_helper.go: filter nodes, score them, sort them, pick the best."""
from __future__ import annotations

import bisect
import heapq
import random
from typing import Any, Callable

from ...framework.podinfo import UNSET, pod_info
from ...model.memory import MEMORY
from ...model.podshape import batch_shape
from ..api.job_info import TaskInfo
from ..api.node_info import NodeInfo


def predicate_nodes(task: TaskInfo, nodes: list[NodeInfo],
                    fn: Callable[[TaskInfo, NodeInfo], str | None],
                    reasons: dict[str, str] | None = None) -> list[NodeInfo]:
    """The nodes that pass; kube-batch checks them in parallel, so any order is one it can
    produce: ours is the order given. Refusals go into `reasons` by node."""
    out = []
    for n in nodes:
        err = fn(task, n)
        if err is None:
            out.append(n)
        elif reasons is not None:
            reasons[n.name] = err
    return out


def prioritize_nodes(task: TaskInfo, nodes: list[NodeInfo], configs: list) -> list[tuple[str, float]]:
    """mirrors PrioritizeNodes: per node the sum of each priority's score times its weight."""
    columns = [(cfg.function(task, nodes), cfg.weight) for cfg in configs]
    out = []
    for i, n in enumerate(nodes):
        score = 0.0
        for scores, weight in columns:
            score += float(scores[i] * weight)
        out.append((n.name, score))
    return out


def sort_nodes(priority_list: list[tuple[str, float]], nodes: dict) -> list[NodeInfo]:
    """mirrors SortNodes: highest score first, ties by the larger name first
    (sort.Reverse of score, then host name)."""
    ordered = sorted(priority_list, key=lambda hp: (hp[1], hp[0]), reverse=True)
    return [nodes[h] for h, _ in ordered]


def select_best_node(priority_list: list[tuple[str, float]], rng: random.Random) -> str:
    """mirrors SelectBestNode: one of the top-scored nodes, drawn at random (rand.Intn over
    findMaxScores) from the session's seeded generator."""
    best = max(s for _, s in priority_list)
    top = [h for h, s in priority_list if s == best]
    return top[rng.randrange(len(top))] if len(top) > 1 else top[0]


def get_node_list(nodes) -> list[NodeInfo]:
    return list(nodes.values())


def shape_key(task: TaskInfo) -> str:
    """What the predicates and the per-node priorities read of a task, as one key: tasks of one
    shape pass and score alike on a node in a given state (model/podshape.py batch_shape, kept in
    the pod's PodInfo)."""
    pi = task.pod.info or pod_info(task.pod)
    got = pi.batch_shape
    if got is UNSET:
        got = pi.batch_shape = batch_shape(task.pod.spec)
    return got


class NodeScoreCache:
    """Per task shape and node: whether the node passes and its score, kept while the node's
    tasks are unchanged (NodeInfo.gen). Used only where every priority's score of a node reads
    that node alone (see nodeorder.PER_NODE); the result is what predicate_nodes and
    prioritize_nodes give. A per-run memory under model/memory.py's switch: with every memory off
    it keeps nothing and each node is asked afresh."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], dict[str, tuple[int, bool, float]]] = {}
        MEMORY.track(self)

    def remembered(self) -> int:
        return sum(map(len, self.entries.values()))

    def feasible(self, kind: str, task: TaskInfo, nodes: list[NodeInfo],
                 fn: Callable[[TaskInfo, NodeInfo], str | None],
                 score: Callable[[TaskInfo, NodeInfo], float]) -> list[tuple[NodeInfo, float]]:
        entries = self.entries.setdefault((kind, shape_key(task)), {}) if MEMORY.on else {}
        out = []
        append = out.append
        get = entries.get
        for n in nodes:
            e = get(n.name)
            if e is None or e[0] != n.gen:
                ok = fn(task, n) is None
                e = entries[n.name] = (n.gen, ok, score(task, n) if ok else 0.0)
            if e[1]:
                append((n, e[2]))
        return out


def per_node_scorer(task: TaskInfo, configs: list, any_pod_affinity: bool
                    ) -> Callable[[TaskInfo, NodeInfo], float] | None:
    """The score of one node as prioritize_nodes sums it, when every configured priority reads
    that node alone: no pod in the session has pod (anti-)affinity and this pod prefers no nodes.
    None otherwise."""
    if any_pod_affinity:
        return None
    na = (task.pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    if na.get("preferredDuringSchedulingIgnoredDuringExecution"):
        return None
    parts = []
    for cfg in configs:
        fn = getattr(cfg, "node_function", None)
        if fn is not None:
            parts.append((fn, cfg.weight))
        elif not getattr(cfg, "zero_without_affinity", False):
            return None

    def score(t: TaskInfo, n: NodeInfo) -> float:
        total = 0.0
        for f, w in parts:
            total += float(f(t, n) * w)
        return total
    return score


class BestNodes:
    """For one task shape over one ordered node list: the nodes that pass and their scores, kept up
    to date from the session's log of changed nodes, with the passing nodes grouped by score in
    list order. best() gives what SelectBestNode draws from: the top-scored nodes, in the order
    prioritize_nodes would list them, without walking every node for every task."""

    def __init__(self, nodes: list[NodeInfo], log: list[str], task: TaskInfo,
                 fn: Callable[[TaskInfo, NodeInfo], str | None],
                 score: Callable[[TaskInfo, NodeInfo], float]) -> None:
        self.nodes = nodes
        self.pos = {n.name: i for i, n in enumerate(nodes)}
        self.log = log
        self.fn, self.score = fn, score
        self.state: dict[int, float | None] = {}
        # the refusal of each node that does not pass, as the predicate gave it
        self.refusals: dict[int, Any] = {}
        self.by_score: dict[float, list[int]] = {}
        self.heap: list[float] = []
        self.seen = len(log)
        for i, n in enumerate(nodes):
            self._set(i, task)

    def _set(self, i: int, task: TaskInfo) -> None:
        n = self.nodes[i]
        old = self.state.get(i)
        if old is not None:
            lst = self.by_score[old]
            del lst[bisect.bisect_left(lst, i)]
        err = self.fn(task, n)
        new = self.score(task, n) if err is None else None
        if err is None:
            self.refusals.pop(i, None)
        else:
            self.refusals[i] = err
        self.state[i] = new
        if new is not None:
            lst = self.by_score.get(new)
            if lst is None:
                lst = self.by_score[new] = []
                heapq.heappush(self.heap, -new)
            elif not lst:
                heapq.heappush(self.heap, -new)
            bisect.insort(lst, i)

    def best(self, task: TaskInfo) -> list[NodeInfo]:
        log, pos = self.log, self.pos
        if self.seen < len(log):
            for name in set(log[self.seen:]):
                i = pos.get(name)
                if i is not None:
                    self._set(i, task)
            self.seen = len(log)
        heap, by_score = self.heap, self.by_score
        while heap and not by_score.get(-heap[0]):
            heapq.heappop(heap)
        if not heap:
            return []
        return [self.nodes[i] for i in by_score[-heap[0]]]
