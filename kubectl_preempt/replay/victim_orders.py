"""Every victim set a node can give under the pod orders a trace allows (follow mode).

SelectVictimsOnNode (framework/plugins/defaultpreemption, `SelectVictimsOnNode`) sorts a node's
lower-priority pods with util.MoreImportantPod (priority, then status.startTime, which has one-
second resolution) by sort.Slice, which leaves pods that compare equal in the order the
scheduler cache's NodeInfo lists them (an insertion sort up to 12 pods). That order is the cache's
history (backend/cache/cache.go: addPod appends, NodeInfo.RemovePod moves the last pod into the
hole, updatePod is a removal and an add). A trace that begins after pods were bound does not hold
that history: the replay's order is an estimate (scheduler/backend/cache.py
PodOrder.from_history), and `TracedPodOrder` knows which pods' places it cannot vouch for.

Here the upstream-shaped dry run (the preemption plugin's `select_victims_on_node`) is run again
on the node with those pods in every other arrangement that can change its answer, bounded:
- only pods that tie with another doubtful pod (same priority, same start time) are moved, each
  among the places the tie's doubtful pods hold (the sort keeps every other pod where it was);
- pods that the dry run cannot tell apart (same namespace, labels, spec, requests, PDB standing
  and termination: a Deployment's replicas) are one class; only distinct sequences of classes are
  tried (a multiset's permutations, not the pods'), and a class's members are then interchangeable:
  the victims of a class are any as many of its members;
- at most MAX_ARRANGEMENTS sequences per node and MAX_ALTERNATIVES victim sets are listed; past
  them the answer says it is incomplete.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import factorial
from typing import Callable, Iterator, Sequence

from ..framework.cycle_state import CycleState
from ..framework.runtime import Framework
from ..framework.types import NodeInfo
from ..model.objects import Pod, PodDisruptionBudget
from ..model.podshape import pod_spec_key, requests_key
from ..preemption.decision import Candidate, PreemptionRecord, pod_start_nanos
from ..preemption.evaluator import PreemptionPlugin

# distinct arrangements of the doubtful pods tried on one node
MAX_ARRANGEMENTS = 256
# victim sets listed per node
MAX_ALTERNATIVES = 64


@dataclass
class NodeOrders:
    """What one node's dry run gives over the arrangements the trace allows."""

    node: str
    # one per distinct answer: the candidate it makes and its victim sets (members of a class
    # swapped), the replay's own arrangement first
    outcomes: list[tuple[Candidate, list[list[str]]]]
    doubtful: list[str]                   # keys of the pods whose order decides
    complete: bool = True                 # every arrangement and victim set was tried and listed
    winning_sets: list[list[str]] = field(default_factory=list)  # victim sets under which the node can win

    @property
    def victim_sets(self) -> list[list[str]]:
        """Every victim set, the replay's own first, at most MAX_ALTERNATIVES."""
        out: list[list[str]] = []
        for _, sets in self.outcomes:
            out += [s for s in sets if s not in out]
        return out[:MAX_ALTERNATIVES]

    @property
    def best(self) -> tuple:
        return max(c.chain_scores for c, _ in self.outcomes)

    @property
    def worst(self) -> tuple:
        return min(c.chain_scores for c, _ in self.outcomes)


def _preemption_plugin(fwk: Framework) -> PreemptionPlugin | None:
    for pl in fwk.post_filter_plugins:
        if isinstance(pl, PreemptionPlugin):
            return pl
    return None


def _class_key(p: Pod, pdbs: Sequence[PodDisruptionBudget]) -> tuple:
    """What a dry run reads of a victim beside its place: the preemptor's filters see its spec,
    labels and requests; filterPodsWithPDBViolation its labels and whether a PDB lists it among
    disruptedPods; the choice of victims its priority and start time; PodEligibleToPreemptOthers
    and the dry run's "already terminating" its deletion."""
    try:
        req = requests_key(p.spec, p.status)
    except Exception:  # a malformed spec: never interchangeable
        req = p.uid.encode()
    listed = tuple(sorted(pdb.key for pdb in pdbs if pdb.namespace == p.namespace and p.name in pdb.disrupted_pods))
    return (p.priority, pod_start_nanos(p), p.namespace, tuple(sorted(p.labels.items())), pod_spec_key(p.spec) or p.uid,
            req, listed, bool(p.deletion_timestamp))


