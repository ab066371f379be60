"""SchedulerPopFromBackoffQ (pkg/features/kube_features.go: Beta and on since v1.33): with it,
PriorityQueue.Pop takes the backoffQ's head when activeQ is empty (backend/queue/
scheduling_queue.go); before v1.33 Pop waits on activeQ alone, and a pod backing off waits for
flushBackoffQCompleted, which moves it once its backoff has ended. The replay's queue follows the
release imitated."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod

from .helpers import START, ev, trace


def backing_off() -> dict[str, Any]:
    """n1 (4 cpu) runs `busy` (3 cpu); `p` (2 cpu) arrives at 1 s and fails. `busy` is deleted at
    1.2 s: the deletion moves p, still in its 1 s backoff, to the backoffQ, and nothing else
    waits."""
    busy = make_pod("busy").priority(0).req(cpu="3").on("n1")
    return trace(ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
                 ev(0, "ADDED", busy.obj()),
                 ev(1, "ADDED", make_pod("p").priority(0).req(cpu="2").obj()),
                 ev(1.2, "DELETED", busy.obj()),
                 end=10)


class Bindings(Listener):
    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.at[pod.name] = t


@pytest.mark.parametrize("release, popped_at_once", [("v1.32", False), ("v1.33", True), ("v1.34", True)])
def test_a_pod_backing_off_is_popped_at_once_only_from_v1_33(release: str, popped_at_once: bool) -> None:
    seen = Bindings()
    replay(backing_off(), kubernetes_version=release, listener=seen)
    bound = seen.at["p"] - START
    if popped_at_once:
        assert bound == pytest.approx(1.2)  # Pop took it from the backoffQ as the deletion came
    else:
        assert bound >= 2.0  # its backoff (1 s from its failure at 1 s) ran out first

