"""InterPodAffinity: required and preferred pod (anti-)affinity (plugins/interpodaffinity)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits, NodeScore, PreFilterResult, pods_of
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.podinfo import UNSET, pod_info
from ...model.objects import Pod
from ...model.selectors import LabelSelector
from .. import names
from . import filtering, scoring
from .terms import merge_namespaces, namespace_labels, pod_terms
from ...framework import batch as signers

NAME = names.INTER_POD_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"


def _namespaces(handle: Any) -> Mapping[str, Mapping[str, Any]]:
    cluster = getattr(handle, "cluster", None)
    if cluster is None:
        return {}
    return cluster.namespaces


class InterPodAffinity(MemoTraits):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors InterPodAffinity.SignPod (v1.35+): a pod with pod (anti-)affinity is not signable; else
        its labels, which existing pods' terms may match (none with ignorePreferredTermsOfExistingPods)."""
        aff = pod.spec.get("affinity") or {}
        if aff.get("podAffinity") is not None or aff.get("podAntiAffinity") is not None:
            return signers.not_signable("pods with InterPodAffinity are not signable")
        if self.ignore_preferred_terms_of_existing_pods:
            return [], SUCCESS
        return [(signers.LABELS_SIGNER, dict(pod.labels))], SUCCESS


    def events_to_register(self) -> list[ClusterEventWithHint]:
        # mirrors InterPodAffinity.EventsToRegister (SchedulerQueueingHints on); a node added or
        # relabelled always requeues (upstream's isSchedulableAfterNodeChange is not modelled)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE),
                                     is_schedulable_after_pod_change),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL))]

    def __init__(self, args: Mapping[str, Any], handle: Any) -> None:
        self.handle = handle
        w = args.get("hardPodAffinityWeight", 1)
        self.hard_pod_affinity_weight = 1 if w is None else int(w)
        self.ignore_preferred_terms_of_existing_pods = bool(args.get("ignorePreferredTermsOfExistingPods", False))

    # ------------------------------------------------------------------ prefilter
    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter matches the pod's labels against existing pods' required anti-affinity
        and its own terms against existing pods; without either it skips whatever the labels
        (scheduler/memo/failed_cycles.py)."""
        terms = pod_terms(pod)
        return bool(terms.errors or terms.required_affinity or terms.required_anti_affinity
                    or self.handle.snapshot.have_pods_with_required_anti_affinity_list)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        terms = pod_terms(pod)
        if terms.errors:
            return None, Status(Code.UnschedulableAndUnresolvable, f"parsing pod: {', '.join(terms.errors)}")
        nss = _namespaces(self.handle)
        affinity_terms = [merge_namespaces(t, nss) for t in terms.required_affinity]
        anti_affinity_terms = [merge_namespaces(t, nss) for t in terms.required_anti_affinity]
        ns_labels = namespace_labels(nss, pod.namespace)
        s = filtering.PreFilterState(pod, affinity_terms, anti_affinity_terms, ns_labels)
        s.existing_anti_affinity_counts = filtering.existing_anti_affinity_counts(
            pod, ns_labels, self.handle.snapshot.have_pods_with_required_anti_affinity_list)
        s.affinity_counts, s.anti_affinity_counts = filtering.incoming_counts(
            affinity_terms, anti_affinity_terms, nodes, pods_of(self.handle))
        if not s.existing_anti_affinity_counts and not affinity_terms and not anti_affinity_terms:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def pre_filter_extensions(self) -> "InterPodAffinity":
        return self

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads its PreFilter counts and the node's labels: pods its AddPod/RemovePod
        would count nowhere change neither (scheduler/fast/preemption.py)."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return False
        # every pod of one node (a list carrying the node as `node_info`: the fast core's dry runs,
        # scheduler/fast/preemption.py NodePods): walked as the counts walk it (pods_of)
        node_info = getattr(others, "node_info", None)
        if node_info is not None:
            return s.counts_none_on(node_info, pods_of(self.handle))
        return s.counts_none_of(others)

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_add, node_info.node, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_remove, node_info.node, -1)
        return SUCCESS

    # ------------------------------------------------------------------ filter
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        node = node_info.node
        if not filtering.satisfy_pod_affinity(s, node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not filtering.satisfy_pod_anti_affinity(s, node):
            return Status(Code.Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not filtering.satisfy_existing_pods_anti_affinity(s, node):
            return Status(Code.Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return SUCCESS

    # ------------------------------------------------------------------ score
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        aff = pod.spec.get("affinity") or {}
        has_constraints = bool((aff.get("podAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution")) \
            or bool((aff.get("podAntiAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.Skip)
        snapshot = self.handle.snapshot
        # without preferred terms of its own, only pods with affinity can score the pod
        all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list
        terms = pod_terms(pod)
        if terms.errors:
            return Status.as_error(f"failed to parse pod: {', '.join(terms.errors)}")
        nss = _namespaces(self.handle)
        s = scoring.PreScoreState(pod, [merge_namespaces(t, nss) for t in terms.preferred_affinity],
                                  [merge_namespaces(t, nss) for t in terms.preferred_anti_affinity],
                                  namespace_labels(nss, pod.namespace))
        if not scoring.build_topology_score(s, pod, all_nodes, has_constraints, self.hard_pod_affinity_weight):
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return 0, Status.as_error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return scoring.score_node(s, node_info.node), SUCCESS

    def score_extensions(self) -> "InterPodAffinity":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return Status.as_error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        scoring.normalize(s, scores)
        return SUCCESS



def _selectors(pod: Pod) -> list[LabelSelector]:
    """The label selectors of the pod's (anti-)affinity terms, kept in its PodInfo."""
    pi = pod.info or pod_info(pod)
    got = pi.affinity_selectors
    if got is UNSET:
        got = pi.affinity_selectors = affinity_selectors_of(pod)
    return got


def affinity_selectors_of(pod: Pod) -> list[LabelSelector]:
    """The label selectors of the pod's required and preferred (anti-)affinity terms, those that
    parse, for the queueing hints."""
    sels = []
    aff = pod.spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = aff.get(kind) or {}
        terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or ())
        terms += [w.get("podAffinityTerm") or {} for w in a.get("preferredDuringSchedulingIgnoredDuringExecution") or ()]
        for t in terms:
            try:
                sels.append(LabelSelector(t.get("labelSelector")))
            except Exception:  # noqa: BLE001 - a bad selector is the plugin's error to report
                continue
    return sels


def is_schedulable_after_pod_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterPodChange, coarsely: the changed pod matches one of the pod's
    (anti-)affinity selectors, or a deleted pod had a required anti-affinity that kept it away."""
    other = new if new is not None else old
    if other is None:
        return False
    if new is None and old is not None:
        anti = ((old.spec.get("affinity") or {}).get("podAntiAffinity") or {})
        if anti.get("requiredDuringSchedulingIgnoredDuringExecution"):
            return True
    return any(s.matches(other.labels) for s in _selectors(pod))


def new(args: Mapping[str, Any], handle: Any) -> InterPodAffinity:
    return InterPodAffinity(args, handle)
