"""PodTopologySpread: topology spread constraints, the pod's own or the defaults
(plugins/podtopologyspread)."""
from __future__ import annotations

from typing import Any, Mapping

from ...errors import InputError
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
from ..helper.nodeaffinity import required_node_affinity
from ..helper.spread import default_selector
from ..feature import QueueingHintFeatures, for_release
from . import filtering, scoring
from ...framework.versions import DEFAULT, KubernetesVersion
from .common import (DO_NOT_SCHEDULE, NODE_INCLUSION_POLICY_HONOR, SCHEDULE_ANYWAY, SYSTEM_DEFAULT_CONSTRAINTS, Constraint,
                     filter_constraints)
from ...framework import batch as signers

NAME = names.POD_TOPOLOGY_SPREAD
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# per-cycle memo of the default selector (it reads Services and workloads of the cluster)
_DEFAULT_SELECTOR_KEY = NAME + "/defaultSelector"


class PodTopologySpread(MemoTraits, QueueingHintFeatures):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors PodTopologySpread.SignPod (v1.35+): spreading is not local to a node, so a pod with
        constraints, its own or the plugin's defaults (the system's among them), is not signable."""
        if pod.spec.get("topologySpreadConstraints"):
            return signers.not_signable("pods with topology constraints are not signable")
        if self.default_constraints:
            return signers.not_signable("pods with default topology constraints are not signable")
        return [], SUCCESS

    def signs_no_pod(self) -> bool:
        # SignPod above refuses every pod while the plugin has default constraints (the system's
        # by default: no pod of a default profile is signable)
        return bool(self.default_constraints)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # mirrors PodTopologySpread.EventsToRegister without SchedulerQueueingHints (v1.30, v1.31): the
            # events of before hints, each of which requeues (buildQueueingHintMap gives no hint)
            pod_action = ev.ALL if self.minor < 31 else ev.ADD | ev.UPDATE_POD_LABEL | ev.DELETE
            node_action = ev.ADD | ev.DELETE | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT
            return [ClusterEventWithHint(ClusterEvent(ev.POD, pod_action)),
                    ClusterEventWithHint(ClusterEvent(ev.NODE, node_action))]
        # mirrors PodTopologySpread.EventsToRegister (SchedulerQueueingHints on)
        return [ClusterEventWithHint(ClusterEvent(ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.UPDATE_POD_TOLERATION | ev.DELETE),
                                     self.is_schedulable_after_pod_change),
                ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.DELETE | ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
                                     self.is_schedulable_after_node_change)]

    # ------------------------------------------------------------------ queueing hints
    def _hard_constraints(self, pod: Pod) -> list[Constraint] | None:
        """mirrors getConstraints (the pod's DoNotSchedule constraints, or the default ones); None
        when they do not parse (the hint's error: Queue)."""
        try:
            return self.constraints(None, pod, DO_NOT_SCHEDULE)
        except InputError:
            return None

    def _involved(self, incoming: Pod, with_spreading: Pod) -> bool:
        """mirrors involvedInTopologySpreading: the pod itself, or a pod of its namespace on a node
        (v1.36: or nominated to one)."""
        if incoming.uid == with_spreading.uid:
            return True
        if not incoming.node_name and (self.version.minor < 36 or not incoming.nominated_node_name):
            return False
        return incoming.namespace == with_spreading.namespace

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterPodChange."""
        if (new is not None and not self._involved(new, pod)) or (old is not None and not self._involved(old, pod)):
            return False
        constraints = self._hard_constraints(pod)
        if constraints is None:
            return True
        if new is not None and old is not None:
            if (pod.uid == new.uid and (new.spec.get("tolerations") or []) != (old.spec.get("tolerations") or [])
                    and any(c.node_taints_policy == NODE_INCLUSION_POLICY_HONOR for c in constraints)):
                return True
            if dict(new.labels) == dict(old.labels):
                return False
            # a change that makes the pod match, or stop matching, one of the constraints
            return any(c.selector.matches(old.labels) != c.selector.matches(new.labels) for c in constraints)
        # added: it matches a constraint; deleted: it did
        other = new if new is not None else old
        return any(c.selector.matches(other.labels) for c in constraints)

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterNodeChange: a node that has (or had) every constraint's
        topology key, added, deleted, or changed in those keys or its taints."""
        constraints = self._hard_constraints(pod)
        if constraints is None:
            return True
        old_matching = old is not None and _node_has_topology_keys(old.labels, constraints)
        new_matching = new is not None and _node_has_topology_keys(new.labels, constraints)
        if old is not None and new is not None:
            if old_matching != new_matching:
                return True
            return new_matching and (_topology_key_labels_changed(old.labels, new.labels, constraints)
                                     or (old.taints or []) != (new.taints or []))
        if new is not None:
            return new_matching
        return old_matching

    def __init__(self, args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> None:
        self.handle = handle
        self.version = version
        for_release(self, version)
        if (args.get("defaultingType") or SYSTEM_DEFAULTING) == SYSTEM_DEFAULTING:
            self.default_constraints: list[Mapping[str, Any]] = SYSTEM_DEFAULT_CONSTRAINTS
            self.system_defaulted = True
        else:
            self.default_constraints = list(args.get("defaultConstraints") or [])
            self.system_defaulted = False
        # the default constraints per whenUnsatisfiable, parsed once when none has matchLabelKeys
        # (then the pod's labels take no part in them)
        self._defaults: dict[str, list[Constraint]] | None = (
            None if any(c.get("matchLabelKeys") for c in self.default_constraints if isinstance(c, Mapping)) else {})

    # ------------------------------------------------------------------ constraints
    def _default_selector(self, state: CycleState | None, pod: Pod) -> LabelSelector:
        memo = state.get(_DEFAULT_SELECTOR_KEY) if state is not None else None
        if memo is not None and memo[0] == pod.uid:
            return memo[1]
        cluster = getattr(self.handle, "cluster", None)
        sel = default_selector(pod, cluster.extra if cluster is not None else {})
        if state is not None:
            state.write(_DEFAULT_SELECTOR_KEY, (pod.uid, sel))
        return sel

    def _build_default_constraints(self, state: CycleState | None, pod: Pod, action: str) -> list[Constraint]:
        """mirrors buildDefaultConstraints: the defaults with the pod's workloads' selector."""
        known = self._defaults
        constraints = known.get(action) if known is not None else None
        if constraints is None:
            constraints = filter_constraints(self.default_constraints, pod.labels, action)
            if known is not None:
                known[action] = constraints
        if not constraints:
            return []
        selector = self._default_selector(state, pod)
        if selector.empty:
            return []
        return [c.with_selector(selector) for c in constraints]

    def constraints(self, state: CycleState | None, pod: Pod, action: str) -> list[Constraint]:
        """The pod's constraints with this whenUnsatisfiable, or the default ones when it has none
        (mirrors getConstraints and the start of initPreScoreState). Raises InputError."""
        own = pod.spec.get("topologySpreadConstraints") or []
        if own:
            pi = pod.info or pod_info(pod)
            per_action = pi.spread_constraints
            if per_action is UNSET:
                # PodInfo.spread_constraints: filled in per action, by filter_constraints
                per_action = pi.spread_constraints = {}
            cached = per_action.get(action)
            if cached is None:
                cached = per_action[action] = filter_constraints(own, pod.labels, action)
            return cached
        return self._build_default_constraints(state, pod, action)

    # ------------------------------------------------------------------ prefilter
    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter reads the pod's labels through its own constraints or the default hard
        ones (their selectors); with neither it skips whatever the labels (scheduler/memo/failed_cycles.py)."""
        if pod.spec.get("topologySpreadConstraints"):
            return True
        return any((c.get("whenUnsatisfiable") or "") == DO_NOT_SCHEDULE for c in self.default_constraints)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self.constraints(state, pod, DO_NOT_SCHEDULE)
        except InputError as e:
            what = ("obtaining pod's hard topology spread constraints" if pod.spec.get("topologySpreadConstraints")
                    else "setting default hard topology spread constraints")
            return None, Status.as_error(f"get constraints from pod: {what}: {e.detail}")
        if not constraints:
            return None, Status(Code.Skip)
        s = filtering.PreFilterState(constraints, required_node_affinity(pod))
        filtering.compute_counts(s, pod, nodes, pods_of(self.handle))
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, SUCCESS

    def pre_filter_extensions(self) -> "PodTopologySpread":
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
            return s.counts_none_on(node_info, pod, pods_of(self.handle))
        return s.counts_none_of(others, pod)

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_add, pod_to_schedule, node_info.node, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_to_remove, pod_to_schedule, node_info.node, -1)
        return SUCCESS

    # ------------------------------------------------------------------ filter
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not s.constraints:
            return SUCCESS
        ok, missing_label = filtering.fits(s, pod, node_info.node)
        if ok:
            return SUCCESS
        if missing_label:
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
        return Status(Code.Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH)

    # ------------------------------------------------------------------ score
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return Status(Code.Skip)
        # only non-default spreading requires every topology key on a node, so that nodes
        # without a zone label still get hostname spreading
        require_all = bool(pod.spec.get("topologySpreadConstraints")) or not self.system_defaulted
        try:
            constraints = self.constraints(state, pod, SCHEDULE_ANYWAY)
        except InputError as e:
            what = ("obtaining pod's soft topology spread constraints" if pod.spec.get("topologySpreadConstraints")
                    else "setting default soft topology spread constraints")
            return Status.as_error(f"calculating preScoreState: {what}: {e.detail}")
        if not constraints:
            return Status(Code.Skip)
        s = scoring.PreScoreState(constraints)
        scoring.init_state(s, nodes, require_all)
        scoring.count_all_nodes(s, pod, all_nodes, require_all, required_node_affinity(pod), pods_of(self.handle))
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return 0, Status.as_error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return scoring.score_node(s, pod, node_info, pods_of(self.handle)), SUCCESS

    def score_extensions(self) -> "PodTopologySpread":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except KeyError:
            return Status.as_error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        scoring.normalize(s, scores)
        return SUCCESS



def _node_has_topology_keys(labels: Mapping[str, str], constraints: list[Constraint]) -> bool:
    """mirrors nodeLabelsMatchSpreadConstraints."""
    return all(c.topology_key in labels for c in constraints)


def _topology_key_labels_changed(old: Mapping[str, str], new: Mapping[str, str], constraints: list[Constraint]) -> bool:
    """mirrors checkTopologyKeyLabelsChanged."""
    return any(old.get(c.topology_key) != new.get(c.topology_key) for c in constraints)


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> PodTopologySpread:
    return PodTopologySpread(args, handle, version)
