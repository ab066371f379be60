"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): profiles, plugins, weights, args.

Defaults and merging mirror apis/config/v1 (getDefaultPlugins, mergePlugins, SetDefaults_*).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import InputError, quote
from ..model.schema import (BOOL, INT32, INT64, NODE_AFFINITY, STR, STRINGS, TOPOLOGY_SPREAD_CONSTRAINT, UNCHECKED,
                            check_shape, list_of, obj)
from .versions import DEFAULT, KubernetesVersion

API_VERSION = "kubescheduler.config.k8s.io/v1"
# the feature gates the replay honours beyond the plugins' (framework/versions.py Features), with
# v1.34.1's defaults (each release's own: featuregates.py)
FEATURE_GATES = {"SchedulerAsyncPreemption": True}

# v1.34 default MultiPoint set; DynamicResources is on by default (DRA is GA) and sits before
# DefaultPreemption so that PostFilter tries deallocating claims before evicting pods
DEFAULT_MULTIPOINT_V1_34: list[tuple[str, int]] = [
    ("SchedulingGates", 0), ("PrioritySort", 0), ("NodeUnschedulable", 0), ("NodeName", 0),
    ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", 0), ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0), ("NodeVolumeLimits", 0), ("VolumeBinding", 0), ("VolumeZone", 0),
    ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DynamicResources", 0), ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("DefaultBinder", 0),
]
def default_multi_point(version: KubernetesVersion) -> list[tuple[str, int]]:
    """mirrors getDefaultPlugins + applyFeatureGates of the release: DynamicResources only with
    DynamicResourceAllocation (on by default since v1.34); since v1.35 DynamicResources
    scores (weight 2), and the NodeDeclaredFeatures gate appends its plugin after DefaultBinder.
    GangScheduling (alpha, off in v1.35 and v1.36) appends its plugin last (applyGangScheduling);
    TopologyAwareWorkloadScheduling (placements, PlacementScore) is alpha and not imitated."""
    out = list(DEFAULT_MULTIPOINT_V1_34)
    if not version.features.enable_dynamic_resource_allocation:
        # before v1.34 DynamicResourceAllocation is off by default, and applyFeatureGates inserts
        # DynamicResources before DefaultPreemption only when it is on
        out = [(n, w) for n, w in out if n != "DynamicResources"]
    if version.at_least(35):
        out = [(n, 2 if n == "DynamicResources" else w) for n, w in out]
    if version.features.enable_node_declared_features:
        out.append(("NodeDeclaredFeatures", 0))
    if version.features.enable_gang_scheduling:
        out.append(("GangScheduling", 0))
    return out

EXTENSION_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                    "reserve", "permit", "preBind", "bind", "postBind")

DEFAULT_PLUGIN_ARGS: dict[str, dict[str, Any]] = {
    "DefaultPreemption": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
    "InterPodAffinity": {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
    "NodeResourcesFit": {"scoringStrategy": {"type": "LeastAllocated",
                                             "resources": [{"name": "cpu", "weight": 1},
                                                           {"name": "memory", "weight": 1}]}},
    "NodeResourcesBalancedAllocation": {"resources": [{"name": "cpu", "weight": 1},
                                                      {"name": "memory", "weight": 1}]},
    "PodTopologySpread": {"defaultingType": "System"},
    "VolumeBinding": {"bindTimeoutSeconds": 600},
    "NodeAffinity": {},
}


# The document's shape, as strict decoding into kube-scheduler's v1 types reads it
# (k8s.io/kube-scheduler/config/v1 types.go and types_pluginargs.go): a field of another type is
# one error naming it, before any default or merge reads it. Only the fields read here are named.
_PLUGIN = obj(name=STR, weight=INT32)
_PLUGIN_SET = obj(enabled=list_of(_PLUGIN), disabled=list_of(_PLUGIN))
_RESOURCE_SPEC = obj(name=STR, weight=INT64)
_SHAPE_POINT = obj(utilization=INT32, score=INT32)
# each plugin's args, by the plugin's name (a plugin not named here keeps its args unchecked)
PLUGIN_ARGS_SHAPES = {
    "DefaultPreemption": obj(minCandidateNodesPercentage=INT32, minCandidateNodesAbsolute=INT32),
    "InterPodAffinity": obj(hardPodAffinityWeight=INT32, ignorePreferredTermsOfExistingPods=BOOL),
    "NodeAffinity": obj(addedAffinity=NODE_AFFINITY),
    "NodeResourcesBalancedAllocation": obj(resources=list_of(_RESOURCE_SPEC)),
    "NodeResourcesFit": obj(ignoredResources=STRINGS, ignoredResourceGroups=STRINGS, scoringStrategy=obj(
        type=STR, resources=list_of(_RESOURCE_SPEC), requestedToCapacityRatio=obj(shape=list_of(_SHAPE_POINT)))),
    "PodTopologySpread": obj(defaultConstraints=list_of(TOPOLOGY_SPREAD_CONSTRAINT), defaultingType=STR),
    "VolumeBinding": obj(bindTimeoutSeconds=INT64, shape=list_of(_SHAPE_POINT)),
}
_PROFILE = obj(schedulerName=STR, percentageOfNodesToScore=INT32,
               plugins=obj(multiPoint=_PLUGIN_SET, **{ep: _PLUGIN_SET for ep in EXTENSION_POINTS}),
               pluginConfig=list_of(obj(name=STR, args=UNCHECKED)))
CONFIG_SHAPE = obj(apiVersion=STR, kind=STR, parallelism=INT32, percentageOfNodesToScore=INT32,
                   podInitialBackoffSeconds=INT64, podMaxBackoffSeconds=INT64, profiles=list_of(_PROFILE))


def _check_config_shape(raw: Mapping[str, Any]) -> None:
    check_shape(CONFIG_SHAPE, raw)
    for i, profile in enumerate(raw.get("profiles") or ()):
        for j, pc in enumerate(profile.get("pluginConfig") or ()):
            shape = PLUGIN_ARGS_SHAPES.get(pc.get("name"))
            args = pc.get("args")
            if shape is None or args is None:
                continue
            try:
                check_shape(shape, args)
            except InputError as e:
                raise e.located(field_prefix=f"profiles[{i}].pluginConfig[{j}].args") from None


@dataclass
class PluginRef:
    name: str
    weight: int = 0


@dataclass
class PluginSet:
    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)


