"""Workload-aware preemption (KEP-5710): a pod group that does not fit preempts as one unit, over
the whole cluster (framework/preemption/podgrouppreemption.go PodGroupEvaluator, types.go).

The victims are units: a pod, or every pod of a PodGroup whose disruptionMode is PodGroup (its
priority the PodGroup's). Every unit of lower priority than the preemptor (the PodGroup's priority,
util.PodGroupPriority) is removed from the cluster at once; if the group then fits, units are put
back one at a time, most important first (PDB-violating units first), and each that lets the group
still fit is reprieved. What is left is evicted. The cycle runs this inside its own snapshot layer
(BackupSnapshot), so nothing of it outlasts the decision; the record says what was decided and why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..framework.randomness import RandomSource
from ..framework.snapshot import CycleSnapshot
from ..framework.status import SUCCESS, Code, Status
from ..model.gosort import sort_slice
from ..model.objects import PREEMPT_NEVER, Pod, PodDisruptionBudget
from ..model.workload import DISRUPTION_MODE_POD_GROUP, PodGroup, scheduling_group
from .decision import pod_start_nanos

# the domain of workload-aware preemption: the whole cluster (candidate name "cluster")
CLUSTER = "cluster"
ERR_NOT_ELIGIBLE_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_NO_VICTIMS = "No preemption victims found for incoming preemptor"
ERR_SCHEDULING_CONSTRAINTS = "workload aware preemption is not supported for pod groups with scheduling constraints"


@dataclass
class VictimUnit:
    """One unit of preemption (types.go victim): a pod, or a PodGroup's pods evicted together."""

    pods: list[Pod]
    priority: int
    pod_group: PodGroup | None = None  # the PodGroup whose disruptionMode makes this a unit
    earliest_start: int = 0            # nanoseconds, GetPodStartTime's earliest among its pods
    nodes: list[str] = field(default_factory=list)

    @property
    def is_pod_group(self) -> bool:
        """mirrors victim.IsPodGroup: the first pod names a scheduling group (so a pod of a PodGroup
        evicted alone, disruptionMode Pod, counts as a PodGroup here, as upstream's does)."""
        return bool(scheduling_group(self.pods[0].spec))

    @property
    def key(self) -> str:
        return self.pod_group.key if self.pod_group is not None else self.pods[0].key

    def to_dict(self) -> dict[str, Any]:
        return {"unit": "PodGroup" if self.pod_group is not None else "Pod", "name": self.key,
                "priority": self.priority, "pods": [p.key for p in self.pods], "nodes": list(self.nodes)}


def more_important_victim(a: VictimUnit, b: VictimUnit) -> bool:
    """mirrors moreImportantVictim: higher priority; then a PodGroup before a single pod; then, for
    pods, the earlier start; for groups, the larger, then the earlier start of its earliest pod."""
    if a.priority != b.priority:
        return a.priority > b.priority
    if a.is_pod_group != b.is_pod_group:
        return a.is_pod_group
    if not a.is_pod_group:
        return a.earliest_start < b.earliest_start
    if len(a.pods) != len(b.pods):
        return len(a.pods) > len(b.pods)
    return a.earliest_start < b.earliest_start


@dataclass
class UnitReprieve:
    """A unit taken off the cluster and tried back: kept when the group still fitted with it."""

    unit: VictimUnit
    kept: bool
    pdb_violating: bool


@dataclass
class PodGroupPreemptionRecord:
    """What workload-aware preemption saw and decided for one pod-group cycle."""

    pod_group: PodGroup
    priority: int
    status: Status
    potential: list[VictimUnit] = field(default_factory=list)   # in the order they were tried back
    reprieves: list[UnitReprieve] = field(default_factory=list)
    victims: list[VictimUnit] = field(default_factory=list)     # to evict, most important first
    eligible: bool = True
    ineligible_reason: str = ""
    fits_without_all: bool = False  # the group fitted once every potential victim was gone
    # victims the search gives under other orders of tied units, each checked to evict anew just
    # the pods asked of it (outcome_under_order): what a recorded choice is compared with
    alternatives: list[list[VictimUnit]] = field(default_factory=list)
    # when the group does not fit even with every potential victim gone: the member that then
    # still found no node, and its FitError (the caller's search fills it in)
    failing: tuple[str, str] | None = None

    @property
    def victim_pods(self) -> list[Pod]:
        return [p for u in self.victims for p in u.pods]

    def to_dict(self) -> dict[str, Any]:
        return {"podGroup": self.pod_group.key, "priority": self.priority, "node": CLUSTER,
                "status": self.status.to_dict(), "eligible": self.eligible,
                "fitsWithEveryPotentialVictimGone": self.fits_without_all,
                "victims": [u.to_dict() for u in self.victims],
                "reprieved": [r.unit.to_dict() | {"pdbViolating": r.pdb_violating} for r in self.reprieves if r.kept],
                "potentialVictims": len(self.potential)}


