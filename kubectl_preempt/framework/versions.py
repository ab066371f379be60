"""The kube-scheduler releases imitated, their feature gates, and how a version is picked.

Upstream builds every plugin with `feature.Features` (plugins/feature/feature.go), the gates the
plugins read, copied from the feature gate's defaults of that release (pkg/features). A release's
other differences sit in the plugin they belong to, keyed by the `KubernetesVersion` the plugin
is built for; nothing outside the plugins and the default profile asks which version runs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..errors import InputError, UsageError, quote
from ..model.resources import PodResourcesOptions
from .featuregates import GATE_DEPENDENCIES, gates_of, imitated
from .types import NodeCounting
from ..version import KUBERNETES_VERSION, KUBERNETES_VERSIONS


@dataclass(frozen=True)
class Features:
    """The scheduler-relevant gates of plugins/feature.Features, at one release's defaults.

    Only gates whose value differs between the imitated releases, or which a plugin reads, are
    listed; every other gate has the same default in both."""

    # DRA: the Score extension of DynamicResources and firstAvailable requests
    enable_dra_prioritized_list: bool = True
    # DRA: extended resources (example.com/gpu) served by DeviceClasses instead of device plugins
    enable_dra_extended_resource: bool = False
    enable_dra_consumable_capacity: bool = False
    enable_dra_device_binding_conditions: bool = False
    enable_dra_device_taints: bool = False
    enable_dra_partitionable_devices: bool = False
    # the NodeDeclaredFeatures plugin joins the default profile (default_plugins.go, applyFeatureGates)
    enable_node_declared_features: bool = False
    enable_in_place_pod_level_resources_vertical_scaling: bool = False
    enable_nominated_node_name_for_expectation: bool = False
    enable_opportunistic_batching: bool = False
    # alpha in v1.35 and v1.36, off: GangScheduling's plugin joins the profile (v1.35: members
    # wait at Permit for their gang, plugins/gangscheduling GangSchedulingV135)
    enable_gang_scheduling: bool = False
    # workload-aware scheduling: from v1.36 pods of a pod group are scheduled in its cycle
    # (schedule_one.go ScheduleOne), and a group preempts as one unit (KEP-5710); in v1.35 it only
    # reads Workloads (scheduling.k8s.io/v1alpha1) for GangScheduling
    enable_generic_workload: bool = False
    enable_workload_aware_preemption: bool = False
    enable_topology_aware_workload_scheduling: bool = False
    enable_taint_toleration_comparison_operators: bool = False
    # DynamicResourceAllocation: beta but off before v1.34 (KEP-4381 GA in v1.34): without it the
    # default profile has no DynamicResources (default_plugins.go applyFeatureGates)
    enable_dynamic_resource_allocation: bool = True
    # PodLevelResources: alpha and off before v1.34 (KEP-2837): requests are the containers' own
    # (resourcehelper.PodResourcesOptions.SkipPodLevelResources)
    enable_pod_level_resources: bool = True
    # InPlacePodVerticalScaling: alpha and off before v1.33 (KEP-1287): a bound pod's requests are
    # its spec, not the larger of spec and status (PodResourcesOptions.UseStatusResources)
    enable_in_place_pod_vertical_scaling: bool = True
    # SchedulerQueueingHints: beta but off in v1.30 and v1.31, on from v1.32, GA and locked from
    # v1.34 (plugins/feature.Features.EnableSchedulingQueueHint): off, every registered event's
    # hint is the default one (Queue), the plugins register their events of the time before hints,
    # and the queue and the event handlers pre-filter as they did (scheduler.go
    # buildQueueingHintMap, scheduling_queue.go Update, eventhandlers.go preCheckForNode)
    enable_scheduling_queue_hint: bool = True


# the feature gates (pkg/features names) behind the Features fields: --feature-gates sets them
GATE_FIELDS: dict[str, str] = {
    "DynamicResourceAllocation": "enable_dynamic_resource_allocation",
    "PodLevelResources": "enable_pod_level_resources",
    "InPlacePodVerticalScaling": "enable_in_place_pod_vertical_scaling",
    "DRAPrioritizedList": "enable_dra_prioritized_list",
    "DRAExtendedResource": "enable_dra_extended_resource",
    "DRAConsumableCapacity": "enable_dra_consumable_capacity",
    "DRADeviceBindingConditions": "enable_dra_device_binding_conditions",
    "DRADeviceTaints": "enable_dra_device_taints",
    "DRAPartitionableDevices": "enable_dra_partitionable_devices",
    "NodeDeclaredFeatures": "enable_node_declared_features",
    "InPlacePodLevelResourcesVerticalScaling": "enable_in_place_pod_level_resources_vertical_scaling",
    "NominatedNodeNameForExpectation": "enable_nominated_node_name_for_expectation",
    "OpportunisticBatching": "enable_opportunistic_batching",
    "GangScheduling": "enable_gang_scheduling",
    "GenericWorkload": "enable_generic_workload",
    "WorkloadAwarePreemption": "enable_workload_aware_preemption",
    "TopologyAwareWorkloadScheduling": "enable_topology_aware_workload_scheduling",
    "TaintTolerationComparisonOperators": "enable_taint_toleration_comparison_operators",
    "SchedulerQueueingHints": "enable_scheduling_queue_hint",
}


@dataclass(frozen=True)
class KubernetesVersion:
    """One imitated kube-scheduler release, with its feature gates (the release's defaults, or
    those --feature-gates set: `gates`)."""

    name: str                    # "v1.36.2"
    major: int
    minor: int
    patch: int
    features: Features
    # the gates set on the command line (--feature-gates), in the order given: name, value
    gates: tuple[tuple[str, bool], ...] = ()

    @property
    def short(self) -> str:
        return f"v{self.major}.{self.minor}"

    def at_least(self, minor: int, patch: int = 0) -> bool:
        return (self.minor, self.patch) >= (minor, patch)

    @property
    def resource_options(self) -> PodResourcesOptions | None:
        """How this release's framework adds up a pod's requests (types.go calculateResource /
        PodInfo.CalculateResource with resourcehelper.PodResourcesOptions from the gates); None for
        v1.34's, the model's own default."""
        f = self.features
        if self.minor >= 33:
            status = "v1.33" if f.enable_in_place_pod_vertical_scaling else ""
        elif self.minor == 32:
            status = "v1.32" if f.enable_in_place_pod_vertical_scaling else ""
        else:
            status = "v1.31" if f.enable_in_place_pod_vertical_scaling else ""
        opts = PodResourcesOptions(pod_level=f.enable_pod_level_resources, status=status,
                                   # kubernetes/kubernetes#127878 (v1.32): before it, calculateResource
                                   # summed the non-zero requests in a ContainerFn
                                   legacy_non_zero=self.minor < 32,
                                   pod_level_status=f.enable_in_place_pod_level_resources_vertical_scaling)
        return None if opts == PodResourcesOptions() else opts

    @property
    def scoring_resource_options(self) -> PodResourcesOptions | None:
        """resource_options as NodeResourcesFit's and BalancedAllocation's scorers read a pod's
        requests: without InPlacePodLevelResourcesVerticalScaling, which only the framework's
        calculateResource (types.go) passes to PodRequests; None for v1.34's."""
        opts = self.resource_options
        if opts is None or not opts.pod_level_status:
            return opts
        opts = opts._replace(pod_level_status=False)
        return None if opts == PodResourcesOptions() else opts

    # --- behaviour of the scheduler's own code (not a plugin's) that differs between releases;
    # schedule_one and the preemption evaluator ask these, never the release's number ---------------
    @property
    def pre_filter_rejection_on_every_node(self) -> bool:
        """Before v1.32 findNodesThatFitPod copies a PreFilter rejection into every node's entry of
        NodeToStatusMap; since kubernetes/kubernetes#126022 it is the status of absent nodes, listed
        for none."""
        return self.minor < 32

    @property
    def nodes_left_out_by_pre_filter(self) -> str:
        """How findNodesThatFitPod records the nodes a PreFilterResult leaves out: "absent" (v1.32+:
        the absent nodes' status, "node(s) didn't satisfy plugin(s) [...]"), "unlisted" (v1.31: no
        status at all; preemption's nodesWherePreemptionMightHelp takes them as unresolvable),
        "filtered" (v1.30.1: each gets "node is filtered out by the prefilter result", with no
        plugin; kubernetes/kubernetes#125197 removed it in v1.31, cherry-picked to 1.30 later)."""
        if self.minor >= 32:
            return "absent"
        return "unlisted" if self.minor == 31 else "filtered"

    @property
    def node_counting(self) -> NodeCounting | None:
        """How this release's NodeInfo counts a pod (NodeInfo.update): its requests
        (resource_options) and, before v1.34, only its containers' host ports (updateUsedPorts
        without schedutil.GetHostPorts); None for v1.34's."""
        counting = NodeCounting(self.resource_options, sidecar_host_ports=self.minor >= 34)
        return None if counting == NodeCounting() else counting

    def gate_enabled(self, name: str) -> bool:
        """A feature gate's value in this scheduler: as --feature-gates set it, else as AllAlpha or
        AllBeta set every unset gate of that stage (featureGate's special gates), else its default."""
        specs = gates_of(self.name)
        explicit = dict(self.gates)
        if name in explicit:
            return explicit[name]
        spec = specs.get(name)
        if spec is None:
            return False
        for special, stage in (("AllAlpha", "A"), ("AllBeta", "B")):
            if special in explicit and spec.stage == stage:
                return explicit[special]
        return spec.default

    def with_gates(self, gates: tuple[tuple[str, bool], ...]) -> "KubernetesVersion":
        """The release with these gates set over its defaults (checked by apply_feature_gates)."""
        if not gates:
            return self
        named = replace(self, gates=tuple(gates))
        changes = {field: named.gate_enabled(gate) for gate, field in GATE_FIELDS.items() if gate in gates_of(self.name)}
        return replace(named, features=replace(self.features, **changes))

    def gates_without_effect(self) -> list[str]:
        """The gates given that do not touch scheduling (featuregates.SCHEDULING_GATES): accepted,
        as kube-scheduler accepts them, and said to change nothing."""
        return [n for n, _ in self.gates if n not in _SPECIAL_GATES and imitated(n, self.name) is None]

    def gates_document(self) -> dict[str, object]:
        """What JSON says of the gates given: featureGates as given, and featureGatesWithoutEffect."""
        if not self.gates:
            return {}
        idle = self.gates_without_effect()
        return {"featureGates": dict(self.gates), **({"featureGatesWithoutEffect": idle} if idle else {})}

    def gates_label(self) -> str:
        """"PodLevelResources=true,..." as given, or "" with the defaults; the gates that do not
        touch scheduling are named after them."""
        return gates_text(dict(self.gates), self.gates_without_effect())

    def __str__(self) -> str:
        return self.name


