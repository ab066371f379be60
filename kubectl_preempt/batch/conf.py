"""kube-batch's configuration file (pkg/scheduler/conf and loadSchedulerConf in scheduler/util.go):
the actions, in the order a session runs them, and the plugin tiers."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import InputError, quote
from ..model.limits import check_yaml_depth

DEFAULT_SCHEDULER_CONF = """
actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""

# every action kube-batch has, in a session's order, with conformance guarding system pods in the
# first tier: the configuration the bundled kube-batch traces, goldens and benchmarks run
ALL_ACTIONS_CONF = """actions: "reclaim, allocate, backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""

ACTION_NAMES = ("reclaim", "allocate", "backfill", "preempt")
PLUGIN_NAMES = ("drf", "gang", "predicates", "priority", "nodeorder", "conformance", "proportion")
# PluginOption's switches, each true unless the file says otherwise (ApplyPluginConfDefaults)
SWITCHES = ("enableJobOrder", "enableJobReady", "enableJobPipelined", "enableTaskOrder", "enablePreemptable",
            "enableReclaimable", "enableQueueOrder", "enablePredicate", "enableNodeOrder")


@dataclass
class PluginOption:
    name: str
    enabled: dict[str, bool] = field(default_factory=dict)
    arguments: dict[str, str] = field(default_factory=dict)

    def on(self, switch: str) -> bool:
        return self.enabled.get(switch, True)


@dataclass
class SchedulerConf:
    actions: list[str]
    tiers: list[list[PluginOption]]
    text: str = ""


def _go_string(v: Any) -> str:
    # yaml.v2 decodes a scalar into a Go string field as written
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def parse_scheduler_conf(text: str | None, source: str = "scheduler configuration") -> SchedulerConf:
    """The configuration, or InputError naming the field: YAML that does not parse, a field of the
    wrong shape, an action or plugin kube-batch does not know."""
    if text is None:
        text = DEFAULT_SCHEDULER_CONF
    check_yaml_depth(text, source)  # before libyaml composes: a 30,000-deep document crashes it
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise InputError(f"not valid YAML: {getattr(e, 'problem', None) or e}", source=source, field=where) from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise InputError("must be a mapping with actions and tiers", source=source)
    actions_raw = doc.get("actions")
    if actions_raw is not None and not isinstance(actions_raw, str):
        raise InputError(f"must be a string of comma-separated action names, got {quote(actions_raw)}",
                         source=source, field="actions")
    actions = []
    # mirrors loadSchedulerConf: split on commas, each name trimmed, every name must be known
    for name in (actions_raw or "").split(","):
        name = name.strip()
        if name not in ACTION_NAMES:
            raise InputError(f"unknown action {quote(name)} (known: {', '.join(ACTION_NAMES)})",
                             source=source, field="actions")
        actions.append(name)
    tiers_raw = doc.get("tiers") or []
    if not isinstance(tiers_raw, list):
        raise InputError("must be a list of tiers", source=source, field="tiers")
    tiers = []
    for i, tier in enumerate(tiers_raw):
        if tier is None:
            tier = {}
        if not isinstance(tier, dict) or not isinstance(tier.get("plugins") or [], list):
            raise InputError("must be a mapping with a list of plugins", source=source, field=f"tiers[{i}]")
        plugins = []
        for j, p in enumerate(tier.get("plugins") or []):
            where = f"tiers[{i}].plugins[{j}]"
            if not isinstance(p, dict):
                raise InputError("must be a mapping with a name", source=source, field=where)
            name = _go_string(p.get("name"))
            if name not in PLUGIN_NAMES:
                raise InputError(f"unknown plugin {quote(name)} (known: {', '.join(sorted(PLUGIN_NAMES))})",
                                 source=source, field=f"{where}.name")
            enabled = {}
            for s in SWITCHES:
                if s in p and p[s] is not None:
                    if not isinstance(p[s], bool):
                        raise InputError(f"must be true or false, got {quote(p[s])}", source=source, field=f"{where}.{s}")
                    enabled[s] = p[s]
            args = p.get("arguments") or {}
            if not isinstance(args, dict):
                raise InputError("must be a mapping of strings", source=source, field=f"{where}.arguments")
            plugins.append(PluginOption(name, enabled, {str(k): _go_string(v) for k, v in args.items()}))
        tiers.append(plugins)
    return SchedulerConf(actions, tiers, text)
