"""The preemption part of a scheduling cycle's decision, as one typed, frozen record.

The Evaluator builds it once per PostFilter run (also when preemption fails or is not tried) and
the cycle returns it in CycleResult.preemption. explain, replay (simulate and follow), check and
render all read it; nothing recomputes the choice chain or reads text back. Numbers stay numbers:
priorities, requests in milli-CPU and bytes, start times in nanoseconds; `to_dict` is the one
serialization, and formatting for people is render's job.

Derived values (chain values, the step that decided, the runner-up, victim details) are computed
on first use only, so a replay that never asks pays nothing per decision.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, NamedTuple, Sequence

from ..framework.status import Status
from ..framework.types import FAR_FUTURE, NodeInfo
from ..model.objects import Pod
from ..model.resources import Resource
from ..model.rfc3339 import format_nanos, parse_text_nanos


@dataclass(frozen=True)
class ChainStep:
    """One criterion of pickOneNodeForPreemption, in its order."""

    criterion: str  # what the step prefers, as a sentence part ("fewest PDB violations")
    label: str      # the criterion as a column label ("PDB violations (fewest wins)")
    short: str      # the compared quantity alone ("PDB violations")
    field: str      # the candidate's field in to_dict


# pickOneNodeForPreemption's criteria, in order: the one list of them
CHAIN: tuple[ChainStep, ...] = (
    ChainStep("fewest PDB violations", "PDB violations (fewest wins)", "PDB violations", "pdbViolations"),
    ChainStep("lowest highest-victim priority", "highest victim priority (lowest wins)", "highest victim priority",
              "highestVictimPriority"),
    ChainStep("lowest sum of victim priorities", "sum of victim priorities (lowest wins)", "sum of victim priorities",
              "victimPrioritySum"),
    ChainStep("fewest victims", "number of victims (fewest wins)", "number of victims", "victimCount"),
    ChainStep("latest start time of the highest-priority victims", "start of top victims (latest wins)",
              "start of top victims", "latestStartTime"),
)
# what is left when every step ties: upstream takes the first node of a Go map range
LAST_RESORT = "first remaining candidate"
CHAIN_STEPS: tuple[str, ...] = tuple(s.criterion for s in CHAIN) + (LAST_RESORT,)
# the step of the priority sum: upstream adds MaxInt32+1 to every priority before summing
SUM_STEP = 3
PRIORITY_SHIFT = 2**31
# GetPodStartTime of a pod that has not started: later than any pod that has
NOT_STARTED_NANOS = int(FAR_FUTURE.timestamp()) * 1_000_000_000
# the last instant RFC 3339 can write (9999-12-31T23:59:59Z)
_LAST_WRITABLE_NANOS = 253402300799 * 1_000_000_000

ONLY_CANDIDATE = "the only candidate"
TIED_TO_THE_END = "tied after the whole chain; the first candidate is taken"


def requests_dict(r: Resource) -> dict[str, int]:
    """A pod's requests as numbers: milli-CPU, bytes, counts (zero amounts left out)."""
    out: dict[str, int] = {}
    if r.milli_cpu:
        out["milliCPU"] = r.milli_cpu
    if r.memory:
        out["memory"] = r.memory
    if r.ephemeral_storage:
        out["ephemeralStorage"] = r.ephemeral_storage
    for k, v in sorted(r.scalar.items()):
        if v:
            out[k] = v
    return out


def time_or_none(nanos: int) -> str | None:
    """A start time for output; None past what RFC 3339 can write."""
    return None if nanos >= _LAST_WRITABLE_NANOS else format_nanos(nanos)


class Reprieve(NamedTuple):
    """A pod SelectVictimsOnNode took off a node and tried to put back. Immutable; a named tuple,
    not a frozen dataclass: a dry run makes one per potential victim (14,700 in an explain of
    5,000 nodes), and a frozen dataclass's __init__ costs three times the tuple's."""

    pod: Pod
    kept: bool
    pdb_violating: bool
    status: Status | None = None  # the filter status that made it a victim


