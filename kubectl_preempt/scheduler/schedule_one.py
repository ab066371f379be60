"""One scheduling cycle of one pod, as schedule_one.go's schedulingCycle up to Reserve.

The cycle returns its decisions as data (CycleResult); nothing here formats text for people.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, fit_error_message
from ..framework.interface import NodePluginScores, PostFilterResult, ScoreTable
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5

SCHEDULED = "Scheduled"
PREEMPTED = "Preempted"
UNSCHEDULABLE = "Unschedulable"


@dataclass
class CycleResult:
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
    error: str | None = None
    evaluated_nominated_node: bool = False
    processed_nodes: int = 0

    @property
    def nominated_node(self) -> str:
        r = self.post_filter_result
        return r.nominated_node_name if r is not None else ""


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
    feasible: list[NodeInfo] = []
    cache = fwk.filter_cache(state, pod)
    nominated = fwk.nominator.by_node
    status_map = diagnosis.node_to_status.statuses
    unschedulable = diagnosis.unschedulable_plugins
    for i in range(num_all):
        ni = nodes[(start_index + i) % num_all]
        name = ni.node.name
        if cache is not None and name not in nominated:
            # no pods nominated here, so the nominated-pods pass is one plain pass; and every active
            # filter reads only the pod and this NodeInfo, so an answer for this state still holds
            hit = cache.get(name)
            if hit is not None and hit[0] == ni.generation:
                st = hit[1]
            else:
                st = fwk.intern_status(fwk.run_filter_plugins(state, pod, ni))
                cache[name] = (ni.generation, st)
        else:
            st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
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
            res = CycleResult(pod, SCHEDULED, n, diagnosis=diagnosis, evaluated_nominated_node=nominated_fit,
                              processed_nodes=processed)
            res.feasible_nodes = [ni.name for ni in feasible]
            if len(feasible) == 1:
                res.suggested_host = feasible[0].name
                res.best_nodes = [feasible[0].name]
                return res
            scores = prioritize_nodes(fwk, state, pod, feasible)
            res.node_scores = scores
            if isinstance(scores, ScoreTable):
                totals, names = scores.totals, scores.node_names
            else:
                totals, names = [s.total_score for s in scores], [s.name for s in scores]
            top = max(totals)
            res.best_nodes = [n for n, t in zip(names, totals) if t == top]
            # upstream picks one of the best at random (reservoir sampling); the first is ours by default
            res.suggested_host = (rng.choice(res.best_nodes) if rng is not None else res.best_nodes[0])
            return res
    except SchedulingError as e:
        return CycleResult(pod, UNSCHEDULABLE, n, message=str(e), error=str(e))
    res = CycleResult(pod, UNSCHEDULABLE, n, diagnosis=diagnosis, processed_nodes=processed)
    if run_post_filter and fwk.has_post_filter_plugins():
        result, status = fwk.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
        diagnosis.post_filter_msg = status.message()
        res.post_filter_result = result
        res.post_filter_status = status
        if status.is_success() and result is not None and result.nominated_node_name:
            res.outcome = PREEMPTED
    res.message = fit_error_message(n, diagnosis)
    return res
