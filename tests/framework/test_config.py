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
