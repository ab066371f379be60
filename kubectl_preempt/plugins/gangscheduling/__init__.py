"""GangScheduling: all-or-nothing for the pods of a gang (mirrors framework/plugins/gangscheduling
gangscheduling.go of v1.36.2, and of v1.35.6 where the release says).

A gang member waits out of the active queue until its pod group exists and holds at least
minCount pods (PreEnqueue), and waits at Permit until minCount of its group are scheduled
(assumed in this pod-group cycle, or bound). The pods of a gang are placed together by the
pod-group cycle (scheduler/schedule_one_podgroup.py); in v1.35, which has no such cycle, each
member is scheduled alone, Reserve marks it assumed in its pod group's state (the scheduler's
WorkloadManager), and it waits at Permit until minCount of its gang are assumed or bound
(`GangSchedulingV135`).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from ...framework import events as ev
from ...framework.cycle_state import CycleState
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.podgroupstate import PodGroupLister, PodGroupState, group_key_of, states_of
from ...framework.status import SUCCESS, Code, Status
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.memory import MEMORY
from ...model.objects import Pod
from ...model.workload import go_duration, group_name_of, workload_ref
from .. import names

NAME = names.GANG_SCHEDULING
# how long gang pods wait at Permit for a quorum before being rejected (permitTimeoutDuration)
PERMIT_TIMEOUT = 300.0
ERR_POD_GROUP_MISSING = "waiting for pods's pod group %s to appear in scheduling queue"  # %q
ERR_WORKLOAD_MISSING = "waiting for pods's workload %s to appear in scheduling queue"  # v1.35, %q
ERR_POD_GROUP_NOT_IN_WORKLOAD = "pod group %s doesn't exist for a workload %s"  # v1.35, %q %q
ERR_WAITING_TO_APPEAR = "waiting for minCount pods from a gang to appear in scheduling queue"
ERR_WAITING_SCHEDULED = "waiting for minCount pods from a gang to be scheduled"
ERR_WAITING_ON_PERMIT = "waiting for minCount pods from a gang to be waiting on permit"  # v1.35's words
# where Permit leaves the pods it asks the queue to activate (handle.Activate), for the caller
ACTIVATE_KEY = "kubectl-preempt/activate"
# v1.35: where Permit leaves the uids of the gang's pods it allows (waitingPod.Allow on each
# assumed pod once the quorum is met), and where the caller puts the clock (seconds) the group's
# Permit deadline is measured on (time.Now in podGroupInfo.SchedulingTimeout)
ALLOW_KEY = "kubectl-preempt/allow"
CLOCK_KEY = "kubectl-preempt/now"
# what Permit saw of the pod's gang (its group, minCount, how many are assumed or bound), for explain
DETAILS_KEY = "kubectl-preempt/gang"


def timeout_rejection(waited: float) -> str:
    """The message a pod waiting at Permit is rejected with when its wait runs out (runtime
    waiting_pods_map.go newWaitingPod's timer: "rejected due to timeout after waiting %v at plugin %v")."""
    return f"rejected due to timeout after waiting {go_duration(waited)} at plugin {NAME}"


def _q(s: str) -> str:
    from ...errors import quote
    return quote(s)


class GangScheduling:
    name = NAME

    def __init__(self, handle: Any, version: KubernetesVersion) -> None:
        self.handle = handle
        self.minor = version.minor
        self.pod_groups = PodGroupLister(getattr(handle, "listers", None), version.minor) \
            if getattr(handle, "listers", None) is not None else None
        # _known_members' counts: (cluster, its pod_set_version, pods per (namespace, group))
        self._member_counts: tuple[Any, Any, Counter] | None = None

    # ---------------------------------------------------------------- EnqueueExtensions
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # mirrors EventsToRegister: a new pod of the gang may complete it (the group of a pod is
        # immutable: no Pod/Update), and the group appearing may let its pods in (v1.35: the Workload)
        kind = "PodGroup" if self.minor >= 36 else "Workload"
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.ADD), self._schedulable_after_pod_added),
                ClusterEventWithHint(ClusterEvent(kind, ev.ADD), self._schedulable_after_group_added)]

    def _schedulable_after_pod_added(self, pod: Pod, old: Any, new: Any) -> bool:
        # mirrors isSchedulableAfterPodAdded (helper.MatchingSchedulingGroup)
        if not isinstance(new, Pod) or new.namespace != pod.namespace:
            return False
        mine = group_name_of(pod.spec, self.minor)
        return bool(mine) and group_name_of(new.spec, self.minor) == mine

    def _schedulable_after_group_added(self, pod: Pod, old: Any, new: Any) -> bool:
        # mirrors isSchedulableAfterPodGroupAdded (v1.35: isSchedulableAfterWorkloadAdded)
        if not isinstance(new, Mapping):
            return False
        md = new.get("metadata") or {}
        if (md.get("namespace") or "default") != pod.namespace:
            return False
        if self.minor >= 36:
            return bool(group_name_of(pod.spec, self.minor)) and md.get("name") == group_name_of(pod.spec, self.minor)
        ref = workload_ref(pod.spec)
        return ref is not None and md.get("name") == ref[0]

    # ---------------------------------------------------------------- the pod group
    def _group(self, pod: Pod) -> tuple[Any, Status | None]:
        """The pod's pod group, or the status of a pod whose group is missing."""
        name = group_name_of(pod.spec, self.minor)
        pg = self.pod_groups.get(pod.namespace, name) if self.pod_groups is not None else None
        if pg is not None:
            return pg, None
        if self.minor >= 36:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_POD_GROUP_MISSING % _q(name))
        ref = workload_ref(pod.spec)
        assert ref is not None
        workloads = [o for o in (getattr(self.handle.cluster, "extra", {}) or {}).get("Workload") or ()
                     if (o.get("metadata") or {}).get("name") == ref[0]
                     and ((o.get("metadata") or {}).get("namespace") or "default") == pod.namespace]
        if not workloads:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_WORKLOAD_MISSING % _q(ref[0]))
        return None, Status(Code.UnschedulableAndUnresolvable, ERR_POD_GROUP_NOT_IN_WORKLOAD % (_q(ref[1]), _q(ref[0])))

    def live_state(self, pod: Pod) -> PodGroupState:
        """The cache's state of the pod's group (its pods the scheduler knows)."""
        key = group_key_of(pod, self.minor)
        cluster = self.handle.cluster
        if cluster is None or not key:
            return PodGroupState()
        # the pods of this group alone (PreEnqueue asks it of each member: states_of every group
        # of the namespace, for each of a gang's thousands of pods, was most of a replay's time)
        name, ns, minor = group_name_of(pod.spec, self.minor), pod.namespace, self.minor
        known = self._known
        pods = [p for p in cluster.pods.values()
                if p.namespace == ns and group_name_of(p.spec, minor) == name and known(p)]
        return states_of(pods, self.minor).get(key) or PodGroupState()

    def _known(self, pod: Pod) -> bool:
        """Whether the cache holds the pod in its group's state. v1.36: a bound pod always
        (cache.go addPod), a pending one only when this scheduler is responsible for it
        (eventhandlers.go addPod -> addPodToSchedulingQueue -> AddPodGroupMember). v1.35: every
        pod (addPod calls WorkloadManager.AddPod first)."""
        return self.minor < 36 or bool(pod.node_name) or self.handle.responsible_for(pod)

    def _known_members(self, pod: Pod) -> int:
        """live_state(pod).all_pods_count(): the pods the cache knows of the pod's group. PreEnqueue
        asks it of each of a gang's pods: the counts of every group are kept while the cluster's
        set of pods stays the same (Cluster.pod_set_version; upstream's cache keeps each group's
        state as pods come and go), unless every memory is off."""
        cluster = self.handle.cluster
        if cluster is None:
            return 0
        key = (pod.namespace, group_name_of(pod.spec, self.minor))
        version = getattr(cluster, "pod_set_version", None)
        kept = self._member_counts
        if kept is None or kept[0] is not cluster or kept[1] != version or version is None or not MEMORY.on:
            minor, known = self.minor, self._known
            counts = Counter((p.namespace, group_name_of(p.spec, minor)) for p in cluster.pods.values() if known(p))
            kept = (cluster, version, counts)
            if version is not None and MEMORY.on:
                self._member_counts = kept
        return kept[2].get(key, 0)

    # ---------------------------------------------------------------- PreEnqueue
    def pre_enqueue(self, pod: Pod) -> Status:
        """mirrors PreEnqueue: a gang member enters the queue once its group exists and holds
        minCount pods."""
        if not group_name_of(pod.spec, self.minor):
            return SUCCESS
        pg, missing = self._group(pod)
        if missing is not None:
            return missing
        if not pg.gang:
            return SUCCESS
        if self._known_members(pod) < pg.min_count:
            return Status(Code.UnschedulableAndUnresolvable, ERR_WAITING_TO_APPEAR)
        return SUCCESS

    # ---------------------------------------------------------------- Permit
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        """mirrors Permit: wait until minCount pods of the gang are scheduled (assumed or bound),
        then let them all go. In a pod-group cycle the count is the cycle's (its snapshot's pod
        group state), else the cache's."""
        if not group_name_of(pod.spec, self.minor):
            return SUCCESS, 0.0
        pg, missing = self._group(pod)
        if missing is not None:
            name = group_name_of(pod.spec, self.minor)
            return Status.as_error(f"failed to get podGroup {pod.namespace}/{name}: "
                                   f"podgroup.scheduling.k8s.io {_q(name)} not found"), 0.0
        if not pg.gang:
            return SUCCESS, 0.0
        cycle = state.pod_group_cycle
        pgs = cycle.state if cycle is not None else self.live_state(pod)
        if pgs.scheduled_pods_count() < pg.min_count:
            # handle.Activate: the unscheduled members may have waited for this one
            state.write(ACTIVATE_KEY, pgs.unscheduled_pods())
            return Status(Code.Wait, ERR_WAITING_SCHEDULED if self.minor >= 36 else ERR_WAITING_ON_PERMIT), \
                PERMIT_TIMEOUT
        return SUCCESS, 0.0


