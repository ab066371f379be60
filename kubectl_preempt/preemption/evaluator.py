"""The preemption Evaluator (framework/preemption/preemption.go): candidates, dry runs, choice.

Besides upstream's verdict it keeps what an explanation needs: every candidate with its chain
values, every node's dry-run status, reprieved pods and why each victim could not stay. It leaves
as one frozen PreemptionRecord (decision.py), written into the cycle's state under RECORD_KEY,
from where the scheduling cycle returns it with its other decisions.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message, fit_error_reasons
from ..framework.interface import DRY_RUN_POINT, PostFilterResult, is_node_local, memo_traits
from ..framework.status import SUCCESS, Code, Status
from ..framework.types import NodeInfo
from ..model.objects import Pod, PodDisruptionBudget
from .decision import (CHAIN, Candidate, PreemptionRecord, Reprieve, pod_start_nanos)

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_CANDIDATE = "no candidate node for preemption"
# where preempt() leaves its record in the cycle's state
RECORD_KEY = "kubectl-preempt/preemption-record"
# where the scheduling cycle leaves the scheduler's equivalence cache for this pod
# (scheduler/memo/equivalence.py PodAnswers) when it has one: dry runs are remembered there (DryRunMemo)
EQUIVALENCE_KEY = "kubectl-preempt/equivalence"

_NODE_NAME = operator.attrgetter("name")


def more_important_pod(a: Pod, b: Pod) -> bool:
    # mirrors util.MoreImportantPod
    if a.priority != b.priority:
        return a.priority > b.priority
    return pod_start_nanos(a) < pod_start_nanos(b)


def importance_key(p: Pod) -> tuple:
    """MoreImportantPod as a sort key: sort_by_key(pods, importance_key) orders pods as
    sort.Slice(pods, MoreImportantPod) does."""
    return (-p.priority, pod_start_nanos(p))


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
        there, and the status it would give the nodes where it cannot. None (the default):
        every node gets its dry run."""
        return None


class DryRunMemo:
    """A dry run's answer on a node, remembered in the scheduler's equivalence cache (so
    `equivalence=None` turns it off) for a pod shape at one priority, and given back while all it
    read is unchanged.

    A preemption runs a dry run on up to numCandidates nodes (100 for up to 1,000 nodes) and
    between two preemptions few of those nodes change: a queue of copies of one pod asks the same
    dry runs over and over. Only when the cycle's filter plugins are all node-local (they read
    nothing but the pod and its NodeInfo) and no PreFilter extension runs (none reads the pods a
    dry run removes and adds back) is the answer a function of: the pod's node shape and priority
    (the key of the cache's entry); per node, the NodeInfo's generation and its pods, the same
    objects in the same order with the same status and metadata (the replay patches a pod's
    status in place and moves it on its node's list without a new generation), and the pods
    nominated there that the filters count (priority at least the pod's, another uid); and the
    PDBs: the list, its generation, and each PDB's disruptionsAllowed and disruptedPods (the
    disruption controller's sync changes them in place). Each is compared before an answer is
    given back; answers that are errors are not kept."""

    __slots__ = ("answers", "pdb_state")

    def __init__(self, answers: Any, pdb_state: tuple) -> None:
        self.answers = answers  # scheduler/memo/equivalence.py NodeAnswers: values and generations per node
        self.pdb_state = pdb_state

    @staticmethod
    def for_cycle(handle: Any, state: CycleState, pod: Pod, interface: PreemptionPlugin,
                  pdbs: list[PodDisruptionBudget]) -> "DryRunMemo | None":
        eq = state.get(EQUIVALENCE_KEY)
        # declared by the plugin (framework/interface.py MemoTraits.repeatable_dry_run); a plugin
        # declaring nothing has every dry run run
        if eq is None or not memo_traits(interface).repeatable_dry_run(state, pod):
            return None
        skip = state.skip_filter_plugins
        if any(name not in skip for name, _ in getattr(handle, "pre_filter_extensions", ((None, None),))):
            return None
        active = [pl for pl in handle.filter_plugins if pl.name not in skip]
        if not all(is_node_local(pl, "filter") for pl in active):
            return None
        cluster = getattr(handle, "cluster", None)
        pdb_state = (pdbs, cluster.pdb_generation if cluster is not None else None,
                     [(pdb, pdb.disruptions_allowed, pdb.disrupted_pods) for pdb in pdbs])
        return DryRunMemo(eq.answers(DRY_RUN_POINT, (tuple(pl.name for pl in active), pod.priority)), pdb_state)

    @staticmethod
    def reads(handle: Any, pod: Pod, ni: NodeInfo) -> tuple:
        """What the dry run on `ni` reads of the node beside the pod's shape and priority."""
        prio, uid = pod.priority, pod.uid
        nominated = [p for p in handle.nominator.by_node.get(ni.name, ()) if p.priority >= prio and p.uid != uid]
        pods = [pi.pod for pi in ni.pods]
        return (ni.generation, pods + nominated, [p.status for p in pods] + [p.status for p in nominated],
                [p.metadata for p in pods] + [p.metadata for p in nominated], len(pods))

    def recall(self, ni: NodeInfo, reads: tuple) -> VictimSelection | None:
        got = self.answers.values.get(ni.name)
        if got is None or self.answers.generations.get(ni.name) != ni.generation:
            return None
        held, pdb_state, sel = got
        if held[0] != reads[0] or held[4] != reads[4] or not _same_objects(held[1], reads[1]) \
                or not _same_objects(held[2], reads[2]) or not _same_objects(held[3], reads[3]):
            return None
        now = self.pdb_state
        if pdb_state is not now:
            if pdb_state[0] is not now[0] or pdb_state[1] != now[1] or len(pdb_state[2]) != len(now[2]):
                return None
            for (a, allowed_a, disrupted_a), (b, allowed_b, disrupted_b) in zip(pdb_state[2], now[2]):
                if a is not b or allowed_a != allowed_b or disrupted_a != disrupted_b:
                    return None
        return sel

    def remember(self, ni: NodeInfo, reads: tuple, sel: VictimSelection) -> None:
        if sel.status.code == Code.Error:
            return
        self.answers.values[ni.name] = (reads, self.pdb_state, sel)
        self.answers.generations[ni.name] = ni.generation


