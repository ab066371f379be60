"""The in-tree registry: plugin name -> factory(args, handle), as upstream's plugins/registry.go.

Factories are imported on first use so that a profile pays only for the plugins it enables.
Plugins whose behaviour depends on the release get the KubernetesVersion they are built for (its
`features` are upstream's feature.Features), as upstream wraps them in FactoryAdapter(fts, New).
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

from ..framework.versions import DEFAULT, KubernetesVersion
from . import names

_FACTORIES: dict[str, str] = {
    names.SCHEDULING_GATES: "schedulinggates",
    names.PRIORITY_SORT: "queuesort",
    names.NODE_UNSCHEDULABLE: "nodeunschedulable",
    names.NODE_NAME: "nodename",
    names.TAINT_TOLERATION: "tainttoleration",
    names.NODE_AFFINITY: "nodeaffinity",
    names.NODE_PORTS: "nodeports",
    names.NODE_RESOURCES_FIT: "noderesources.fit",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: "noderesources.balanced_allocation",
    names.VOLUME_RESTRICTIONS: "volumerestrictions",
    names.NODE_VOLUME_LIMITS: "nodevolumelimits",
    names.VOLUME_BINDING: "volumebinding",
    names.VOLUME_ZONE: "volumezone",
    names.POD_TOPOLOGY_SPREAD: "podtopologyspread",
    names.INTER_POD_AFFINITY: "interpodaffinity",
    names.DYNAMIC_RESOURCES: "dynamicresources",
    names.DEFAULT_PREEMPTION: "defaultpreemption",
    names.IMAGE_LOCALITY: "imagelocality",
    names.DEFAULT_BINDER: "defaultbinder",
    names.NODE_DECLARED_FEATURES: "nodedeclaredfeatures",
    names.GANG_SCHEDULING: "gangscheduling",
}

# modules whose new(args, handle, version) differs between the imitated releases
_VERSIONED = frozenset({"tainttoleration", "noderesources.balanced_allocation", "dynamicresources",
                        "nodedeclaredfeatures", "noderesources.fit", "volumerestrictions", "volumebinding",
                        "nodevolumelimits", "defaultpreemption", "nodeports", "gangscheduling", "podtopologyspread",
                        "interpodaffinity", "nodeaffinity", "nodename", "nodeunschedulable", "schedulinggates",
                        "volumezone", "imagelocality"})


def _factory(module: str, version: KubernetesVersion) -> Callable[[Mapping[str, Any], Any], Any]:
    def make(args: Mapping[str, Any], handle: Any) -> Any:
        mod = importlib.import_module(f"{__package__}.{module}")
        if module in _VERSIONED:
            return mod.new(args, handle, version)
        return mod.new(args, handle)
    return make


def in_tree_registry(version: KubernetesVersion = DEFAULT) -> dict[str, Callable[[Mapping[str, Any], Any], Any]]:
    """Every in-tree plugin, built as `version` builds it."""
    return {name: _factory(mod, version) for name, mod in _FACTORIES.items()}
