"""Issue 26 follow-up: a pod the replay binds gets the startTime a kubelet would write: the
second of its first status write (the trace's measured binding -> Running delay after the
binding), whole seconds as metav1.Time serialises it, not the binding instant in milliseconds."""
from __future__ import annotations

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from kubectl_preempt.replay.state import start_time_of
from tests.builders import make_node, make_pod

from .helpers import START, ev, trace


def test_start_time_is_the_whole_second_of_the_status_write() -> None:
    assert start_time_of(START + 0.3, 1.2) == "2026-03-01T10:00:01Z"
    assert start_time_of(START + 0.9, 0.0) == "2026-03-01T10:00:00Z"
    assert start_time_of(START + 2.95, 0.1) == "2026-03-01T10:00:03Z"


def start_trace() -> dict:
    """n1 (4 cpu) is empty; low-a and low-b (2 cpu each) arrive at 0.3 s and 0.6 s and the replay
    binds them there. Another scheduler's pod x on n2 shows the kubelets' delay: bound at 0.2 s,
    Running at 1.4 s (1.2 s). hi (2 cpu) then preempts one of the low pods on n1."""
    x = make_pod("x").priority(1000).req(cpu="4").scheduler("other")
    evs = [ev(0, "ADDED", make_node(n).alloc(cpu="4", memory="8Gi").obj()) for n in ("n1", "n2")]
    evs.append(ev(0.1, "ADDED", x.obj()))
    evs.append(ev(0.2, "MODIFIED", x.on("n2").obj()))
    evs.append(ev(1.4, "MODIFIED", x.set("status.phase", "Running").start_time("2026-03-01T10:00:01Z").obj()))
    evs.append(ev(0.3, "ADDED", make_pod("low-a").priority(1).req(cpu="2").obj()))
    evs.append(ev(0.6, "ADDED", make_pod("low-b").priority(1).req(cpu="2").obj()))
    evs.append(ev(5, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()))
    evs.sort(key=lambda e: e["time"])
    return trace(*evs, end=20)


class _Victims(Listener):
    def __init__(self) -> None:
        self.start_times: dict[str, str] = {}

    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None:
        for v in victims:
            self.start_times[v.name] = v.status.get("startTime")


def test_replayed_bindings_start_at_the_kubelets_whole_second() -> None:
    seen = _Victims()
    r = replay(start_trace(), listener=seen)
    assert [p["victims"] for p in r["preemptions"]] == [["default/low-b"]]
    # both low pods were bound in second 0 and written Running 1.2 s later, in second 1: equal
    # start times (before: the binding instants, 10:00:00.300Z and 10:00:00.600Z)
    assert seen.start_times == {"low-b": "2026-03-01T10:00:01Z"}