def _multiset_permutations(classes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Each distinct ordering of `classes` once, the given one first."""
    yield tuple(classes)
    counts: dict[int, int] = {}
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    kinds = sorted(counts)
    n = len(classes)
    first = tuple(classes)
    out: list[int] = []

    def walk() -> Iterator[tuple[int, ...]]:
        if len(out) == n:
            t = tuple(out)
            if t != first:
                yield t
            return
        for k in kinds:
            if counts[k]:
                counts[k] -= 1
                out.append(k)
                yield from walk()
                out.pop()
                counts[k] += 1

    yield from walk()


def _num_arrangements(classes: Sequence[int]) -> int:
    counts: dict[int, int] = {}
    for c in classes:
        counts[c] = counts.get(c, 0) + 1
    n = factorial(len(classes))
    for k in counts.values():
        n //= factorial(k)
    return n


def node_orders(plugin: PreemptionPlugin, state: CycleState, pod: Pod, base: NodeInfo, doubtful: frozenset[str],
                pdbs: list[PodDisruptionBudget]) -> NodeOrders | None:
    """The dry run on `base` under every arrangement of its doubtful pods that can change it, the
    node's own order first; None when no two doubtful lower-priority pods tie, or the answer is
    the same under every arrangement. `state`: the cycle's state after PreFilter."""
    infos = list(base.pods)
    # the tie groups of doubtful potential victims (DefaultPreemption's isPreemptionAllowed:
    # lower priority), each as its places in the node's list
    groups: dict[tuple[int, int], list[int]] = {}
    for i, pi in enumerate(infos):
        p = pi.pod
        if p.uid in doubtful and p.priority < pod.priority:
            groups.setdefault((p.priority, pod_start_nanos(p)), []).append(i)
    tied = [places for places in groups.values() if len(places) > 1]
    if not tied:
        return None
    keys: dict[tuple, int] = {}
    seqs: list[list[int]] = []
    members: list[dict[int, list[int]]] = []  # per group, class -> places of its pods, in order
    for places in tied:
        seq = [keys.setdefault(_class_key(infos[i].pod, pdbs), len(keys)) for i in places]
        by_class: dict[int, list[int]] = {}
        for i, c in zip(places, seq):
            by_class.setdefault(c, []).append(i)
        seqs.append(seq)
        members.append(by_class)
    total = 1
    for seq in seqs:
        total *= _num_arrangements(seq)
    outcomes: list[tuple[Candidate, list[list[str]]]] = []
    seen: set[tuple] = set()
    classes = [[[infos[i].pod.key for i in ps] for ps in by_class.values()] for by_class in members]
    # each group's sequences bounded first: product() takes its inputs whole
    arrangements = itertools.product(*(list(itertools.islice(_multiset_permutations(s), MAX_ARRANGEMENTS))
                                       for s in seqs))
    for arrangement in itertools.islice(arrangements, MAX_ARRANGEMENTS):
        order = list(infos)
        for places, seq, by_class in zip(tied, arrangement, members):
            nxt = {c: iter(ps) for c, ps in by_class.items()}
            for i, c in zip(places, seq):
                order[i] = infos[next(nxt[c])]
        ni = base.snapshot()
        ni.pods = order
        sel = plugin.select_victims_on_node(state.clone(), pod, ni, pdbs)
        if not sel.status.is_success() or not sel.victims:
            continue
        cand = Candidate(base.name, list(sel.victims), sel.num_pdb_violations)
        sets = _identities(sel.victims, classes)
        sig = (cand.chain_scores, tuple(map(tuple, sets)))
        if sig not in seen:
            seen.add(sig)
            outcomes.append((cand, sets))
    if not outcomes:
        return None
    listed = {tuple(s) for _, sets in outcomes for s in sets}
    out = NodeOrders(base.name, outcomes, sorted({k for cl in classes for ks in cl for k in ks}),
                     complete=total <= MAX_ARRANGEMENTS and len(listed) <= MAX_ALTERNATIVES)
    if len(out.victim_sets) < 2 and len({c.chain_scores for c, _ in outcomes}) < 2:
        return None
    return out


def _identities(victims: Sequence[Pod], classes: list[list[list[str]]]) -> list[list[str]]:
    """The victim sets that differ from `victims` only in which members of a class they hold:
    members of one class are interchangeable, so any as many of them could be the victims; the
    given set first, at most MAX_ALTERNATIVES."""
    chosen = {v.key for v in victims}
    fixed = set(chosen)
    choices: list[list[tuple[str, ...]]] = []
    for group in classes:
        for keys in group:
            mine = tuple(k for k in keys if k in chosen)
            if 0 < len(mine) < len(keys):
                fixed.difference_update(keys)
                others = (c for c in itertools.combinations(keys, len(mine)) if c != mine)
                choices.append([mine, *itertools.islice(others, MAX_ALTERNATIVES)])
    return [sorted(fixed.union(*combo)) for combo in itertools.islice(itertools.product(*choices), MAX_ALTERNATIVES)]


@dataclass
class OrderVerdict:
    """The nodes that can win under some arrangement the trace allows, and each node's answers."""

    winners: list[str]                   # every node that wins (is tied at the top) under some arrangement
    nodes: dict[str, NodeOrders]         # the nodes whose answer depends on the arrangement


def order_verdict(fwk: Framework, pod: Pod, record: PreemptionRecord, doubtful_on: Callable[[str], frozenset[str]],
                  pdbs: list[PodDisruptionBudget]) -> OrderVerdict | None:
    """Over the candidates of `record` (the replay's own decision): which nodes win under some
    arrangement of the doubtful pods (`doubtful_on(node)`: their uids on that node), and each
    node's victim sets. None when no candidate's answer depends on an arrangement."""
    snapshot = fwk.snapshot
    plugin = _preemption_plugin(fwk)
    if plugin is None:
        return None
    nodes: dict[str, NodeOrders] = {}
    state: CycleState | None = None
    for cand in record.candidates:
        doubtful = doubtful_on(cand.name)
        base = snapshot.get(cand.name) if len(doubtful) > 1 else None
        if base is None:
            continue
        if state is None:
            state = CycleState()
            _, status, _ = fwk.run_pre_filter_plugins(state, pod)
            if not status.is_success():
                return None
        got = node_orders(plugin, state, pod, base, doubtful, pdbs)
        if got is not None:
            nodes[cand.name] = got
    if not nodes:
        return None
    # pickOneNodeForPreemption keeps, step by step, the candidates with the best value: the nodes
    # left at the end are those whose five values are the lexicographic maximum. The arrangements
    # on different nodes are independent, so a node can be left under some arrangement when its
    # best answer is no worse than every other node's worst
    worst = {c.name: nodes[c.name].worst if c.name in nodes else c.chain_scores for c in record.candidates}
    winners = []
    for c in record.candidates:
        bar = max((w for n, w in worst.items() if n != c.name), default=None)
        no = nodes.get(c.name)
        if no is None:
            if bar is None or c.chain_scores >= bar:
                winners.append(c.name)
            continue
        for cand, sets in no.outcomes:
            if bar is None or cand.chain_scores >= bar:
                no.winning_sets += [s for s in sets if s not in no.winning_sets]
        del no.winning_sets[MAX_ALTERNATIVES:]
        if no.winning_sets:
            winners.append(c.name)
    return OrderVerdict(winners, nodes)
