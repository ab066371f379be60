"""Preemption's dry runs, fast (the core beside preemption/evaluator.py Evaluator.dry_run_preemption
and plugins/defaultpreemption DefaultPreemption.select_victims_on_node).

Three shortcuts, each giving the answers of the plain functions:
- the screen: nodes where the plugin knows no victim can be found (PreemptionPlugin.
  nodes_with_possible_victims) get the status SelectVictimsOnNode would give them, without a
  copy of the node nor a dry run;
- the memo: a dry run's answer kept in the scheduler's equivalence cache (DryRunMemo);
- DefaultPreemption's SelectVictimsOnNode in arithmetic where the filters let it
  (_DryRunCycle), else without the PreFilter extensions' calls when the cycle runs none of them
  (they would answer Success and change nothing).
"""
from __future__ import annotations

import operator
from itertools import compress, repeat
from typing import Any

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import NodeToStatus
from ...framework.interface import DRY_RUN_POINT, is_node_local, memo_traits
from ...framework.podinfo import UNSET
from ...framework.status import SUCCESS, Code, Error, Status, Success
from ...framework.types import NodeInfo
from ...model.gosort import sort_by_key, sort_by_keys
from ...model.objects import Pod, PodDisruptionBudget
from ...plugins.defaultpreemption import (DefaultPreemption, ERR_NO_VICTIMS, PDBIndex, _matching_pdbs, _pdbs_by_namespace,
                                          filter_pods_with_pdb_violation, keep_pdb_matches_of)
from ...plugins.noderesources.fit import PRE_FILTER_STATE_KEY as FIT_STATE_KEY, Fit, PodRequest
from ...preemption.decision import Candidate, Reprieve
from ...preemption.evaluator import (EQUIVALENCE_KEY, Evaluator, PreemptionPlugin, PreemptionRun, VictimSelection,
                                     candidate_of, importance_key, importance_keys)

_NODE_NAME = operator.attrgetter("name")
_UNBOUNDED = float("inf")  # above every sum: int and float compare exactly
_POD = operator.attrgetter("pod")
_STATUS = operator.attrgetter("status")
_METADATA = operator.attrgetter("metadata")
_POD_RESOURCE = operator.attrgetter("resource")  # NodeInfo.counted of a node without a release's counting


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
        """What the dry run on `ni` reads of the node beside the pod's shape and priority: its
        generation, how many of the pods are the node's own, and one list of the pods (the node's,
        then the nominated ones the filters count), their statuses and their metadata, compared by
        identity in one pass (plan --max asks 100 nodes per preemption)."""
        prio, uid = pod.priority, pod.uid
        pods = list(map(_POD, ni.pods))
        nominated = handle.nominator.by_node.get(ni.name)
        if nominated:
            pods += [p for p in nominated if p.priority >= prio and p.uid != uid]
        return (ni.generation, len(ni.pods), [*pods, *map(_STATUS, pods), *map(_METADATA, pods)])

    def recall(self, handle: Any, pod: Pod, ni: NodeInfo) -> tuple | None:
        """The entry kept for the node, (reads, PDB state, VictimSelection, [its Candidate or
        None]), while all the dry run read is unchanged (what reads() would give now is what the
        entry holds, compared in place: a preemption of plan --max asks 100 nodes, most of them
        unchanged); None otherwise."""
        got = self.answers.recall(ni)
        if got is None:
            return None
        held, pdb_state, sel, _ = got
        own = ni.pods
        if held[0] != ni.generation or held[1] != len(own):
            return None
        objs = held[2]
        n = len(objs) // 3
        i = 0
        for pi in own:
            p = pi.pod
            if objs[i] is not p or objs[n + i] is not p.status or objs[2 * n + i] is not p.metadata:
                return None
            i += 1
        nominated = handle.nominator.by_node.get(ni.name)
        if nominated:
            prio, uid = pod.priority, pod.uid
            for p in nominated:
                if p.priority >= prio and p.uid != uid:
                    if i == n or objs[i] is not p or objs[n + i] is not p.status or objs[2 * n + i] is not p.metadata:
                        return None
                    i += 1
        if i != n:
            return None
        now = self.pdb_state
        if pdb_state is not now:
            if pdb_state[0] is not now[0] or pdb_state[1] != now[1] or len(pdb_state[2]) != len(now[2]):
                return None
            for (a, allowed_a, disrupted_a), (b, allowed_b, disrupted_b) in zip(pdb_state[2], now[2]):
                if a is not b or allowed_a != allowed_b or disrupted_a != disrupted_b:
                    return None
        return got

    def remember(self, ni: NodeInfo, reads: tuple, sel: VictimSelection) -> tuple | None:
        """Keep the dry run's answer; returns the entry kept (None for an error, never kept)."""
        if sel.status.code == Error:
            return None
        # the last slot holds the Candidate made of `sel` once one is: a candidate depends on the
        # node's name and on the selection alone (its chain values on the victims' priorities
        # and start times, read from the same pod and status objects the entry compares), so
        # the entry serves it again (plan --max: 100 candidates per preemption, most remembered)
        entry = (reads, self.pdb_state, sel, [None])
        self.answers.keep(ni, entry)
        return entry