V1_30_1 = KubernetesVersion("v1.30.1", 1, 30, 1, Features(
    enable_dra_prioritized_list=False, enable_dynamic_resource_allocation=False,
    enable_pod_level_resources=False, enable_in_place_pod_vertical_scaling=False,
    enable_scheduling_queue_hint=False))
V1_31_1 = KubernetesVersion("v1.31.1", 1, 31, 1, V1_30_1.features)
V1_32_2 = KubernetesVersion("v1.32.2", 1, 32, 2, replace(V1_30_1.features, enable_scheduling_queue_hint=True))
V1_33_0 = KubernetesVersion("v1.33.0", 1, 33, 0, Features(
    enable_dra_prioritized_list=False, enable_dynamic_resource_allocation=False,
    enable_pod_level_resources=False))
V1_34_1 = KubernetesVersion("v1.34.1", 1, 34, 1, Features())
# v1.35's pkg/features: NominatedNodeNameForExpectation and OpportunisticBatching beta and on; the
# DRA gates of v1.36's defaults still alpha and off, NodeDeclaredFeatures alpha and off
V1_35_6 = KubernetesVersion("v1.35.6", 1, 35, 6, Features(
    enable_nominated_node_name_for_expectation=True, enable_opportunistic_batching=True))
V1_36_2 = KubernetesVersion("v1.36.2", 1, 36, 2, Features(
    enable_dra_extended_resource=True, enable_dra_consumable_capacity=True,
    enable_dra_device_binding_conditions=True, enable_dra_device_taints=True,
    enable_dra_partitionable_devices=True, enable_node_declared_features=True,
    enable_in_place_pod_level_resources_vertical_scaling=True,
    enable_nominated_node_name_for_expectation=True, enable_opportunistic_batching=True))

