"""The simulation as the workload controllers see it (replay/controllers.py Host): its clock,
its pods, and pods created and deleted through it."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..model.objects import Pod
from .engine import PRIORITY_INTERNAL


class ControllerHost:
    """The simulation as the workload controllers see it (controllers.Host)."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim

    def now(self) -> float:
        return self.sim.engine.now

    def at(self, t: float, fn: Callable[[], None], name: str) -> None:
        def run() -> None:
            fn()
            self.sim._kick()

        self.sim.engine.schedule(t, run, priority=PRIORITY_INTERNAL, name=name)

    def pod_by_uid(self, uid: str) -> Pod | None:
        return self.sim.state.pods_by_uid.get(uid)

    def pod_by_key(self, key: str) -> Pod | None:
        return self.sim.state.cluster.pods.get(key)

    def create_pod(self, raw: Mapping[str, Any]) -> None:
        # a recorded pod the replay had left out may be made now (a recorded replacement)
        self.sim.gone.discard((raw.get("metadata") or {}).get("uid") or "")
        self.sim.handler.add_new_pod(raw)

    def delete_pod(self, pod: Pod) -> None:
        self.sim.handler.delete_by_controller(pod)
