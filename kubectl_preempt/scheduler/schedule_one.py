"""One scheduling cycle of one pod, as schedule_one.go's schedulingCycle up to Reserve.

The cycle returns its decision as one frozen record (CycleResult, with the preemption's
PreemptionRecord on the failure path); nothing here formats text for people.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from ..framework.batch import SortedScoredNodes
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, fit_error_message, fit_error_reasons
from ..framework.interface import (EquivalenceAnswers, NodePluginScores, PostFilterResult, PreFilterResult, ScoreTable,
                                  node_names_of)
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..preemption.evaluator import EQUIVALENCE_KEY, RECORD_KEY

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


# ErrNoNodesAvailable: schedulingCycle gives it as UnschedulableAndUnresolvable, not an error status
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"

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
    # what Reserve and Permit would answer for the chosen node (Scheduler.permit_of), when the
    # profile has Reserve or Permit plugins and their answer is not a plain Success: a Wait (a v1.35
    # gang member waiting for its gang), its timeout in seconds, and what the plugin said of it
    permit: Status | None = None
    permit_timeout: float = 0.0
    permit_details: dict[str, Any] | None = None
    # PreEnqueue's rejection (scheduling gates, a gang not there yet): the pod never enters the
    # queue's activeQ, so no cycle runs for it (SchedulingQueue.Add -> runPreEnqueuePlugins)
    gated: Status | None = None

    @property
    def preempted(self) -> PreemptionRecord | None:
        """The preemption record when the cycle nominated a node by preempting, else None."""
        p = self.preemption
        return p if self.outcome == PREEMPTED and p is not None and p.selected is not None else None

    def failure_nominating_info(self, clears_without_post_filter: bool) -> str | None:
        """mirrors the nominatingInfo schedulingCycle returns after SchedulePod failed: None leaves
        the pod's nomination as it is (nil, ModeNoop), "" clears it (clearNominatedNode), a name
        sets it. ErrNoNodesAvailable and other errors clear it (v1.34.1: newFailureNominatingInfo,
        a clear while NominatedNodeNameForExpectation is off). A profile without PostFilter plugins
        leaves it through v1.34 (ScheduleResult{}) and clears it from v1.35
        (`clears_without_post_filter`). Else the PostFilter result's, nil leaving it."""
        if self.error is not None:
            return ""
        if self.post_filter_status is None:
            return "" if clears_without_post_filter else None
        pfr = self.post_filter_result
        if pfr is None or pfr.mode == "Noop":
            return None
        return pfr.nominated_node_name

    def fit_error_fields(self) -> dict[str, Any]:
        """The FitError behind `message` as data, beside the unchanged message: the Filter reason
        histogram (`reasons`: [{"reason", "nodes"}], upstream's order), the PreFilter's message
        when a PreFilter rejected the pod, and what PostFilter (preemption) said: its own
        histogram (`preemptionReasons`), why the pod may not preempt (`preemptionMessage`) or,
        otherwise, the PostFilter message as is. Empty when the cycle failed without a FitError."""
        if self.outcome == SCHEDULED or self.error is not None or not self.message:
            return {}
        # counted once per cycle (and per remembered failed cycle, memo/failed_cycles.py _again): a copy each time
        known = self.__dict__.get("_fit_error_fields")
        if known is None:
            known = self._fit_error_fields()
            object.__setattr__(self, "_fit_error_fields", known)
        return dict(known)

    def _fit_error_fields(self) -> dict[str, Any]:
        d = self.diagnosis
        out: dict[str, Any] = {"reasons": [{"reason": r, "nodes": n}
                                           for r, n in fit_error_reasons(self.num_all_nodes, d)]}
        if d.pre_filter_msg:
            out["preFilterMessage"] = d.pre_filter_msg
        p = self.preemption
        if p is not None and p.reasons:
            out["preemptionReasons"] = [{"reason": r, "nodes": n} for r, n in p.reasons]
        elif p is not None and not p.eligible and p.ineligible_reason:
            out["preemptionMessage"] = p.ineligible_reason
        elif d.post_filter_msg:
            out["postFilterMessage"] = d.post_filter_msg
        return out


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
    """mirrors findNodesThatPassFilters: the nodes are checked from start_index on, wrapping around,
    until enough feasible ones are found; each rejected node's status goes into the diagnosis.
    (Upstream checks the nodes in parallel and stops the workers once enough passed; one after
    another, the walk stops at the node that makes enough, and an Error stops the cycle.)
    The fast core beside it: scheduler/fast/filters.py."""
    num_all_nodes = len(nodes)
    num_nodes_to_find = num_feasible_nodes_to_find(fwk, num_all_nodes)
    if not fwk.has_score_plugins():
        num_nodes_to_find = 1
    if not fwk.has_filter_plugins():
        return [nodes[(start_index + i) % num_all_nodes] for i in range(num_nodes_to_find)]
    feasible_nodes: list[NodeInfo] = []
    result: list[tuple[str, Status]] = []
    for i in range(num_all_nodes):
        node_info = nodes[(start_index + i) % num_all_nodes]
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if status.code == Code.Error:
            raise SchedulingError(status.message())
        if status.is_success():
            feasible_nodes.append(node_info)
            if len(feasible_nodes) >= num_nodes_to_find:
                break
        else:
            result.append((node_info.name, status))
    for node, status in result:
        diagnosis.node_to_status.set(node, status)
        diagnosis.add_plugin_status(status)
    return feasible_nodes


