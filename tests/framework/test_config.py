from __future__ import annotations

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.runtime import Framework
from kubectl_preempt.framework.versions import V1_34_1
from kubectl_preempt.plugins.registry import in_tree_registry

CFG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def fwk(cfg, name="default-scheduler", version=None):
    c = parse_config(cfg) if version is None else parse_config(cfg, version=version)
    return Framework(in_tree_registry(), c.profile_for(name))


def names(plugins):
    return [p.name for p in plugins]


def test_default_profile_filters_in_upstream_order() -> None:
    f = fwk(None, version=V1_34_1)
    assert names(f.filter_plugins) == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
        "InterPodAffinity", "DynamicResources"]
    assert names(f.post_filter_plugins) == ["DynamicResources", "DefaultPreemption"]
    assert f.score_weights["TaintToleration"] == 3 and f.score_weights["NodeResourcesFit"] == 1


def test_score_weights_from_the_score_point_win_and_those_plugins_come_first() -> None:
    f = fwk({**CFG, "profiles": [{"schedulerName": "default-scheduler", "plugins": {"score": {"enabled": [
        {"name": "NodeResourcesFit", "weight": 5}, {"name": "TaintToleration", "weight": 1}]}}}]})
    assert names(f.score_plugins)[:2] == ["NodeResourcesFit", "TaintToleration"]
    assert (f.score_weights["NodeResourcesFit"], f.score_weights["TaintToleration"]) == (5, 1)


def test_disabled_plugins_leave_their_point() -> None:
    f = fwk({**CFG, "profiles": [{"plugins": {"score": {"disabled": [{"name": "ImageLocality"}]},
                                              "postFilter": {"disabled": [{"name": "*"}]}}}]})
    assert "ImageLocality" not in names(f.score_plugins)
    assert f.post_filter_plugins == []


def test_each_profile_is_found_by_scheduler_name() -> None:
    c = parse_config({**CFG, "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch"}]})
    assert c.profile_for("batch").scheduler_name == "batch"
    assert c.profile_for("other") is None


def test_plugin_args_are_defaulted_and_merged() -> None:
    c = parse_config({**CFG, "profiles": [{"pluginConfig": [
        {"name": "DefaultPreemption", "args": {"minCandidateNodesAbsolute": 5}}]}]})
    args = c.profiles[0].plugin_args["DefaultPreemption"]
    assert args == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 5}


