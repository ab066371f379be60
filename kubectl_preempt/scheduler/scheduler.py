"""A scheduler over one cluster state: profiles built from a configuration, a snapshot and the
nominator, ready to run cycles. Used by explain (one instant) and by replay (over time)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from ..errors import InputError, quote
from ..framework.claims import ClaimTracker
from ..framework.volumeassume import VolumeAssumeCache
from ..framework.config import SchedulerConfig, default_config
from ..framework.cycle_state import CycleState
from ..framework.events import QueueingHintMap
from ..framework.interface import FastCores
from ..framework.randomness import FIXED, RandomSource
from ..framework.runtime import Framework, Nominator, build_queueing_hint_map
from ..framework.snapshot import Snapshot
from ..framework.status import SUCCESS, Code, Status
from ..model.cluster import Cluster
from ..model.memory import MEMORY
from ..model.objects import Pod
from ..plugins.registry import in_tree_registry
from .fast import FAST_CORES
from .memo.equivalence import EquivalenceCache
from .memo.failed_cycles import schedule_one_remembering
from .schedule_one import SCHEDULED, UNSCHEDULABLE, CycleResult, schedule_one


class Scheduler:
    def __init__(self, cluster: Cluster, config: SchedulerConfig | None = None, *,
                 random_source: RandomSource = FIXED,
                 snapshot: Snapshot | None = None, nominator: Nominator | None = None,
                 out_of_tree_registry: Mapping[str, Callable[[Mapping[str, Any], Any], Any]] | None = None,
                 equivalence: EquivalenceCache | None = None) -> None:
        self.cluster = cluster
        # the one equivalence cache (scheduler/memo/equivalence.py). `equivalence=None` and
        # model/memory.py's MEMORY.off() are one switch: built under MEMORY.off() the scheduler drops
        # the cache it is handed, and without one each of its cycles runs under MEMORY.off()
        # (schedule): no memory at all, the process-wide ones included, and the switch back where
        # it was when the cycle returns
        self.equivalence = equivalence if MEMORY.on else None
        self.config = config or default_config()
        # the run's one source for every random choice v1.34.1 makes (host among equal scores, the
        # preemption candidate offset, nodes tied after the choice chain; framework/randomness.py),
        # handed to each Framework; FIXED keeps them all fixed
        self.random_source = random_source
        # the scheduler owns its snapshot (built here unless the caller hands one over)
        # the release's way of counting a bound pod on its node (requests with PodLevelResources,
        # InPlacePodVerticalScaling, the v1.31 non-zero sums; sidecars' host ports), applied to
        # whichever snapshot it is given
        self._counting = self.config.version.node_counting
        self._snapshot = snapshot if snapshot is not None else Snapshot.build(cluster, self._counting)
        if self._snapshot.counting != self._counting:
            self._snapshot.use_counting(self._counting, cluster.has_pod_level_resources())
        if self.equivalence is not None:
            self.equivalence.use_snapshot(self._snapshot)
        if nominator is None:
            nominator = Nominator()
            # the pods that name a node and are bound to none: among those the snapshot found
            # bound to none when it went through every pod (explain: one pass over 150,000 pods,
            # not two), else found with one pass over the cluster's pods
            pending = self._snapshot.unbound_pods(cluster)
            for p in [p for p in (pending if pending is not None else cluster.pods.values())
                      if p.nominated_node_name and not p.node_name]:
                nominator.add(p, p.nominated_node_name)
        self.nominator = nominator
        # the ResourceClaim allocations in flight between Reserve and PreBind, for every profile
        self.claim_tracker = ClaimTracker()
        # the PVs and PVCs VolumeBinding's Reserve assumed until their binding, for every profile
        self.volume_assumptions = VolumeAssumeCache()
        # mirrors WithFrameworkOutOfTreeRegistry: plugins of one's own beside the in-tree ones
        self.registry = {**in_tree_registry(self.config.version), **(out_of_tree_registry or {})}
        self.frameworks: dict[str, Framework] = {}
        self.next_start_node_index = 0
        # whether a pod of a pod group is scheduled in its group's cycle (schedule_one.go
        # ScheduleOne: GenericWorkload, from v1.36; v1.35 schedules each member alone); asked of
        # every pod a replay pops
        v = self.config.version
        self.pod_group_cycles = v.minor >= 36 and v.features.enable_generic_workload
        if len(self.config.profiles) > 1:
            # as profile.NewMap, a scheduler whose profiles sort the one queue differently does not start
            self.queue_sort_less()

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @snapshot.setter
    def snapshot(self, snapshot: Snapshot) -> None:
        """A replaced snapshot starts a new epoch of the equivalence cache, unless it carries on
        from the one it replaces (Snapshot.from_cluster's `previous`: the node generations hold)."""
        if self.equivalence is not None:
            if snapshot is not self._snapshot and snapshot.continues is not self._snapshot:
                self.equivalence.new_epoch()
            self.equivalence.use_snapshot(snapshot)
        snapshot.continues = None  # read once; no chain of old snapshots kept alive
        snapshot.use_counting(self._counting)
        self._snapshot = snapshot

    def world(self) -> tuple:
        """What a failed cycle reads besides its pod and configuration, as a token that moves when
        any of it changes (scheduler/memo/failed_cycles.py FailedCycles): the snapshot and how far its
        node journal has come, the nominator, the cluster's other objects, the PDBs' status."""
        return self._world(self.nominator.version)

    def world_held(self) -> tuple:
        """world() with the nominator as what it holds, not how often it moved. A pod-group cycle
        takes each assumed member's nomination out and puts it back when the group fails
        (schedule_one_podgroup.py, assumeAndReserve and unreserveAndForget), and swaps the members'
        entries for references while it runs (InFlightNominations): the version moves and nothing
        changed. replay/podgroups.py Spin compares with this: with world(), two groups that fail
        each let the other back, for ever, at one instant."""
        return self._world(self.nominator.held())

    def _world(self, nominations: Any) -> tuple:
        c = self.cluster
        journal = self._snapshot.journal
        pdbs = c.pdbs
        return (self._snapshot, journal.end if journal is not None else -1, nominations, c.version,
                c.pdb_generation, tuple([p.disruptions_allowed for p in pdbs]) if pdbs else (),
                self.claim_tracker.held(), self.volume_assumptions.held())

    def framework_for(self, pod: Pod) -> Framework | None:
        return self.framework_for_profile(pod.scheduler_name)

    def responsible_for(self, pod: Pod) -> bool:
        """mirrors responsibleForPod: a profile of this scheduler handles the pod's schedulerName."""
        return self.config.profile_for(pod.scheduler_name) is not None

    def framework_for_profile(self, name: str) -> Framework | None:
        fwk = self.frameworks.get(name)
        if fwk is None:
            profile = self.config.profile_for(name)
            if profile is None:
                return None
            fwk = Framework(self.registry, profile, snapshot=self.snapshot, cluster=self.cluster,
                            nominator=self.nominator, random_source=self.random_source,
                            percentage_of_nodes_to_score=self.config.percentage_of_nodes_to_score,
                            claim_tracker=self.claim_tracker, volume_assumptions=self.volume_assumptions)
            fwk.version = self.config.version
            fwk.responsible_for = self.responsible_for
            self.frameworks[name] = fwk
        fwk.snapshot = self.snapshot
        return fwk

    def queueing_hints(self) -> dict[str, QueueingHintMap]:
        """Per profile (schedulerName), the events and hints its plugins registered (mirrors the
        queueingHintsPerProfile NewScheduler builds)."""
        out = {}
        for profile in self.config.profiles:
            fwk = self.framework_for_profile(profile.scheduler_name)
            assert fwk is not None
            out[profile.scheduler_name] = build_queueing_hint_map(fwk)
        return out

    def queue_sort_less(self) -> Callable[[Any, Any], bool]:
        """The QueueSort plugin's Less, which orders the scheduling queue (every profile must
        enable the same QueueSort plugin with the same args, so the first profile's serves all;
        a configuration where they differ is refused as profile.NewMap's cfgValidator does)."""
        first: tuple[str, Any] | None = None
        less = None
        for i, profile in enumerate(self.config.profiles):
            fwk = self.framework_for_profile(profile.scheduler_name)
            assert fwk is not None and fwk.points["queueSort"]
            plugin = fwk.points["queueSort"][0]
            name, args = plugin.name, profile.plugin_args.get(plugin.name)
            if first is None:
                first, less = (name, args), plugin.less
                continue
            where = f"profiles[{i}].plugins.queueSort"
            if name != first[0]:
                raise InputError(f"different queue sort plugins for profile {quote(profile.scheduler_name)}: "
                                 f"{quote(name)}, first: {quote(first[0])}",
                                 field=where).located(source=self.config.source)
            if args != first[1]:
                raise InputError(f"different queue sort plugin args for profile {quote(profile.scheduler_name)}",
                                 field=where).located(source=self.config.source)
        assert less is not None
        return less

    def pre_enqueue(self, fwk: Framework, pod: Pod) -> Status:
        for pl in fwk.points["preEnqueue"]:
            s = pl.pre_enqueue(pod)
            if not s.is_success():
                return s.with_plugin(pl.name)
        return SUCCESS

    def schedule_pod_group(self, key: str, members: Sequence[Pod], *, pdbs: Sequence[Any] | None = None,
                           alternatives: Sequence[frozenset[str]] = ()) -> Any:
        """One pod-group cycle of the group `key` (namespace/name) over `members`, in the order the
        cycle tries them (schedule_one_podgroup.py); with every memory off as schedule() runs
        without an equivalence cache."""
        from .schedule_one_podgroup import PodGroupScheduler
        fwk = self.framework_for_profile(members[0].scheduler_name) if members else None
        pod_group = None
        if fwk is not None:
            from ..framework.podgroupstate import PodGroupLister
            ns, name = key.split("/", 1)
            pod_group = PodGroupLister(fwk.listers, self.config.version.minor).get(ns, name)
        wap = self.config.version.features.enable_workload_aware_preemption
        run = PodGroupScheduler(self)
        pdbs = self.cluster.pdbs if pdbs is None else pdbs
        if self.equivalence is None or not MEMORY.on:
            with MEMORY.off():
                return run.schedule(key, pod_group, members, workload_aware_preemption=wap, pdbs=pdbs,
                                    alternatives=alternatives)
        return run.schedule(key, pod_group, members, workload_aware_preemption=wap, pdbs=pdbs,
                            alternatives=alternatives)

    def schedule(self, pod: Pod, batching: tuple[int, float] | None = None) -> CycleResult:
        """One cycle for `pod`. `batching`: the queue's scheduling cycle and the clock, for a
        scheduler that runs cycle after cycle (replay): OpportunisticBatching reuses the cycle
        before (framework/batch.py); None for explain's lone cycle."""
        eq = self.equivalence
        # the fast cores beside the decision (scheduler/fast/) follow the switch as the caller set
        # it: off under MEMORY.off(), on otherwise, with or without an equivalence cache (they
        # remember nothing themselves; what they reuse lives in the cache)
        fast = FAST_CORES if MEMORY.on else None
        if eq is None or not MEMORY.on:
            # no equivalence cache (or every memory switched off since it was handed one): the
            # whole cycle with every memory off, nothing remembered serves it
            with MEMORY.off():
                return self._schedule(pod, None, batching, fast)
        return self._schedule(pod, eq, batching, fast)

    def _schedule(self, pod: Pod, eq: EquivalenceCache | None, batching: tuple[int, float] | None,
                  fast: FastCores | None = None) -> CycleResult:
        fwk = self.framework_for(pod)
        if fwk is None:
            msg = f'pod\'s schedulerName "{pod.scheduler_name}" matches no profile of this configuration'
            return CycleResult(pod, UNSCHEDULABLE, self.snapshot.num_nodes(), message=msg, error=msg)
        gate = self.pre_enqueue(fwk, pod)
        if not gate.is_success():
            return CycleResult(pod, UNSCHEDULABLE, self.snapshot.num_nodes(), message=gate.message(), gated=gate)
        fwk.fast = fast
        answers = eq.for_pod(fwk.profile_name, pod) if eq is not None else None
        failed = eq.failed_cycles if eq is not None and eq.journal is not None else None
        if failed is not None and answers is not None:
            res = schedule_one_remembering(fwk, pod, failed_cycles=failed, world=self.world(), equivalence=answers,
                                           start_index=self.next_start_node_index, batching=batching)
        else:
            res = schedule_one(fwk, pod, start_index=self.next_start_node_index, equivalence=answers,
                               batching=batching)
        n = self.snapshot.num_nodes()
        if n:
            self.next_start_node_index = (self.next_start_node_index + res.processed_nodes) % n
        if res.outcome == SCHEDULED and res.suggested_host and fwk.points["permit"]:
            # what the binding cycle's Permit would answer (a v1.35 gang member waits there),
            # asked and forgotten: the cycle's decision changes nothing. Without Permit plugins
            # nothing is asked: Reserve (DynamicResources') holds only what Filter just found
            answer = self.reserve_and_permit(pod, res.suggested_host, batching[1] if batching else 0.0, keep=False)
            if not answer.status.is_success():
                res = replace(res, permit=answer.status, permit_timeout=answer.timeout, permit_details=answer.details)
        return res

    def reserve_and_permit(self, pod: Pod, host: str, now: float = 0.0, *, keep: bool = True) -> "PermitAnswer":
        """mirrors schedulingCycle after assume: RunReservePluginsReserve, then RunPermitPlugins,
        with Unreserve when either fails (or always, `keep=False`: a question, not a decision).
        `now` is the clock a gang's Permit deadline is measured on."""
        from ..plugins.gangscheduling import ACTIVATE_KEY, ALLOW_KEY, CLOCK_KEY, DETAILS_KEY
        fwk = self.framework_for(pod)
        if fwk is None:
            return PermitAnswer(SUCCESS)
        state = CycleState()
        state.write(CLOCK_KEY, now)
        s = fwk.run_reserve_plugins_reserve(state, pod, host)
        timeout = 0.0
        if s.is_success():
            s, timeout = fwk.run_permit_plugins(state, pod, host)
        if not keep or not (s.is_success() or s.code == Code.Wait):
            fwk.run_reserve_plugins_unreserve(state, pod, host)
        return PermitAnswer(s, timeout, list(state.get(ALLOW_KEY) or ()), list(state.get(ACTIVATE_KEY) or ()),
                            state.get(DETAILS_KEY))

    def unreserve(self, pod: Pod, host: str) -> None:
        """mirrors RunReservePluginsUnreserve for a pod that waited at Permit and was rejected."""
        fwk = self.framework_for(pod)
        if fwk is not None:
            fwk.run_reserve_plugins_unreserve(CycleState(), pod, host)

    def bound(self, pod: Pod) -> None:
        """A pod of this scheduler was bound: its gang's state counts it assigned, no longer
        assumed (v1.35's workload manager, podGroupInfo.updatePod)."""
        fwk = self.framework_for(pod)
        if fwk is None:
            return
        for pl in fwk.points["reserve"]:
            forget = getattr(pl, "forget_bound", None)
            if forget is not None:
                forget(pod)


@dataclass(frozen=True)
class PermitAnswer:
    """Reserve's and Permit's answer for a pod on its node: Success, Wait (with its timeout), a
    rejection or an error; the uids of the pods a met quorum allows, the pods Permit asked the
    queue to activate, and what the plugin said of the pod's gang (for explain)."""

    status: Status
    timeout: float = 0.0
    allowed: list[str] = field(default_factory=list)
    activate: list[Pod] = field(default_factory=list)
    details: dict[str, Any] | None = None