_ALL = (V1_30_1, V1_31_1, V1_32_2, V1_33_0, V1_34_1, V1_35_6, V1_36_2)
# in the order of version.KUBERNETES_VERSIONS, which names them for every layer
SUPPORTED: tuple[KubernetesVersion, ...] = tuple(
    v for name in KUBERNETES_VERSIONS for v in _ALL if v.name == name)
DEFAULT = next(v for v in SUPPORTED if v.name == KUBERNETES_VERSION)

# Later patches of an imitated minor that changed a verdict the imitated patch gives: a cluster on
# one of them gets the imitated patch with a note naming the change (the patch numbers are not
# claimed: only that the change came after the imitated patch).
LATER_PATCH_CHANGES: dict[int, str] = {
    34: "later 1.34 patches word TaintToleration's reason \"node(s) had untolerated taint(s)\" without the "
        "taint (kubernetes/kubernetes#135023, cherry-picked after v1.34.1)",
    31: "later 1.31 patches pick the minHighestPriority candidate correctly (kubernetes/kubernetes#128431, "
        "cherry-picked after v1.31.1)",
    30: "later 1.30 patches give the nodes a PreFilter result leaves out no status (kubernetes/kubernetes#125306, "
        "cherry-picked after v1.30.1)",
}

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


def parse_version(text: str) -> tuple[int, int, int | None] | None:
    """(major, minor, patch or None) of "v1.36", "1.35.0", "v1.34.3-eks-1234", else None."""
    m = _VERSION.match(text.strip())
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), (int(m.group(3)) if m.group(3) is not None else None)


