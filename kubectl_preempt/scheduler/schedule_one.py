"""One scheduling cycle of one pod, as schedule_one.go's schedulingCycle up to Reserve.

The cycle returns its decision as one frozen record (CycleResult, with the preemption's
PreemptionRecord on the failure path); nothing here formats text for people.
"""
from __future__ import annotations

import copy
import operator
import random
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message, fit_error_reasons
from ..framework.interface import NodePluginScores, PostFilterResult, PreFilterResult, ScoreTable, is_node_local
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod
from ..preemption.decision import PreemptionRecord
from ..preemption.evaluator import EQUIVALENCE_KEY, RECORD_KEY
from .equivalence import FailedCycles, PodAnswers

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5

_CODE = operator.attrgetter("code")
_NODE_NAME = operator.attrgetter("name")

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

    def fit_error_fields(self) -> dict[str, Any]:
        """The FitError behind `message` as data, beside the unchanged message: the Filter reason
        histogram (`reasons`: [{"reason", "nodes"}], upstream's order), the PreFilter's message
        when a PreFilter rejected the pod, and what PostFilter (preemption) said: its own
        histogram (`preemptionReasons`), why the pod may not preempt (`preemptionMessage`) or,
        otherwise, the PostFilter message as is. Empty when the cycle failed without a FitError."""
        if self.outcome == SCHEDULED or self.error is not None or not self.message:
            return {}
        # counted once per cycle (and per remembered failed cycle, see _again): a copy each time
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
                                 nodes: list[NodeInfo], start_index: int = 0,
                                 equivalence: PodAnswers | None = None) -> list[NodeInfo]:
    """mirrors findNodesThatPassFilters: nodes are visited from start_index on, wrapping around,
    until enough feasible ones are found; each visited node's status is taken from the
    equivalence cache when its node-local filters answered for this pod shape on the unchanged
    node, else computed, and the rejections are recorded through the diagnosis in one place.

    A node with pods nominated to it is always filtered with them (both passes), never from the
    cache. The walk goes in steps of as many nodes as feasible ones are still missing: each of
    them must be visited anyway, so every step visits exactly the nodes upstream's walk visits."""
    num_all = len(nodes)
    if num_all == 0:
        return []
    to_find = num_feasible_nodes_to_find(fwk, num_all)
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
                raise SchedulingError(statuses[min(errors)].message())
            diagnosis.add_filter_rejections(step_names, statuses, distinct)
        else:
            codes = list(map(_CODE, statuses))
            if Code.Error in codes:
                raise SchedulingError(statuses[codes.index(Code.Error)].message())
            feasible.extend(compress(step, map(operator.not_, codes)))
            diagnosis.add_filter_rejections(compress(step_names, codes), compress(statuses, codes))
    return feasible


class SchedulingError(Exception):
    """A plugin returned Error: the cycle stops, as upstream's does."""


def find_nodes_that_fit_pod(fwk: Framework, state: CycleState, pod: Pod, start_index: int = 0,
                            equivalence: PodAnswers | None = None,
                            pre_filtered: tuple[PreFilterResult | None, Status, set[str]] | None = None
                            ) -> tuple[list[NodeInfo], Diagnosis, bool]:
    """mirrors findNodesThatFitPod; the flag says the nominated node was tried first and fit.
    `pre_filtered`: what run_pre_filter_plugins returned, when the caller ran it on `state`."""
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
    if pod.nominated_node_name:
        ni = fwk.snapshot.get(pod.nominated_node_name)
        if ni is not None:
            feasible = find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [ni], 0, equivalence)
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
    feasible = find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, start_index, equivalence)
    return feasible, diagnosis, False


def prioritize_nodes(fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                     equivalence: PodAnswers | None = None,
                     names: list[str] | None = None) -> Sequence[NodePluginScores]:
    if not fwk.has_score_plugins():
        return [NodePluginScores(ni.name, (), [], 1) for ni in nodes]
    s = fwk.run_pre_score_plugins(state, pod, nodes)
    if not s.is_success():
        raise SchedulingError(s.message())
    scores, s = fwk.run_score_plugins(state, pod, nodes, equivalence, names)
    if not s.is_success():
        raise SchedulingError(s.message())
    return scores


