"""Every in-tree plugin implements, with the framework's signature, each extension point it is
enabled at; a configuration naming a plugin at a point it does not extend is refused."""
from __future__ import annotations

import inspect

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.config import EXTENSION_POINTS, default_config, parse_config
from kubectl_preempt.framework.interface import EXTENSION_POINT_PROTOCOLS, MemoTraits, memo_traits
from kubectl_preempt.framework.runtime import Framework
from kubectl_preempt.plugins.registry import in_tree_registry


def _params(fn: object) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_every_extension_point_of_the_configuration_has_a_protocol() -> None:
    assert set(EXTENSION_POINT_PROTOCOLS) == set(EXTENSION_POINTS)


def _default_framework() -> Framework:
    return Framework(in_tree_registry(), default_config().profiles[0])


@pytest.mark.parametrize("ep", EXTENSION_POINTS)
def test_plugins_enabled_at_a_point_implement_its_protocol_with_its_signature(ep: str) -> None:
    fwk = _default_framework()
    protocol, method = EXTENSION_POINT_PROTOCOLS[ep]
    for pl in fwk.points[ep]:
        assert isinstance(pl, protocol), f"{pl.name} is enabled at {ep} without {method}"
        want = len(_params(getattr(protocol, method)))
        assert len(_params(getattr(pl, method))) == want, f"{pl.name}.{method} takes other arguments"


def test_every_registered_plugin_matches_the_protocol_of_each_method_it_has() -> None:
    fwk = _default_framework()
    for name, factory in in_tree_registry().items():
        pl = factory({}, fwk) if name not in fwk.plugins else fwk.plugins[name]
        assert pl.name == name
        for ep, (protocol, method) in EXTENSION_POINT_PROTOCOLS.items():
            if callable(getattr(pl, method, None)):
                assert isinstance(pl, protocol)
                assert len(_params(getattr(pl, method))) == len(_params(getattr(protocol, method))), \
                    f"{name}.{method} does not take {ep}'s arguments"


def test_a_plugin_named_at_a_point_it_does_not_extend_is_refused() -> None:
    cfg = parse_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                        "profiles": [{"schedulerName": "default-scheduler",
                                      "plugins": {"filter": {"enabled": [{"name": "ImageLocality"}]}}}]})
    with pytest.raises(InputError) as e:
        Framework(in_tree_registry(), cfg.profiles[0])
    assert 'plugin "ImageLocality" does not extend FilterPlugin plugin' in str(e.value)
    assert e.value.field == "profiles[default-scheduler].plugins.filter.enabled"


_TRAITS = [name for name in vars(MemoTraits) if not name.startswith("_") and callable(getattr(MemoTraits, name))]


def test_the_memo_traits_are_the_eight_the_scheduler_reads() -> None:
    assert sorted(_TRAITS) == ["filter_ignores_pods", "normalize_values", "pre_filter_reads_labels",
                               "repeatable_dry_run", "repeatable_post_filter", "same_answer_after_change",
                               "scores_nothing", "signs_no_pod"]


def test_every_plugin_declaring_a_memo_trait_subclasses_the_traits_protocol_with_its_signature() -> None:
    fwk = _default_framework()
    declared = set()
    for name, factory in in_tree_registry().items():
        pl = factory({}, fwk) if name not in fwk.plugins else fwk.plugins[name]
        for obj in (pl, pl.score_extensions() if hasattr(pl, "score_extensions") else None):
            if obj is None:
                continue
            for trait in _TRAITS:
                own = getattr(type(obj), trait, None)
                if own is None or own is getattr(MemoTraits, trait):
                    continue
                declared.add((name, trait))
                assert isinstance(obj, MemoTraits), f"{name} declares {trait} without subclassing MemoTraits"
                assert len(_params(own)) == len(_params(getattr(MemoTraits, trait))), \
                    f"{name}.{trait} takes other arguments"
    # the traits the memory relies on are declared where the plugins have them
    assert {("DefaultPreemption", "repeatable_post_filter"), ("DefaultPreemption", "repeatable_dry_run"),
            ("NodeResourcesFit", "pre_filter_reads_labels"),
            ("TaintToleration", "normalize_values"), ("NodeAffinity", "normalize_values"),
            # the fast core's dry runs in arithmetic (scheduler/fast/preemption.py)
            ("NodeUnschedulable", "filter_ignores_pods"), ("NodeName", "filter_ignores_pods"),
            ("TaintToleration", "filter_ignores_pods"), ("NodeAffinity", "filter_ignores_pods"),
            ("NodePorts", "filter_ignores_pods"), ("InterPodAffinity", "filter_ignores_pods"),
            ("PodTopologySpread", "filter_ignores_pods"),
            # OpportunisticBatching's signatures (scheduler/fast/__init__.py FastCores.sign_pod)
            ("PodTopologySpread", "signs_no_pod")} <= declared


def test_a_plugin_that_declares_no_traits_has_the_defaults_that_make_the_memory_ask_afresh() -> None:
    class OutOfTree:
        name = "OutOfTree"

    t = memo_traits(OutOfTree())
    assert t.pre_filter_reads_labels(None) is True
    assert t.repeatable_post_filter(None, None) is False
    assert t.same_answer_after_change(None, None, None, None, None) is False
    assert t.scores_nothing(None, None) is False
    assert t.normalize_values(None, None, [1, 2]) is None
    assert t.repeatable_dry_run(None, None) is False
    assert t.filter_ignores_pods(None, None, []) is False
    assert t.signs_no_pod() is False


def test_the_scheduler_reads_no_trait_by_getattr() -> None:
    from pathlib import Path
    pkg = Path(__file__).resolve().parents[2] / "kubectl_preempt"
    for path in pkg.rglob("*.py"):
        text = path.read_text()
        for trait in _TRAITS:
            assert f'getattr(pl, "{trait}"' not in text and f'getattr(ext, "{trait}"' not in text, path
