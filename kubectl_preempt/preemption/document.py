"""A preemption decision written once: the document's preemption object, field by field.

One scheduling cycle that preempted (its CycleResult: the preemptor, the cycle's message and
PostFilter status, and DefaultPreemption's PreemptionRecord) is turned into plain data here and
nowhere else. Each field has one builder in FIELDS (and each victim's in VICTIM_FIELDS). explain's
document, replay's preemption rows (and follow mode's), and the conformance cases a replay dumps
all call `preemption_object` with the fields they show, in their order; a consumer that names a
field its own way (a replay row's `node`, a case's `victims` by node) takes it under that name,
but never computes it again, so the three agree field for field.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, Union

from ..framework.status import Status
from ..model.objects import Pod
from ..model.quantity import format_bytes, format_milli_cpu
from ..model.resources import Resource
from .decision import CHAIN_STEPS, PreemptionRecord, Victim, requests_dict

DEFAULT_TERMINATION_GRACE_PERIOD = 30


class PreemptionCycle(Protocol):
    """What a cycle that preempted says about its preemption (scheduler/schedule_one.py CycleResult)."""

    pod: Pod
    message: str
    post_filter_status: Status | None

    @property
    def preempted(self) -> PreemptionRecord | None: ...

    def fit_error_fields(self) -> dict[str, Any]: ...


def grace_period(pod: Pod) -> float:
    """The pod's terminationGracePeriodSeconds, else the API server's default (30 s)."""
    g = pod.spec.get("terminationGracePeriodSeconds")
    if isinstance(g, bool) or not isinstance(g, (int, float)) or g < 0:
        return float(DEFAULT_TERMINATION_GRACE_PERIOD)
    return float(g)


def human_resources(r: Resource) -> dict[str, str]:
    """Requests as Kubernetes quantities (zero amounts left out)."""
    out: dict[str, str] = {}
    if r.milli_cpu:
        out["cpu"] = format_milli_cpu(r.milli_cpu)
    if r.memory:
        out["memory"] = format_bytes(r.memory)
    if r.ephemeral_storage:
        out["ephemeral-storage"] = format_bytes(r.ephemeral_storage)
    for k, v in sorted(r.scalar.items()):
        if v:
            out[k] = format_bytes(v) if k.startswith("hugepages-") else str(v)
    return out


# --- a victim -----------------------------------------------------------------------------------

VICTIM_FIELDS: Mapping[str, Callable[[Victim], Any]] = {
    "pod": lambda v: v.key,
    "priority": lambda v: v.pod.priority,
    "priorityClassName": lambda v: v.pod.priority_class_name,
    # requests twice: as quantities for people, and as numbers (milli-CPU, bytes) for totals
    "requests": lambda v: human_resources(v.requests),
    "rawRequests": lambda v: requests_dict(v.requests),
    # already being deleted: the scheduler makes no call for it
    "terminating": lambda v: v.pod.terminating,
    "gracePeriodSeconds": lambda v: grace_period(v.pod),
    "pdbs": lambda v: list(v.pdbs),
    "pdbViolation": lambda v: v.pdb_violation,
    "startTime": lambda v: v.start_time,
    "blocking": lambda v: list(v.blocking),
}

# a field a consumer shows: the object's name, or (its own name, the object's name)
Field = Union[str, tuple[str, str]]


def _select(builders: Mapping[str, Callable[..., Any]], fields: Sequence[Field], *args: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields:
        name, source = (f, f) if isinstance(f, str) else f
        out[name] = builders[source](*args)
    return out


# --- the preemption ----------------------------------------------------------------------------

def failure_fields(cycle: PreemptionCycle) -> dict[str, str]:
    """What a failed cycle says, whether or not it preempted: its FitError message, unchanged, and
    PostFilter's status (its message when it failed; its code)."""
    pfs = cycle.post_filter_status
    return {"message": cycle.message,
            "postFilterMessage": pfs.message() if pfs is not None and not pfs.is_success() else "",
            "postFilterCode": pfs.code.name if pfs is not None else ""}