def dry_run_preemption(ev: Evaluator, state: CycleState, pod: Pod, potential: list[NodeInfo],
                       pdbs: list[PodDisruptionBudget], offset: int, num: int,
                       details: PreemptionRun) -> tuple[list[Candidate], NodeToStatus, str | None]:
    """What Evaluator.dry_run_preemption gives, with the screen, the memo and the fast
    SelectVictimsOnNode (module docstring)."""
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    statuses = NodeToStatus()
    errs: list[str] = []
    n = len(potential)
    order = [potential[(offset + i) % n] for i in range(n)] if offset else potential
    interface = ev.interface
    # nodes where the plugin knows no victim can be found need no copies nor a dry run
    screen = interface.nodes_with_possible_victims(pod, order)
    if screen is not None:
        has, no_victims = screen
        with_victims = list(compress(range(n), has))
    else:
        no_victims, with_victims = None, list(range(n))
    done = n
    memo = DryRunMemo.for_cycle(ev.handle, state, pod, interface, pdbs)
    select = _victims_selector(ev, state, pod)
    for i in with_victims:
        details.dry_runs += 1
        base = order[i]
        entry = memo.recall(ev.handle, pod, base) if memo is not None else None
        if entry is not None:
            sel = entry[2]
        else:
            sel = select(state, pod, base, pdbs)
            if memo is not None:
                entry = memo.remember(base, DryRunMemo.reads(ev.handle, pod, base), sel)
        victims, num_viol, status = sel.victims, sel.num_pdb_violations, sel.status
        if status.is_success() and victims:
            if entry is None:
                candidate = candidate_of(base.name, sel)
            else:
                candidate = entry[3][0]
                if candidate is None:
                    candidate = entry[3][0] = candidate_of(base.name, sel)
            (non_violating if num_viol == 0 else violating).append(candidate)
            if non_violating and len(non_violating) + len(violating) >= num:
                done = i + 1
                break
            continue
        if status.is_success() and not victims:
            status = Status.as_error(f'expected at least one victim pod on node "{base.name}"')
        if status.code == Error:
            errs.append(status.message())
        statuses.set(base.name, status)
    if no_victims is not None:
        # the nodes before the stop that had nothing to remove
        nothing = compress(order[:done], map(operator.not_, has[:done]))
        statuses.statuses.update(zip(map(_NODE_NAME, nothing), repeat(no_victims)))
    cands = non_violating + violating
    details.candidates = cands
    return cands, statuses, "; ".join(errs) if errs else None