def _pass_filters(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: list[NodeInfo],
                  start_index: int, equivalence: EquivalenceAnswers | None) -> list[NodeInfo]:
    """findNodesThatPassFilters through the fast core when the cycle has one (framework/interface.py
    FastCores), else as upstream writes it."""
    fast = fwk.fast
    if fast is not None:
        feasible = fast.find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, start_index, equivalence)
        if feasible is not None:
            return feasible
    return find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, start_index)


class SchedulingError(Exception):
    """A plugin returned Error: the cycle stops, as upstream's does."""


def find_nodes_that_fit_pod(fwk: Framework, state: CycleState, pod: Pod, start_index: int = 0,
                            equivalence: EquivalenceAnswers | None = None,
                            pre_filtered: tuple[PreFilterResult | None, Status, set[str]] | None = None,
                            hint: str = "") -> tuple[list[NodeInfo], Diagnosis, bool]:
    """mirrors findNodesThatFitPod; the flag says the nominated node (or the batch's `hint`) was
    tried first and fit. `pre_filtered`: what run_pre_filter_plugins returned, when the caller ran
    it on `state`."""
    diagnosis = Diagnosis()
    all_nodes = fwk.snapshot.list()
    pre_res, s, unsched_plugins = pre_filtered if pre_filtered is not None else fwk.run_pre_filter_plugins(state, pod)
    diagnosis.unschedulable_plugins = set(unsched_plugins)
    if not s.is_success():
        if not s.is_rejected():
            raise SchedulingError(s.message())
        if fwk.version.pre_filter_rejection_on_every_node:
            # v1.31 and older: every node carries the rejection (findNodesThatFitPod)
            diagnosis.node_to_status.statuses.update((ni.name, s) for ni in all_nodes)
        else:
            diagnosis.node_to_status.absent = s
        diagnosis.pre_filter_msg = s.message()
        diagnosis.add_plugin_status(s)
        return [], diagnosis, False
    if pod.nominated_node_name or hint:
        # evaluateNominatedNode: the pod's nominated node, else the batch's hint (OpportunisticBatching)
        ni = fwk.snapshot.get(pod.nominated_node_name or hint)
        if ni is not None:
            feasible = _pass_filters(fwk, state, pod, diagnosis, [ni], 0, equivalence)
            if feasible:
                return feasible, diagnosis, True
    nodes = all_nodes
    if pre_res is not None and not pre_res.all_nodes():
        nodes = [fwk.snapshot.get(n) for n in sorted(pre_res.node_names or ()) if fwk.snapshot.get(n) is not None]
        # keep snapshot order, as upstream iterates the snapshot for the names it was given
        order = {ni.name: i for i, ni in enumerate(all_nodes)}
        nodes.sort(key=lambda ni: order[ni.name])
        left_out = fwk.version.nodes_left_out_by_pre_filter
        if left_out == "absent":
            names = "[" + " ".join(sorted(unsched_plugins)) + "]"
            diagnosis.node_to_status.absent = Status(Code.UnschedulableAndUnresolvable,
                                                     f"node(s) didn't satisfy plugin(s) {names}")
        elif left_out == "filtered":
            kept = set(pre_res.node_names or ())
            filtered = Status(Code.UnschedulableAndUnresolvable, "node is filtered out by the prefilter result")
            diagnosis.node_to_status.statuses.update((ni.name, filtered) for ni in all_nodes if ni.name not in kept)
        # "unlisted": they get no status (the absent default, with no reason, counts in no message)
    feasible = _pass_filters(fwk, state, pod, diagnosis, nodes, start_index, equivalence)
    return feasible, diagnosis, False


def prioritize_nodes(fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                     equivalence: EquivalenceAnswers | None = None,
                     names: list[str] | None = None) -> Sequence[NodePluginScores]:
    if not fwk.has_score_plugins():
        return [NodePluginScores(ni.name, (), [], 1) for ni in nodes]
    s = fwk.run_pre_score_plugins(state, pod, nodes)
    if not s.is_success():
        raise SchedulingError(s.message())
    fast = fwk.fast
    got = fast.run_score_plugins(fwk, state, pod, nodes, equivalence, names) if fast is not None else None
    scores, s = got if got is not None else fwk.run_score_plugins(state, pod, nodes)
    if not s.is_success():
        raise SchedulingError(s.message())
    return scores


class Memo(Protocol):
    """The scheduler's memory of failed cycles as one cycle sees it (scheduler/memo/failed_cycles.py
    CycleMemo): asked once the PreFilter ran, told what a failed cycle decided."""

    def recall(self, fwk: Framework, state: CycleState, pod: Pod,
               pre_filtered: tuple[PreFilterResult | None, Status, set[str]]) -> CycleResult | None: ...

    def remember(self, fwk: Framework, res: CycleResult) -> None: ...