def _reprieved(c: PreemptionCycle, r: PreemptionRecord) -> list[dict[str, Any]]:
    # the pods SelectVictimsOnNode put back on the node
    assert r.selected is not None
    return [{"pod": x.pod.key, "priority": x.pod.priority,
             "reason": "fits back after the victims go" + (" (its PDB would have been violated)" if x.pdb_violating else "")}
            for x in r.selected.reprieves if x.kept]


def _tie_break(c: PreemptionCycle, r: PreemptionRecord) -> dict[str, Any]:
    # pickOneNodeForPreemption's chain: which step decided, the runner-up, the nodes tied at the end
    return {"steps": list(CHAIN_STEPS), "decidedAt": r.decided_at, "winner": r.node,
            "runnerUp": r.runner_up, "tied": sorted(r.tied)}


def _victims_by_tied_node(c: PreemptionCycle, r: PreemptionRecord) -> dict[str, list[str]]:
    # only the chosen node's victims are known for sure; a tied node's are its candidate's
    tied = r.tied_nodes
    return {cand.name: sorted(v.key for v in cand.victims) for cand in r.candidates if cand.name in tied}


def _preemptor_requests(c: PreemptionCycle, r: PreemptionRecord) -> dict[str, int]:
    req = c.pod.resource.resource
    return {"milliCPU": req.milli_cpu, "memory": req.memory, **{k: v for k, v in sorted(req.scalar.items()) if v}}


FIELDS: Mapping[str, Callable[[PreemptionCycle, PreemptionRecord], Any]] = {
    "preemptor": lambda c, r: c.pod.key,
    "priority": lambda c, r: c.pod.priority,
    "priorityClassName": lambda c, r: c.pod.priority_class_name,
    # the preemptor's requests as numbers (milli-CPU and bytes always, other resources when asked)
    "preemptorRequests": _preemptor_requests,
    "message": lambda c, r: failure_fields(c)["message"],
    # the FitError behind the message as data (CycleResult.fit_error_fields)
    "fitError": lambda c, r: c.fit_error_fields(),
    "postFilterMessage": lambda c, r: failure_fields(c)["postFilterMessage"],
    "postFilterCode": lambda c, r: failure_fields(c)["postFilterCode"],
    "candidates": lambda c, r: r.candidate_dicts(),
    "candidateCount": lambda c, r: len(r.candidates),
    "nominatedNode": lambda c, r: r.node,
    # the nodes the scheduler could have nominated, sorted (the chosen one alone without a tie)
    "nominatedNodes": lambda c, r: r.tied_nodes,
    # in the victims' order (SelectVictimsOnNode re-sorts them when some violate a PDB)
    "victims": lambda c, r: [v.key for v in r.victims],
    "victimsByTiedNode": _victims_by_tied_node,
    "pdbViolations": lambda c, r: r.selected.num_pdb_violations if r.selected is not None else 0,
    "reprieved": _reprieved,
    "clearedNominations": lambda c, r: sorted(p.key for p in r.cleared_nominations),
    "tieBreak": _tie_break,
    "decidedBy": lambda c, r: r.decided_by,
    "runnerUp": lambda c, r: r.runner_up,
    "freedMilliCPU": lambda c, r: sum(v.requests.milli_cpu for v in r.victims),
    "freedMemory": lambda c, r: sum(v.requests.memory for v in r.victims),
}
ALL_FIELDS: tuple[str, ...] = tuple(FIELDS) + ("victimDetails",)


def preemption_object(cycle: PreemptionCycle, fields: Sequence[Field] = ALL_FIELDS,
                      victim_fields: Sequence[Field] = tuple(VICTIM_FIELDS),
                      record: PreemptionRecord | None = None) -> dict[str, Any]:
    """The preemption of a cycle that preempted, as the document's object: the `fields` asked
    for, in their order (all of them by default), `victimDetails` with `victim_fields` each.
    `record`: the cycle's PreemptionRecord when the caller holds it (else cycle.preempted)."""
    if record is None:
        record = cycle.preempted
    if record is None or record.selected is None:
        raise ValueError(f"the cycle of {cycle.pod.key} did not preempt")
    builders: dict[str, Callable[[PreemptionCycle, PreemptionRecord], Any]] = dict(FIELDS)
    builders["victimDetails"] = lambda c, r: [_select(VICTIM_FIELDS, victim_fields, v) for v in r.victims]
    return _select(builders, fields, cycle, record)
