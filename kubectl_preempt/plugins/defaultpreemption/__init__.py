"""DefaultPreemption: the PostFilter plugin that evicts lower-priority pods to make room."""
from __future__ import annotations

import operator
from itertools import repeat
from typing import Any, Callable, Mapping, Sequence

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits, PostFilterResult
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.podinfo import UNSET, pod_info
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.gosort import sort_by_key
from ...model.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget
from ...model.workload import scheduling_group
from ...preemption.evaluator import Evaluator, PreemptionPlugin, Reprieve, VictimSelection, importance_key

NAME = "DefaultPreemption"
ERR_NOT_ELIGIBLE_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
MESSAGE_PREFIX = "preemption: "
# v1.36, WorkloadAwarePreemption: said of a pod group's member (with its prefix, as upstream writes it)
ERR_NOT_ELIGIBLE_WORKLOAD_AWARE = "preemption: not eligible due to workload aware preemption enabled"


def pod_terminating_by_preemption(p: Pod) -> bool:
    if not p.deletion_timestamp:
        return False
    for c in p.status.get("conditions") or ():
        if c.get("type") == "DisruptionTarget":
            return c.get("status") == "True" and c.get("reason") == "PreemptionByScheduler"
    return False


# per namespace: the PDBs there (indexes) by their first matchLabels pair, key then value, and the
# others (selectors of matchExpressions alone); nil and empty selectors, which match nothing, left out
PDBIndex = dict[str, tuple[dict[str, dict[str, list[int]]], list[int]]]


def _pdbs_by_namespace(pdbs: list[PodDisruptionBudget]) -> PDBIndex:
    """The PDBs that may count a pod, found by its namespace and labels without testing every
    selector (a dry run asks it of every pod it may evict)."""
    out: PDBIndex = {}
    for i, pdb in enumerate(pdbs):
        sel = pdb.selector
        if sel is None or sel.empty:
            continue
        by_key, rest = out.setdefault(pdb.namespace, ({}, []))
        if sel.match_labels:
            key, value = sel.match_labels[0]
            by_key.setdefault(key, {}).setdefault(value, []).append(i)
        else:
            rest.append(i)
    return out


def _matching_pdbs(pod: Pod, pdbs: list[PodDisruptionBudget], index: PDBIndex) -> list[int]:
    """Indexes of the PDBs that count the pod (the selection in filterPodsWithPDBViolation: same
    namespace, a selector that matches, the pod not among its disrupted pods), in list order;
    `index`: _pdbs_by_namespace(pdbs), through which only the PDBs whose first matchLabels pair
    the pod has (and those without matchLabels) are tested."""
    got = index.get(pod.namespace)
    if got is None:
        return []
    by_key, rest = got
    labels, name = pod.labels, pod.name
    found = [i for key, by_value in by_key.items() for i in by_value.get(labels.get(key), ())]
    if rest:
        found += rest
    if len(by_key) > 1 or rest:
        found.sort()
    return [i for i in found if pdbs[i].selector.matches(labels) and name not in pdbs[i].disrupted_pods]


def kept_pdb_matches(pod: Pod, generation: int) -> list[int] | None:
    """PodInfo.pdb_matches: the indexes of the PDBs that count the pod (_matching_pdbs), kept for
    this generation of the cluster's PDB list; None when not kept for it."""
    got = (pod.info or pod_info(pod)).pdb_matches
    return got[1] if got is not UNSET and got[0] == generation else None


def keep_pdb_matches(pod: Pod, generation: int, idx: list[int]) -> list[int]:
    """Keep `idx` as the pod's PDB matches for this generation of the PDB list (computed again
    whenever the list moves on); returns it."""
    pi = pod.info or pod_info(pod)
    pi.pdb_matches = (generation, idx)
    return idx


def keep_pdb_matches_of(pods: list[Pod], generation: int, idx: list[list[int]]) -> None:
    """keep_pdb_matches of each pod of `pods` with its `idx`, in one call (the fast core's dry
    runs find a node's 30 potential victims together: scheduler/fast/preemption.py PDBMatches)."""
    for pod, got in zip(pods, idx):
        (pod.info or pod_info(pod)).pdb_matches = (generation, got)


def filter_pods_with_pdb_violation(pods: list[Pod], pdbs: list[PodDisruptionBudget], generation: int | None = None,
                                   matching: Callable[[list[Pod]], list[list[int]]] | None = None
                                   ) -> tuple[list[Pod], list[Pod], dict[str, list[str]]]:
    """mirrors filterPodsWithPDBViolation; also returns, per pod, the PDBs that selected it.

    `generation`: the cluster's pdb_generation when `pdbs` is its PDB list. Which PDBs count a pod
    depends on the pod object and that list alone, so it is kept in the pod's PodInfo for that
    generation (preemption's dry runs ask it of the same pods on every candidate node); None
    computes it afresh. `matching`: the indexes of the PDBs that count each labelled pod of
    `pods`, as _matching_pdbs gives them, from a caller that knows them faster (the fast core's
    scheduler/fast/preemption.py PDBMatches.each); None: found here."""
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    matched: dict[str, list[str]] = {}
    by_namespace: PDBIndex | None = None
    for pod, idx in zip(pods, matching(pods) if matching is not None else repeat(None)):
        violated = False
        if pod.labels:
            if idx is None:  # not given by `matching`
                idx = kept_pdb_matches(pod, generation) if generation is not None else None
                if idx is None:
                    if by_namespace is None:
                        by_namespace = _pdbs_by_namespace(pdbs)
                    idx = _matching_pdbs(pod, pdbs, by_namespace)
                    if generation is not None:
                        keep_pdb_matches(pod, generation, idx)
            for i in idx:
                pdb = pdbs[i]
                matched.setdefault(pod.key, []).append(pdb.key)
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating, matched


