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
# of another type is refused as strict decoding refuses it (a string or a list here raised
# Python's own ValueError and TypeError, with a traceback)
@pytest.mark.parametrize("fields, message", [
    ({"podInitialBackoffSeconds": 0}, "sched.yaml: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
    ({"podInitialBackoffSeconds": -3}, "sched.yaml: podInitialBackoffSeconds: Invalid value: -3: must be greater than 0"),
    ({"podMaxBackoffSeconds": 0}, "sched.yaml: podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
                                  "PodInitialBackoffSeconds"),
    ({"podInitialBackoffSeconds": 11}, "sched.yaml: podMaxBackoffSeconds: Invalid value: 10: must be greater than or "
                                       "equal to PodInitialBackoffSeconds"),
    ({"parallelism": 0}, "sched.yaml: parallelism: Invalid value: 0: should be an integer value greater than zero"),
    ({"podInitialBackoffSeconds": "abc"}, 'sched.yaml: podInitialBackoffSeconds: expected a whole number (an int64), '
                                          'got "abc"'),
    ({"podMaxBackoffSeconds": [1]}, "sched.yaml: podMaxBackoffSeconds: expected a whole number (an int64), got [1]"),
    ({"podInitialBackoffSeconds": 1.5}, "sched.yaml: podInitialBackoffSeconds: expected a whole number (an int64), "
                                        "got 1.5"),
    ({"parallelism": True}, "sched.yaml: parallelism: expected a whole number (an int32), got true"),
    ({"parallelism": 2**31}, "sched.yaml: parallelism: expected a whole number (an int32), got 2147483648"),
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