def _same_objects(a: list, b: list) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


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
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num, details)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential: list[NodeInfo],
                           pdbs: list[PodDisruptionBudget], offset: int, num: int,
                           details: PreemptionRun) -> tuple[list[Candidate], NodeToStatus, str | None]:
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        errs: list[str] = []
        n = len(potential)
        order = [potential[(offset + i) % n] for i in range(n)] if offset else potential
        # nodes where the plugin knows no victim can be found need no copies nor a dry run
        screen = self.interface.nodes_with_possible_victims(pod, order)
        if screen is not None:
            has, no_victims = screen
            with_victims = list(compress(range(n), has))
        else:
            no_victims, with_victims = None, list(range(n))
        done = n
        memo = DryRunMemo.for_cycle(self.handle, state, pod, self.interface, pdbs)
        for i in with_victims:
            details.dry_runs += 1
            base = order[i]
            sel = None
            if memo is not None:
                reads = DryRunMemo.reads(self.handle, pod, base)
                sel = memo.recall(base, reads)
            if sel is None:
                ni = base.snapshot()
                st_copy = state.clone()
                sel = self.interface.select_victims_on_node(st_copy, pod, ni, pdbs)
                if memo is not None:
                    memo.remember(base, reads, sel)
            victims, num_viol, status = sel.victims, sel.num_pdb_violations, sel.status
            if status.is_success() and victims:
                # own lists: a remembered answer serves later candidates too
                c = Candidate(base.name, list(victims), num_viol, list(sel.reprieves), sel.pdb_violating,
                              {v.key: sel.pdbs[v.key] for v in victims if v.key in sel.pdbs})
                (non_violating if num_viol == 0 else violating).append(c)
                if non_violating and len(non_violating) + len(violating) >= num:
                    done = i + 1
                    break
                continue
            if status.is_success() and not victims:
                status = Status.as_error(f'expected at least one victim pod on node "{base.name}"')
            if status.code == Code.Error:
                errs.append(status.message())
            statuses.set(base.name, status)
        if no_victims is not None:
            # the nodes before the stop that had nothing to remove
            nothing = compress(order[:done], map(operator.not_, has[:done]))
            statuses.statuses.update(zip(map(_NODE_NAME, nothing), repeat(no_victims)))
        cands = non_violating + violating
        details.candidates = cands
        return cands, statuses, "; ".join(errs) if errs else None

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
        remaining = list(by_name)
        scores = {n: c.chain_scores for n, c in by_name.items()}
        for step in range(len(CHAIN)):
            best = max(scores[n][step] for n in remaining)
            remaining = [n for n in remaining if scores[n][step] == best]
            details.chain_survivors.append(list(remaining))
            if len(remaining) == 1:
                details.tied = remaining
                return remaining[0]
        details.tied = list(remaining)
        # upstream returns the first survivor of a list built by ranging over a Go map, i.e. any of
        # the tied nodes; the run's random source picks one (the first without a generator)
        return self.handle.random_source.pick_tied(remaining)

    def lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        return [p for p in self.handle.nominated_pods_for_node(node_name) if p.priority < pod.priority]