class GangSchedulingV135(GangScheduling):
    """v1.35.6's GangScheduling (pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go of
    v1.35.6): a pod names its Workload and pod group in spec.workloadRef, there is no pod-group
    cycle, and the plugin is also a Reserve plugin. Each member is scheduled in its own cycle;
    Reserve marks it assumed in its group's state (backend/workloadmanager podGroupInfo.AssumePod),
    Permit makes it wait until minCount of the group are assumed or bound, then allows every
    assumed one; a group's waiters share one deadline (podGroupInfo.SchedulingTimeout)."""

    def __init__(self, handle: Any, version: KubernetesVersion) -> None:
        super().__init__(handle, version)
        # podGroupInfo.assumedPods by group (namespace/workload/podGroup[/replicaKey]): the pods
        # that passed Reserve and were not forgotten since (the workload manager's, which
        # outlives a cycle)
        self.assumed: dict[str, dict[str, Pod]] = {}
        # podGroupInfo.schedulingDeadline by group, on the caller's clock (CLOCK_KEY), with the
        # group's pods as last seen: the workload manager's DeletePod drops a group's info (its
        # deadline with it) when its last pod goes, so a group none of whose pods is left since
        # starts afresh
        self.deadlines: dict[str, tuple[float, frozenset[str]]] = {}

    def live_state(self, pod: Pod) -> PodGroupState:
        """The workload manager's podGroupInfo: the group's pods the cache knows (bound ones
        assigned, pending ones unscheduled), with those that passed Reserve assumed."""
        st = super().live_state(pod)
        for uid in self.assumed.get(group_key_of(pod, self.minor), {}):
            if uid in st.all_pods:
                # mirrors AssumePod: out of unscheduled, into assumed (an assumed pod the
                # replay placed on its node counts once, as assigned)
                st.unscheduled.pop(uid, None)
                if uid not in st.assigned:
                    st.assumed[uid] = st.all_pods[uid]
        return st

    # ---------------------------------------------------------------- Reserve
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """mirrors Reserve: the pod counts towards its gang's quorum at Permit."""
        key = group_key_of(pod, self.minor)
        if key:
            self.assumed.setdefault(key, {})[pod.uid] = pod
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """mirrors Unreserve (podGroupInfo.ForgetPod): it no longer counts."""
        key = group_key_of(pod, self.minor)
        got = self.assumed.get(key)
        if got is not None:
            got.pop(pod.uid, None)
            if not got:
                del self.assumed[key]

    def forget_bound(self, pod: Pod) -> None:
        """mirrors podGroupInfo.updatePod: a bound pod is assigned, no longer assumed."""
        self.unreserve(CycleState(), pod, pod.node_name)

    def scheduling_timeout(self, key: str, now: float, pods: frozenset[str] = frozenset()) -> float:
        """mirrors podGroupInfo.SchedulingTimeout: the time left to the group's deadline, a new
        deadline (DefaultSchedulingTimeoutDuration, 5 minutes) when there is none or it passed.
        `pods`: the uids of the group's pods now; a deadline set while none of them was there
        belongs to a group info DeletePod has dropped since."""
        got = self.deadlines.get(key)
        deadline = got[0] if got is not None and (got[1] & pods or not got[1]) else None
        # upstream's test is deadline.Before(now); a real cycle takes time, so a member that reaches
        # Permit at the very instant of the deadline finds it passed (on the replay's clock, where
        # a cycle takes none, it would else wait 0s and be rejected again and again at that instant)
        if deadline is None or deadline <= now:
            deadline = now + PERMIT_TIMEOUT
        self.deadlines[key] = (deadline, pods)
        return deadline - now

    # ---------------------------------------------------------------- Permit
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        """mirrors v1.35.6's Permit: a missing Workload or pod group is an error (the pod is
        retried when the Workload appears); a gang member waits, with the group's deadline, until
        minCount of its group are assumed or assigned (asking the queue to activate the
        unscheduled ones), then it and every assumed member are allowed."""
        ref = workload_ref(pod.spec)
        if ref is None:
            return SUCCESS, 0.0
        name = group_name_of(pod.spec, self.minor)
        pg, missing = self._group(pod)
        if missing is not None:
            if missing.message().startswith("waiting for pods's workload"):
                return Status.as_error(f"failed to get workload {pod.namespace}/{ref[0]}: "
                                       f"workload.scheduling.k8s.io {_q(ref[0])} not found"), 0.0
            return Status.as_error(ERR_POD_GROUP_NOT_IN_WORKLOAD % (_q(ref[1]), _q(ref[0]))), 0.0
        if not pg.gang:
            return SUCCESS, 0.0
        pgs = self.live_state(pod)
        key = f"{pod.namespace}/{name}"
        state.write(DETAILS_KEY, {"plugin": NAME, "reason": ERR_WAITING_ON_PERMIT, "podGroup": key,
                                  "minCount": pg.min_count,
                                  "assumedOrAssigned": pgs.scheduled_pods_count(), "pods": pgs.all_pods_count()})
        if pgs.scheduled_pods_count() < pg.min_count:
            state.write(ACTIVATE_KEY, pgs.unscheduled_pods())
            now = state.get(CLOCK_KEY) or 0.0
            return Status(Code.Wait, ERR_WAITING_ON_PERMIT), self.scheduling_timeout(key, now,
                                                                                    frozenset(pgs.all_pods))
        state.write(ALLOW_KEY, list(self.assumed.get(key, {})))
        return SUCCESS, 0.0


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> GangScheduling:
    # the release's own plugin: v1.35's schedules members one by one and is a Reserve plugin
    if version.minor == 35:
        return GangSchedulingV135(handle, version)
    return GangScheduling(handle, version)
