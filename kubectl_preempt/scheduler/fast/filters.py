"""The filter walk, fast (the core beside schedule_one.py find_nodes_that_pass_filters)."""
from __future__ import annotations

import operator
from bisect import bisect_left
from itertools import compress

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import Diagnosis
from ...framework.interface import EquivalenceAnswers, is_node_local
from ...framework.status import Code
from ...framework.types import NodeInfo
from ...model.objects import Pod
from .. import schedule_one as plain
from ..memo.equivalence import ANSWER_ERROR, ANSWER_SUCCESS, NodeAnswers

_CODE = operator.attrgetter("code")
_NODE_NAME = operator.attrgetter("name")
# a walk's state bytes turned into "rejected" bytes (every state but ANSWER_SUCCESS)
_REJECTED = bytes(0 if b == ANSWER_SUCCESS else 1 for b in range(256))


def find_nodes_that_pass_filters(fwk, state: CycleState, pod: Pod, diagnosis: Diagnosis,  # noqa: ANN001
                                 nodes: list[NodeInfo], start_index: int = 0,
                                 equivalence: EquivalenceAnswers | None = None) -> list[NodeInfo]:
    """What schedule_one.find_nodes_that_pass_filters gives, with each visited node's status taken
    from the equivalence cache when its node-local filters answered for this pod shape on the
    unchanged node, and the rejections recorded through the diagnosis in one place.

    A node with pods nominated to it is always filtered with them (both passes), never from the
    cache. Over the snapshot's own node list with the cache, the walk reads the remembered
    answers as slices in node order (_walk_in_order); otherwise it goes in steps of as many nodes
    as feasible ones are still missing: each of them must be visited anyway, so every step visits
    exactly the nodes the plain walk visits."""
    num_all = len(nodes)
    if num_all == 0:
        return []
    to_find = plain.num_feasible_nodes_to_find(fwk, num_all)
    if not fwk.has_score_plugins():
        to_find = 1
    start = start_index % num_all
    snapshot = fwk.snapshot
    whole = nodes is snapshot.list()
    if whole:
        names = snapshot.node_names
    else:
        names = list(map(_NODE_NAME, nodes))
    if not fwk.has_filter_plugins():
        order = nodes[start:] + nodes[:start] if start else nodes
        return order[:to_find]
    answers = None
    if equivalence is not None:
        active = [pl for pl in fwk.filter_plugins if pl.name not in state.skip_filter_plugins]
        if all(is_node_local(pl, "filter") for pl in active):
            answers = equivalence.answers("filter", tuple(pl.name for pl in active))
    if answers is not None and whole and answers.snapshot is snapshot:
        return _walk_in_order(fwk, state, pod, diagnosis, nodes, names, start, to_find, answers)
    order = nodes[start:] + nodes[:start] if start else nodes
    order_names = names[start:] + names[:start] if start else names
    nominated = fwk.nominator.by_node
    with_nominated = fwk.run_filter_plugins_with_nominated_pods
    feasible: list[NodeInfo] = []
    visited = 0
    while visited < num_all and len(feasible) < to_find:
        end = visited + to_find - len(feasible)
        step, step_names = order[visited:end], order_names[visited:end]
        visited += len(step)
        if answers is None:
            statuses = [with_nominated(state, pod, ni) for ni in step]
        else:
            statuses = answers.get(step, lambda ni: fwk.run_filter_plugins(state, pod, ni), step_names)
            if nominated:
                for k, name in enumerate(step_names):
                    if name in nominated:
                        statuses[k] = with_nominated(state, pod, step[k])
        # equal answers are one object (a success always is): decide per distinct object
        distinct = set(statuses)
        if len(distinct) == 1 and next(iter(distinct)).code == Code.Success:
            feasible.extend(step)
        elif all(st.code != Code.Success for st in distinct):
            errors = [statuses.index(st) for st in distinct if st.code == Code.Error]
            if errors:
                raise plain.SchedulingError(statuses[min(errors)].message())
            diagnosis.add_filter_rejections(step_names, statuses, distinct)
        else:
            codes = list(map(_CODE, statuses))
            if Code.Error in codes:
                raise plain.SchedulingError(statuses[codes.index(Code.Error)].message())
            feasible.extend(compress(step, map(operator.not_, codes)))
            diagnosis.add_filter_rejections(compress(step_names, codes), compress(statuses, codes))
    return feasible


