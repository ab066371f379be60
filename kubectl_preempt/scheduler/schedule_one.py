"""One scheduling cycle of one pod, as schedule_one.go's schedulingCycle up to Reserve.

The cycle returns its decision as one frozen record (CycleResult, with the preemption's
PreemptionRecord on the failure path); nothing here formats text for people.
"""
from __future__ import annotations

import operator
import random
from itertools import compress
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, fit_error_message
from ..framework.interface import NodePluginScores, PostFilterResult, ScoreTable
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..preemption.evaluator import RECORD_KEY

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5

SCHEDULED = "Scheduled"
PREEMPTED = "Preempted"
UNSCHEDULABLE = "Unschedulable"


@dataclass(frozen=True)
class CycleResult:
    """The decision of one cycle: where the pod goes, or why not and what preemption did."""

    pod: Pod
    outcome: str
    num_all_nodes: int
    suggested_host: str = ""
    feasible_nodes: list[str] = field(default_factory=list)
    node_scores: Sequence[NodePluginScores] = field(default_factory=list)
    best_nodes: list[str] = field(default_factory=list)
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    message: str = ""
    post_filter_result: PostFilterResult | None = None
    post_filter_status: Status | None = None
    preemption: PreemptionRecord | None = None  # what DefaultPreemption saw and decided, when it ran
    error: str | None = None
    evaluated_nominated_node: bool = False
    processed_nodes: int = 0

    @property
    def preempted(self) -> PreemptionRecord | None:
        """The preemption record when the cycle nominated a node by preempting, else None."""
        p = self.preemption
        return p if self.outcome == PREEMPTED and p is not None and p.selected is not None else None


def num_feasible_nodes_to_find(fwk: Framework, num_all_nodes: int) -> int:
    # mirrors numFeasibleNodesToFind
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = fwk.percentage_of_nodes_to_score
    if pct is None:
        pct = fwk.global_percentage_of_nodes_to_score
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


def find_nodes_that_pass_filters(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                                 nodes: list[NodeInfo], start_index: int = 0) -> list[NodeInfo]:
    num_all = len(nodes)
    if num_all == 0:
        return []
    to_find = num_feasible_nodes_to_find(fwk, num_all)
    if not fwk.has_score_plugins():
        to_find = 1
    if not fwk.has_filter_plugins():
        return [nodes[(start_index + i) % num_all] for i in range(to_find)]
    cache = fwk.filter_cache(state, pod)
    if cache is not None:
        return _pass_filters_memoized(fwk, cache, state, pod, diagnosis, nodes, start_index, to_find)
    feasible: list[NodeInfo] = []
    nominated = fwk.nominator.by_node
    status_map = diagnosis.node_to_status.statuses
    unschedulable = diagnosis.unschedulable_plugins
    for i in range(num_all):
        ni = nodes[(start_index + i) % num_all]
        st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        code = st.code
        if code == Code.Success:
            feasible.append(ni)
            if len(feasible) >= to_find:
                break
        elif code == Code.Error:
            raise SchedulingError(st.message())
        else:
            status_map[ni.node.name] = st
            if st.plugin:  # mirrors Diagnosis.AddPluginStatus for a rejection
                unschedulable.add(st.plugin)
                if code == Code.Pending:
                    diagnosis.pending_plugins.add(st.plugin)
    return feasible