def _victims_selector(ev: Evaluator, state: CycleState, pod: Pod) -> Any:
    """select(state, pod, node_info, pdbs) for one dry run on `node_info` (the snapshot's own:
    what changes is copied): the plugin's SelectVictimsOnNode on copies of the node and the
    state, or the fast one below when the plugin is DefaultPreemption with its own method (not
    replaced on the instance, as a test may do)."""
    interface = ev.interface
    method = interface.select_victims_on_node
    if isinstance(interface, DefaultPreemption) and getattr(method, "__func__", None) is DefaultPreemption.select_victims_on_node:
        return _DryRunCycle(interface, state, pod).select
    return lambda st, p, node_info, pdbs: method(st.clone(), p, node_info.snapshot(), pdbs)


class PDBMatches:
    """Which PDBs count a pod (plugins/defaultpreemption _matching_pdbs), for one preemption's dry
    runs: found once per namespace and label set, not once per pod. The PDBs that count a pod are
    those of its namespace whose selector matches its labels, less those that list the pod among
    their disruptedPods: with no PDB listing any, the answer is a function of the namespace and
    the labels, and pods of one workload share both. With one listing some, each pod is asked
    afresh. With `generation` (the cluster's pdb_generation, `pdbs` being its list) the answer is
    also read from and kept in the pod's PodInfo, as filter_pods_with_pdb_violation keeps it, so
    that the next preemption over the same pods finds it there.

    Asked of a dry run's potential victims together (`each`, filter_pods_with_pdb_violation's
    `matching`): one loop for the 30 pods of a node, not a call per pod and another to keep the
    answer (bench_explain asks 14,700 pods in its decision)."""

    __slots__ = ("pdbs", "generation", "_index", "by_labels", "by_name")

    def __init__(self, pdbs: list[PodDisruptionBudget], generation: int | None) -> None:
        self.pdbs = pdbs
        self.generation = generation
        self._index: PDBIndex | None = None  # _pdbs_by_namespace(pdbs), made on the first pod asked
        self.by_labels: dict[tuple, list[int]] = {}
        self.by_name = any(pdb.disrupted_pods for pdb in pdbs)

    def each(self, pods: list[Pod]) -> list[list[int]]:
        """The indexes of the PDBs that count each labelled pod of `pods` (an empty list for a
        pod without labels, which filter_pods_with_pdb_violation never asks)."""
        generation = self.generation
        pdbs = self.pdbs
        by_labels = self.by_labels
        by_name = self.by_name
        index = self._index
        out: list[list[int]] = []
        append = out.append
        # the pods whose answer was found here and their answers, kept together at the end (with
        # `generation`) by keep_pdb_matches_of: a call for the lot, not one per pod
        found: list[Pod] = []
        found_idx: list[list[int]] = []
        for pod in pods:
            if generation is not None:
                # kept_pdb_matches, inline
                pi = pod.info
                kept = pi.pdb_matches if pi is not None else UNSET
                if kept is not UNSET and kept[0] == generation:
                    append(kept[1])
                    continue
            labels = pod.labels
            if not labels:
                append(_NO_PDBS)
                continue
            if index is None:
                index = self._index = _pdbs_by_namespace(pdbs)
            if by_name:
                got = _matching_pdbs(pod, pdbs, index)
            else:
                key = (pod.namespace, *labels.items())
                got = by_labels.get(key)
                if got is None:
                    got = by_labels[key] = _matching_pdbs(pod, pdbs, index)
            if generation is not None:
                found.append(pod)
                found_idx.append(got)
            append(got)
        if found:
            keep_pdb_matches_of(found, generation, found_idx)
        return out


_NO_PDBS: list[int] = []  # shared: read, never changed


def _by_importance_and_pdbs(fh: Any, potential: list[Pod], pdbs: list[PodDisruptionBudget],
                            matching: PDBMatches | None = None) -> tuple[list[Pod], list[Pod], dict[str, list[str]]]:
    """SelectVictimsOnNode's order of the potential victims: sorted by importance (sort.Slice, not
    stable past 12 pods), then split by filterPodsWithPDBViolation (with the PDBs of each;
    `matching`: the PDB matches of the preemption, PDBMatches of `pdbs`)."""
    sort_by_keys(potential, importance_keys(potential))
    cluster = getattr(fh, "cluster", None)
    return filter_pods_with_pdb_violation(
        potential, pdbs, cluster.pdb_generation if cluster is not None and pdbs is cluster.pdbs else None,
        matching.each if matching is not None else None)