def _walk_in_order(fwk, state: CycleState, pod: Pod, diagnosis: Diagnosis,  # noqa: ANN001
                   nodes: list[NodeInfo], names: list[str], start: int, to_find: int,
                   answers: NodeAnswers) -> list[NodeInfo]:
    """The walk over the whole snapshot from `start`, its answers read from `answers` (kept in
    node order) as slices: the nodes the plain walk visits are those up to the one that makes
    `to_find` feasible, wrapping around; each one without an answer (or with pods nominated to
    it) is filtered in visiting order until that point is known, and the first Error among the
    visited nodes stops the cycle, as the plain walk's does."""
    n = len(nodes)
    values, states = answers.in_order(nodes)
    index = answers.index
    # what the walk must compute: the nodes without an answer, and those with nominated pods
    # (never answered from the cache), as positions counted from `start`
    nominated = fwk.nominator.by_node
    with_pods = {k for k in map(index.get, nominated) if k is not None} if nominated else ()
    pending = answers.missing.union(with_pods) if with_pods else answers.missing
    if pending:
        got = sorted(pending)
        cut = bisect_left(got, start)
        pending = [k - start for k in got[cut:]] + [k + n - start for k in got[:cut]]
    values = values[start:] + values[:start] if start else list(values)
    states = states[start:] + states[:start] if start else bytearray(states)
    if pending:
        run_filters = fwk.run_filter_plugins
        with_nominated = fwk.run_filter_plugins_with_nominated_pods
        compute = lambda ni: run_filters(state, pod, ni)  # noqa: E731
        found, counted = 0, 0
        for r in pending:
            found += states.count(ANSWER_SUCCESS, counted, r)
            counted = r
            if found >= to_find:
                break  # the walk stops before this node
            k = r + start - n if r + start >= n else r + start
            ni = nodes[k]
            if k in with_pods:
                st = with_nominated(state, pod, ni)
                states[r] = ANSWER_SUCCESS if st.code == Code.Success else (
                    ANSWER_ERROR if st.code == Code.Error else 0)
            else:
                st = answers.compute(k, ni, compute)
                states[r] = answers.states[k]
            values[r] = st
    # the node that makes `to_find` feasible ends the walk (every node when none does)
    visited = _end_of_walk(states, to_find)
    error = states.find(ANSWER_ERROR, 0, visited)
    if error >= 0:
        raise plain.SchedulingError(values[error].message())
    order = nodes[start:] + nodes[:start] if start else nodes
    if visited < n:
        states = states[:visited]
        order = order[:visited]
        values = values[:visited]
    feasible = list(compress(order, states))
    if len(feasible) < visited:
        rejected = states.translate(_REJECTED)
        order_names = names[start:visited + start] + names[:max(0, visited + start - n)]
        diagnosis.add_filter_rejections(compress(order_names, rejected), compress(values, rejected))
    return feasible


def _end_of_walk(states: bytearray, to_find: int) -> int:
    """The number of nodes the walk visits: up to and with the `to_find`-th ANSWER_SUCCESS, all of
    them when there are fewer (counted at C speed, halving the range)."""
    n = len(states)
    if states.count(ANSWER_SUCCESS) < to_find:
        return n
    lo, hi = to_find, n  # the answer lies in [lo, hi]: states[:hi] holds to_find successes
    while lo < hi:
        mid = (lo + hi) // 2
        if states.count(ANSWER_SUCCESS, 0, mid) >= to_find:
            hi = mid
        else:
            lo = mid + 1
    return lo
