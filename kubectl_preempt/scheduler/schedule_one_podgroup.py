"""One pod-group scheduling cycle, as schedule_one_podgroup.go of kube-scheduler v1.36.2 runs it
(GenericWorkload on): a gang's pods are tried together, all of them or none.

The members are tried one after the other in one snapshot, in the order podGroupInfoForPod sorts
them (priority, then the first time each was tried). Each runs the pod's own scheduling algorithm
(schedule_one.py: filter, score, select; PostFilter unless told not to); a member that fits, or that
preemption nominated somewhere, is assumed on its node in the cycle's snapshot, where the next
members see it, and asks Permit (GangScheduling: wait until minCount are scheduled). The group is
schedulable when a Permit says Success; if any member needed preemption it waits for it instead.
Every assumption is undone before the result is handed back (podGroupSchedulingDefaultAlgorithm's
deferred reverts): binding is the caller's.

With WorkloadAwarePreemption, a group left unschedulable preempts as one unit over the whole
cluster (preemption/podgroup_preemption.py) inside a layer of the snapshot; with it off, each
member's DefaultPreemption ran inside the cycle already, and its preemption stands whatever the
group's outcome (as upstream's asynchronous calls do).

The decision leaves as one PodGroupCycleResult: each member's cycle and what the scheduler does
with it (bind, or FailureHandler with its message and nomination), the PodGroupScheduled
condition, and the workload-aware preemption's record. Nothing here formats text for people.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..framework.cycle_state import CycleState
from ..framework.diagnosis import Diagnosis, fit_error_message
from ..framework.podgroupstate import PodGroupState, group_key_of
from ..framework.runtime import Framework
from ..framework.snapshot import CycleSnapshot
from ..framework.status import SUCCESS, Code, Status
from ..model.objects import Pod
from ..model.workload import (POD_GROUP_SCHEDULED, REASON_SCHEDULED, REASON_SCHEDULER_ERROR,
                              REASON_UNSCHEDULABLE, PodGroup)
from ..plugins.gangscheduling import ACTIVATE_KEY
from ..preemption.podgroup_preemption import PodGroupPreemptionRecord, outcomes_under_orders, preempt
from .schedule_one import ERR_NO_NODES_AVAILABLE, PREEMPTED, SCHEDULED, CycleResult, schedule_one

# errPodGroupUnschedulable
ERR_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"
ERR_SAME_SCHEDULER_NAME = "all pods in a single pod group should have the same .spec.schedulerName set, got: %s and %s"
ERR_PROFILE_NOT_FOUND = "profile not found for scheduler name %s"
ERR_DEFAULT_PREEMPTION_MISSING = "default preemption plugin is not registered, workload aware preemption is disabled"
ERR_OTHER_POD_FAILED = "failed to schedule other pod from a pod group: %s"

# the mode of a member's cycle (podGroupPostFilterMode)
RUN_ALL_POST_FILTERS = "runAllPostFilters"
RUN_WITHOUT_POST_FILTERS = "runWithoutPostFilters"

# what the scheduler does with a member (the outcome of submitPodGroupAlgorithmResult)
BIND = "Bind"
FAILURE = "Failure"
# nominatingInfo of a FailureHandler call: None leaves the nomination as it is (a nil
# nominatingInfo, ModeNoop); "" clears it; a name sets it (ModeOverride)
LEAVE = None


def _unschedulable_with_error(*reasons: str) -> Status:
    """fwk.NewStatus(Unschedulable, reasons...).WithError(errPodGroupUnschedulable): the error's
    text comes first among the reasons."""
    return Status(Code.Unschedulable, ERR_POD_GROUP_UNSCHEDULABLE, *reasons, error=ERR_POD_GROUP_UNSCHEDULABLE)


@dataclass
class PodGroupCycle:
    """What a member's CycleState knows of its pod-group cycle (SetPodGroupSchedulingCycle): the
    state of its pod group in the cycle's snapshot, where the members assumed so far count."""

    key: str
    state: PodGroupState
    # the plugins' own data for the group's cycle, by plugin name (the podGroupCycleState's
    # entries: DynamicResources' pending allocations of the cycle's claims)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class MemberResult:
    """One member's attempt in the cycle (algorithmResult), and what the scheduler then did."""

    pod: Pod
    cycle: CycleResult | None = None     # schedulingAlgorithm's decision (None: never tried)
    suggested_host: str = ""
    requires_preemption: bool = False
    status: Status = SUCCESS             # the member's own status
    permit_status: Status | None = None  # Permit's answer when it was asked
    # submitPodGroupAlgorithmResult: BIND, or FAILURE with the status FailureHandler got and the
    # nomination it set (LEAVE, "" clears, a node sets)
    action: str = FAILURE
    failure: Status | None = None
    nominated_node: str | None = LEAVE
    assumed_on: str = ""  # where the member was assumed (its host, when it fitted or was nominated)
    activate: list[Pod] = field(default_factory=list)  # what its Permit asked the queue to activate

    @property
    def message(self) -> str:
        """The FailedScheduling event's message and the PodScheduled condition's (the status's)."""
        return self.failure.message() if self.failure is not None else ""

    @property
    def preempted(self) -> Any:
        """The member's own DefaultPreemption record when it nominated a node (WAP off)."""
        return self.cycle.preempted if self.cycle is not None else None


