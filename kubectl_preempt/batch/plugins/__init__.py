"""kube-batch's plugins, registered by name as plugins/factory.go does."""
from __future__ import annotations

from typing import Any, Callable

from .conformance import ConformancePlugin
from .drf import DrfPlugin
from .gang import GangPlugin
from .nodeorder import NodeOrderPlugin
from .predicates import PredicatesPlugin
from .priority import PriorityPlugin
from .proportion import ProportionPlugin

PLUGIN_BUILDERS: dict[str, Callable[[dict[str, str]], Any]] = {
    "drf": DrfPlugin,
    "gang": GangPlugin,
    "predicates": PredicatesPlugin,
    "priority": PriorityPlugin,
    "nodeorder": NodeOrderPlugin,
    "conformance": ConformancePlugin,
    "proportion": ProportionPlugin,
}
