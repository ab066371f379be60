"""What the tests of `plan` share: the first scheduling cycle of a pod in a plan."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plan.api import plan_spec
from kubectl_preempt.plan.run import plan_once
from kubectl_preempt.replay.simulate import Listener


class FirstCycle(Listener):
    """The first outcome of one pod's scheduling in a run."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.outcome: str | None = None
        self.node = ""
        self.message = ""
        self.fields: Mapping[str, Any] = {}

    def bound(self, t: float, pod: Pod, node: str) -> None:
        if pod.key == self.key and self.outcome is None:
            self.outcome, self.node = "Scheduled", node

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        if pod.key == self.key and self.outcome is None:
            self.outcome, self.node = "Preempted", node

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None:
        if pod.key == self.key and self.outcome is None:
            self.outcome, self.message, self.fields = "Unschedulable", message, fields or {}


def as_manifest(pod: Mapping[str, Any]) -> dict[str, Any]:
    """A pod of a snapshot as a manifest not yet created: no node, no status."""
    m = copy.deepcopy(dict(pod))
    m["spec"] = {k: v for k, v in (m.get("spec") or {}).items() if k != "nodeName"}
    m["status"] = {"phase": "Pending"}
    md = m["metadata"]
    for k in ("deletionTimestamp", "resourceVersion"):
        md.pop(k, None)
    return m


def plan_first_cycle(objects: list[dict[str, Any]], manifest: Mapping[str, Any], key: str,
                     config: Any = None) -> tuple[FirstCycle, dict[str, Any]]:
    spec = plan_spec(objects, [("manifest.yaml", "", manifest)], config=config)
    first = FirstCycle(key)
    report, _ = plan_once(spec, listener=first)
    return first, report