@pytest.mark.parametrize("cfg, field", [
    pytest.param({**CFG, "kind": "Pod"}, "kind", id="wrong kind"),
    pytest.param({**CFG, "percentageOfNodesToScore": 101}, "percentageOfNodesToScore", id="percentage over 100"),
    pytest.param({**CFG, "profiles": [{"plugins": {"filtr": {}}}]}, "profiles[0].plugins.filtr", id="unknown point"),
    pytest.param({**CFG, "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"resources": []}}}]}]}, "scoringStrategy.type", id="strategy without a type"),
])
def test_bad_configuration_names_the_field(cfg, field) -> None:
    with pytest.raises(InputError) as e:
        parse_config(cfg, source="sched.yaml")
    assert field in str(e.value) and "sched.yaml" in str(e.value)


# apis/config/validation/validation.go ValidateKubeSchedulerConfiguration, in its words; a value
# of another type is refused with the document's shape (a string or a list here raised Python's
# own ValueError and TypeError, with a traceback)
@pytest.mark.parametrize("fields, message", [
    ({"podInitialBackoffSeconds": 0}, "sched.yaml: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
    ({"podInitialBackoffSeconds": -3}, "sched.yaml: podInitialBackoffSeconds: Invalid value: -3: must be greater than 0"),
    ({"podMaxBackoffSeconds": 0}, "sched.yaml: podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
                                  "PodInitialBackoffSeconds"),
    ({"podInitialBackoffSeconds": 11}, "sched.yaml: podMaxBackoffSeconds: Invalid value: 10: must be greater than or "
                                       "equal to PodInitialBackoffSeconds"),
    ({"parallelism": 0}, "sched.yaml: parallelism: Invalid value: 0: should be an integer value greater than zero"),
    ({"podInitialBackoffSeconds": "abc"}, 'sched.yaml: podInitialBackoffSeconds: must be an integer, got a string '
                                          '("abc")'),
    ({"podMaxBackoffSeconds": [1]}, "sched.yaml: podMaxBackoffSeconds: must be an integer, got a list"),
    ({"podInitialBackoffSeconds": 1.5}, "sched.yaml: podInitialBackoffSeconds: must be an integer, got a number "
                                        "(1.5)"),
    ({"parallelism": True}, "sched.yaml: parallelism: must be an integer, got a boolean (true)"),
    ({"parallelism": 2**31}, "sched.yaml: parallelism: must be between -2147483648 and 2147483647, inclusive, got a "
                             "number (2147483648)"),
])
def test_the_queues_backoffs_and_parallelism_are_validated_as_upstream_validates_them(fields, message) -> None:
    with pytest.raises(InputError) as e:
        parse_config({**CFG, **fields}, source="sched.yaml")
    assert str(e.value) == message


def test_the_backoffs_default_only_when_absent() -> None:
    # defaults.go: 1 s and 10 s when the fields are nil; given ones are kept as they are
    c = parse_config(CFG)
    assert (c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds) == (1, 10)
    c = parse_config({**CFG, "podInitialBackoffSeconds": 2, "podMaxBackoffSeconds": 2, "parallelism": 1})
    assert (c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds) == (2, 2)


def _with_plugin_config(name: str, args: dict) -> dict:
    return {**CFG, "profiles": [{"pluginConfig": [{"name": name, "args": args}]}]}


# what strict decoding into kube-scheduler's v1 types refuses (config/v1 types.go,
# types_pluginargs.go): each of these raised a Python exception with a traceback before the
# document's shape was checked (framework/config.py CONFIG_SHAPE, PLUGIN_ARGS_SHAPES)
@pytest.mark.parametrize("cfg, message", [
    pytest.param({**CFG, "profiles": [0]}, "profiles[0]: must be an object, got a number (0)", id="a profile not an object"),
    pytest.param({**CFG, "profiles": ["abc"]}, 'profiles[0]: must be an object, got a string ("abc")',
                 id="a profile a string"),
    pytest.param({**CFG, "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": [1]}]}}}]},
                 "profiles[0].plugins.multiPoint.enabled[0].name: must be a string, got a list", id="a plugin's name"),
    pytest.param({**CFG, "profiles": [{"pluginConfig": [{"name": {"x": 1}}]}]},
                 "profiles[0].pluginConfig[0].name: must be a string, got an object", id="a plugin config's name"),
    pytest.param(_with_plugin_config("NodeAffinity", {"addedAffinity": 1.5}),
                 "profiles[0].pluginConfig[0].args.addedAffinity: must be an object, got a number (1.5)",
                 id="addedAffinity"),
    pytest.param(_with_plugin_config("NodeAffinity", {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [1]}]}}}),
                 "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                 ".nodeSelectorTerms[0].matchExpressions[0]: must be an object, got a number (1)", id="a node selector"),
    pytest.param(_with_plugin_config("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [""]}),
                 "profiles[0].pluginConfig[0].args.defaultConstraints[0]: must be an object, got an empty string",
                 id="a default constraint"),
    pytest.param(_with_plugin_config("PodTopologySpread", {"defaultConstraints": 1.5}),
                 "profiles[0].pluginConfig[0].args.defaultConstraints: must be a list, got a number (1.5)",
                 id="default constraints"),
    pytest.param(_with_plugin_config("DefaultPreemption", {"minCandidateNodesPercentage": []}),
                 "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: must be an integer, got a list",
                 id="minCandidateNodesPercentage"),
    pytest.param(_with_plugin_config("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated",
                                                                              "resources": [{"weight": "x"}]}}),
                 'profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: must be an integer, got a '
                 'string ("x")', id="a resource's weight"),
])
def test_a_document_of_another_shape_is_refused_naming_the_field(cfg, message) -> None:
    with pytest.raises(InputError) as e:
        parse_config(cfg, source="sched.yaml")
    assert str(e.value) == f"sched.yaml: {message}"
