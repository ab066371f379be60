"""NodeAffinity (mirrors nodeaffinity/node_affinity.go).

PreFilter narrows the nodes to those named by `matchFields` metadata.name In requirements of
every required term; Filter applies spec.nodeSelector, the required node affinity and the
profile's addedAffinity; Score sums the weights of matching preferred terms (the pod's and
addedAffinity's), normalized to 0..100.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...errors import InputError
from ...framework import events as ev
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.cycle_state import CycleState
from ...framework.interface import MemoTraits, PreFilterResult
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.podinfo import derived
from ...model.objects import Pod
from .. import names
from ..helper.nodeaffinity import (OBJECT_NAME_FIELD, NodeSelector, PreferredSchedulingTerms,
                                   RequiredNodeAffinity, required_node_affinity)
from ..helper.normalize_score import DefaultNormalized
from ..feature import QueueingHintFeatures, for_release
from ...framework import batch as signers
from ...framework.versions import DEFAULT, KubernetesVersion

NAME = names.NODE_AFFINITY
PRE_SCORE_STATE_KEY = "PreScore" + NAME
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


class _PreFilterState:
    __slots__ = ("required_node_selector_and_affinity",)

    def __init__(self, required: RequiredNodeAffinity) -> None:
        self.required_node_selector_and_affinity = required


class _PreScoreState:
    __slots__ = ("preferred_node_affinity",)

    def __init__(self, preferred: PreferredSchedulingTerms | None) -> None:
        self.preferred_node_affinity = preferred


_PARSE_ERROR = object()


def _pod_preferred_node_affinity(pod: Pod) -> Any:
    """parse_preferred_node_affinity of the pod, kept in its PodInfo."""
    return derived(pod, "preferred_node_affinity", parse_preferred_node_affinity)


def parse_preferred_node_affinity(pod: Pod) -> Any:
    """mirrors getPodPreferredNodeAffinity: None without preferred terms, _PARSE_ERROR when one
    does not parse."""
    na = (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    raw = na.get("preferredDuringSchedulingIgnoredDuringExecution")
    out: Any = None
    if raw is not None:
        out = PreferredSchedulingTerms.parse(raw)
        if out is None:
            out = _PARSE_ERROR
    return out


def _required_terms(pod: Pod) -> Any:
    na = (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    return na.get("requiredDuringSchedulingIgnoredDuringExecution")


class NodeAffinity(DefaultNormalized, MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors NodeAffinity.SignPod (v1.35+): the pod's node affinity (NodeAffinitySigner) and nodeSelector."""
        return [(signers.NODE_AFFINITY_SIGNER, signers.node_affinity_signer(pod)),
                (signers.NODE_SELECTOR_SIGNER, pod.spec.get("nodeSelector"))], SUCCESS

    # reads nothing but the pod and the NodeInfo there (the scheduler's equivalence cache relies on it)
    node_local = frozenset({"filter", "score"})

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors NodeAffinity.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE))]
        # mirrors NodeAffinity.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_LABEL),
                                     self.is_schedulable_after_node_change)]

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterNodeChange: the new node matches the profile's addedAffinity
        and the pod's required node affinity, and (an update) the old one did not match the latter."""
        if new is None:
            return False
        if self.added_node_selector is not None and not self.added_node_selector.matches(new):
            return False
        return is_schedulable_after_node_change(pod, old, new)

    def __init__(self, added_node_selector: NodeSelector | None,
                 added_pref_sched_terms: PreferredSchedulingTerms | None) -> None:
        self.added_node_selector = added_node_selector
        self.added_pref_sched_terms = added_pref_sched_terms

    def filter_ignores_pods(self, state: CycleState, pod: Pod, others: Any) -> bool:
        """Its Filter reads the Node object alone, never the node's pods (scheduler/fast/preemption.py)."""
        return True

    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter reads nothing of the pod but its spec and namespace (scheduler/schedule_one.py
        skips PreFilter for a remembered failure only when no plugin reads more)."""
        return False

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        required = _required_terms(pod)
        no_node_affinity = required is None
        if no_node_affinity and self.added_node_selector is None and pod.spec.get("nodeSelector") is None:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(required_node_affinity(pod)))
        terms = (required or {}).get("nodeSelectorTerms") or ()
        if no_node_affinity or not terms:
            return None, SUCCESS
        # a term with a metadata.name In requirement allows only those nodes; the pod may go
        # to the union over its terms, unless some term allows every node
        node_names: set[str] | None = None
        for t in terms:
            term_names: set[str] | None = None
            for r in t.get("matchFields") or ():
                if r.get("key") == OBJECT_NAME_FIELD and r.get("operator") == "In":
                    s = set(r.get("values") or ())
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                return None, SUCCESS
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), SUCCESS
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.matches(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED)
        s = state.get(PRE_FILTER_STATE_KEY)
        required = s.required_node_selector_and_affinity if s is not None else required_node_affinity(pod)
        if not required.matches(node):
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        preferred = _pod_preferred_node_affinity(pod)
        if preferred is _PARSE_ERROR:
            return Status.as_error("invalid preferredDuringSchedulingIgnoredDuringExecution node affinity term")
        if preferred is None and self.added_pref_sched_terms is None:
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is not None:
            preferred = s.preferred_node_affinity
        else:
            preferred = _pod_preferred_node_affinity(pod)
            if preferred is _PARSE_ERROR:
                return 0, Status.as_error("invalid preferredDuringSchedulingIgnoredDuringExecution node affinity term")
        if preferred is not None:
            count += preferred.score(node)
        return count, SUCCESS




def is_schedulable_after_node_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterNodeChange: the pod's required node affinity matches the new node
    and did not match the old one."""
    if new is None:
        return False
    req = required_node_affinity(pod)
    if not req.matches(new):
        return False
    return old is None or not req.matches(old)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> NodeAffinity:
    """mirrors New with ValidateNodeAffinityArgs: an addedAffinity that does not parse is a
    configuration error."""
    added = (args or {}).get("addedAffinity") or None
    added_node_selector = None
    added_pref = None
    if added:
        ns = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        if ns is not None:
            added_node_selector = NodeSelector(ns)
            if not added_node_selector.valid:
                raise InputError("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                                 "a node selector term does not parse",
                                 field="pluginConfig[NodeAffinity].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution")
        terms = added.get("preferredDuringSchedulingIgnoredDuringExecution")
        if terms:
            added_pref = PreferredSchedulingTerms.parse(terms)
            if added_pref is None:
                raise InputError("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: "
                                 "a preferred term does not parse",
                                 field="pluginConfig[NodeAffinity].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution")
    plugin = NodeAffinity(added_node_selector, added_pref)
    for_release(plugin, version)
    return plugin
