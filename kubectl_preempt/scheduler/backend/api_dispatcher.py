"""Asynchronous preemption (feature gate SchedulerAsyncPreemption, on by default in v1.34.1): the
API calls a preemption makes, spread over time as prepareCandidateAsync makes them.

After a decision the scheduler nominates the preemptor at once and starts a goroutine that
  1. clears the nomination of each lower-priority pod nominated to the node (clearNominatedNodeName):
     with SchedulerAsyncAPICalls on (v1.34.1's default) through the API dispatcher, without
     waiting; with it off, one patch after another, before the victims' calls;
  2. preempts every victim but the last in parallel (Parallelizer, 16 workers): a status patch
     adding the DisruptionTarget condition, then the delete call (PreemptPod);
  3. releases the preemptor: it leaves the `preempting` set that DefaultPreemption's PreEnqueue
     checks, so the next event that requeues it lets it be tried again;
  4. preempts the last victim: its patch, then its delete.
Each call takes `api_latency` seconds (in run k >= 2 of `replay --runs`, a time of its own,
drawn from the calls the trace measured: plan_calls `draw`). A preemptor tried again between 3
and the last delete still sees that victim running: it may preempt again, on another node. With
the gate off (prepareCandidate), the calls are made inside the scheduling cycle, before the
preemptor goes back to the queue: the replay applies them at the decision's instant.

Victims already terminating get no call (the scheduler skips them); when no victim needs one the
preemptor is never held.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ...model.objects import Pod

if TYPE_CHECKING:
    from ...framework.config import SchedulerConfig

FEATURE_GATE = "SchedulerAsyncPreemption"
API_CALLS_GATE = "SchedulerAsyncAPICalls"
# the median time between a victim's DisruptionTarget patch and its delete call as recorded in
# ../shared/realcluster (79 victims of kube-scheduler v1.34.1; quartiles 32 and 118 ms)
DEFAULT_API_LATENCY = 0.045
PARALLELISM = 16  # the scheduler's Parallelizer workers


@dataclass(frozen=True)
class Call:
    """One API call of a preemption: `what` is "clearNomination", "patch", "delete" or "release"
    (the preemptor leaving the preempting set, which is no call but happens between them)."""

    at: float
    what: str
    pod: Pod


def api_calls_async(config: "SchedulerConfig") -> bool:
    """Whether the scheduler's SchedulerAsyncAPICalls gate is on: --feature-gates, else the
    release's default (framework/featuregates.py): new in v1.34.1, Beta and on there
    (pkg/features/kube_features.go); off by default in v1.35.6 and v1.36.2; absent before v1.34,
    whose preemption clears nominations with calls it waits for (util.ClearNominatedNodeName)."""
    return config.enabled(API_CALLS_GATE)


def plan_calls(preemptor: Pod, victims: list[Pod], cleared: list[Pod], now: float, latency: float,
               *, clears_wait: bool = True, release_after_last_delete: bool = False,
               draw: Callable[[], float] | None = None, skip_terminating: bool = True) -> list[Call]:
    """The calls of one asynchronous preemption, in time order (mirrors prepareCandidateAsync).

    `clears_wait` False: SchedulerAsyncAPICalls is on, so clearNominatedNodeName hands each patch
    to the API dispatcher (APICache.PatchPodStatus) and returns without waiting: the patches land
    one call later, side by side, and the victims' calls start at once. With the gate off it makes
    them one after another through the client, and the victims wait for them.

    `release_after_last_delete` (v1.35 and later): the preemptor (a pod, or a pod group's
    members) is held until its last victim's delete: framework/preemption/executor.go (v1.36.2;
    preemption.go in v1.35) isRunningPreemption keeps it in `preempting` while the last victim
    (lastVictimsPendingPreemption) exists without a deletionTimestamp, and prepareCandidateAsync
    leaves `preempting` only after that victim's PreemptPod returned. v1.34.1 releases it before
    the last victim's calls (step 3 above).

    `draw`: each call's own time, one draw per call (the runs of `replay --runs` draw from the
    calls the trace measured: an API server answers each call in its own time, and the order in
    which victims leave follows). The Parallelizer's workers then each take the next piece as
    soon as they are free. Without it every call takes `latency`.

    `skip_terminating` (v1.34 and later): a victim already being deleted gets no call ("Victim Pod
    is already deleted, skipping the API call for it"), and with none left nothing is made. Before,
    PreemptPod patches and deletes every victim."""
    to_delete = [v for v in victims if not v.terminating] if skip_terminating else list(victims)
    if not to_delete:
        return []
    took = draw if draw is not None else (lambda: latency)
    calls: list[Call] = []
    t = now
    for p in cleared:
        if clears_wait:
            t += took()
            calls.append(Call(t, "clearNomination", p))
        else:
            calls.append(Call(now + took(), "clearNomination", p))
    if len(to_delete) > 1:
        first = to_delete[:-1]
        # the workers take the pieces in order; each piece is a patch then a delete
        rounds_end = t
        free = [t] * min(PARALLELISM, len(first))  # when each worker is next free (drawn times)
        for i, v in enumerate(first):
            if draw is None:
                start = t + (i // PARALLELISM) * 2 * latency
                patch, delete = start + latency, start + 2 * latency
            else:
                w = min(range(len(free)), key=free.__getitem__)
                patch = free[w] + draw()
                delete = free[w] = patch + draw()
            calls.append(Call(patch, "patch", v))
            calls.append(Call(delete, "delete", v))
            rounds_end = max(rounds_end, delete)
        t = rounds_end
    last = to_delete[-1]
    if not release_after_last_delete:
        calls.append(Call(t, "release", preemptor))
    if draw is None:
        patch, delete = t + latency, t + 2 * latency
    else:
        patch = t + draw()
        delete = patch + draw()
    calls.append(Call(patch, "patch", last))
    calls.append(Call(delete, "delete", last))
    if release_after_last_delete:
        calls.append(Call(delete, "release", preemptor))
    calls.sort(key=lambda c: c.at)  # stable: at one instant, in the order above
    return calls


def plan_sync_calls(preemptor: Pod, victims: list[Pod], cleared: list[Pod], now: float,
                    skip_terminating: bool = True) -> list[Call]:
    """The calls of prepareCandidate (the gate off): all made before the cycle ends; a victim
    already being deleted gets none from v1.34 (`skip_terminating`), every victim before."""
    called = [v for v in victims if not (skip_terminating and v.terminating)]
    calls = [Call(now, "patch", v) for v in called]
    calls += [Call(now, "delete", v) for v in called]
    calls += [Call(now, "clearNomination", p) for p in cleared]
    return calls


Apply = Callable[[Call], None]