def _pre_filter_reads_labels(fwk: Framework, pod: Pod) -> bool:
    """Whether some PreFilter plugin's outcome for this pod, in this cluster, may depend on more
    than the pod's shape (its labels, name or uid); a plugin that does not say is taken to."""
    for pl in fwk.pre_filter_plugins:
        reads = getattr(pl, "pre_filter_reads_labels", None)
        if reads is None or reads(pod):
            return True
    return False


def failed_cycle_key(fwk: Framework, state: CycleState, pod: Pod,
                     pre_filtered: tuple[PreFilterResult | None, Status, set[str]],
                     equivalence: PodAnswers | None) -> tuple | None:
    """The key a failure of this cycle is remembered under (scheduler/equivalence.py FailedCycles),
    None when its outcome could depend on more than the key and the world: the PreFilter did not
    pass every node, a Filter plugin it runs is not node-local (it may read the pod's labels or
    other pods), the pod has a nominated node (tried first, and read by preemption), or a
    PostFilter plugin does not say it is repeatable for this pod.

    The start index is no part of it: a failed walk visits every node, and where it started only
    orders the rejected nodes' statuses (_again puts them in this cycle's order)."""
    pre_res, s, unsched_plugins = pre_filtered
    if equivalence is None or pod.nominated_node_name or s.code != Code.Success:
        return None
    if pre_res is not None and not pre_res.all_nodes():
        return None
    skip = state.skip_filter_plugins
    if not all(is_node_local(pl, "filter") for pl in fwk.filter_plugins if pl.name not in skip):
        return None
    for pl in fwk.post_filter_plugins:
        repeatable = getattr(pl, "repeatable_post_filter", None)
        if repeatable is None or not repeatable(state, pod):
            return None
    return (equivalence.profile, equivalence.shape, frozenset(skip), frozenset(unsched_plugins))


def _still_fails(fwk: Framework, state: CycleState, pod: Pod, equivalence: PodAnswers, res: CycleResult,
                 moved: list[NodeInfo]) -> bool:
    """Whether a remembered failed cycle holds after `moved` nodes changed (nothing else did): each
    such node's node-local filters still reject the pod with the very status remembered (statuses
    are shared objects), it has no pods nominated to it, and every PostFilter plugin says its
    answer there is unchanged (DefaultPreemption: the node still holds no possible victim, and the
    remembered dry run looked at none)."""
    statuses = res.diagnosis.node_to_status
    skip = state.skip_filter_plugins
    answers = equivalence.answers("filter", tuple(pl.name for pl in fwk.filter_plugins if pl.name not in skip))
    nominated = fwk.nominator.by_node
    post_filters = fwk.post_filter_plugins
    seen: set[str] = set()
    for ni in moved:
        name = ni.name
        if name in seen:
            continue
        seen.add(name)
        if name in nominated or fwk.snapshot.get(name) is not ni:
            return False
        st = answers.get([ni], lambda n: fwk.run_filter_plugins(state, pod, n), [name])[0]
        if st is not statuses.statuses.get(name):
            return False
        for pl in post_filters:
            same = getattr(pl, "same_answer_after_change", None)
            if same is None or not same(state, pod, res.preemption, ni, st):
                return False
    return True


class _Relisted(NodeToStatus):
    """A remembered cycle's rejected nodes listed as a walk from another start index lists them:
    the same statuses, rotated when first read (a replay seldom reads them)."""

    def __init__(self, base: NodeToStatus, names: list[str], start: int) -> None:  # noqa: D107
        self.absent = base.absent
        self._base, self._names, self._start = base.statuses, names, start
        self._statuses: dict[str, Status] | None = None

    @property
    def statuses(self) -> dict[str, Status]:  # type: ignore[override]
        if self._statuses is None:
            base, names = self._base, self._names
            order = names[self._start:] + names[:self._start]
            if len(base) == len(order):
                self._statuses = dict(zip(order, map(base.__getitem__, order)))
            else:
                self._statuses = {name: base[name] for name in order if name in base}
        return self._statuses

    def __len__(self) -> int:
        return len(self._base)


