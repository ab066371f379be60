"""The preemption Evaluator (framework/preemption/preemption.go): candidates, dry runs, choice.

Besides upstream's verdict it keeps what an explanation needs: every candidate with its chain
values, every node's dry-run status, reprieved pods and why each victim could not stay. It leaves
as one frozen PreemptionRecord (decision.py), written into the cycle's state under RECORD_KEY,
from where the scheduling cycle returns it with its other decisions.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message, fit_error_reasons
from ..framework.interface import PostFilterResult
from ..framework.status import SUCCESS, Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod, PodDisruptionBudget
from .decision import (CHAIN, Candidate, PreemptionRecord, Reprieve, pod_start_nanos, pods_start_nanos)

_PRIORITY = operator.attrgetter("priority")

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_CANDIDATE = "no candidate node for preemption"
# where preempt() leaves its record in the cycle's state
RECORD_KEY = "kubectl-preempt/preemption-record"
# where the scheduling cycle leaves the scheduler's equivalence cache for this pod
# (scheduler/memo/equivalence.py PodAnswers) when it has one: dry runs are remembered there
# (scheduler/fast/preemption.py DryRunMemo)
EQUIVALENCE_KEY = "kubectl-preempt/equivalence"

def more_important_pod(a: Pod, b: Pod) -> bool:
    # mirrors util.MoreImportantPod
    if a.priority != b.priority:
        return a.priority > b.priority
    return pod_start_nanos(a) < pod_start_nanos(b)


def importance_key(p: Pod) -> tuple:
    """MoreImportantPod as a sort key: sort_by_key(pods, importance_key) orders pods as
    sort.Slice(pods, MoreImportantPod) does."""
    return (-p.priority, pod_start_nanos(p))


def importance_keys(pods: Sequence[Pod]) -> list[tuple]:
    """[importance_key(p) for p in pods], the start times found in one loop (pods_start_nanos):
    for sort_by_keys."""
    return list(zip(map(operator.neg, map(_PRIORITY, pods)), pods_start_nanos(pods)))


@dataclass(frozen=True)
class VictimSelection:
    """What SelectVictimsOnNode decided on one node, with what an explanation needs beside it."""

    victims: list[Pod]
    num_pdb_violations: int
    status: Status
    reprieves: list[Reprieve] = field(default_factory=list)
    pdb_violating: frozenset[str] = frozenset()  # victim keys whose PDB is violated
    pdbs: dict[str, list[str]] = field(default_factory=dict)  # pod key -> keys of the PDBs covering it


@dataclass
class PreemptionRun:
    """What one preempt() call gathers on its way; frozen into a PreemptionRecord at its end."""

    eligible: bool = True
    ineligible_reason: str = ""
    potential: list[NodeInfo] = field(default_factory=list)
    offset: int = 0
    num_candidates: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    node_statuses: NodeToStatus | None = None
    selected: Candidate | None = None
    chain_survivors: list[list[str]] = field(default_factory=list)  # survivors after each step
    tied: list[str] = field(default_factory=list)
    cleared_nominations: list[Pod] = field(default_factory=list)
    message: str = ""
    reasons: tuple[tuple[str, int], ...] = ()
    dry_runs: int = 0  # nodes where victims were looked for (the screen let them through)

    def freeze(self) -> PreemptionRecord:
        return PreemptionRecord(
            eligible=self.eligible, ineligible_reason=self.ineligible_reason,
            potential=self.potential, offset=self.offset, num_candidates=self.num_candidates,
            candidates=tuple(self.candidates),
            node_statuses=self.node_statuses.statuses if self.node_statuses is not None else {},
            selected=self.selected, survivors=tuple(self.chain_survivors), tied=tuple(self.tied),
            cleared_nominations=tuple(self.cleared_nominations), message=self.message,
            reasons=self.reasons, dry_runs=self.dry_runs)


class PreemptionPlugin:
    """mirrors preemption.Interface, the methods a preemption plugin gives the Evaluator; the
    last one has a default."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        raise NotImplementedError

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: list[PodDisruptionBudget]) -> VictimSelection:
        raise NotImplementedError

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status) -> tuple[bool, str]:
        raise NotImplementedError

    def nodes_with_possible_victims(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[bool], Status] | None:
        """Without a dry run: for each node whether SelectVictimsOnNode could find any victim
        there, and the status it would give the nodes where it cannot (the fast core's screen,
        scheduler/fast/preemption.py). None (the default): every node gets its dry run."""
        return None


def candidate_of(name: str, sel: VictimSelection) -> Candidate:
    """The candidate a dry run with victims makes, with lists of its own (a remembered selection
    serves later candidates too)."""
    return Candidate(name, list(sel.victims), sel.num_pdb_violations, list(sel.reprieves), sel.pdb_violating,
                     {v.key: sel.pdbs[v.key] for v in sel.victims if v.key in sel.pdbs})