@dataclass
class AlgorithmResult:
    """podGroupAlgorithmResult."""

    members: list[MemberResult]
    status: Status
    waiting_on_preemption: bool = False


@dataclass
class PodGroupCycleResult:
    """The decision of one pod-group cycle."""

    key: str                               # namespace/name of the pod group
    pod_group: PodGroup | None
    members: list[MemberResult]            # in the cycle's order
    status: Status                         # the group's
    waiting_on_preemption: bool = False
    preemption: PodGroupPreemptionRecord | None = None
    # the PodGroupScheduled condition to write (None: left as it is)
    condition: dict[str, str] | None = None
    activate: list[Pod] = field(default_factory=list)
    num_all_nodes: int = 0
    # the members the cycle ended before trying (it stops at the first that cannot be placed):
    # submitPodGroupAlgorithmResult gives each the group's status
    untried: list[Pod] = field(default_factory=list)

    @property
    def scheduled(self) -> bool:
        return self.status.is_success()

    @property
    def preempted(self) -> PodGroupPreemptionRecord | None:
        """Workload-aware preemption's record when it chose victims (its API calls follow)."""
        p = self.preemption
        return p if p is not None and p.status.is_success() else None

    def member(self, key: str) -> MemberResult | None:
        return next((m for m in self.members if m.pod.key == key), None)


def order_members(pods: Sequence[Pod], first_tried: Callable[[Pod], Any]) -> list[Pod]:
    """mirrors podGroupInfoForPod's sort: higher priority first, then the pod first tried earlier
    (InitialAttemptTimestamp; `first_tried` gives something ordered, None for never). Python's sort
    is stable, as Go's sort.Slice is on the few members it sorts by insertion; the order given
    stands for upstream's map order among ties."""
    tried = [p for p in pods if first_tried(p) is not None]
    never = [p for p in pods if first_tried(p) is None]
    # a nil timestamp is the zero time: before every other
    return sorted(never, key=lambda p: -p.priority) if not tried else \
        sorted(never + tried, key=lambda p: (-p.priority, first_tried(p) is not None,
                                             first_tried(p) if first_tried(p) is not None else 0))