def _unit_of(pod: Pod, node: str, pod_groups: Callable[[str, str], PodGroup | None],
             units: dict[str, VictimUnit], order: list[str]) -> None:
    name = scheduling_group(pod.spec)
    pg = pod_groups(pod.namespace, name) if name else None
    if pg is None or pg.disruption_mode != DISRUPTION_MODE_POD_GROUP:
        # isPodGroupPreemptiblePod: a pod alone, at its own priority
        units[pod.uid] = VictimUnit([pod], pod.priority, None, pod_start_nanos(pod), [node])
        order.append(pod.uid)
        return
    unit = units.get(pg.uid)
    if unit is None:
        units[pg.uid] = VictimUnit([pod], pg.priority, pg, pod_start_nanos(pod), [node])
        order.append(pg.uid)
        return
    unit.pods.append(pod)
    if node not in unit.nodes:
        unit.nodes.append(node)
    # newVictim's earliest start is over the pods it was made with; the pods appended later are
    # not counted there (upstream appends to victim.pods without recomputing it)


def domain_victims(snapshot: CycleSnapshot, pod_groups: Callable[[str, str], PodGroup | None],
                   random_source: RandomSource) -> list[VictimUnit]:
    """mirrors newDomainForWorkloadPreemption: every pod of every node as a unit, the pods of a
    PodGroup with disruptionMode PodGroup as one; in the order ranging over upstream's map gives."""
    units: dict[str, VictimUnit] = {}
    order: list[str] = []
    for ni in snapshot.list():
        for pi in ni.pods:
            _unit_of(pi.pod, ni.name, pod_groups, units, order)
    return random_source.map_order([units[k] for k in order])


def filter_units_with_pdb_violation(units: Sequence[VictimUnit], pdbs: Sequence[PodDisruptionBudget]
                                    ) -> tuple[list[VictimUnit], list[VictimUnit]]:
    """mirrors filterVictimsWithPDBViolation: a unit violates when one of its pods takes a PDB
    that selects it below its allowed disruptions (counted over the units in order; a unit stops
    counting at its first violating pod)."""
    allowed = [p.disruptions_allowed for p in pdbs]

    def violating(pod: Pod) -> bool:
        if not pod.labels:
            return False
        for i, pdb in enumerate(pdbs):
            if pdb.namespace != pod.namespace or pdb.selector is None or pdb.selector.empty:
                continue
            if not pdb.selector.matches(pod.labels) or pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
        return False

    out_v: list[VictimUnit] = []
    out_n: list[VictimUnit] = []
    for u in units:
        (out_v if any(violating(p) for p in u.pods) else out_n).append(u)
    return out_v, out_n


def preempt(pod_group: PodGroup, members: Sequence[Pod], snapshot: CycleSnapshot,
            pod_groups: Callable[[str, str], PodGroup | None], pdbs: Sequence[PodDisruptionBudget],
            fits: Callable[[CycleSnapshot], Status], random_source: RandomSource
            ) -> PodGroupPreemptionRecord:
    """mirrors PodGroupEvaluator.Preempt up to the API calls (the caller makes those, as the
    Executor's actuatePodGroupPreemption): `snapshot` is the layer the victims are removed in,
    `fits(snapshot)` the pod-group scheduling algorithm without PostFilter on it."""
    priority = pod_group.priority
    rec = PodGroupPreemptionRecord(pod_group, priority, SUCCESS)
    # newPodGroupPreemptor: Never if any member says Never
    if any(p.preemption_policy == PREEMPT_NEVER for p in members):
        rec.eligible, rec.ineligible_reason = False, ERR_NOT_ELIGIBLE_POLICY_NEVER
        rec.status = Status(Code.Unschedulable, ERR_NOT_ELIGIBLE_POLICY_NEVER)
        return rec
    potential = [u for u in domain_victims(snapshot, pod_groups, random_source) if u.priority < priority]
    if not potential:
        rec.status = Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)
        return rec
    for u in potential:
        for p in u.pods:
            snapshot.remove_pod(p)
    st = fits(snapshot)
    if not st.is_success():
        rec.potential = potential
        rec.status = st
        return rec
    rec.fits_without_all = True
    sort_slice(potential, more_important_victim)
    rec.potential = list(potential)
    violating, non_violating = filter_units_with_pdb_violation(potential, pdbs)
    chosen: list[VictimUnit] = []
    for is_violating, group in ((True, violating), (False, non_violating)):
        for u in group:
            for p in u.pods:
                snapshot.add_pod(p)
            if fits(snapshot).is_success():
                rec.reprieves.append(UnitReprieve(u, True, is_violating))
                continue
            for p in u.pods:
                snapshot.remove_pod(p)
            rec.reprieves.append(UnitReprieve(u, False, is_violating))
            chosen.append(u)
    sort_slice(chosen, more_important_victim)
    rec.victims = chosen
    return rec