class Evaluator:
    def __init__(self, plugin_name: str, handle: Any, interface: PreemptionPlugin) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface

    def preempt(self, state: CycleState, pod: Pod, m: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """mirrors Evaluator.Preempt; what it saw and decided is left in `state` as a PreemptionRecord."""
        details = PreemptionRun()
        try:
            return self._preempt(state, pod, m, details)
        finally:
            state.write(RECORD_KEY, details.freeze())

    def _preempt(self, state: CycleState, pod: Pod, m: NodeToStatus, details: PreemptionRun
                 ) -> tuple[PostFilterResult | None, Status]:
        nominated_status = m.get(pod.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            details.eligible, details.ineligible_reason = False, msg
            return None, Status(Code.Unschedulable, msg)
        snapshot = self.handle.snapshot
        all_nodes = snapshot.list()
        candidates, node_statuses, err = self.find_candidates(state, all_nodes, pod, m, details)
        details.node_statuses = node_statuses
        if err and not candidates:
            return None, Status.as_error(err)
        if not candidates:
            d = Diagnosis()
            d.node_to_status = node_statuses
            node_statuses.absent = Status(Code.UnschedulableAndUnresolvable, PREEMPTION_NOT_HELPFUL)
            # one count of the reasons over every node serves the message and the record
            reasons = fit_error_reasons(len(all_nodes), d)
            details.message = fit_error_message(len(all_nodes), d, reasons)
            details.reasons = tuple(reasons)
            return PostFilterResult(""), Status(Code.Unschedulable, details.message)
        best = self.select_candidate(candidates, details)
        if best is None or not best.name:
            return None, Status(Code.Unschedulable, NO_CANDIDATE)
        details.selected = best
        details.cleared_nominations = self.lower_priority_nominated_pods(pod, best.name)
        return PostFilterResult(best.name), SUCCESS

    def find_candidates(self, state: CycleState, all_nodes: list[NodeInfo], pod: Pod, m: NodeToStatus,
                        details: PreemptionRun) -> tuple[list[Candidate], NodeToStatus, str | None]:
        if not all_nodes:
            return [], NodeToStatus(), "no nodes available"
        snapshot = self.handle.snapshot
        names = snapshot.node_names if all_nodes is snapshot.list() else None
        potential = m.nodes_for_status_code(all_nodes, snapshot.get, Code.Unschedulable, names)
        details.potential = potential
        if not potential:
            return [], NodeToStatus(), None
        pdbs = self.handle.cluster.pdbs if self.handle.cluster is not None else []
        offset, num = self.interface.get_offset_and_num_candidates(len(potential))
        details.offset, details.num_candidates = offset, num
        fast = getattr(self.handle, "fast", None)
        if fast is not None:
            got = fast.dry_run_preemption(self, state, pod, potential, pdbs, offset, num, details)
            if got is not None:
                return got
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num, details)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: list[NodeInfo],
                           pdbs: list[PodDisruptionBudget], offset: int, candidates_num: int,
                           details: PreemptionRun) -> tuple[list[Candidate], NodeToStatus, str | None]:
        """mirrors DryRunPreemption: from the offset on, wrapping around, a copy of each potential
        node and of the cycle state, SelectVictimsOnNode there; a node with victims is a candidate
        (without PDB violations or with), the others keep their status; the search stops once there
        is a candidate without violations and candidatesNum in all. (Upstream runs the nodes in
        parallel and cancels the rest at that point; one after another, at that node.) What it
        saw goes into `details`. The fast core beside it: scheduler/fast/preemption.py."""
        non_violating_candidates: list[Candidate] = []
        violating_candidates: list[Candidate] = []
        node_statuses = NodeToStatus()
        errs: list[str] = []
        for i in range(len(potential_nodes)):
            node_info_copy = potential_nodes[(offset + i) % len(potential_nodes)].snapshot()
            state_copy = state.clone()
            details.dry_runs += 1
            sel = self.interface.select_victims_on_node(state_copy, pod, node_info_copy, pdbs)
            pods, num_pdb_violations, status = sel.victims, sel.num_pdb_violations, sel.status
            if status.is_success() and pods:
                c = candidate_of(node_info_copy.name, sel)
                if num_pdb_violations == 0:
                    non_violating_candidates.append(c)
                else:
                    violating_candidates.append(c)
                nvc_size, vc_size = len(non_violating_candidates), len(violating_candidates)
                if nvc_size > 0 and nvc_size + vc_size >= candidates_num:
                    break
                continue
            if status.is_success() and not pods:
                status = Status.as_error(f'expected at least one victim pod on node "{node_info_copy.name}"')
            if status.code == Code.Error:
                errs.append(status.message())
            node_statuses.set(node_info_copy.name, status)
        candidates = non_violating_candidates + violating_candidates
        details.candidates = candidates
        return candidates, node_statuses, "; ".join(errs) if errs else None

    def select_candidate(self, candidates: list[Candidate], details: PreemptionRun) -> Candidate | None:
        if not candidates:
            return None
        if len(candidates) == 1:
            details.tied = [candidates[0].name]
            return candidates[0]
        by_name = {c.name: c for c in candidates}
        name = self.pick_one_node_for_preemption(by_name, details)
        return by_name.get(name, candidates[0])

    def pick_one_node_for_preemption(self, by_name: dict[str, Candidate], details: PreemptionRun) -> str:
        # mirrors pickOneNodeForPreemption: each step's score over the candidates still in
        remaining = list(by_name.values())
        for step in range(len(CHAIN)):
            scores = [c.chain_scores[step] for c in remaining]
            best = max(scores)
            remaining = list(compress(remaining, map(best.__eq__, scores)))
            details.chain_survivors.append([c.name for c in remaining])
            if len(remaining) == 1:
                details.tied = [remaining[0].name]
                return remaining[0].name
        remaining = [c.name for c in remaining]
        details.tied = list(remaining)
        # upstream returns the first survivor of a list built by ranging over a Go map, i.e. any of
        # the tied nodes; the run's random source picks one (the first without a generator)
        return self.handle.random_source.pick_tied(remaining)

    def lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        return [p for p in self.handle.nominated_pods_for_node(node_name) if p.priority < pod.priority]

