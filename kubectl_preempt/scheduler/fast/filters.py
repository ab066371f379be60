"""The filter walk in steps (the fast core of schedule_one.py find_nodes_that_pass_filters)."""
from __future__ import annotations

import operator
from itertools import compress

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import Diagnosis
from ...framework.interface import EquivalenceAnswers, is_node_local
from ...framework.status import Code
from ...framework.types import NodeInfo
from ...model.objects import Pod
from .. import schedule_one as plain

_CODE = operator.attrgetter("code")
_NODE_NAME = operator.attrgetter("name")


def find_nodes_that_pass_filters(fwk, state: CycleState, pod: Pod, diagnosis: Diagnosis,  # noqa: ANN001
                                 nodes: list[NodeInfo], start_index: int = 0,
                                 equivalence: EquivalenceAnswers | None = None) -> list[NodeInfo]:
    """What schedule_one.find_nodes_that_pass_filters gives, with each visited node's status taken
    from the equivalence cache when its node-local filters answered for this pod shape on the
    unchanged node, and the rejections recorded through the diagnosis in one place.

    A node with pods nominated to it is always filtered with them (both passes), never from the
    cache. The walk goes in steps of as many nodes as feasible ones are still missing: each of
    them must be visited anyway, so every step visits exactly the nodes the plain walk visits."""
    num_all = len(nodes)
    if num_all == 0:
        return []
    to_find = plain.num_feasible_nodes_to_find(fwk, num_all)
    if not fwk.has_score_plugins():
        to_find = 1
    start = start_index % num_all
    snapshot = fwk.snapshot
    if nodes is snapshot.list():
        names = snapshot.node_names
    else:
        names = list(map(_NODE_NAME, nodes))
    order = nodes[start:] + nodes[:start] if start else nodes
    order_names = names[start:] + names[:start] if start else names
    if not fwk.has_filter_plugins():
        return order[:to_find]
    answers = None
    if equivalence is not None:
        active = [pl for pl in fwk.filter_plugins if pl.name not in state.skip_filter_plugins]
        if all(is_node_local(pl, "filter") for pl in active):
            answers = equivalence.answers("filter", tuple(pl.name for pl in active))
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
