"""The filter walk, fast (the core beside schedule_one.py find_nodes_that_pass_filters)."""
from __future__ import annotations

import operator
from bisect import bisect_left
from itertools import compress
from typing import Any

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import Diagnosis
from ...framework.interface import EquivalenceAnswers, NamedNodes, is_node_local
# the codes as status.py names them: an Enum member read as Code.X is a metaclass lookup, and the
# walk without memory compares one per node (explain: 5,000)
from ...framework.status import Error, Success
from ...framework.types import NodeInfo
from ...model.objects import Pod
from .. import schedule_one as plain
from ..memo.equivalence import ANSWER_ERROR, ANSWER_SUCCESS, NodeAnswers, Walk

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
        return _walk_in_order(fwk, state, pod, diagnosis, nodes, names, start, to_find, answers, equivalence)
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
        if len(distinct) == 1 and next(iter(distinct)).code == Success:
            feasible.extend(step)
        elif all(st.code != Success for st in distinct):
            errors = [statuses.index(st) for st in distinct if st.code == Error]
            if errors:
                raise plain.SchedulingError(statuses[min(errors)].message())
            diagnosis.add_filter_rejections(step_names, statuses, distinct)
        else:
            codes = list(map(_CODE, statuses))
            if Error in codes:
                raise plain.SchedulingError(statuses[codes.index(Error)].message())
            feasible.extend(compress(step, map(operator.not_, codes)))
            diagnosis.add_filter_rejections(compress(step_names, codes), compress(statuses, codes))
    return feasible


def _walk_in_order(fwk, state: CycleState, pod: Pod, diagnosis: Diagnosis,  # noqa: ANN001
                   nodes: list[NodeInfo], names: list[str], start: int, to_find: int,
                   answers: NodeAnswers, equivalence: EquivalenceAnswers) -> list[NodeInfo]:
    """The walk over the whole snapshot from `start`, its answers read from `answers` (kept in
    node order) in place: the nodes the plain walk visits are those up to the one that makes
    `to_find` feasible, wrapping around; each one without an answer (or with pods nominated to
    it) is filtered in visiting order until that point is known, and the first Error among the
    visited nodes stops the cycle, as the plain walk's does. Only the visited stretch is copied
    (a tenth of a 5,000-node snapshot), and where the feasible nodes lie is left for the score
    core (PodAnswers.walked)."""
    n = len(nodes)
    values, states = answers.in_order(nodes)
    index = answers.index
    # the nodes with nominated pods are filtered with them, never answered from the cache
    nominated = fwk.nominator.by_node
    with_pods = sorted(k for k in map(index.get, nominated) if k is not None) if nominated else []
    own: dict[int, Any] = {}  # their statuses, by position
    run_filters = fwk.run_filter_plugins
    with_nominated = fwk.run_filter_plugins_with_nominated_pods
    compute = lambda ni: run_filters(state, pod, ni)  # noqa: E731
    # the visiting order is positions [start, n) then [0, start); `stretches` collects the
    # visited ones, and the walk ends where the `to_find`-th success is
    found = 0
    stretches: list[tuple[int, int]] = []
    done = False
    for lo, hi in ((start, n), (0, start)):
        pos = lo
        while pos < hi:
            # the next node to filter here: one without an answer, or one with nominated pods
            nxt = _index_of_none(values, pos, hi)
            w = bisect_left(with_pods, pos)
            if w < len(with_pods) and with_pods[w] < nxt:
                nxt = with_pods[w]
            got = states.count(ANSWER_SUCCESS, pos, nxt)
            if found + got >= to_find:
                stretches.append((lo, _nth_success(states, pos, nxt, to_find - found)))
                done = True
                break
            found += got
            if nxt == hi:
                break
            ni = nodes[nxt]
            if w < len(with_pods) and with_pods[w] == nxt:
                st = own[nxt] = with_nominated(state, pod, ni)
                found += st.code == Success
            else:
                answers.compute(nxt, ni, compute)
                found += answers.states[nxt] == ANSWER_SUCCESS
            pos = nxt + 1
            if found >= to_find:
                stretches.append((lo, pos))
                done = True
                break
        if done:
            break
        stretches.append((lo, hi))
    # the visited stretch, in visiting order
    if len(stretches) == 1:
        (lo, hi), = stretches
        seen_states, seen_values = states[lo:hi], values[lo:hi]
    else:
        (lo, hi), (lo2, hi2) = stretches
        seen_states = states[lo:hi] + states[lo2:hi2]
        seen_values = values[lo:hi] + values[lo2:hi2]
    for k, st in own.items():
        r = k - start if k >= start else k + n - start
        if r < len(seen_states):
            seen_values[r] = st
            seen_states[r] = ANSWER_SUCCESS if st.code == Success else (
                ANSWER_ERROR if st.code == Error else 0)
    error = seen_states.find(ANSWER_ERROR)
    if error >= 0:
        raise plain.SchedulingError(seen_values[error].message())
    # the feasible nodes cut from the visited stretches (no Error is left: a state is
    # ANSWER_SUCCESS or 0, a rejection); the rejected NodeInfos are not touched
    visited = len(seen_states)
    seen_nodes = nodes[lo:hi] if len(stretches) == 1 else nodes[lo:hi] + nodes[lo2:hi2]
    seen_names = names[lo:hi] if len(stretches) == 1 else names[lo:hi] + names[lo2:hi2]
    if seen_states.count(ANSWER_SUCCESS) == visited:
        feasible, walk = NamedNodes(seen_nodes, seen_names), Walk(stretches, None)
    else:
        feasible = NamedNodes(compress(seen_nodes, seen_states), list(compress(seen_names, seen_states)))
        walk = Walk(stretches, seen_states)
        diagnosis.add_masked_filter_rejections(seen_names, seen_values, seen_states.translate(_REJECTED))
    walked = getattr(equivalence, "walked", None)
    if walked is not None:
        walked(feasible, walk, answers.snapshot)
    return feasible


def _index_of_none(values: list, lo: int, hi: int) -> int:
    """The first position in [lo, hi) holding None, else hi (found at C speed)."""
    try:
        return values.index(None, lo, hi)
    except ValueError:
        return hi


def _nth_success(states: bytearray, lo: int, hi: int, nth: int) -> int:
    """The position after the `nth` ANSWER_SUCCESS in states[lo:hi] (there are at least `nth`),
    counted at C speed, halving the range."""
    lo_end, hi_end = lo + nth, hi  # the answer lies in [lo_end, hi_end]
    while lo_end < hi_end:
        mid = (lo_end + hi_end) // 2
        if states.count(ANSWER_SUCCESS, lo, mid) >= nth:
            hi_end = mid
        else:
            lo_end = mid + 1
    return lo_end