def nearest(major: int, minor: int) -> KubernetesVersion:
    """The imitated release closest to a server's: its own minor's; 1.37 and later follow v1.36.2,
    1.29 and older v1.30.1."""
    if major > 1 or minor >= 36:
        return V1_36_2
    for v in SUPPORTED:
        if v.minor == minor:
            return v
    return min(SUPPORTED, key=lambda v: v.minor) if minor < 34 else V1_34_1


@dataclass(frozen=True)
class Resolved:
    version: KubernetesVersion
    note: str | None = None      # a line for stderr when the version is not the one named
    # where the release came from (schedulerVersionFrom): FROM_FLAG, FROM_SNAPSHOT, FROM_TRACE,
    # FROM_LIVE, FROM_KUBELET or FROM_DEFAULT
    source: str = "default"


FROM_FLAG, FROM_SNAPSHOT, FROM_TRACE, FROM_LIVE, FROM_KUBELET, FROM_DEFAULT = (
    "flag", "snapshot", "trace", "live", "kubelet", "default")


def resolve_kubernetes_version(requested: str | KubernetesVersion | Resolved | None,
                               data_version: str | None = None, *, data_source: str = "the data",
                               data_kind: str = FROM_SNAPSHOT,
                               kubelets: Iterable[tuple[str, Any]] = ()) -> Resolved:
    """The release to imitate, never guessed in silence:
    1. `requested` (--kubernetes-version) if given (an unreadable one is a usage error);
    2. else the release the data names (`data_version`: a snapshot's server-version annotation, a
       trace's source.serverVersion, the live server's /version; `data_kind` says which);
    3. else the newest kubelet among the nodes (`kubelets`: (node name, status.nodeInfo.kubeletVersion)):
       the version-skew policy never lets a kubelet be newer than its API server, so its minor is a
       lower bound, decided as that minor (within the imitated range), with a note;
    4. else the newest imitated release (DEFAULT), with a note.
    A version that is not imitated maps to the nearest one, with a note saying so. A kubeletVersion
    that is not a Kubernetes version is an InputError naming the node and the field."""
    if isinstance(requested, Resolved):
        return requested
    if isinstance(requested, KubernetesVersion):
        return Resolved(requested, source=FROM_FLAG)
    if requested is not None and str(requested).strip():
        text = str(requested).strip()
        parsed = parse_version(text)
        if parsed is None or parsed[0] != 1:
            raise UsageError(f"kubernetes version {quote(text)} is not a Kubernetes release such as v1.35 or v1.36 "
                             f"(imitated: {', '.join(v.name for v in SUPPORTED)})", field="--kubernetes-version")
        return replace(_map(text, parsed, "requested"), source=FROM_FLAG)
    named = str(data_version).strip() if data_version is not None else ""
    unreadable = ""
    if named and named != "unknown":
        parsed = parse_version(named)
        if parsed is not None:
            return replace(_map(named, parsed, data_source), source=data_kind)
        unreadable = f"{data_source} names server version {quote(named)}, which is not a Kubernetes release"
    says = unreadable or f"{data_source} names no Kubernetes release"
    hint = "(--kubernetes-version picks another)"
    newest = newest_kubelet(kubelets)
    if newest is not None:
        text, (major, minor, _) = newest
        v = nearest(major, minor)
        why = ("" if (v.major, v.minor) == (major, minor)
               else f", the {'newest' if v is SUPPORTED[-1] else 'oldest'} imitated release")
        return Resolved(v, f"note: {says}; its newest kubelet is {text}, and no kubelet is newer than its API server: "
                           f"deciding as kube-scheduler {v.name}{why} {hint}", FROM_KUBELET)
    return Resolved(DEFAULT, f"note: {says}: deciding as kube-scheduler {DEFAULT.name}, the newest imitated release "
                             f"{hint}", FROM_DEFAULT)


