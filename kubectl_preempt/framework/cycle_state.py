"""CycleState: per-cycle plugin data, cloned for preemption dry runs and nominated-pod passes."""
from __future__ import annotations

from typing import Any


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "pod_group_cycle")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        # SetPodGroupSchedulingCycle: the pod-group cycle this pod's cycle runs in (its pod group's
        # state there, scheduler/schedule_one_podgroup.py), None in a pod's own cycle
        self.pod_group_cycle: Any = None

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The value, or KeyError (upstream's ErrNotFound) when the plugin stored none."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        c = CycleState()
        # a stored value that can change during a dry run offers clone(); the rest is shared
        c._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        c.pod_group_cycle = self.pod_group_cycle
        return c
