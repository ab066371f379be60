"""Score as columns (the fast core of framework/runtime.py Framework.run_score_plugins)."""
from __future__ import annotations

import operator
from itertools import repeat
from typing import Sequence

from ...errors import quote
from ...framework.cycle_state import CycleState
from ...framework.interface import (MAX_NODE_SCORE, EquivalenceAnswers, NodeScore, ScoreTable, is_node_local,
                                    memo_traits)
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...model.objects import Pod

_NAME = operator.attrgetter("name")


class _ScoreFailed(Exception):
    def __init__(self, plugin: str, status: Status) -> None:
        self.plugin, self.status = plugin, status


class _Refused(Exception):
    """A phase's error Status, as Framework.run_score_plugins returns it (the table then empty)."""

    def __init__(self, status: Status) -> None:
        self.status = status


def _failed(plugin: str, status: Status) -> _Refused:
    return _Refused(Status.as_error(f"plugin {quote(plugin)} failed with: {status.message()}", plugin))


def _extensions(plugin):  # noqa: ANN001, ANN202 - the plugin's ScoreExtensions (its normalizer), None without
    return plugin.score_extensions() if hasattr(plugin, "score_extensions") else None


def run_score_plugins(fwk, state: CycleState, pod: Pod, nodes: list[NodeInfo],  # noqa: ANN001
                      equivalence: EquivalenceAnswers | None = None,
                      node_names: list[str] | None = None) -> tuple[ScoreTable, Status]:
    """What Framework.run_score_plugins gives, as columns (a ScoreTable), with four shortcuts:
    node-local plugins' raw scores come from `equivalence` (the scheduler's cache) for nodes it
    remembers unchanged; node-local plugins without a normalizer skip the range check and add up
    in their remembered rows; a plugin that says it scores nothing for this pod (MemoTraits.scores_nothing)
    gets a column of zeros; a normalizer that declares normalize_values works on the plain values.
    `node_names`: the nodes' names, when the caller has them. The phases follow upstream's
    (runtime/framework.go RunScorePlugins): score each plugin over the nodes, normalize, weigh."""
    skip = state.skip_score_plugins
    plugins = [pl for pl in fwk.score_plugins if pl.name not in skip] if skip else fwk.score_plugins
    names = tuple(pl.name for pl in plugins)
    if node_names is None:
        node_names = list(map(_NAME, nodes))
    # node-local plugins without a normalizer (NodeResourcesFit, BalancedAllocation,
    # ImageLocality): in-tree, their scores lie in [0, MaxNodeScore] by construction, so no
    # range check; their weighted sum is kept in each remembered row, added once per node
    local = [i for i, pl in enumerate(plugins) if is_node_local(pl, "score")]
    plain = [i for i in local if _extensions(plugins[i]) is None]
    raw: list[Sequence[int]] = [()] * len(plugins)
    try:
        partial = _node_local_columns(fwk, state, pod, nodes, node_names, plugins, local, plain, raw, equivalence)
        zero = _other_columns(fwk, state, pod, nodes, plugins, local, raw)
        _normalize(fwk, state, pod, node_names, plugins, zero, raw)
        weighted, totals = _weigh(fwk.score_weights, names, plain, raw, partial, len(nodes))
    except _Refused as e:
        return ScoreTable([], names, [], []), e.status
    return ScoreTable(node_names, names, weighted, totals), SUCCESS


def _node_local_columns(fwk, state: CycleState, pod: Pod, nodes: list[NodeInfo],  # noqa: ANN001
                        node_names: list[str], plugins: list, local: list[int], plain: list[int],
                        raw: list[Sequence[int]], equivalence: EquivalenceAnswers | None) -> Sequence[int] | None:
    """The node-local plugins' raw columns, into `raw`, a node's row taken from the cache when it
    remembers the node unchanged; returns the column of each node's weighted sum of the `plain`
    ones (None without node-local plugins or nodes)."""
    if not local:
        return None
    weights = fwk.score_weights
    local_plugins = [plugins[i] for i in local]
    plain_weights = [(k, weights.get(plugins[i].name, 1)) for k, i in enumerate(local) if i in plain]

    def row(ni: NodeInfo) -> tuple[int, ...]:
        out = []
        for pl in local_plugins:
            sc, s = pl.score(state, pod, ni)
            if s.code != Code.Success:
                raise _ScoreFailed(pl.name, s)
            out.append(sc)
        out.append(sum(out[k] * w for k, w in plain_weights))
        return tuple(out)

    try:
        if equivalence is not None:
            rows = equivalence.answers("score", tuple(pl.name for pl in local_plugins)).get(nodes, row, node_names)
        else:
            rows = list(map(row, nodes))
    except _ScoreFailed as e:
        raise _failed(e.plugin, e.status) from None
    if not rows:
        return None
    cols = list(zip(*rows))
    for i, col in zip(local, cols):
        raw[i] = col
    return cols[-1]