def _rank(u: VictimUnit, evict: frozenset[str]) -> int:
    if any(p.key in evict for p in u.pods):
        return 2
    if all(p.terminating for p in u.pods):
        return 1
    return 0


def outcomes_under_orders(potential: Sequence[VictimUnit], evict: frozenset[str], layer: Callable[[], CycleSnapshot],
                          pdbs: Sequence[PodDisruptionBudget], fits: Callable[[CycleSnapshot], Status], *,
                          tries: int = 24) -> list[list[VictimUnit]]:
    """The distinct outcomes of outcome_under_order over orders of the units already terminating
    (which of them the search counts again depends on their order too, and the recording cannot
    show it: they get no call): the given order, its reverse, then shuffles (seeded, so the same
    every run), until `tries` orders or none new for a while."""
    import random
    rng = random.Random(0)
    going = [u for u in potential if all(p.terminating for p in u.pods)]
    seen: dict[frozenset[str], list[VictimUnit]] = {}
    stale = 0
    for k in range(tries):
        if k == 0 or len(going) < 2:
            order = None
        elif k == 1:
            order = {id(u): i for i, u in enumerate(reversed(going))}
        else:
            shuffled = list(going)
            rng.shuffle(shuffled)
            order = {id(u): i for i, u in enumerate(shuffled)}
        got = outcome_under_order(potential, evict, layer(), pdbs, fits, going_order=order)
        if got is not None:
            key = frozenset(p.key for u in got for p in u.pods)
            if key not in seen:
                seen[key] = got
                stale = 0
                continue
        stale += 1
        if len(going) < 2 or stale >= 6:
            break
    return list(seen.values())


def outcome_under_order(potential: Sequence[VictimUnit], evict: frozenset[str], snapshot: CycleSnapshot,
                        pdbs: Sequence[PodDisruptionBudget], fits: Callable[[CycleSnapshot], Status], *,
                        going_order: dict[int, int] | None = None) -> list[VictimUnit] | None:
    """The victims the search gives when units it cannot tell apart (neither more important than
    the other: their order is a Go map's, newDomainForWorkloadPreemption) come in the order that
    tries `evict`'s last and those to keep first; None unless the pods it evicts anew (those not
    already terminating) are exactly `evict`. `potential`: the units in moreImportantVictim
    order; `snapshot`: a layer where they are all still on their nodes. This is how a recorded
    choice is checked to be one the scheduler's search makes for some order of tied units."""
    classes: list[list[VictimUnit]] = []
    for u in potential:
        if classes and not more_important_victim(classes[-1][0], u) and not more_important_victim(u, classes[-1][0]):
            classes[-1].append(u)
        else:
            classes.append([u])
    def key(u: VictimUnit) -> tuple[int, int]:
        r = _rank(u, evict)
        return r, (going_order.get(id(u), 0) if going_order is not None and r == 1 else 0)
    order = [u for cls in classes for u in sorted(cls, key=key)]
    for u in order:
        for p in u.pods:
            snapshot.remove_pod(p)
    if not fits(snapshot).is_success():
        return None
    violating, non_violating = filter_units_with_pdb_violation(order, pdbs)
    chosen: list[VictimUnit] = []
    for group in (violating, non_violating):
        for u in group:
            for p in u.pods:
                snapshot.add_pod(p)
            if fits(snapshot).is_success():
                continue
            for p in u.pods:
                snapshot.remove_pod(p)
            chosen.append(u)
    if {p.key for u in chosen for p in u.pods if not p.terminating} != set(evict):
        return None
    sort_slice(chosen, more_important_victim)
    return chosen