def _pass_filters_memoized(fwk: Framework, memo: Any, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                           nodes: list[NodeInfo], start_index: int, to_find: int) -> list[NodeInfo]:
    """The same walk as find_nodes_that_pass_filters, over answers remembered per node generation.

    Every active filter reads only the pod and one NodeInfo, so a node whose generation has not
    moved answers as before. A node with pods nominated to it is filtered afresh, both passes.
    """
    n = len(nodes)
    memo.align(nodes)
    # a walk that will stop early visits only some nodes; one that will not (too few feasible
    # last time) is faster over all of them at once. Either way the answers are the same.
    if to_find < n and memo.ok.count(True) >= to_find:
        return _walk_until_enough(fwk, memo, state, pod, diagnosis, nodes, start_index % n, to_find)
    memo.refresh(fwk, state, pod, nodes)
    statuses, ok_flags = memo.statuses, memo.ok
    nominated = fwk.nominator.by_node
    if nominated:
        statuses, ok_flags = list(statuses), list(ok_flags)
        for name in nominated:
            i = memo.index.get(name)
            if i is not None:
                st = statuses[i] = fwk.run_filter_plugins_with_nominated_pods(state, pod, nodes[i])
                ok_flags[i] = st.code == Code.Success
    start_index %= n
    order = list(range(start_index, n)) + list(range(start_index)) if start_index else range(n)
    ok = list(compress(order, map(ok_flags.__getitem__, order)))
    if len(ok) > to_find:
        ok = ok[:to_find]
        # the walk stops at the last feasible node it needs: nodes after it are not visited
        order = order[:(ok[-1] - start_index) % n + 1]
    failed = list(compress(order, map(operator.not_, map(ok_flags.__getitem__, order))))
    distinct = set(map(statuses.__getitem__, failed))
    for st in distinct:
        if st.code == Code.Error:
            first = next(i for i in failed if statuses[i].code == Code.Error)
            raise SchedulingError(statuses[first].message())
    names = memo.names
    diagnosis.node_to_status.statuses.update(zip(map(names.__getitem__, failed), map(statuses.__getitem__, failed)))
    for st in distinct:
        if st.plugin:  # mirrors Diagnosis.AddPluginStatus for a rejection
            diagnosis.unschedulable_plugins.add(st.plugin)
            if st.code == Code.Pending:
                diagnosis.pending_plugins.add(st.plugin)
    return list(map(nodes.__getitem__, ok))


def _walk_until_enough(fwk: Framework, memo: Any, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                       nodes: list[NodeInfo], start_index: int, to_find: int) -> list[NodeInfo]:
    """The walk that may stop early (fewer feasible nodes wanted than there are nodes): only the
    nodes it visits are brought up to date."""
    nominated = fwk.nominator.by_node
    names, gens, statuses, ok_flags = memo.names, memo.gens, memo.statuses, memo.ok
    n = len(nodes)
    feasible: list[NodeInfo] = []
    status_map = diagnosis.node_to_status.statuses
    unschedulable = diagnosis.unschedulable_plugins
    for k in range(n):
        i = (start_index + k) % n
        ni = nodes[i]
        name = names[i]
        if name in nominated:
            st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        elif gens[i] == ni.generation:
            st = statuses[i]
        else:
            st = statuses[i] = fwk.intern_status(fwk.run_filter_plugins(state, pod, ni))
            ok_flags[i] = st.code == Code.Success
            gens[i] = ni.generation
        code = st.code
        if code == Code.Success:
            feasible.append(ni)
            if len(feasible) >= to_find:
                break
        elif code == Code.Error:
            raise SchedulingError(st.message())
        else:
            status_map[name] = st
            if st.plugin:  # mirrors Diagnosis.AddPluginStatus for a rejection
                unschedulable.add(st.plugin)
                if code == Code.Pending:
                    diagnosis.pending_plugins.add(st.plugin)
    return feasible


class SchedulingError(Exception):
    """A plugin returned Error: the cycle stops, as upstream's does."""