def _other_columns(fwk, state: CycleState, pod: Pod, nodes: list[NodeInfo], plugins: list,  # noqa: ANN001
                   local: list[int], raw: list[Sequence[int]]) -> set[int]:
    """The other plugins' raw columns, into `raw`, node by node as upstream scores them; returns
    the plugins that scored nothing. A plugin may know that for this pod every node scores 0 and
    normalizing keeps 0 (DynamicResources for a pod without claims): its column stays zeros,
    nothing to call."""
    n = len(nodes)
    zero = {i for i, pl in enumerate(plugins)
            if i not in local and fwk.memo_traits[pl.name].scores_nothing(state, pod)}
    for i, pl in enumerate(plugins):
        if i in local:
            continue
        if i in zero:
            raw[i] = [0] * n
            continue
        col = [0] * n
        for j, ni in enumerate(nodes):
            sc, s = pl.score(state, pod, ni)
            if s.code != Code.Success:
                raise _failed(pl.name, s)
            col[j] = sc
        raw[i] = col
    return zero


def _normalize(fwk, state: CycleState, pod: Pod, node_names: list[str], plugins: list,  # noqa: ANN001
               zero: set[int], raw: list[Sequence[int]]) -> None:
    """Each normalizer over its plugin's column, in `raw` (upstream's NormalizeScore phase)."""
    for i, pl in enumerate(plugins):
        ext = _extensions(pl) if i not in zero else None
        if ext is None:
            continue
        # the same normalizer on the plain scores, when the extension declares one
        fast = (fwk.memo_traits[pl.name] if ext is pl else memo_traits(ext)).normalize_values(
            state, pod, list(raw[i]))
        if fast is not None:
            raw[i] = fast
            continue
        ns = [NodeScore(nm, sc) for nm, sc in zip(node_names, raw[i])]
        s = ext.normalize_score(state, pod, ns)
        if not s.is_success():
            raise _failed(pl.name, s)
        raw[i] = [x.score for x in ns]


def _weigh(weights: dict, names: tuple[str, ...], plain: list[int], raw: list[Sequence[int]],
           partial: Sequence[int] | None, n: int) -> tuple[list[Sequence[int]], list[int]]:
    """The range check and the weights (upstream's last phase), and each node's total: the
    weighted columns, and their sums (the plain node-local ones already summed in `partial`)."""
    weighted: list[Sequence[int]] = []
    rest: list[Sequence[int]] = []  # the weighted columns not in `partial`
    for i, col in enumerate(raw):
        if i not in plain and col and (max(col) > MAX_NODE_SCORE or min(col) < 0):
            sc = next(x for x in col if x > MAX_NODE_SCORE or x < 0)
            raise _Refused(Status.as_error(
                f"plugin {quote(names[i])} returns an invalid score {sc}, it should in the range of "
                f"[0, {MAX_NODE_SCORE}] after normalizing", names[i]))
        w = weights.get(names[i], 1)
        col = col if w == 1 else list(map(operator.mul, col, repeat(w, n)))
        weighted.append(col)
        if i not in plain:
            rest.append(col)
    if partial is not None:
        rest.append(partial)
    if not rest:
        totals = [0] * n
    elif len(rest) == 1:
        totals = list(rest[0])
    elif len(rest) == 2:
        totals = list(map(operator.add, rest[0], rest[1]))
    else:
        totals = list(map(sum, zip(*rest)))
    return weighted, totals
