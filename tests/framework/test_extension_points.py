"""Every in-tree plugin implements, with the framework's signature, each extension point it is
enabled at; a configuration naming a plugin at a point it does not extend is refused."""
from __future__ import annotations

import inspect

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.config import EXTENSION_POINTS, default_config, parse_config
from kubectl_preempt.framework.interface import EXTENSION_POINT_PROTOCOLS
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
