"""The conformance plugin (pkg/scheduler/plugins/conformance): never evict critical pods or pods
in kube-system."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...model.objects import SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL
from ..api.job_info import TaskInfo
from ..framework.interface import Plugin

if TYPE_CHECKING:
    from ..framework.session import Session

PLUGIN_NAME = "conformance"
NAMESPACE_SYSTEM = "kube-system"


class ConformancePlugin(Plugin):
    name = PLUGIN_NAME

    def on_session_open(self, ssn: "Session") -> None:
        def evictable(_: TaskInfo, evictees: list[TaskInfo]) -> list[TaskInfo]:
            return [e for e in evictees
                    if e.pod.priority_class_name not in (SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL)
                    and e.namespace != NAMESPACE_SYSTEM]

        ssn.add_preemptable_fn(self.name, evictable)
        ssn.add_reclaimable_fn(self.name, evictable)