@dataclass(frozen=True)
class Victim:
    """One pod evicted on the chosen node, with what explains it."""

    pod: Pod
    pdbs: tuple[str, ...] = ()           # keys of the PDBs that count this pod
    pdb_violation: bool = False          # evicting it takes one of those PDBs below its minimum
    blocking: tuple[str, ...] = ()       # the filter reasons that kept it from fitting back

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def requests(self) -> Resource:
        return self.pod.resource.resource

    @property
    def start_time(self) -> str | None:
        """The pod's startTime as recorded (None when it has not started)."""
        return self.pod.status.get("startTime")

    def to_dict(self) -> dict[str, Any]:
        p = self.pod
        return {"pod": p.key, "priority": p.priority, "priorityClassName": p.priority_class_name,
                "requests": requests_dict(self.requests), "startTime": self.start_time,
                "terminating": p.terminating, "pdbs": list(self.pdbs), "pdbViolation": self.pdb_violation,
                "blocking": list(self.blocking)}


@dataclass(frozen=True)
class Candidate:
    """A node where the dry run found victims (upstream's candidate), with its chain values."""

    name: str
    victims: Sequence[Pod]
    num_pdb_violations: int
    reprieves: Sequence[Reprieve] = ()
    pdb_violating: frozenset[str] = frozenset()  # victim keys whose PDB is violated
    pdbs: Mapping[str, Sequence[str]] = field(default_factory=dict)  # victim key -> keys of its PDBs

    @cached_property
    def chain_scores(self) -> tuple[int, int, int, int, int]:
        """The five values pickOneNodeForPreemption compares, each "higher is better": computed
        once per candidate (the victims' start times are parsed once per pod, kept in its
        PodInfo), and a candidate a remembered dry run serves again (scheduler/fast/preemption.py
        DryRunMemo) brings them along: plan --max compares 100 candidates per preemption."""
        victims = self.victims
        highest = victims[0].priority
        # mirrors minSumPrioritiesScoreFunc: each priority shifted by MaxInt32+1 so all are positive
        total = sum(v.priority for v in victims) + PRIORITY_SHIFT * len(victims)
        return (-self.num_pdb_violations, -highest, -total, -len(victims),
                earliest_start_of_highest_priority(victims))

    @property
    def highest_victim_priority(self) -> int:
        return self.victims[0].priority

    @property
    def victim_priority_sum(self) -> int:
        return sum(v.priority for v in self.victims)

    @property
    def latest_start_nanos(self) -> int:
        """The earliest start among the highest-priority victims (the later, the better)."""
        return self.chain_scores[4]

    def victim_records(self) -> tuple[Victim, ...]:
        """The victims in the scheduler's order, each with its PDBs and what kept it off the node."""
        status = {r.pod.key: r.status for r in self.reprieves if not r.kept}
        out = []
        for v in self.victims:
            st = status.get(v.key)
            out.append(Victim(v, tuple(self.pdbs.get(v.key, ())), v.key in self.pdb_violating,
                              tuple(st.reasons) if st is not None else ()))
        return tuple(out)

    def chain_dict(self, eliminated_at: int | None) -> dict[str, Any]:
        return {"node": self.name, "pdbViolations": self.num_pdb_violations,
                "highestVictimPriority": self.highest_victim_priority,
                "victimPrioritySum": self.victim_priority_sum, "victimCount": len(self.victims),
                "latestStartTime": time_or_none(self.latest_start_nanos),
                "victims": [v.key for v in self.victims], "eliminatedAt": eliminated_at}


def pod_start_nanos(pod: Pod) -> int:
    """mirrors GetPodStartTime, in nanoseconds as Go's time.Time compares them: a pod that has
    not started counts as starting after every pod that has. Parsed once per pod and value and
    kept in its PodInfo (start_nanos), as the pod object upstream holds its start time parsed;
    a pod without a PodInfo is parsed each time (none is made for it here)."""
    v = pod.status.get("startTime")
    pi = pod.info
    if pi is not None and pi.start_text is v:
        return pi.start_nanos
    return pods_start_nanos((pod,))[0]


def pods_start_nanos(pods: Sequence[Pod]) -> list[int]:
    """[pod_start_nanos(p) for p in pods], in one loop: victim ordering asks the start times of
    every potential victim of every dry run (13,500 pods in bench_explain's decision), where a
    call per pod and its kept value cost as much as the parse."""
    out: list[int] = []
    append = out.append
    for pod in pods:
        v = pod.status.get("startTime")
        pi = pod.info
        if pi is not None and pi.start_text is v:
            append(pi.start_nanos)
            continue
        # parsed once per pod and value, kept in its PodInfo (none is made for a pod without)
        n = parse_text_nanos(v) if type(v) is str else None
        if n is None:
            n = NOT_STARTED_NANOS
        if pi is not None:
            pi.start_text = v
            pi.start_nanos = n
        append(n)
    return out