def newest_kubelet(kubelets: Iterable[tuple[str, Any]]) -> tuple[str, tuple[int, int, int | None]] | None:
    """The newest (text, parsed) kubeletVersion, nodes without one left out; a malformed one refused."""
    best: tuple[str, tuple[int, int, int | None]] | None = None
    for node, text in kubelets:
        if text is None or text == "":
            continue
        parsed = parse_version(text) if isinstance(text, str) else None
        if parsed is None or parsed[0] != 1:
            raise InputError(f"{quote(text)} is not a Kubernetes version such as v1.35.2",
                             field=f"Node {node}: status.nodeInfo.kubeletVersion")
        key = (parsed[0], parsed[1], parsed[2] or 0)
        if best is None or key > (best[1][0], best[1][1], best[1][2] or 0):
            best = (text, parsed)
    return best


def kubelet_versions(nodes: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, Any]]:
    """(name, status.nodeInfo.kubeletVersion) of each Node object among `nodes` that has one; lazy,
    so that a release named by the flag or the data reads no node (resolve_kubernetes_version)."""
    for o in nodes:
        if not isinstance(o, dict) or o.get("kind") != "Node":
            continue
        status = o.get("status")
        info = status.get("nodeInfo") if isinstance(status, dict) else None
        if isinstance(info, dict) and "kubeletVersion" in info:
            md = o.get("metadata")
            yield str(md.get("name") if isinstance(md, dict) else None), info["kubeletVersion"]


def _map(text: str, parsed: tuple[int, int, int | None], source: str) -> Resolved:
    """A patch maps to its minor's imitated patch; a note only where a later patch of that minor
    changed a verdict (LATER_PATCH_CHANGES), or when the minor is not imitated (the nearest is)."""
    major, minor, patch = parsed
    v = nearest(major, minor)
    who = "requested" if source == "requested" else f"{source} names server"
    if (major, minor) == (v.major, v.minor):
        later = LATER_PATCH_CHANGES.get(minor)
        if patch is None or patch <= v.patch or later is None:
            return Resolved(v)
        return Resolved(v, f"note: {who} version {text}: imitating kube-scheduler {v.name}; {later}")
    why = f"the nearest imitated release to {major}.{minor}"
    return Resolved(v, f"note: {who} version {text}: imitating kube-scheduler {v.name}, {why}")


_SPECIAL_GATES = ("AllAlpha", "AllBeta")


def gates_text(gates: Mapping[str, bool], without_effect: Sequence[str] = ()) -> str:
    """"A=true,B=false" and, when some of them do not touch scheduling, "(no effect on scheduling:
    B)" after them: the footer's and the replay report's words."""
    text = ",".join(f"{n}={'true' if v else 'false'}" for n, v in gates.items())
    return text + (f" (no effect on scheduling: {', '.join(without_effect)})" if without_effect else "")


def parse_feature_gates(text: str | None) -> tuple[tuple[str, bool], ...]:
    """--feature-gates "NAME=BOOL,...", parsed as featureGate.Set does (strconv.ParseBool's
    spellings), with its errors' wording; the last value of a gate named twice wins, in the place
    of its first mention."""
    gates: dict[str, bool] = {}
    for part in (text or "").split(","):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"missing bool value for {key}", field="--feature-gates")
        value = value.strip()
        if value not in _GO_BOOLS:
            raise UsageError(f'invalid value of {key}={value}, err: strconv.ParseBool: parsing {_go_quote(value)}: '
                             "invalid syntax", field="--feature-gates")
        gates[key] = _GO_BOOLS[value]
    return tuple(gates.items())


