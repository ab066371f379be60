"""NodeDeclaredFeatures (v1.35+, mirrors nodedeclaredfeatures/nodedeclaredfeatures.go): a pod
that needs a node feature the kubelet must declare (status.declaredFeatures) goes only to nodes
declaring it; preemption cannot change that.

Which features a pod needs is inferred as component-helpers/nodedeclaredfeatures does for
scheduling (InferForPodScheduling over features.AllFeatures): a container or init container
with a restartPolicyRules action RestartAllContainers needs RestartAllContainersOnContainerExits;
a pod on the host network without host users (hostUsers: false) needs
UserNamespacesHostNetworkSupport. The registry's other features are inferred only for updates.
In v1.34.1 the plugin does not exist; with the gate off it skips every pod.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...framework import events as ev
from ...framework.cycle_state import CycleState
from ...framework.events import ClusterEvent, ClusterEventWithHint
from ...framework.interface import MemoTraits
from ...framework.status import SUCCESS, Code, Status
from ...framework.types import NodeInfo
from ...framework.versions import DEFAULT, KubernetesVersion
from ...framework.podinfo import derived
from ...model.objects import Pod
from .. import names
from ...framework import batch as signers

NAME = names.NODE_DECLARED_FEATURES
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"
# v1.35.6's Filter reason, the unsatisfied features joined (MatchNodeFeatureSet's map order; at most
# one feature is inferred for scheduling in v1.35)
ERR_REASON_UNSATISFIED_V1_35 = "node declared features check failed - unsatisfied requirements: %s"

# feature names, as the node declares them
RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK_SUPPORT = "UserNamespacesHostNetworkSupport"
CONTAINER_RESTART_RULE_ACTION_RESTART_ALL_CONTAINERS = "RestartAllContainers"


def _restarts_all_containers(spec: Mapping[str, Any]) -> bool:
    # mirrors restartAllContainersFeature.InferForScheduling
    for group in ("containers", "initContainers"):
        for c in spec.get(group) or ():
            for rule in c.get("restartPolicyRules") or ():
                if rule.get("action") == CONTAINER_RESTART_RULE_ACTION_RESTART_ALL_CONTAINERS:
                    return True
    return False


def _user_namespaces_host_network(spec: Mapping[str, Any]) -> bool:
    # mirrors userNamespacesHostNetworkFeature.InferForScheduling
    return bool(spec.get("hostNetwork")) and spec.get("hostUsers") is False


def required_features(pod: Pod) -> frozenset[str]:
    """The node features the pod needs to be scheduled (kept in the pod's PodInfo)."""
    return derived(pod, "required_features", infer_required_features)


def infer_required_features(pod: Pod) -> frozenset[str]:
    """The node features the pod needs to be scheduled (InferForPodScheduling)."""
    need = set()
    if _restarts_all_containers(pod.spec):
        need.add(RESTART_ALL_CONTAINERS_ON_CONTAINER_EXITS)
    if _user_namespaces_host_network(pod.spec):
        need.add(USER_NAMESPACES_HOST_NETWORK_SUPPORT)
    return frozenset(need)


class NodeDeclaredFeatures(MemoTraits):
    name = NAME

    def sign_pod(self, pod: Pod) -> tuple[signers.Fragments, Status]:
        """mirrors NodeDeclaredFeatures.SignPod (v1.35+): the features the pod needs, sorted."""
        return [(signers.FEATURES_SIGNER, sorted(self._required(pod, infer_required_features(pod))))], SUCCESS


    def __init__(self, enabled: bool, minor: int = DEFAULT.minor) -> None:
        self.enabled = enabled
        self.minor = minor

    def _required(self, pod: Pod, features: frozenset[str]) -> frozenset[str]:
        # v1.35.6's registry (features.AllFeatures) has no UserNamespacesHostNetworkSupport
        if self.minor < 36:
            return features - {USER_NAMESPACES_HOST_NETWORK_SUPPORT}
        return features

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """mirrors NodeDeclaredFeatures.EventsToRegister (v1.35+)."""
        if not self.enabled:
            return []
        return [ClusterEventWithHint(ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_DECLARED_FEATURE),
                                     is_schedulable_after_node_change),
                ClusterEventWithHint(ClusterEvent(ev.POD, ev.UPDATE), self.is_schedulable_after_pod_update)]

    def is_schedulable_after_pod_update(self, pod: Pod, old: Any, new: Any) -> bool:
        """mirrors isSchedulableAfterPodUpdate: the pod itself changed the features it requires."""
        if new is None or old is None or new.uid != pod.uid:
            return False
        return self._required(old, required_features(old)) != self._required(new, required_features(new))

    def pre_filter_reads_labels(self, pod: Pod) -> bool:
        """Its PreFilter reads nothing of the pod but its spec and namespace (scheduler/schedule_one.py
        skips PreFilter for a remembered failure only when no plugin reads more)."""
        return False

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[None, Status]:
        if not self.enabled:
            return None, Status(Code.Skip)
        reqs = self._required(pod, required_features(pod))
        if not reqs:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, reqs)
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not self.enabled:
            return SUCCESS
        reqs = state.get(PRE_FILTER_STATE_KEY)
        if reqs is None:
            return Status.as_error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        if reqs <= node_info.node.declared_features:
            return SUCCESS
        if self.minor < 36:
            missing = sorted(reqs - node_info.node.declared_features)
            return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSATISFIED_V1_35 % ", ".join(missing))
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSATISFIED_REQUIREMENTS)


def is_schedulable_after_node_change(pod: Pod, old: Any, new: Any) -> bool:
    """mirrors isSchedulableAfterNodeChange: a new node, or one whose declared features changed."""
    if new is None:
        return False
    return old is None or list(old.status.get("declaredFeatures") or ()) != list(new.status.get("declaredFeatures") or ())


def new(args: Mapping[str, Any], handle: Any, version: KubernetesVersion = DEFAULT) -> NodeDeclaredFeatures:
    return NodeDeclaredFeatures(version.features.enable_node_declared_features, version.minor)
