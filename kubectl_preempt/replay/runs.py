"""`replay --runs N`: the same trace replayed N times, each run with its own random choices.

kube-scheduler v1.34.1 makes three random choices: the host among nodes tied on score
(selectHost's reservoir pick), the offset the preemption candidates are searched from
(GetOffsetAndNumCandidates) and the node among candidates tied after the whole choice chain
(the first of a list built by ranging over a Go map). Run 1 keeps the reproducible choices of a
single replay (the first tied node, offset from --seed), so its report is the one `--runs 1`
gives; run k >= 2 draws every choice from one `random.Random` seeded by `run_seed(seed, k)`. Either
way a run's choices come from one `RandomSource` (framework/randomness.py, `run_random_source`).

Runs fan out over local processes (`jobs`) or a Ray cluster (`ray_address`); each run depends on
its seed alone and results are gathered in run order, so the answer is the same whatever the
fan-out.
"""
from __future__ import annotations

import contextlib
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

import orjson

from ..framework.config import SchedulerConfig
from ..model.limits import check_runs, usable_cores
from ..framework.randomness import RandomSource
from ..model.objects import Pod
from .activity import ActivityRecorder, Tee
from .report import evicts
from .batch import BatchOptions
from ..model.workload import scheduling_group
from .controllers import counted_workload_of, replica_set_index
from .distribution import Distribution
from .report import simulate_report
from .simulate import Listener, Progress, Simulation
from .timeline import Timeline
from .whatif import PriorityPolicy

RunProgress = Callable[[int, int], None]