_GO_BOOLS = {**{s: True for s in ("1", "t", "T", "TRUE", "true", "True")},
             **{s: False for s in ("0", "f", "F", "FALSE", "false", "False")}}


def _go_quote(s: str) -> str:
    """strconv.Quote for the texts a flag value can hold."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def apply_feature_gates(version: KubernetesVersion,
                        gates: str | Mapping[str, bool] | Sequence[tuple[str, bool]] | None) -> KubernetesVersion:
    """`version` with kube-scheduler's --feature-gates set, checked against that release's gates as
    featureGate.SetFromMap checks them (unsafeSetFromMap): an unknown gate, a gate locked to its
    default set to the other value, or a gate not yet available at the release is refused, with
    upstream's words."""
    if gates is None:
        return version
    if isinstance(gates, str):
        pairs = parse_feature_gates(gates)
    else:
        pairs = tuple(gates.items()) if isinstance(gates, Mapping) else tuple(gates)
    if not pairs:
        return version
    known = gates_of(version.name)
    for name, value in pairs:
        if not isinstance(value, bool):
            raise UsageError(f"{name} must be true or false, got {quote(value)}", field="--feature-gates")
        spec = known.get(name)
        if spec is None:
            if name in _SPECIAL_GATES:
                continue
            raise UsageError(f"unrecognized feature gate: {name} (kube-scheduler {version.name})",
                             field="--feature-gates")
        if spec.locked and spec.default != value:
            raise UsageError(f"cannot set feature gate {name} to {'true' if value else 'false'}, feature is locked to "
                             f"{'true' if spec.default else 'false'} (kube-scheduler {version.name})",
                             field="--feature-gates")
        if spec.stage == "P":
            raise UsageError(f"cannot set feature gate {name} to {'true' if value else 'false'}, feature is PreAlpha "
                             f"at emulated version {version.major}.{version.minor} (kube-scheduler {version.name})",
                             field="--feature-gates")
    merged = dict(version.gates)
    merged.update(pairs)
    out = version.with_gates(tuple(merged.items()))
    # a gate not imitated is refused first: adding the gate it depends on would not make it run
    _refuse_not_imitated(out, known)
    _refuse_missing_dependencies(out)
    return out


def _refuse_missing_dependencies(version: KubernetesVersion) -> None:
    """featureGate.unsafeSetFromMap: once every gate is set, an enabled gate whose dependency is
    disabled is an error (utilerrors.NewAggregate of them, with upstream's words)."""
    errs = []
    for name, deps in GATE_DEPENDENCIES.get(version.name, ()):
        if not version.gate_enabled(name):
            continue
        off = [d for d in deps if not version.gate_enabled(d)]
        if off:
            errs.append(f"{name} is enabled, but depends on features that are disabled: [{' '.join(off)}]")
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise UsageError(f"{msg} (kube-scheduler {version.name})", field="--feature-gates")


def _refuse_not_imitated(version: KubernetesVersion, known: Mapping[str, Any]) -> None:
    """No gate accepted and ignored: a scheduling gate (featuregates.SCHEDULING_GATES) that the
    flags turn away from its release's default, directly or through AllAlpha/AllBeta, must be
    imitated for that release; else the flag is refused, naming the gate."""
    given = dict(version.gates)
    for name, spec in known.items():
        if imitated(name, version.name) is not False:
            continue
        value = version.gate_enabled(name)
        if value == spec.default:
            continue
        how = "" if name in given else f" (set by {'AllAlpha' if spec.stage == 'A' else 'AllBeta'}=" \
                                        f"{'true' if value else 'false'})"
        raise UsageError(f"feature gate {name}={'true' if value else 'false'}{how} is not imitated: kubectl-preempt "
                         f"does not reproduce kube-scheduler {version.name} with it", field="--feature-gates")


def by_name(name: str) -> KubernetesVersion:
    """An imitated release by its name or short name ("v1.36.2", "v1.33")."""
    return resolve_kubernetes_version(name).version