class PodGroupScheduler:
    """What a pod-group cycle needs of its scheduler (scheduler.py Scheduler): its profiles, its
    snapshot and nominator, the start of the node walk, the PodGroup lister and the gates."""

    def __init__(self, scheduler: Any) -> None:
        self.sched = scheduler

    # ---------------------------------------------------------------- scheduleOnePodGroup
    def schedule(self, key: str, pod_group: PodGroup | None, members: Sequence[Pod], *,
                 workload_aware_preemption: bool, pdbs: Sequence[Any] = (),
                 alternatives: Sequence[frozenset[str]] = ()) -> PodGroupCycleResult:
        """`alternatives`: sets of pods to check as what workload-aware preemption could have
        evicted anew under another order of tied units (its record's `alternatives`)."""
        sched = self.sched
        n = sched.snapshot.num_nodes()
        popped = list(members)  # podGroupInfoForPod took every one of them out of the queue
        # scheduleOnePodGroup: frameworkForPodGroup over every popped pod, then
        # skipPodGroupPodSchedule drops those being deleted; with none left, no cycle and no write
        fwk, err = self._framework_for_pod_group(popped)
        members = [p for p in popped if not p.terminating]
        if fwk is not None and not members:
            return PodGroupCycleResult(key, pod_group, [], Status(Code.Unschedulable), num_all_nodes=n)
        if fwk is None:
            # scheduleOnePodGroup: FailureHandler for each pod, and a return before
            # submitPodGroupAlgorithmResult: no condition is written
            status = Status.as_error(err)
            ms = [MemberResult(p, status=status, failure=status, nominated_node="") for p in popped]
            return PodGroupCycleResult(key, pod_group, ms, status, num_all_nodes=n)
        snap = CycleSnapshot(sched.snapshot, {key: self._live_state(fwk, key, members)})
        cycle = PodGroupCycle(key, snap.pod_group_states[key])
        in_flight = InFlightNominations(fwk.nominator, popped)
        try:
            result = self._algorithm(fwk, snap, cycle, members, RUN_ALL_POST_FILTERS)
            record = None
            if workload_aware_preemption and result.status.code == Code.Unschedulable:
                status, record = self._workload_aware_preemption(fwk, snap, key, pod_group, members, pdbs,
                                                                 alternatives)
                if status.is_success():
                    result.waiting_on_preemption = True
                elif status.code == Code.Error:
                    result.status = status
                else:
                    result.status = Status(result.status.code, *result.status.reasons, status.message(),
                                           plugin=result.status.plugin, error=result.status.error)
        finally:
            in_flight.back_in_queue()
        tried = {m.pod.uid for m in result.members}
        out = PodGroupCycleResult(key, pod_group, result.members, result.status, result.waiting_on_preemption,
                                  record, num_all_nodes=n, untried=[p for p in members if p.uid not in tried])
        _submit(out)
        # the members' podsToActivate, each pod once (upstream's is a map by key): a set beside the
        # list, not a search of the list, for a gang of thousands whose members name each other
        seen: set[str] = set()
        for m in result.members:
            for p in m.activate:
                if p.uid not in seen:
                    seen.add(p.uid)
                    out.activate.append(p)
        return out

    def _framework_for_pod_group(self, members: Sequence[Pod]) -> tuple[Framework | None, str]:
        # mirrors frameworkForPodGroup
        name = ""
        for p in members:
            if not name:
                name = p.scheduler_name
            elif p.scheduler_name != name:
                from ..errors import quote
                return None, ERR_SAME_SCHEDULER_NAME % (quote(p.scheduler_name), quote(name))
        fwk = self.sched.framework_for_profile(name) if name else None
        if fwk is None:
            from ..errors import quote
            return None, ERR_PROFILE_NOT_FOUND % quote(name)
        return fwk, ""

    def _live_state(self, fwk: Framework, key: str, members: Sequence[Pod]) -> PodGroupState:
        """The cache's state of the group, copied for the cycle (podGroupStateSnapshot)."""
        minor = fwk.version.minor
        ns = key.split("/", 1)[0]
        st = PodGroupState()
        for p in self.sched.cluster.pods.values():
            # a pending pod of a scheduler name no profile handles is not in the cache's state
            # (eventhandlers.go addPod: only responsibleForPod pods reach AddPodGroupMember)
            if p.namespace == ns and group_key_of(p, minor) == key and (p.node_name or fwk.responsible_for(p)):
                st.add_pod(p)
        for p in members:  # a member the cluster does not hold yet (plan's manifests) is known to the cache
            if p.uid not in st.all_pods:
                st.add_pod(p)
        return st

    # ---------------------------------------------------------------- podGroupSchedulingDefaultAlgorithm
    def _algorithm(self, fwk: Framework, snap: CycleSnapshot, cycle: PodGroupCycle, members: Sequence[Pod],
                   mode: str) -> AlgorithmResult:
        result = AlgorithmResult([], _unschedulable_with_error())
        requires_preemption = False
        reverts: list[Callable[[], None]] = []
        saved = fwk.snapshot
        fwk.snapshot = snap
        try:
            for pod in members:
                m, revert = self._member(fwk, snap, cycle, pod, mode)
                result.members.append(m)
                if not m.status.is_success() and not m.requires_preemption:
                    if m.status.is_rejected():
                        # a rejected member leaves the group schedulable if Permit still succeeds
                        continue
                    result.status = Status.as_error(ERR_OTHER_POD_FAILED % m.status.message())
                    result.waiting_on_preemption = False
                    break
                if revert is not None:
                    reverts.append(revert)
                requires_preemption = requires_preemption or m.requires_preemption
                if m.permit_status is not None and m.permit_status.is_success():
                    if requires_preemption:
                        result.status = _unschedulable_with_error(WAITING_FOR_PREEMPTION)
                        result.waiting_on_preemption = True
                    else:
                        result.status = SUCCESS
        finally:
            # the deferred reverts, last first: the snapshot is as it was before the members
            for revert in reversed(reverts):
                revert()
            fwk.snapshot = saved
        return result

    # ---------------------------------------------------------------- podGroupPodSchedulingAlgorithm
    def _member(self, fwk: Framework, snap: CycleSnapshot, cycle: PodGroupCycle, pod: Pod,
                mode: str) -> tuple[MemberResult, Callable[[], None] | None]:
        sched = self.sched
        res = schedule_one(fwk, pod, start_index=sched.next_start_node_index,
                           run_post_filter=mode == RUN_ALL_POST_FILTERS, pod_group_cycle=cycle)
        n = snap.num_nodes()
        if n:
            sched.next_start_node_index = (sched.next_start_node_index + res.processed_nodes) % n
        m = MemberResult(pod, res)
        if res.outcome == SCHEDULED and res.suggested_host:
            host = res.suggested_host
        elif res.outcome == PREEMPTED and res.post_filter_result is not None \
                and res.post_filter_result.nominated_node_name:
            # preemption nominated a node: the next members see this one there
            host = res.post_filter_result.nominated_node_name
            m.requires_preemption = True
            m.status = _fit_status(res)
        else:
            m.status = _fit_status(res)
            return m, None
        m.suggested_host = host
        # assumeAndReserve: the member joins its node in the cycle's snapshot, its nomination
        # leaves the nominator while it is assumed (DeleteNominatedPodIfExists)
        assumed = _assumed(pod, host)
        snap.assume_pod(assumed, cycle.key)
        m.assumed_on = host
        nominator = fwk.nominator
        held, entry = next(((node, p) for node, ps in nominator.by_node.items() for p in ps if p.uid == pod.uid),
                           ("", pod))
        if held:
            nominator.delete(pod)
        state = CycleState()
        state.pod_group_cycle = cycle

        def revert() -> None:
            # unreserveAndForget: the Reserve plugins' Unreserve, forgotten in the snapshot, the
            # nomination back in the nominator (as the nominator holds it: a member in flight is
            # its reference, InFlightNominations)
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
            snap.forget_pod(assumed, cycle.key)
            if held:
                nominator.add(entry, held)

        def failed(status: Status) -> tuple[MemberResult, None]:
            # Reserve or Permit turned the member down: unreserved and forgotten, not nominated
            revert()
            m.status = _one_node_failure(host, status)
            m.suggested_host = ""
            m.nominated_node = ""
            m.requires_preemption = False
            return m, None

        # assumeAndReserve: the Reserve plugins (DynamicResources holds the devices it found for
        # the member's claims, so the next members' allocators see them taken)
        reserved = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if not reserved.is_success():
            return failed(reserved)
        permit, _timeout = fwk.run_permit_plugins(state, assumed, host)
        m.activate = list(state.get(ACTIVATE_KEY) or ())
        if permit.code != Code.Wait and not permit.is_success():
            return failed(permit)
        m.permit_status = permit
        return m, revert

    # ---------------------------------------------------------------- runWorkloadAwarePreemption
    def _workload_aware_preemption(self, fwk: Framework, snap: CycleSnapshot, key: str, pod_group: PodGroup | None,
                                   members: Sequence[Pod], pdbs: Sequence[Any],
                                   alternatives: Sequence[frozenset[str]] = ()
                                   ) -> tuple[Status, PodGroupPreemptionRecord | None]:
        # runtime/framework.go NewFramework makes DefaultPreemption the one PodGroupPostFilter
        # plugin when the profile initialises it at all (pluginsMap: any extension point, multiPoint
        # included), whether or not its postFilter point is disabled
        if "DefaultPreemption" not in fwk.plugins:
            return Status(Code.Unschedulable, ERR_DEFAULT_PREEMPTION_MISSING), None
        if pod_group is None:
            name = key.split("/", 1)[1]
            return Status.as_error(f"failed to get pod group object: podgroup.scheduling.k8s.io \"{name}\" not found"), None
        if pod_group.topology_constraints:
            return Status(Code.Unschedulable, "workload aware preemption is not supported for pod groups with "
                                              "scheduling constraints"), None
        layer = snap.layer()  # BackupSnapshot: nothing of the search outlasts it
        from ..framework.podgroupstate import PodGroupLister
        lister = PodGroupLister(fwk.listers, fwk.version.minor)

        last: list[AlgorithmResult] = []

        def fits(s: CycleSnapshot) -> Status:
            cycle = PodGroupCycle(key, s.pod_group_states[key])
            got = self._algorithm(fwk, s, cycle, members, RUN_WITHOUT_POST_FILTERS)
            last[:] = [got]
            return got.status

        record = preempt(pod_group, members, layer, lister.get, pdbs, fits, fwk.random_source)
        if record.potential and not record.fits_without_all and last:
            # with every potential victim gone, the member that still found no node, and why
            failing = next((m for m in last[0].members if not m.suggested_host), None)
            if failing is not None:
                record.failing = (failing.pod.key, failing.status.message())
        if record.status.is_success():
            seen: set[frozenset[str]] = set()
            for evict in alternatives:
                for got in outcomes_under_orders(record.potential, evict, snap.layer, pdbs, fits):
                    pods = frozenset(p.key for u in got for p in u.pods)
                    if pods not in seen:
                        seen.add(pods)
                        record.alternatives.append(got)
        return record.status, record