def _again(res: CycleResult, pod: Pod, start_then: int, start_now: int, names: list[str]) -> CycleResult:
    """A remembered failed cycle as this pod's: its own Diagnosis (the sets are the queue's to keep),
    the statuses shared (nothing writes to a finished cycle's), listed from this cycle's start
    index as its walk would list them (`names`: the snapshot's node names)."""
    d, old = Diagnosis(), res.diagnosis
    d.node_to_status = old.node_to_status
    if start_now != start_then and names:
        d.node_to_status = _Relisted(old.node_to_status, names, start_now % len(names))
    d.unschedulable_plugins = set(old.unschedulable_plugins)
    d.pending_plugins = set(old.pending_plugins)
    d.pre_filter_msg, d.post_filter_msg = old.pre_filter_msg, old.post_filter_msg
    # a copy of the frozen record with the pod and diagnosis swapped (what dataclasses.replace
    # does, without running __init__ over every field)
    again = copy.copy(res)
    object.__setattr__(again, "pod", pod)
    object.__setattr__(again, "diagnosis", d)
    return again


def schedule_one(fwk: Framework, pod: Pod, *, start_index: int = 0, rng: random.Random | None = None,
                 run_post_filter: bool = True, equivalence: PodAnswers | None = None,
                 failed_cycles: FailedCycles | None = None, world: tuple | None = None) -> CycleResult:
    """Run one scheduling cycle: filter, score, select; on failure, PostFilter (preemption).
    `equivalence`: the scheduler's equivalence cache for this pod (None: every answer afresh);
    `failed_cycles` with `world` (Scheduler.world()): failed cycles remembered and given back
    while the world they ran on holds (None: every cycle runs)."""
    n = fwk.snapshot.num_nodes()
    state = CycleState()
    if n == 0:
        return CycleResult(pod, UNSCHEDULABLE, 0, message="no nodes available to schedule pods",
                           error="no nodes available to schedule pods")
    key = None
    try:
        shaped = None  # (profile, shape) when no PreFilter reads more of this pod than its shape
        if failed_cycles is not None and world is not None and run_post_filter and equivalence is not None \
                and not pod.nominated_node_name and not _pre_filter_reads_labels(fwk, pod):
            shaped = (equivalence.profile, equivalence.shape)
            # the PreFilter's outcome for this shape in this world is known: so is the key
            known_key = failed_cycles.recall_key(shaped, world)
            if known_key is not None:
                known = failed_cycles.recall(known_key, world)
                if known is not None:
                    return _again(known[0], pod, known[1], start_index, fwk.snapshot.node_names)
        pre_filtered = fwk.run_pre_filter_plugins(state, pod)
        if failed_cycles is not None and world is not None and run_post_filter:
            key = failed_cycle_key(fwk, state, pod, pre_filtered, equivalence)
            if key is not None and shaped is not None:
                failed_cycles.remember_key(shaped, world, key)
            if key is not None:
                known = failed_cycles.recall(key, world)
                if known is None:
                    # only nodes changed since: still the same failure if none of them matters
                    moved = failed_cycles.recall_moved(key, world)
                    if moved is not None and _still_fails(fwk, state, pod, equivalence, moved[0][0], moved[1]):
                        known = moved[0]
                        failed_cycles.remember(key, world, known)
                if known is not None:
                    return _again(known[0], pod, known[1], start_index, fwk.snapshot.node_names)
        feasible, diagnosis, nominated_fit = find_nodes_that_fit_pod(fwk, state, pod, start_index, equivalence,
                                                                     pre_filtered)
        processed = len(feasible) + len(diagnosis.node_to_status)
        if feasible:
            names = list(map(_NODE_NAME, feasible))
            if len(feasible) == 1:
                return CycleResult(pod, SCHEDULED, n, suggested_host=names[0], feasible_nodes=names,
                                   best_nodes=names[:1], diagnosis=diagnosis,
                                   evaluated_nominated_node=nominated_fit, processed_nodes=processed)
            scores = prioritize_nodes(fwk, state, pod, feasible, equivalence, names)
            if isinstance(scores, ScoreTable):
                totals, scored = scores.totals, scores.node_names
            else:
                totals, scored = [s.total_score for s in scores], [s.name for s in scores]
            top = max(totals)
            best = list(compress(scored, map(top.__eq__, totals)))
            # upstream picks one of the best at random (reservoir sampling); the first is ours by default
            host = rng.choice(best) if rng is not None else best[0]
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
    # a preemption that drew its candidate offset at random is not repeated without drawing
    if key is not None and outcome == UNSCHEDULABLE and (fwk.rng is None or record is None or not record.potential):
        failed_cycles.remember(key, world, (res, start_index))
    return res
