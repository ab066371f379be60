"""Pods leaving the replay: a deletion at its time (a grace period, a victim's leave time), a
completion when its replayed run ends, and the removal itself (out of the queue, off its node,
its nomination dropped, its controller told). A mixin of Simulation (replay/simulate.py): its
state lives there.
"""
from __future__ import annotations

from typing import Any

from ..model.objects import Pod
from .controllers import WorkloadControllers
from .dra_claims import release_claims
from .engine import PRIORITY_INTERNAL, Engine
from .eventhandlers import EventHandler
from .state import ReplayState


class Deletions:
    """Simulation's deletions and completions (its fields are Simulation's)."""

    engine: Engine
    state: ReplayState
    handler: EventHandler
    controllers: WorkloadControllers
    listener: Any
    gone: set[str]
    _completion_events: dict[str, Any]

    # ------------------------------------------------------------------ deletions and completions
    def _delete_at(self, pod: Pod, at: float, reason: str) -> None:
        def gone() -> None:
            cur = self.state.pods_by_uid.get(pod.uid)
            if cur is not None:
                self._remove(cur, reason)
                self._kick()

        self.engine.schedule(at, gone, priority=PRIORITY_INTERNAL, name=f"delete {pod.key}")

    def _complete_at(self, pod: Pod, at: float) -> None:
        if at <= self.engine.now:
            self._remove(pod, "completed")
            return
        self._completion_events[pod.uid] = self.engine.schedule(
            at, lambda: self._completed(pod.uid), priority=PRIORITY_INTERNAL, name=f"complete {pod.key}")

    def _completed(self, uid: str) -> None:
        self._completion_events.pop(uid, None)
        cur = self.state.pods_by_uid.get(uid)
        if cur is not None:
            self._remove(cur, "completed")
            self._kick()

    def _remove(self, pod: Pod, reason: str) -> None:
        """A pod is gone: out of the queue, off its node, its nomination dropped."""
        def removed() -> None:
            self.gone.add(pod.uid)
            self.controllers.gone(pod, reason)
            if self.listener is not None:
                self.listener.deleted(self.engine.now, pod, reason)

        self.handler.delete_pod(pod, removed)
        # the resourceclaim controller: the pod leaves its claims' reservations (replay/dra_claims.py)
        release_claims(self.handler, pod, self.engine.now)
