"""InterPodAffinity: required and preferred pod (anti-)affinity (plugins/interpodaffinity)."""
from __future__ import annotations

from typing import Any, Mapping

from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits, NodeScore, PreFilterResult, pods_of
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.affinity import AffinityTerm, PodTerms
from ...framework.versions import DEFAULT, KubernetesVersion
from ...model.objects import Pod
from .. import names
from ..feature import QueueingHintFeatures, for_release
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


class InterPodAffinity(MemoTraits, QueueingHintFeatures):
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
        if not self.enable_scheduling_queue_hint:
            # mirrors InterPodAffinity.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            pod_action = ev.ALL if self.minor < 31 else ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE
            return [ClusterEventWithHint(ClusterEvent(ev.POD, pod_action)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT))]
        # mirrors InterPodAffinity.EventsToRegister (SchedulerQueueingHints on: a node's taints are
        # not registered, buildQueueingHintMap adds them with no hint)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE),
                                     self.is_schedulable_after_pod_change),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL),
                                     self.is_schedulable_after_node_change)]

    # ------------------------------------------------------------------ queueing hints
    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterPodChange: an assigned pod added that matches all the pod's
        affinity terms, deleted that matched all its anti-affinity terms, or relabelled into the
        first or out of the second (v1.36: and the pod's own new labels, and a deleted pod whose
        required anti-affinity the pod matches)."""
        v136 = self.version.minor >= 36
        if v136 and old is not None and new is not None and pod.uid == new.uid:
            return True
        if (new is not None and _unscheduled(new, v136)) or (old is not None and _unscheduled(old, v136)):
            return False
        terms = pod_terms(pod)
        if _required_unparsed(terms):
            return True
        affinity, anti = terms.required_affinity, terms.required_anti_affinity
        if new is not None and old is not None:
            if not _matches_all(affinity, old) and _matches_all(affinity, new):
                return True
            return _matches_all(anti, old) and not _matches_all(anti, new)
        if new is not None:
            return _matches_all(affinity, new)
        if _matches_all(anti, old):
            return True
        if not v136:
            return False
        # v1.36: "or vice versa" - the pod matches every required anti-affinity term of the deleted
        # one (its GetAffinityTerms error: Queue)
        deleted = pod_terms(old)
        if any(e.startswith("requiredAntiAffinityTerms") for e in deleted.errors):
            return True
        return _matches_all(deleted.required_anti_affinity, pod)

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterNodeChange: a node added or relabelled so that it joins (or
        changes) the domain of an affinity term's topology key; for an anti-affinity term, any
        node added, or one that leaves or changes its domain."""
        terms = pod_terms(pod)
        if _required_unparsed(terms):
            return True
        for t in terms.required_affinity:
            if old is None:
                if t.topology_key in new.labels:
                    return True
                continue
            had, has = t.topology_key in old.labels, t.topology_key in new.labels
            if (not had and has) or (had and has and old.labels[t.topology_key] != new.labels[t.topology_key]):
                return True
        for t in terms.required_anti_affinity:
            if old is None:
                return True
            had, has = t.topology_key in old.labels, t.topology_key in new.labels
            if (had and not has) or (had and has and old.labels[t.topology_key] != new.labels[t.topology_key]):
                return True
        return False

    def __init__(self, args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> None:
        self.handle = handle
        self.version = version
        for_release(self, version)
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



def _unscheduled(p: Pod, nominated_counts: bool) -> bool:
    """The hint's test of an added, updated or deleted pod that cannot change the verdict: not on a
    node (v1.36: nor nominated to one)."""
    return not p.node_name and not (nominated_counts and p.nominated_node_name)


def _required_unparsed(terms: PodTerms) -> bool:
    """GetAffinityTerms' error on the pod's required terms (the hint then says Queue)."""
    return any(e.startswith(("requiredAffinityTerms", "requiredAntiAffinityTerms")) for e in terms.errors)


def _matches_all(terms: list[AffinityTerm], p: Pod) -> bool:
    """mirrors podMatchesAllAffinityTerms: false without terms; namespace selectors are matched
    against no labels (Matches(pod, nil))."""
    return bool(terms) and all(t.matches_nil_ns(p) for t in terms)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> InterPodAffinity:
    return InterPodAffinity(args, handle, version)