def surely_fits(request: PodRequest, alloc: Any, used: Any, num_pods: int) -> bool:
    """True only where NodeResourcesFit's fitsRequest finds nothing short: a pod slot is left and
    every resource the pod requests is within what is free, the ignored extended resources
    included (so False may still fit: Fit's Filter is then asked, and words the status)."""
    if num_pods + 1 > alloc.allowed_pod_number:
        return False
    req = request.milli_cpu
    if req > 0 and req > alloc.milli_cpu - used.milli_cpu:
        return False
    req = request.memory
    if req > 0 and req > alloc.memory - used.memory:
        return False
    req = request.ephemeral_storage
    if req > 0 and req > alloc.ephemeral_storage - used.ephemeral_storage:
        return False
    if request.scalar:
        cap, u = alloc.scalar, used.scalar
        for name, req in request.scalar.items():
            if req != 0 and req > cap.get(name, 0) - u.get(name, 0):
                return False
    return True


_tuple_new = tuple.__new__


class _Outcome:
    """What the reprieve loop decides, pod by pod, and the VictimSelection it makes at the end."""

    __slots__ = ("victims", "reprieves", "num_violating", "violating_keys")

    def __init__(self) -> None:
        self.victims: list[Pod] = []
        self.reprieves: list[Reprieve] = []
        self.num_violating = 0
        self.violating_keys: set[str] = set()

    # Reprieve(...) goes through the named tuple's __new__, a Python function: tuple.__new__ makes
    # the same tuple in C (a dry run makes one per potential victim, 13,500 in bench_explain's)
    def keep(self, p: Pod, is_violating: bool) -> None:
        self.reprieves.append(_tuple_new(Reprieve, (p, True, is_violating, None)))

    def evict(self, p: Pod, is_violating: bool, status: Status) -> None:
        self.victims.append(p)
        self.reprieves.append(_tuple_new(Reprieve, (p, False, is_violating, status)))
        if is_violating:
            self.num_violating += 1
            self.violating_keys.add(p.key)

    def selection(self, pl: DefaultPreemption, both_groups: bool, matched: dict[str, list[str]]) -> VictimSelection:
        if both_groups and pl.sorts_victims_after_reprieve:
            sort_by_key(self.victims, importance_key)
        return VictimSelection(self.victims, self.num_violating, SUCCESS, self.reprieves,
                               frozenset(self.violating_keys), matched)


class _FitView:
    """What NodeResourcesFit's Filter reads of a NodeInfo (allocatable, requested, the number of
    pods), for the reprieve checks done in arithmetic."""

    __slots__ = ("allocatable", "requested", "pods")

    def __init__(self, node_info: NodeInfo) -> None:
        self.allocatable = node_info.allocatable
        self.requested = node_info.requested.clone()
        self.pods = list(node_info.pods)


def _add(r: Any, res: Any, sign: int) -> None:
    """NodeInfo's sums of `res` (a Resource) added to `r` (sign 1) or taken off (sign -1)."""
    r.milli_cpu += sign * res.milli_cpu
    r.memory += sign * res.memory
    r.ephemeral_storage += sign * res.ephemeral_storage
    if res.scalar:
        scalar = r.scalar
        for k, v in res.scalar.items():
            scalar[k] = scalar.get(k, 0) + sign * v