def _top_scored(names: Sequence[str], totals: Sequence[int], top: int) -> list[str]:
    """The nodes whose total is `top`, in their order (the ones selectHost samples among): found
    by list.count and list.index, loops in C, where a compare per node in Python took 4% of a
    5,000-node replay (mostly one node or a few have the top score)."""
    tied = totals.count(top)
    if tied > 50:
        # many ties (alike nodes): one pass beats an index() per tied node
        return [name for name, total in zip(names, totals) if total == top]
    i = totals.index(top)
    best = []
    for _ in range(tied):
        i = totals.index(top, i)
        best.append(names[i])
        i += 1
    return best

def schedule_one(fwk: Framework, pod: Pod, *, start_index: int = 0,
                 run_post_filter: bool = True, equivalence: EquivalenceAnswers | None = None,
                 memo: Memo | None = None, batching: tuple[int, float] | None = None,
                 pod_group_cycle: Any = None) -> CycleResult:
    """mirrors schedulingCycle up to Reserve: filter, score, select; on failure, PostFilter
    (preemption). `equivalence`: the scheduler's equivalence cache for this pod (None: every answer
    afresh); `memo`: failed cycles remembered (scheduler/memo/failed_cycles.py; None: every cycle runs);
    `batching`: (the queue's scheduling cycle, the clock) for OpportunisticBatching (framework/batch.py;
    None: no batch, as explain's lone cycle has none); `pod_group_cycle`: the pod-group cycle the
    pod is tried in (initPodSchedulingContext: its CycleState knows the group's cycle state)."""
    n = fwk.snapshot.num_nodes()
    state = CycleState()
    state.pod_group_cycle = pod_group_cycle
    if n == 0:
        return CycleResult(pod, UNSCHEDULABLE, 0, message=ERR_NO_NODES_AVAILABLE, error=ERR_NO_NODES_AVAILABLE)
    try:
        pre_filtered = fwk.run_pre_filter_plugins(state, pod)
        hint, signature = "", None
        if batching is not None and pre_filtered[1].is_success():
            # findNodesThatFitPod: GetNodeHint once the PreFilter passed
            hint, signature = fwk.get_node_hint(state, pod, *batching)
        if memo is not None:
            known = memo.recall(fwk, state, pod, pre_filtered)
            if known is not None:
                return known
        feasible, diagnosis, nominated_fit = find_nodes_that_fit_pod(fwk, state, pod, start_index, equivalence,
                                                                     pre_filtered, hint)
        processed = len(feasible) + len(diagnosis.node_to_status)
        if feasible:
            names = node_names_of(feasible)
            if len(feasible) == 1:
                if batching is not None:
                    fwk.store_schedule_results(signature, hint, names[0], None, *batching)
                return CycleResult(pod, SCHEDULED, n, suggested_host=names[0], feasible_nodes=names,
                                   best_nodes=names[:1], diagnosis=diagnosis,
                                   evaluated_nominated_node=nominated_fit, processed_nodes=processed)
            scores = prioritize_nodes(fwk, state, pod, feasible, equivalence, names)
            if isinstance(scores, ScoreTable):
                totals, scored = scores.totals, scores.node_names
            else:
                totals, scored = [s.total_score for s in scores], [s.name for s in scores]
            top = max(totals)
            best = _top_scored(scored, totals, top)
            # upstream picks one of the best at random (selectHost's reservoir sampling), from the
            # scheduler's one source: ours is the run's (framework/randomness.py; the first without one)
            host = fwk.random_source.select_host(best)
            if batching is not None:
                rest = None if signature is None else SortedScoredNodes.after(scored, totals, host)
                fwk.store_schedule_results(signature, hint, host, rest, *batching)
            return CycleResult(pod, SCHEDULED, n, suggested_host=host, feasible_nodes=names, node_scores=scores,
                               best_nodes=best, diagnosis=diagnosis, evaluated_nominated_node=nominated_fit,
                               processed_nodes=processed)
    except SchedulingError as e:
        return CycleResult(pod, UNSCHEDULABLE, n, message=str(e), error=str(e))
    outcome, result, status, record = UNSCHEDULABLE, None, None, None
    if run_post_filter and fwk.has_post_filter_plugins():
        if equivalence is not None:
            state.write(EQUIVALENCE_KEY, equivalence)  # preemption's dry runs are remembered there
        result, status = fwk.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
        diagnosis.post_filter_msg = status.message()
        record = state.get(RECORD_KEY)
        if status.is_success() and result is not None and result.nominated_node_name:
            outcome = PREEMPTED
    res = CycleResult(pod, outcome, n, diagnosis=diagnosis, message=fit_error_message(n, diagnosis),
                      post_filter_result=result, post_filter_status=status, preemption=record,
                      processed_nodes=processed)
    if memo is not None:
        memo.remember(fwk, res)
    return res
