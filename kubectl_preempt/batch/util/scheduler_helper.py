"""util/scheduler_helper.go: filter nodes, score them, sort them, pick the best."""
from __future__ import annotations

import random
from typing import Callable

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