_LOWEST_PRIORITY = operator.attrgetter("lowest_priority")


class DefaultPreemption(PreemptionPlugin, MemoTraits):
    name = NAME
    # since v1.32 SelectVictimsOnNode sorts the victims again when both PDB-violating and other
    # pods are among them (kubernetes/kubernetes#128307), so that the first victim is the most
    # important, which pickOneNodeForPreemption's minHighestPriority step reads. Before, the
    # violating victims come first whatever their priority, and that step may pick the wrong
    # node (upstream's "pod can be made schedulable on minHighestPriority node" test). new() sets it.
    sorts_victims_after_reprieve = True

    # SchedulerAsyncPreemption (fts.EnableAsyncPreemption; new() sets it from the release's gates)
    async_preemption = True
    # v1.34.1 registers Pod/Delete under SchedulerAsyncPreemption; v1.33.0 registers nothing ("the
    # plugin moves the preemptor Pod to activeQ/backoffQ once the preemption API calls are all
    # done, and we don't need to move the Pod with any events")
    registers_pod_delete = True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # mirrors DefaultPreemption.EventsToRegister: with SchedulerAsyncPreemption (v1.34 on),
        # registered so the queue hears of deletions, but isPodSchedulableAfterPodDeletion always
        # says QueueSkip (a pod held while its preemption's API calls run is released when those
        # calls end); without it (v1.32's default, and before), or in v1.33, nothing
        if not self.async_preemption or not self.registers_pod_delete:
            return []
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.DELETE), ev.never)]

    def __init__(self, args: Mapping[str, Any], handle: Any) -> None:
        self.handle = handle
        self.min_candidate_nodes_percentage = int(args.get("minCandidateNodesPercentage", 10))
        self.min_candidate_nodes_absolute = int(args.get("minCandidateNodesAbsolute", 100))
        self.evaluator = Evaluator(NAME, handle, self)
        # v1.36's WorkloadAwarePreemption (new() sets it from the release's gates)
        self.workload_aware_preemption = False

    # ---------------------------------------------------------------- PostFilter
    def repeatable_post_filter(self, state: CycleState, pod: Pod) -> bool:
        """Its answer is a function of the pod's shape, the nodes, the nominator and the PDBs, and
        it draws from the random source only for the candidate offset (scheduler/memo/failed_cycles.py
        FailedCycles)."""
        return True

    def repeatable_dry_run(self, state: CycleState, pod: Pod) -> bool:
        """select_victims_on_node reads the pod's priority and uid, the node's pods, the nominator
        and the PDBs, and the filters and PreFilter extensions it runs (preemption/evaluator.py
        DryRunMemo)."""
        return True

    def same_answer_after_change(self, state: CycleState, pod: Pod, record: Any, node_info: NodeInfo,
                                 status: Status) -> bool:
        """Whether the answer `record` holds after `node_info` changed and its filters still reject
        the pod with `status`: the pod may not preempt at all, or the dry run looked for victims
        nowhere and there is still none to look for on this node (scheduler/memo/failed_cycles.py)."""
        if record is None:
            return False
        if not record.eligible:
            return True  # the preemption policy said no (a nominated pod never gets here)
        if record.dry_runs or record.candidates:
            return False
        if status.code != Code.Unschedulable:
            return True  # not a node preemption looks at (NodesForStatusCode)
        has, _ = self.nodes_with_possible_victims(pod, [node_info])
        return not has[0]

    def post_filter(self, state: CycleState, pod: Pod, m: Any) -> tuple[PostFilterResult | None, Status]:
        if self.workload_aware_preemption and scheduling_group(pod.spec):
            # v1.36 with WorkloadAwarePreemption: a pod group's members preempt as one unit, in
            # the pod-group cycle (preemption/podgroup_preemption.py), never one by one
            return None, Status(Code.Unschedulable, ERR_NOT_ELIGIBLE_WORKLOAD_AWARE)
        result, status = self.evaluator.preempt(state, pod, m)
        msg = status.message()
        if msg:
            return result, Status(status.code, MESSAGE_PREFIX + msg, error=status.error)
        return result, status

    # ---------------------------------------------------------------- Interface
    def calculate_num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        if n < self.min_candidate_nodes_absolute:
            n = self.min_candidate_nodes_absolute
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        # mirrors GetOffsetAndNumCandidates: upstream draws rand.Int31n(numNodes) every cycle, from
        # the scheduler's one source; ours is the run's (framework/randomness.py: drawn when the run
        # has a generator, else fixed by the seed, 0: no offset, which keeps explain reproducible)
        return self.handle.random_source.candidate_offset(num_nodes), self.calculate_num_candidates(num_nodes)

    def is_preemption_allowed(self, node_info: NodeInfo, victim: Pod, preemptor: Pod) -> bool:
        return victim.priority < preemptor.priority

    def nodes_with_possible_victims(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[bool], Status]:
        # is_preemption_allowed is priority alone (IsEligiblePod admits every pod): a node whose
        # lowest pod priority is not below the preemptor's has no victim, and select_victims_on_node
        # would answer it so
        return (list(map(pod.priority.__gt__, map(_LOWEST_PRIORITY, nodes))),
                Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS))

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status) -> tuple[bool, str]:
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, ERR_NOT_ELIGIBLE_POLICY_NEVER
        nom = pod.nominated_node_name
        if nom:
            if nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            ni = self.handle.snapshot.get(nom)
            if ni is not None:
                for pi in ni.pods:
                    p = pi.pod
                    if self.is_preemption_allowed(ni, p, pod) and pod_terminating_by_preemption(p):
                        return False, ERR_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: list[PodDisruptionBudget]) -> VictimSelection:
        """mirrors SelectVictimsOnNode: remove every pod preemption may take, check the pod fits
        without them, then reprieve as many as possible, the PDB-violating ones first, each group
        most important first. Besides upstream's answer, each reprieve's outcome and the PDBs of
        the pods (for the explanation). The fast core beside it: scheduler/fast/preemption.py."""
        fh = self.handle
        potential_victims: list[Pod] = []

        def remove_pod(rp: Pod) -> Status:
            node_info.remove_pod(rp)
            return fh.run_pre_filter_extension_remove_pod(state, pod, rp, node_info)

        def add_pod(ap: Pod) -> Status:
            node_info.add_pod(ap)
            return fh.run_pre_filter_extension_add_pod(state, pod, ap, node_info)

        # As the first step, remove all pods eligible for preemption from the node and check if
        # the given pod can be scheduled without them present.
        for pi in node_info.pods:
            if self.is_preemption_allowed(node_info, pi.pod, pod):
                potential_victims.append(pi.pod)
        for p in potential_victims:
            status = remove_pod(p)
            if not status.is_success():
                return VictimSelection([], 0, status)
        # No potential victims are found, and so we don't need to evaluate the node again since
        # its state didn't change.
        if not potential_victims:
            return VictimSelection([], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS))
        # If the new pod does not fit after removing all the eligible pods, this node is not
        # suitable for preemption.
        status = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return VictimSelection([], 0, status)
        victims: list[Pod] = []
        num_violating_victim = 0
        # Sort potentialVictims by descending importance (sort.Slice: not stable past 12 pods),
        # which ensures reprieve of higher importance pods first.
        sort_by_key(potential_victims, importance_key)
        cluster = getattr(fh, "cluster", None)
        violating_victims, non_violating_victims, matched = filter_pods_with_pdb_violation(
            potential_victims, pdbs, cluster.pdb_generation if cluster is not None and pdbs is cluster.pdbs else None)
        reprieves: list[Reprieve] = []

        def reprieve_pod(p: Pod, is_violating: bool) -> tuple[bool, Status | None]:
            status = add_pod(p)
            if not status.is_success():
                return False, status
            status = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            fits = status.is_success()
            if not fits:
                err = remove_pod(p)
                if not err.is_success():
                    return False, err
                victims.append(p)
            reprieves.append(Reprieve(p, fits, is_violating, None if fits else status))
            return fits, None

        # Try to reprieve as many pods as possible. We first try to reprieve the PDB violating
        # victims and then other non-violating ones. In both cases, we start from the highest
        # importance victims.
        violating_keys: set[str] = set()
        for p in violating_victims:
            fits, err = reprieve_pod(p, True)
            if err is not None:
                return VictimSelection([], 0, err)
            if not fits:
                num_violating_victim += 1
                violating_keys.add(p.key)
        # Now we try to reprieve non-violating victims.
        for p in non_violating_victims:
            _, err = reprieve_pod(p, False)
            if err is not None:
                return VictimSelection([], 0, err)
        # Sort victims after reprieving pods to keep the pods in the victims sorted in order of
        # importance from high to low (since v1.32, sorts_victims_after_reprieve).
        if violating_victims and non_violating_victims and self.sorts_victims_after_reprieve:
            sort_by_key(victims, importance_key)
        return VictimSelection(victims, num_violating_victim, SUCCESS, reprieves, frozenset(violating_keys), matched)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> DefaultPreemption:
    plugin = DefaultPreemption(args, handle)
    plugin.sorts_victims_after_reprieve = version.at_least(32)
    plugin.workload_aware_preemption = version.minor >= 36 and version.features.enable_workload_aware_preemption
    plugin.async_preemption = version.gate_enabled("SchedulerAsyncPreemption")
    plugin.registers_pod_delete = version.at_least(34)
    return plugin