def find_nodes_that_fit_pod(fwk: Framework, state: CycleState, pod: Pod, start_index: int = 0
                            ) -> tuple[list[NodeInfo], Diagnosis, bool]:
    """mirrors findNodesThatFitPod; the flag says the nominated node was tried first and fit."""
    diagnosis = Diagnosis()
    all_nodes = fwk.snapshot.list()
    pre_res, s, unsched_plugins = fwk.run_pre_filter_plugins(state, pod)
    diagnosis.unschedulable_plugins = set(unsched_plugins)
    if not s.is_success():
        if not s.is_rejected():
            raise SchedulingError(s.message())
        diagnosis.node_to_status.absent = s
        diagnosis.pre_filter_msg = s.message()
        diagnosis.add_plugin_status(s)
        return [], diagnosis, False
    if pod.nominated_node_name:
        ni = fwk.snapshot.get(pod.nominated_node_name)
        if ni is not None:
            feasible = find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [ni])
            if feasible:
                return feasible, diagnosis, True
    nodes = all_nodes
    if pre_res is not None and not pre_res.all_nodes():
        nodes = [fwk.snapshot.get(n) for n in sorted(pre_res.node_names or ()) if fwk.snapshot.get(n) is not None]
        # keep snapshot order, as upstream iterates the snapshot for the names it was given
        order = {ni.name: i for i, ni in enumerate(all_nodes)}
        nodes.sort(key=lambda ni: order[ni.name])
        names = "[" + " ".join(sorted(unsched_plugins)) + "]"
        diagnosis.node_to_status.absent = Status(Code.UnschedulableAndUnresolvable,
                                                 f"node(s) didn't satisfy plugin(s) {names}")
    feasible = find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, start_index)
    return feasible, diagnosis, False


def prioritize_nodes(fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Sequence[NodePluginScores]:
    if not fwk.has_score_plugins():
        return [NodePluginScores(ni.name, (), [], 1) for ni in nodes]
    s = fwk.run_pre_score_plugins(state, pod, nodes)
    if not s.is_success():
        raise SchedulingError(s.message())
    scores, s = fwk.run_score_plugins(state, pod, nodes)
    if not s.is_success():
        raise SchedulingError(s.message())
    return scores


def schedule_one(fwk: Framework, pod: Pod, *, start_index: int = 0, rng: random.Random | None = None,
                 run_post_filter: bool = True) -> CycleResult:
    """Run one scheduling cycle: filter, score, select; on failure, PostFilter (preemption)."""
    n = fwk.snapshot.num_nodes()
    state = CycleState()
    if n == 0:
        return CycleResult(pod, UNSCHEDULABLE, 0, message="no nodes available to schedule pods",
                           error="no nodes available to schedule pods")
    try:
        feasible, diagnosis, nominated_fit = find_nodes_that_fit_pod(fwk, state, pod, start_index)
        processed = len(feasible) + len(diagnosis.node_to_status)
        if feasible:
            names = [ni.name for ni in feasible]
            if len(feasible) == 1:
                return CycleResult(pod, SCHEDULED, n, suggested_host=names[0], feasible_nodes=names,
                                   best_nodes=names[:1], diagnosis=diagnosis,
                                   evaluated_nominated_node=nominated_fit, processed_nodes=processed)
            scores = prioritize_nodes(fwk, state, pod, feasible)
            if isinstance(scores, ScoreTable):
                totals, scored = scores.totals, scores.node_names
            else:
                totals, scored = [s.total_score for s in scores], [s.name for s in scores]
            top = max(totals)
            best = [n for n, t in zip(scored, totals) if t == top]
            # upstream picks one of the best at random (reservoir sampling); the first is ours by default
            host = rng.choice(best) if rng is not None else best[0]
            return CycleResult(pod, SCHEDULED, n, suggested_host=host, feasible_nodes=names, node_scores=scores,
                               best_nodes=best, diagnosis=diagnosis, evaluated_nominated_node=nominated_fit,
                               processed_nodes=processed)
    except SchedulingError as e:
        return CycleResult(pod, UNSCHEDULABLE, n, message=str(e), error=str(e))
    outcome, result, status, record = UNSCHEDULABLE, None, None, None
    if run_post_filter and fwk.has_post_filter_plugins():
        result, status = fwk.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
        diagnosis.post_filter_msg = status.message()
        record = state.get(RECORD_KEY)
        if status.is_success() and result is not None and result.nominated_node_name:
            outcome = PREEMPTED
    return CycleResult(pod, outcome, n, diagnosis=diagnosis, message=fit_error_message(n, diagnosis),
                       post_filter_result=result, post_filter_status=status, preemption=record,
                       processed_nodes=processed)