class InFlightNominations:
    """The members of a pod-group cycle as the nominator shows them while the cycle runs.

    The nominator keeps only a reference (name, namespace, UID) of each nominated pod
    (backend/queue/nominator.go podRef); PriorityQueue.NominatedPodsForNode
    (backend/queue/scheduling_queue.go nominatedPodToInfo) resolves it through activeQ,
    unschedulablePods and backoffQ, and a pod in none of them gets `podRef.toPod()`: a pod with
    no priority (0) and no requests. Every member of a pod-group cycle was taken out of the queue
    (podGroupInfoForPod: Pop, then PopSpecificPod), so while the cycle runs another member's
    nomination counts as that bare pod: addGENominatedPods (framework/runtime/framework.go) skips it
    for a pod of higher priority than 0, and getLowerPriorityNominatedPods (preemption/executor.go)
    sees it as lower. The members' entries are swapped for such references for the cycle, and
    back afterwards (the queue holds the members again once FailureHandler has run)."""

    def __init__(self, nominator: Any, pods: Sequence[Pod]) -> None:
        self.nominator = nominator
        uids = {p.uid for p in pods}
        self.swapped: dict[str, tuple[Pod, Pod]] = {}  # uid -> (the nominator's pod, its reference)
        for node_pods in nominator.by_node.values():
            for i, p in enumerate(node_pods):
                if p.uid in uids:
                    ref = _pod_ref(p)
                    self.swapped[p.uid] = (p, ref)
                    node_pods[i] = ref
        if self.swapped:
            nominator.version += 1

    def back_in_queue(self) -> None:
        if not self.swapped:
            return
        for node_pods in self.nominator.by_node.values():
            for i, p in enumerate(node_pods):
                got = self.swapped.get(p.uid)
                if got is not None and p is got[1]:
                    node_pods[i] = got[0]
        self.nominator.version += 1