def run_seed(seed: int, run: int) -> int | None:
    """The seed of run `run` (1-based) of a replay with base seed `seed`; None for run 1, which
    keeps a single replay's reproducible choices."""
    if run <= 1:
        return None
    digest = hashlib.sha256(f"kubectl-preempt run {seed} {run}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run_rng(seed: int, run: int) -> random.Random | None:
    s = run_seed(seed, run)
    return None if s is None else random.Random(s)


def run_random_source(seed: int, run: int) -> RandomSource:
    """Run `run`'s one random source (framework/randomness.py), made once per run and handed to
    its Simulation: run 1 draws nothing but a single replay's host stream (--seed's), run k >= 2
    draws every choice from `run_rng(seed, k)`."""
    return RandomSource.for_replay(seed, run_rng(seed, run))


@dataclass
class RunSpec:
    """Everything one simulate-mode run needs; picklable, so it can travel to a worker."""

    timeline: Timeline
    config: SchedulerConfig
    config_raw: Mapping[str, Any] | None = None
    priority_classes: Sequence[Mapping[str, Any]] | None = None
    reresolve_existing: bool = False
    seed: int = 0
    what_if: Mapping[str, Any] = field(default_factory=dict)
    # kube-batch for the trace's pods that name it (replay/batch.py); None: kube-scheduler alone
    batch: BatchOptions | None = None


class RunFacts(Listener):
    """What a run leaves for the distribution: each pod it evicted (with its class, namespace and
    owner's metadata as they were then) and, at the end, the pods left pending and the waits."""

    def __init__(self) -> None:
        self.victims: list[tuple[str, str, str, Mapping[str, Any]]] = []
        self._counted: set[str] = set()  # uids of the victims counted at their decision

    def _victim(self, victim: Pod) -> None:
        if victim.uid in self._counted:
            return
        self._counted.add(victim.uid)
        md = victim.metadata
        meta = {"namespace": victim.namespace, "name": victim.name, "generateName": md.get("generateName"),
                "ownerReferences": md.get("ownerReferences") or [], "labels": dict(victim.labels)}
        group = scheduling_group(victim.spec)
        if group:
            meta["podGroup"] = group  # an ownerless pod of a PodGroup belongs to it (controllers.workload_of)
        self.victims.append((victim.key, victim.priority_class_name, victim.namespace, meta))

    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None:
        # A victim counts with the decision that evicts it, as the preemption does: asynchronous
        # preemption (prepareCandidateAsync) makes its delete call later, possibly after the
        # trace's end, and a decision must not be counted without its victims.
        for v in victims:
            self._victim(v)

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        # its delete call: counted at its decision already, unless no decision was told (an
        # eviction without a preemptor pod)
        self._victim(victim)

    def facts(self, sim: Simulation) -> dict[str, Any]:
        rs = replica_set_index(sim.state.cluster.extra.get("ReplicaSet") or ())
        # pods a workload controller created in this run only (replay/controllers.py)
        created = getattr(sim, "created_by_replay", set())
        pending = [info.pod.key for info in sim.queue.pending()]
        if getattr(sim, "batch", None) is not None:
            pending += [n["pod"] for n in sim.batch.never_scheduled(sim.timeline.end)]  # kube-batch's own
        pending.sort()
        # a decision whose victims were all terminating or being evicted already evicts no one:
        # a re-nomination (the real cluster's record counts it with the preemption before it)
        # (a pod group's workload-aware preemption is one decision per pod-group cycle that
        # preempted, whether or not its victims were going already: the cluster's decisionLog)
        renominations = sum(1 for p in sim.preemptions
                            if not p.get("podGroup") and not any(evicts(d) for d in p["victimDetails"]))
        return {
            "decisions": sim.decisions,
            "preemptions": len(sim.preemptions) - renominations,
            "renominations": renominations,
            "victims": [{"pod": key, "priorityClass": cls, "namespace": ns, "workload": counted_workload_of(meta, rs),
                         "recorded": key not in created}
                        for key, cls, ns, meta in self.victims],
            "pending": pending,
            "pendingRecorded": [p for p in pending if p not in created],
            "waits": sorted(s["waited"] for s in sim.scheduled.values()),
        }


def simulate_once(spec: RunSpec, run: int = 1, *, on_decision: Callable[[dict[str, Any]], None] | None = None,
                  progress: Progress | None = None, listener: Listener | None = None
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """One simulate-mode run: its report and its facts."""
    recorder = ActivityRecorder()
    facts = RunFacts()
    policy = PriorityPolicy(spec.priority_classes, reresolve_existing=spec.reresolve_existing)
    sim = Simulation(spec.timeline, spec.config, policy=policy, on_decision=on_decision,
                     progress=progress, listener=Tee(recorder, facts, listener),
                     random_source=run_random_source(spec.seed, run), batch=spec.batch)
    sim.config_raw = spec.config_raw
    report = simulate_report(sim.run(), what_if=spec.what_if)
    # the replayed scheduler's bindings and deletions, pod by pod: what a timeline draws
    report["activity"] = recorder.activity()
    add_leave_times(report, sim)
    return report, facts.facts(sim)


def add_leave_times(report: dict[str, Any], sim: Simulation) -> None:
    """When the replay's victims leave: the figures the trace measured and how many used each
    (controllers.LeaveTimes); each victim's own is in its victimDetails."""
    leave = sim.leave_times.report()
    report["victimsLeave"] = leave
    report["summary"]["victimsLeave"] = leave["used"]


# ---------------------------------------------------------------------------------- fan-out
RunTask = Callable[[Any, int], bytes]

# how many runs are asked for beyond the first one not yet folded, per process: enough to keep
# every process busy while one run takes longer than the others, and what waits for its turn stays
# bounded whatever N is
WINDOW_PER_JOB = 4


def _run_task(spec: RunSpec, run: int) -> bytes:
    """What one run of `replay --runs` sends back: its facts, as JSON bytes (the report of the
    median run is made again once the median is known: each run depends on its seed alone)."""
    return orjson.dumps(simulate_once(spec, run)[1])


def default_jobs() -> int:
    return usable_cores()


def fan_out(task: RunTask, spec: Any, runs: int, *, jobs: int | None = None, ray_address: str | None = None,
            progress: RunProgress | None = None) -> Iterator[bytes]:
    """`task(spec, k)` for runs k = 1..runs, over local processes or a Ray cluster, yielded in run
    order as they finish, with a bounded number of runs asked for ahead: the caller folds each
    result and lets it go, so memory does not grow with `runs`. `task` is a module-level function
    (it travels by name) returning bytes. Closing the iterator early (an error, Ctrl-C) stops the
    processes and cancels the Ray tasks."""
    check_runs(runs)
    if ray_address:
        from .ray_runner import run_on_ray

        results = run_on_ray(spec, runs, ray_address, task, WINDOW_PER_JOB)
    else:
        # no more processes than cores: more would only share them, each with a copy of the
        # replay's memory (`-j 100000` forked until the machine ran out of it)
        jobs = min(jobs, usable_cores()) if jobs is not None else default_jobs()
        if jobs <= 1 or runs <= 1:
            results = (task(spec, k) for k in range(1, runs + 1))
        else:
            from .workers import run_locally

            results = run_locally(task, spec, runs, jobs, WINDOW_PER_JOB * jobs)
    with contextlib.closing(results):
        for k, raw in enumerate(results, start=1):
            if progress is not None:
                progress(k, runs)
            yield raw


def report_of_run(spec: RunSpec, run: int, runs: int) -> dict[str, Any]:
    """Run `run`'s report as the runs' report shows it (as JSON reads it back: the report a run
    sent back from a worker, before runs were folded as they finish)."""
    report = orjson.loads(orjson.dumps(simulate_once(spec, run)[0]))
    report["run"] = {"run": run, "of": runs, "seed": run_seed(spec.seed, run)}
    return report


def replay_runs(spec: RunSpec, runs: int, *, jobs: int | None = None, ray_address: str | None = None,
                progress: RunProgress | None = None) -> dict[str, Any]:
    """The report of `runs` runs: the run with the median number of preemptions as the report
    (its `run` and `seed` said), with `distribution` over all runs."""
    dist = Distribution()
    with contextlib.closing(fan_out(_run_task, spec, runs, jobs=jobs, ray_address=ray_address,
                                    progress=progress)) as results:
        for raw in results:
            dist.add(orjson.loads(raw))
    report = report_of_run(spec, dist.median_run(), runs)
    report["distribution"] = dist.result()
    return report