def earliest_start_of_highest_priority(victims: Sequence[Pod]) -> int:
    # mirrors GetEarliestPodStartTime
    max_prio = victims[0].priority
    earliest = pod_start_nanos(victims[0])
    for p in victims:
        if p.priority == max_prio:
            t = pod_start_nanos(p)
            if t < earliest:
                earliest = t
        elif p.priority > max_prio:
            max_prio = p.priority
            earliest = pod_start_nanos(p)
    return earliest


@dataclass(frozen=True)
class PreemptionRecord:
    """What the Evaluator saw and decided in one PostFilter run."""

    eligible: bool = True
    ineligible_reason: str = ""
    potential: Sequence[NodeInfo] = ()     # nodes where preemption was worth trying
    offset: int = 0
    num_candidates: int = 0                # how many candidates the dry run looked for
    candidates: Sequence[Candidate] = ()   # non-violating first, then violating, as upstream
    node_statuses: Mapping[str, Status] = field(default_factory=dict)  # dry-run status of nodes that are no candidate
    selected: Candidate | None = None
    survivors: Sequence[Sequence[str]] = ()  # candidates left after each chain step that ran
    tied: Sequence[str] = ()               # left after the whole chain (the selected among them)
    cleared_nominations: Sequence[Pod] = ()
    message: str = ""
    reasons: Sequence[tuple[str, int]] = ()  # the histogram of `message` when no node had candidates
    dry_runs: int = 0                      # nodes where victims were looked for

    @cached_property
    def potential_nodes(self) -> list[str]:
        return [ni.node.name for ni in self.potential]

    @property
    def node(self) -> str:
        return self.selected.name if self.selected is not None else ""

    @property
    def tied_nodes(self) -> list[str]:
        """The nodes the scheduler could have nominated, sorted (the selected one alone when no tie)."""
        return sorted(self.tied or ([self.selected.name] if self.selected is not None else []))

    @cached_property
    def _decision(self) -> tuple[int | None, str | None]:
        decided, runner_up = None, None
        prev = [c.name for c in self.candidates]
        for step, left in enumerate(self.survivors, start=1):
            if len(left) < len(prev) and len(left) == 1:
                decided = step
                dropped = [n for n in prev if n not in left]
                runner_up = dropped[0] if dropped else None
            prev = left
        return decided, runner_up

    @property
    def decided_at(self) -> int | None:
        """The chain step (1-based) that left one candidate; None for one candidate or a tie."""
        return self._decision[0]

    @property
    def runner_up(self) -> str | None:
        """The first candidate the deciding step dropped."""
        return self._decision[1]

    @property
    def decided_by(self) -> str:
        """The deciding step's criterion, or why there was none."""
        if len(self.candidates) == 1:
            return ONLY_CANDIDATE
        step = self.decided_at
        return CHAIN[step - 1].criterion if step is not None else TIED_TO_THE_END

    def eliminated_at(self, name: str) -> int | None:
        """The chain step (1-based) at which a candidate lost; None for the survivors."""
        for step, left in enumerate(self._survivor_sets, start=1):
            if name not in left:
                return step
        return None

    @cached_property
    def _survivor_sets(self) -> list[frozenset[str]]:
        # the survivors as sets: the first step holds up to numCandidates names (500 at 5,000
        # nodes), and the document asks every candidate's step
        return [frozenset(left) for left in self.survivors]

    @cached_property
    def victims(self) -> tuple[Victim, ...]:
        return self.selected.victim_records() if self.selected is not None else ()

    def candidate_dicts(self) -> list[dict[str, Any]]:
        return [c.chain_dict(self.eliminated_at(c.name)) for c in self.candidates]

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data (numbers as numbers, times as RFC 3339)."""
        out: dict[str, Any] = {"eligible": self.eligible}
        if not self.eligible:
            out["ineligibleReason"] = self.ineligible_reason
        out.update({
            "potentialNodes": list(self.potential_nodes),
            "offset": self.offset,
            "numCandidates": self.num_candidates,
            "candidates": self.candidate_dicts(),
            "nodeStatuses": {n: st.to_dict() for n, st in self.node_statuses.items()},
            "node": self.node,
            "tiedNodes": self.tied_nodes,
            "steps": list(CHAIN_STEPS),
            "decidedAt": self.decided_at,
            "decidedBy": self.decided_by if self.selected is not None else None,
            "runnerUp": self.runner_up,
            "victims": [v.to_dict() for v in self.victims],
            "clearedNominations": sorted(p.key for p in self.cleared_nominations),
            "message": self.message,
        })
        return out
