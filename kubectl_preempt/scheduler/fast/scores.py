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


class _ScoreColumns(ScoreTable):
    """A ScoreTable whose plain node-local columns (those summed in the remembered rows) are cut
    from the rows only when someone reads `columns` (an explanation, a test): a replay's cycle
    reads the totals only, and transposing a few hundred rows every cycle was a fifth of it."""

    __slots__ = ("_cols", "_rows", "_cut")

    def __init__(self, node_names: list[str], plugin_names: tuple[str, ...], columns: list,
                 totals: list[int], rows: list[tuple[int, ...]], cut: list[tuple[int, int, int]]) -> None:
        self.node_names = node_names
        self.plugin_names = plugin_names
        self.totals = totals
        self._cols = columns
        # (plugin position, its place in a row, its weight) of each column still in the rows
        self._rows: list[tuple[int, ...]] | None = rows
        self._cut = cut

    @property  # type: ignore[override]
    def columns(self) -> list:
        if self._rows is not None:
            rows, cols = self._rows, self._cols
            for i, k, w in self._cut:
                col = list(map(operator.itemgetter(k), rows))
                cols[i] = col if w == 1 else [x * w for x in col]
            self._rows = None
        return self._cols

    @columns.setter
    def columns(self, value: list) -> None:
        self._cols, self._rows = value, None


def run_score_plugins(fwk, state: CycleState, pod: Pod, nodes: list[NodeInfo],  # noqa: ANN001
                      equivalence: EquivalenceAnswers | None = None,
                      node_names: list[str] | None = None) -> tuple[ScoreTable, Status]:
    """What Framework.run_score_plugins gives, as columns (a ScoreTable), with four shortcuts:
    node-local plugins' raw scores come from `equivalence` (the scheduler's cache) for nodes it
    remembers unchanged; node-local plugins without a normalizer skip the range check and add up
    in their remembered rows (their columns cut from the rows only when read); a plugin that says
    it scores nothing for this pod (MemoTraits.scores_nothing) gets a column of zeros; a normalizer
    that declares normalize_values works on the plain values.
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
    weights = fwk.score_weights
    try:
        rows, partial = _node_local_columns(fwk, state, pod, nodes, node_names, plugins, local, plain, raw,
                                            equivalence)
        zero = _other_columns(fwk, state, pod, nodes, plugins, local, raw)
        _normalize(fwk, state, pod, node_names, plugins, zero, raw)
        weighted, totals = _weigh(weights, names, plain if rows is not None else [], zero, raw, partial, len(nodes))
    except _Refused as e:
        return ScoreTable([], names, [], []), e.status
    if rows is None:
        return ScoreTable(node_names, names, weighted, totals), SUCCESS
    cut = [(i, k, weights.get(names[i], 1)) for k, i in enumerate(local) if i in plain]
    return _ScoreColumns(node_names, names, weighted, totals, rows, cut), SUCCESS


def _node_local_columns(fwk, state: CycleState, pod: Pod, nodes: list[NodeInfo],  # noqa: ANN001
                        node_names: list[str], plugins: list, local: list[int], plain: list[int],
                        raw: list[Sequence[int]], equivalence: EquivalenceAnswers | None
                        ) -> tuple[list[tuple[int, ...]] | None, Sequence[int] | None]:
    """The node-local plugins' rows, a node's row taken from the cache when it remembers the node
    unchanged, and the raw columns of those with a normalizer, into `raw` (the `plain` ones stay
    in the rows); returns the rows and the column of each node's weighted sum of the `plain`
    ones (None, None without node-local plugins or nodes)."""
    if not local:
        return None, None
    weights = fwk.score_weights
    local_plugins = [plugins[i] for i in local]
    # each local plugin's weight in the row's sum: 0 for those with a normalizer (not summed here)
    plain_weights = [weights.get(plugins[i].name, 1) if i in plain else 0 for i in local]
    scorers = [(pl.name, pl.score) for pl in local_plugins]
    success = Code.Success
    share = None

    def row(ni: NodeInfo) -> tuple[int, ...]:
        out = []
        for name, score in scorers:
            sc, s = score(state, pod, ni)
            if s.code != success:
                raise _ScoreFailed(name, s)
            out.append(sc)
        out.append(sum(map(operator.mul, out, plain_weights)))
        return tuple(out) if share is None else share(tuple(out))

    try:
        if equivalence is not None:
            answers = equivalence.answers("score", tuple(pl.name for pl in local_plugins))
            share = getattr(answers, "shared", None)
            # the filter walk left where the feasible nodes lie in the layout: no lookups by name
            walk_of = getattr(equivalence, "walk_of", None)
            walk = walk_of(nodes, answers.snapshot) if walk_of is not None else None
            rows = answers.get(nodes, row, node_names) if walk is None else answers.get_walked(walk, nodes, row)
        else:
            rows = list(map(row, nodes))
    except _ScoreFailed as e:
        raise _failed(e.plugin, e.status) from None
    if not rows:
        return None, None
    for k, i in enumerate(local):
        if i not in plain:
            raw[i] = list(map(operator.itemgetter(k), rows))
    return rows, list(map(operator.itemgetter(-1), rows))


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


def _weigh(weights: dict, names: tuple[str, ...], plain: list[int], zero: set[int], raw: list[Sequence[int]],
           partial: Sequence[int] | None, n: int) -> tuple[list, list[int]]:
    """The range check and the weights (upstream's last phase), and each node's total: the
    weighted columns (None for the `plain` ones, summed in `partial` and left in the rows), and
    their sums. A column of zeros (`zero`) adds nothing; a column with one value for every node
    (TaintToleration's on untainted nodes) is checked and added as that one value."""
    weighted: list = []
    rest: list[Sequence[int]] = []  # the weighted columns, neither plain nor constant
    const = 0  # the sum of the constant ones
    for i, col in enumerate(raw):
        if i in plain:
            weighted.append(None)
            continue
        if i in zero or not col:
            weighted.append(col)
            continue
        first = col[0]
        same = col.count(first) == n
        if same:
            bad = first if first > MAX_NODE_SCORE or first < 0 else None
        elif max(col) > MAX_NODE_SCORE or min(col) < 0:
            bad = next(x for x in col if x > MAX_NODE_SCORE or x < 0)
        else:
            bad = None
        if bad is not None:
            raise _Refused(Status.as_error(
                f"plugin {quote(names[i])} returns an invalid score {bad}, it should in the range of "
                f"[0, {MAX_NODE_SCORE}] after normalizing", names[i]))
        w = weights.get(names[i], 1)
        if same:
            weighted.append(col if w == 1 else [first * w] * n)
            const += first * w
            continue
        col = col if w == 1 else list(map(operator.mul, col, repeat(w, n)))
        weighted.append(col)
        rest.append(col)
    if partial is not None:
        rest.append(partial)
    if not rest:
        totals = [const] * n
    elif len(rest) == 1 and const:
        totals = list(map(operator.add, rest[0], repeat(const, n)))  # one pass, not a copy then the sum
    else:
        if len(rest) == 1:
            totals = list(rest[0])
        elif len(rest) == 2:
            totals = list(map(operator.add, rest[0], rest[1]))
        else:
            totals = list(map(sum, zip(*rest)))
        if const:
            totals = list(map(operator.add, totals, repeat(const, n)))
    return weighted, totals