class NodePods(list):
    """Every pod of `node_info` that a dry run may evict when that is every pod of the node: what
    MemoTraits.filter_ignores_pods is asked of, carrying the node, so that a plugin finds the pods
    that may matter to it through the node's own lists and label index (PodTopologySpread's and
    InterPodAffinity's PreFilter states: counts_none_on) instead of testing each of them."""

    __slots__ = ("node_info",)

    def __init__(self, pods: list[Pod], node_info: NodeInfo) -> None:
        super().__init__(pods)
        self.node_info = node_info


class _DryRunCycle:
    """DefaultPreemption's SelectVictimsOnNode for one preemption's dry runs (one pod, one cycle
    state), fast.

    In arithmetic, when it may: every pod reprieved so far passed every filter, so a reprieve
    check differs from the last passed one only by the pod put back; a plugin that declares it
    ignores that pod (MemoTraits.filter_ignores_pods: its Filter answer and its PreFilter
    extension's state do not move) passes again, and NodeResourcesFit, which reads the node's
    sums alone, is asked on those sums (_FitView) with the pod's requests added. So when every
    other filter plugin the cycle runs, and every PreFilter extension it tells, ignores the node's
    potential victims and no pod is nominated to the node, the reprieves need neither copies of
    the node and the state nor the extensions' calls, and each check is one Filter call of
    NodeResourcesFit. Otherwise the plain steps, without the extensions' calls when the cycle
    tells none (with none left they answer Success and change nothing)."""

    def __init__(self, pl: DefaultPreemption, state: CycleState, pod: Pod) -> None:
        self.pl = pl
        self.state = state
        self.pod = pod
        fh = pl.handle
        skip = state.skip_filter_plugins
        self.active = [f for f in fh.filter_plugins if f.name not in skip]
        exts = getattr(fh, "pre_filter_extensions", None)
        self.tell = exts is None or any(name not in skip for name, _ in exts)
        told = {name for name, _ in exts if name not in skip} if exts is not None else None
        fits = [f for f in self.active if isinstance(f, Fit)]
        self.fit = fits[0] if len(fits) == 1 else None
        others = [f for f in self.active if f is not self.fit]
        # in arithmetic only when NodeResourcesFit is there once (or not at all) and every
        # extension told belongs to a filter plugin that may declare it ignores the pods
        self.arithmetic = (len(fits) <= 1 and told is not None
                           and told <= {f.name for f in others})
        self.others = [(f, memo_traits(f)) for f in others]
        # NodeResourcesFit's request for the pod, for the sure-fit test before its Filter is asked
        # (Fit's own Filter only: one replaced on the class or the instance is always asked)
        fit = self.fit
        self.fit_request: PodRequest | None = (
            state.get(FIT_STATE_KEY) if fit is not None and type(fit) is Fit
            and getattr(fit.filter, "__func__", None) is Fit.filter else None)
        self.pdb_matches: PDBMatches | None = None
        # Fit's refusals of the pod by what is short (_in_arithmetic), for every dry run of the
        # preemption
        self.refusals: dict[tuple, Status] = {}
        # DefaultPreemption's own is_preemption_allowed is the victim's priority below the pod's:
        # asked as that comparison (bench_explain: 30 pods a node), a replaced one as itself
        method = pl.is_preemption_allowed
        self.below = (pod.priority if getattr(method, "__func__", None) is DefaultPreemption.is_preemption_allowed
                      else None)

    def select(self, state: CycleState, pod: Pod, node_info: NodeInfo,
               pdbs: list[PodDisruptionBudget]) -> VictimSelection:
        got = self.in_arithmetic(node_info, pdbs)
        return got if got is not None else self._plain_steps(state.clone(), pod, node_info.snapshot(), pdbs)

    def in_arithmetic(self, node_info: NodeInfo, pdbs: list[PodDisruptionBudget]) -> VictimSelection | None:
        """The dry run's answer in arithmetic, None where that does not hold (class docstring)."""
        if not self.arithmetic:
            return None
        pl, state, pod = self.pl, self.state, self.pod
        below = self.below
        if below is not None:
            potential = [p for p in map(_POD, node_info.pods) if p.priority < below]
        else:
            potential = [pi.pod for pi in node_info.pods if pl.is_preemption_allowed(node_info, pi.pod, pod)]
        if not potential or pl.handle.nominator.by_node.get(node_info.name):
            return None
        if len(potential) == len(node_info.pods):
            potential = NodePods(potential, node_info)
        if all(traits.filter_ignores_pods(state, pod, potential) for _, traits in self.others):
            return self._in_arithmetic(node_info, potential, pdbs)
        return None

    def _in_arithmetic(self, base: NodeInfo, potential: list[Pod],
                       pdbs: list[PodDisruptionBudget]) -> VictimSelection | None:
        pl, state, pod = self.pl, self.state, self.pod
        fh = pl.handle
        if len(potential) == len(base.pods):
            node_info = base.emptied()
        else:
            node_info = base.snapshot()
            node_info.remove_pods(potential)
        s = fh.run_filter_plugins(state, pod, node_info)
        if not s.is_success():
            return VictimSelection([], 0, s)
        matching = self.pdb_matches
        if matching is None or matching.pdbs is not pdbs:
            cluster = getattr(fh, "cluster", None)
            matching = self.pdb_matches = PDBMatches(
                pdbs, cluster.pdb_generation if cluster is not None and pdbs is cluster.pdbs else None)
        violating, non_violating, matched = _by_importance_and_pdbs(fh, potential, pdbs, matching)
        fit = self.fit
        view = _FitView(node_info)
        requested = view.requested
        pods = view.pods
        alloc = view.allocatable
        request = self.fit_request
        # NodeInfo.counted, without the call per pod where the node counts as v1.34 does
        counting = node_info.counting
        counted = node_info.counted if counting is not None else _POD_RESOURCE
        out = _Outcome()
        reprieves = out.reprieves
        success = Success
        # surely_fits, inline for a request of no scalar resource: the most each sum may reach
        # (what is allocatable less the request; no bound where nothing is requested) and the
        # pod slots, fixed for the whole loop (a call less for each of the 30 pods a node)
        inline = request is not None and not request.scalar
        most_cpu = most_memory = most_storage = _UNBOUNDED
        slots = 0
        # Fit's own Filter words a refusal of such a request by which of pods, cpu, memory and
        # ephemeral-storage are short (fitsRequest's reasons, in that order) and chooses its code
        # by which of those the pod asks more of than the node has at all: with both read here
        # in arithmetic, the refusal it gave for one such pair is the refusal it gives for every
        # other pod and node of the preemption with that pair (self.refusals; bench_explain: 490
        # full nodes, Fit asked 3,304 times for 3 wordings). Fit is asked the first time.
        refusals = self.refusals
        unresolvable: tuple = ()
        # any other request: between two pods kept, a pod put back on the same sums with the
        # requests of one already refused is refused in the same words (emptied whenever a pod
        # is kept)
        refused: dict[tuple, Status] | None = {} if request is not None and not inline else None
        if inline:
            most_cpu = alloc.milli_cpu - request.milli_cpu if request.milli_cpu > 0 else _UNBOUNDED
            most_memory = alloc.memory - request.memory if request.memory > 0 else _UNBOUNDED
            most_storage = (alloc.ephemeral_storage - request.ephemeral_storage if request.ephemeral_storage > 0
                            else _UNBOUNDED)
            slots = alloc.allowed_pod_number
            unresolvable = (request.milli_cpu > alloc.milli_cpu, request.memory > alloc.memory,
                            request.ephemeral_storage > alloc.ephemeral_storage)
        for is_violating, group in ((True, violating), (False, non_violating)):
            for p in group:
                if fit is None:
                    out.keep(p, is_violating)
                    continue
                res = counted(p).resource
                if res.scalar:
                    _add(requested, res, 1)
                else:
                    # _add, inline for the pods of no scalar resource (a call and three products
                    # less for each of a dry run's 30 pods a node)
                    requested.milli_cpu += res.milli_cpu
                    requested.memory += res.memory
                    requested.ephemeral_storage += res.ephemeral_storage
                pods.append(p)
                shape = None
                if inline:
                    if (len(pods) < slots and requested.milli_cpu <= most_cpu and requested.memory <= most_memory
                            and requested.ephemeral_storage <= most_storage):
                        # out.keep, inline: most pods of a dry run are kept here
                        reprieves.append(_tuple_new(Reprieve, (p, True, is_violating, None)))
                        continue
                    shape = ((len(pods) >= slots, requested.milli_cpu > most_cpu, requested.memory > most_memory,
                              requested.ephemeral_storage > most_storage), unresolvable)
                    st = refusals.get(shape)
                else:
                    if request is not None and surely_fits(request, alloc, requested, len(pods)):
                        reprieves.append(_tuple_new(Reprieve, (p, True, is_violating, None)))
                        if refused:
                            refused.clear()
                        continue
                    st = None
                    if refused is not None:
                        shape = (res.milli_cpu, res.memory, res.ephemeral_storage,
                                 tuple(res.scalar.items()) if res.scalar else ())
                        st = refused.get(shape)
                if st is not None:
                    if res.scalar:
                        _add(requested, res, -1)
                    else:
                        # _add(requested, res, -1), inline as above
                        requested.milli_cpu -= res.milli_cpu
                        requested.memory -= res.memory
                        requested.ephemeral_storage -= res.ephemeral_storage
                    pods.pop()
                    out.evict(p, is_violating, st)
                    continue
                st = fit.filter(state, pod, view)
                if st.code == success:
                    out.keep(p, is_violating)
                    if refused:
                        refused.clear()
                    continue
                if not st.is_rejected():
                    return None  # an error: the plain steps word it as the framework does
                _add(requested, res, -1)
                pods.pop()
                st = st.with_plugin(fit.name)
                if shape is not None:
                    (refusals if inline else refused)[shape] = st  # type: ignore[index]
                out.evict(p, is_violating, st)
        return out.selection(pl, bool(violating and non_violating), matched)

    def _plain_steps(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                     pdbs: list[PodDisruptionBudget]) -> VictimSelection:
        """DefaultPreemption.select_victims_on_node's steps, without the PreFilter extensions'
        calls when the cycle tells none."""
        pl = self.pl
        fh = pl.handle
        tell = self.tell
        remove_ext = fh.run_pre_filter_extension_remove_pod
        run_filters = fh.run_filter_plugins_with_nominated_pods
        allowed = pl.is_preemption_allowed
        potential: list[Pod] = []
        for pi in list(node_info.pods):
            p = pi.pod
            if allowed(node_info, p, pod):
                potential.append(p)
                node_info.remove_pod(p)
                if tell:
                    s = remove_ext(state, pod, p, node_info)
                    if not s.is_success():
                        return VictimSelection([], 0, s)
        if not potential:
            return VictimSelection([], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS))
        s = run_filters(state, pod, node_info)
        if not s.is_success():
            return VictimSelection([], 0, s)
        violating, non_violating, matched = _by_importance_and_pdbs(fh, potential, pdbs)
        out = _Outcome()
        add_ext = fh.run_pre_filter_extension_add_pod
        success = Success
        # reprievePod: the PDB-violating pods first, then the others, each in importance order
        for is_violating, group in ((True, violating), (False, non_violating)):
            for p in group:
                node_info.add_pod(p)
                if tell:
                    st = add_ext(state, pod, p, node_info)
                    if st.code != success:
                        return VictimSelection([], 0, st)
                st = run_filters(state, pod, node_info)
                if st.code == success:
                    out.keep(p, is_violating)
                    continue
                node_info.remove_pod(p)
                if tell:
                    st2 = remove_ext(state, pod, p, node_info)
                    if st2.code != success:
                        return VictimSelection([], 0, st2)
                out.evict(p, is_violating, st)
        return out.selection(pl, bool(violating and non_violating), matched)