@dataclass
class Profile:
    scheduler_name: str
    multi_point: PluginSet
    points: dict[str, PluginSet]
    plugin_args: dict[str, dict[str, Any]]
    percentage_of_nodes_to_score: int | None = None


@dataclass
class SchedulerConfig:
    profiles: list[Profile]
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    # kube-scheduler's --feature-gates (not part of the configuration file), over FEATURE_GATES
    feature_gates: dict[str, bool] = field(default_factory=dict)
    # how long one API call of the scheduler takes in a replay (None: the replay's default)
    api_latency: float | None = None
    # the release whose defaults were applied, and which the plugins are built for
    version: KubernetesVersion = DEFAULT
    # the configuration as written (None: the default profile), to apply another release's defaults
    raw: Mapping[str, Any] | None = None
    source: str | None = None

    def enabled(self, gate: str) -> bool:
        """A gate the replay honours: as given, else the release's (SchedulerAsyncPreemption: on
        in v1.33 and later, alpha and off in v1.32, absent before)."""
        if gate in self.feature_gates:
            return self.feature_gates[gate]
        return self.version.gate_enabled(gate)

    def for_version(self, version: KubernetesVersion) -> "SchedulerConfig":
        """The same configuration with `version`'s defaults (itself when already so); the
        --feature-gates and API latency given stay."""
        if version == self.version:
            return self
        again = parse_config(self.raw, source=self.source, version=version)
        again.feature_gates = dict(self.feature_gates)
        again.api_latency = self.api_latency
        return again

    def profile_for(self, scheduler_name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


def _plugin_set(raw: Mapping[str, Any] | None, where: str) -> PluginSet:
    if raw is None:
        return PluginSet()
    if not isinstance(raw, Mapping):
        raise InputError("expected an object with enabled/disabled", field=where)
    en = []
    for i, p in enumerate(raw.get("enabled") or []):
        if not isinstance(p, Mapping) or not p.get("name"):
            raise InputError("plugin needs a name", field=f"{where}.enabled[{i}].name")
        w = p.get("weight") or 0
        if not isinstance(w, int) or w < 0:
            raise InputError(f"weight {quote(w)} must be a non-negative integer", field=f"{where}.enabled[{i}].weight")
        en.append(PluginRef(p["name"], w))
    dis = []
    for i, p in enumerate(raw.get("disabled") or []):
        if not isinstance(p, Mapping) or not p.get("name"):
            raise InputError("plugin needs a name", field=f"{where}.disabled[{i}].name")
        dis.append(p["name"])
    return PluginSet(en, dis)


def _merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    # mirrors mergePluginSet
    disabled = list(custom.disabled) + list(default.disabled)
    dset = set(disabled)
    custom_idx = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in dset:
        for p in default.enabled:
            if p.name in dset:
                continue
            if p.name in custom_idx:
                i = custom_idx[p.name]
                p = custom.enabled[i]
                replaced.add(i)
            enabled.append(p)
    for i, p in enumerate(custom.enabled):
        if i not in replaced:
            enabled.append(p)
    return PluginSet(enabled, disabled)


def _merge_args(name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
    out = copy.deepcopy(DEFAULT_PLUGIN_ARGS.get(name, {}))
    for k, v in (args or {}).items():
        if k == "scoringStrategy" and isinstance(v, Mapping):
            # as upstream's defaulting: resources default, the type does not (validation wants one)
            if v.get("type") not in ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"):
                raise InputError(f'Unsupported value: "{v.get("type") or ""}": supported values: '
                                 '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
                                 field=f"pluginConfig[{name}].args.scoringStrategy.type")
            ss = {"type": v["type"]}
            ss.update(v)
            if not v.get("resources"):
                ss["resources"] = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
            out[k] = ss
        else:
            out[k] = v
    if name == "PodTopologySpread" and out.get("defaultingType") == "List" and "defaultConstraints" not in (args or {}):
        out["defaultConstraints"] = []
    return out


def _profile(raw: Mapping[str, Any], where: str, global_pct: int | None, version: KubernetesVersion) -> Profile:
    name = raw.get("schedulerName") or "default-scheduler"
    plugins = raw.get("plugins") or {}
    if not isinstance(plugins, Mapping):
        raise InputError("expected an object", field=f"{where}.plugins")
    default_mp = PluginSet([PluginRef(n, w) for n, w in default_multi_point(version)])
    mp = _merge_plugin_set(default_mp, _plugin_set(plugins.get("multiPoint"), f"{where}.plugins.multiPoint"))
    points = {ep: _merge_plugin_set(PluginSet(), _plugin_set(plugins.get(ep), f"{where}.plugins.{ep}"))
              for ep in EXTENSION_POINTS}
    for ep in plugins:
        if ep != "multiPoint" and ep not in EXTENSION_POINTS:
            raise InputError(f"unknown extension point {quote(ep)}", field=f"{where}.plugins.{ep}")
    args: dict[str, dict[str, Any]] = {}
    for i, pc in enumerate(raw.get("pluginConfig") or []):
        if not isinstance(pc, Mapping) or not pc.get("name"):
            raise InputError("pluginConfig needs a name", field=f"{where}.pluginConfig[{i}].name")
        a = pc.get("args") or {}
        if not isinstance(a, Mapping):
            raise InputError("args must be an object", field=f"{where}.pluginConfig[{i}].args")
        args[pc["name"]] = _merge_args(pc["name"], a)
    for n in DEFAULT_PLUGIN_ARGS:
        args.setdefault(n, _merge_args(n, None))
    pct = raw.get("percentageOfNodesToScore")
    return Profile(name, mp, points, args, pct if isinstance(pct, int) else None)


def _defaulted(raw: Mapping[str, Any], key: str, default: int) -> int:
    """An integer field (its type checked with the document's shape), `default` when absent or null."""
    v = raw.get(key)
    return default if v is None else v


def default_config(version: KubernetesVersion = DEFAULT) -> SchedulerConfig:
    return parse_config(None, version=version)


def parse_config(raw: Mapping[str, Any] | None, source: str | None = None, *,
                 version: KubernetesVersion = DEFAULT) -> SchedulerConfig:
    """A KubeSchedulerConfiguration with `version`'s v1 defaults applied; None gives the default
    profile."""
    given = raw
    try:
        if raw is None:
            raw = {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration"}
        if not isinstance(raw, Mapping):
            raise InputError("expected a KubeSchedulerConfiguration object")
        if raw.get("kind") not in (None, "KubeSchedulerConfiguration"):
            raise InputError(f"kind {quote(raw.get('kind'))} is not KubeSchedulerConfiguration", field="kind")
        if raw.get("apiVersion") not in (None, API_VERSION):
            raise InputError(f"apiVersion {quote(raw.get('apiVersion'))} is not {API_VERSION}", field="apiVersion")
        _check_config_shape(raw)
        pct = raw.get("percentageOfNodesToScore") or 0
        if not isinstance(pct, int) or not 0 <= pct <= 100:
            raise InputError(f"{quote(pct)} is not between 0 and 100", field="percentageOfNodesToScore")
        profiles_raw = raw.get("profiles") or [{"schedulerName": "default-scheduler"}]
        profiles = [_profile(p, f"profiles[{i}]", pct, version) for i, p in enumerate(profiles_raw)]
        names = [p.scheduler_name for p in profiles]
        if len(set(names)) != len(names):
            raise InputError("duplicate schedulerName", field="profiles")
        # apis/config/v1 defaults.go SetDefaults_KubeSchedulerConfiguration (each set only when
        # absent), then validation.go ValidateKubeSchedulerConfiguration's checks of these fields
        parallelism = _defaulted(raw, "parallelism", 16)
        if parallelism <= 0:
            raise InputError(f"Invalid value: {parallelism}: should be an integer value greater than zero",
                             field="parallelism")
        initial = _defaulted(raw, "podInitialBackoffSeconds", 1)
        maximum = _defaulted(raw, "podMaxBackoffSeconds", 10)
        if initial <= 0:
            raise InputError(f"Invalid value: {initial}: must be greater than 0", field="podInitialBackoffSeconds")
        if maximum < initial:
            raise InputError(f"Invalid value: {maximum}: must be greater than or equal to PodInitialBackoffSeconds",
                             field="podMaxBackoffSeconds")
        return SchedulerConfig(profiles, pct, initial, maximum, version=version, raw=given, source=source)
    except InputError as e:
        raise e.located(source=source)
