"""TaintToleration (mirrors tainttoleration/taint_toleration.go).

Filter: a node with a NoSchedule or NoExecute taint the pod does not tolerate is out, and
preemption cannot change that. Score: the number of PreferNoSchedule taints the pod does not
tolerate, normalized in reverse (fewer is better).

The Filter's reason names the taint in v1.34.1; since kubernetes/kubernetes#134740 (v1.35, and
the 1.34 line after v1.34.1) it does not, so nodes with different taints count together in the
FitError message.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.versions import DEFAULT, KubernetesVersion
from ...framework.podinfo import derived
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release
from ..helper.normalize_score import DefaultNormalized
from ..helper.taint import (TAINT_EFFECT_PREFER_NO_SCHEDULE, do_not_schedule_taints_filter,
                            find_matching_untolerated_taint, tolerations_tolerate_taint)
from ...framework import batch as signers

NAME = names.TAINT_TOLERATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED_TAINT = "node(s) had untolerated taint {%s: %s}"  # v1.34.1
ERR_REASON_UNTOLERATED_TAINTS = "node(s) had untolerated taint(s)"        # since v1.35


def untolerated_taint_reason(taint: Mapping[str, Any]) -> str:
    """v1.34.1's reason, naming the taint."""
    return ERR_REASON_UNTOLERATED_TAINT % (taint.get("key") or "", taint.get("value") or "")


def names_taint_in_reason(version: KubernetesVersion) -> bool:
    """Whether the release's Filter names the taint: kubernetes/kubernetes#134740 (v1.35) made
    taint_toleration.go (*TaintToleration).Filter return "node(s) had untolerated taint(s)" and log
    the taint instead (v1.35.6 and v1.36.2; v1.34.1 still names it)."""
    return not version.at_least(35)


def _prefer_no_schedule_tolerations(pod: Pod) -> list:
    """getAllTolerationPreferNoSchedule of the pod, kept in its PodInfo."""
    return derived(pod, "prefer_no_schedule_tolerations", prefer_no_schedule_tolerations_of)


def prefer_no_schedule_tolerations_of(pod: Pod) -> list:
    """mirrors getAllTolerationPreferNoSchedule"""
    return [t for t in pod.tolerations if not t.get("effect") or t.get("effect") == TAINT_EFFECT_PREFER_NO_SCHEDULE]


def count_intolerable_taints_prefer_no_schedule(taints: Sequence[Mapping[str, Any]], tolerations: Sequence) -> int:
    """mirrors countIntolerableTaintsPreferNoSchedule"""
    n = 0
    for taint in taints:
        if taint.get("effect") != TAINT_EFFECT_PREFER_NO_SCHEDULE:
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            n += 1
    return n


class _PreScoreState:
    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations: list) -> None:
        self.tolerations_prefer_no_schedule = tolerations


class TaintToleration(DefaultNormalized, MemoTraits, QueueingHintFeatures):
    # NormalizeScore: helper.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
    normalize_reverse = True
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors TaintToleration.SignPod (v1.35+): the pod's tolerations (TolerationsSigner)."""
        return [(signers.TOLERATIONS_SIGNER, signers.tolerations_signer(pod))], SUCCESS

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter", "score"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors TaintToleration.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors TaintToleration.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT), is_schedulable_after_node_change),
                ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION), is_schedulable_after_pod_toleration_change)]

    def __init__(self, version: KubernetesVersion = DEFAULT) -> None:
        self.names_taint = names_taint_in_reason(version)

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads the Node object alone, never the node's pods (scheduler/fast/preemption.py)."""
        return True

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        taints = node_info.node.taints
        if not taints:
            return SUCCESS
        taint = find_matching_untolerated_taint(taints, pod.tolerations, do_not_schedule_taints_filter)
        if taint is None:
            return SUCCESS
        reason = untolerated_taint_reason(taint) if self.names_taint else ERR_REASON_UNTOLERATED_TAINTS
        return Status(Code.UnschedulableAndUnresolvable, reason)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(_prefer_no_schedule_tolerations(pod)))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return 0, Status.as_error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return count_intolerable_taints_prefer_no_schedule(node_info.node.taints, s.tolerations_prefer_no_schedule), SUCCESS




def _untolerated(pod: Pod, node: Any) -> bool:
    return find_matching_untolerated_taint(node.taints, pod.tolerations, do_not_schedule_taints_filter) is not None


def is_schedulable_after_node_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterNodeChange: the new node has no untolerated NoSchedule/NoExecute
    taint where the old one had (or there was no old one)."""
    if new is None:
        return False
    was = old is None or _untolerated(pod, old)
    return was and not _untolerated(pod, new)


def is_schedulable_after_pod_toleration_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterPodTolerationChange: the pod itself got a new toleration."""
    return new is not None and new.uid == pod.uid


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> TaintToleration:
    plugin = TaintToleration(version)
    for_release(plugin, version)
    return plugin