def _one_node_failure(host: str, status: Status) -> Status:
    """A Reserve or Permit failure on the member's node: a rejection is a FitError over that one
    node (assumeAndReserve, podGroupPodSchedulingAlgorithm), anything else as it is."""
    if not status.is_rejected():
        return status
    d = Diagnosis()
    d.node_to_status.set(host, status)
    d.add_plugin_status(status)
    return Status(status.code, fit_error_message(1, d))


def _pod_ref(pod: Pod) -> Pod:
    """podRef.toPod(): the pod's name, namespace and UID, nothing else."""
    return Pod({"metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid}})


def _fit_status(res: CycleResult) -> Status:
    """The Unschedulable (or Error) status of a member whose algorithm found no node: its FitError.
    No node at all is schedulingAlgorithm's UnschedulableAndUnresolvable (ErrNoNodesAvailable),
    a rejection the group's cycle goes on after, not an error that stops it."""
    if res.error == ERR_NO_NODES_AVAILABLE:
        return Status(Code.UnschedulableAndUnresolvable, res.error, error=res.error)
    if res.error is not None:
        return Status.as_error(res.error)
    return Status(Code.Unschedulable, res.message)


def _assumed(pod: Pod, node: str) -> Pod:
    """The pod as assumed on `node` (assumedPod.Spec.NodeName = host), a view of its own."""
    p = Pod(pod.raw)
    p.priority, p.preemption_policy, p.has_priority = pod.priority, pod.preemption_policy, pod.has_priority
    p.node_name = node
    p.nominated_node_name = ""
    p.info = None
    return p


def _condition(status: Status, waiting: bool) -> dict[str, str]:
    # mirrors the PodGroupScheduled condition submitPodGroupAlgorithmResult writes
    if status.is_success():
        return {"type": POD_GROUP_SCHEDULED, "status": "True", "reason": REASON_SCHEDULED, "message": ""}
    if status.is_rejected():
        return {"type": POD_GROUP_SCHEDULED, "status": "False", "reason": REASON_UNSCHEDULABLE,
                "message": status.message()}
    return {"type": POD_GROUP_SCHEDULED, "status": "False", "reason": REASON_SCHEDULER_ERROR,
            "message": status.error or status.message()}


def update_pod_group_condition(existing: Mapping[str, Any] | None,
                               condition: Mapping[str, str] | None) -> dict[str, str] | None:
    """mirrors updatePodGroupCondition: the PodGroupScheduled condition the scheduler patches onto
    the PodGroup, None when it patches nothing. A group scheduled already keeps its True condition
    when a later cycle (for extra pods) fails; and SetStatusCondition changes nothing when the
    status, reason and message are those the PodGroup holds."""
    if condition is None:
        return None
    if existing is not None and existing.get("status") == "True" and condition.get("status") != "True":
        return None
    if existing is not None and all(existing.get(k) == condition.get(k) for k in ("status", "reason", "message")):
        return None
    return dict(condition)


def _submit(out: PodGroupCycleResult) -> None:
    """mirrors submitPodGroupAlgorithmResult: what each member gets, and the group's condition."""
    group = out.status
    waiting = out.waiting_on_preemption
    for m in out.members:
        if group.code == Code.Error:
            m.action, m.failure, m.nominated_node = FAILURE, (m.status if m.status.code == Code.Error else group), ""
            continue
        if m.status.is_success():
            if group.is_success():
                m.action, m.failure, m.nominated_node = BIND, None, m.suggested_host
            elif group.is_rejected():
                if waiting:
                    # back to the queue as unschedulable, nominated where it fitted
                    m.action, m.failure, m.nominated_node = FAILURE, group, m.suggested_host
                else:
                    permit = m.permit_status.message() if m.permit_status is not None else ""
                    m.action, m.failure, m.nominated_node = FAILURE, _unschedulable_with_error(permit), ""
            else:
                m.action, m.failure, m.nominated_node = FAILURE, Status.as_error(
                    f"received unexpected pod group scheduling algorithm status code: {group.code.name}"), ""
            continue
        m.action = FAILURE
        if m.requires_preemption and not waiting:
            # the group is unschedulable: its preemption message is no longer relevant
            permit = m.permit_status.message() if m.permit_status is not None else ""
            m.failure, m.nominated_node = _unschedulable_with_error(permit), ""
        else:
            m.failure = m.status
            m.nominated_node = _nominating(m)
    out.condition = _condition(group, waiting)


def _nominating(m: MemberResult) -> str | None:
    """The nominatingInfo a failed member's own cycle returned: the node preemption nominated, a
    clear when its PostFilter ran and nominated nothing, else none (left as it is)."""
    res = m.cycle
    if res is None:
        return ""
    if m.requires_preemption:
        return m.suggested_host
    # pod groups are v1.35's and later: a profile without PostFilter plugins clears it
    return res.failure_nominating_info(clears_without_post_filter=True)
