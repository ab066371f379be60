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
    binds them there. The kubelets' delays the trace shows: another scheduler's pod x on n2, bound
    at 0.2 s and Running at 1.4 s (1.2 s); low-a, which the recorded scheduler bound at 0.3 s and
    its kubelet showed Running at 0.8 s (0.5 s). hi (2 cpu) then preempts one of the low pods."""
    x = make_pod("x").priority(1000).req(cpu="4").scheduler("other")
    a = make_pod("low-a").priority(1).req(cpu="2")
    evs = [ev(0, "ADDED", make_node(n).alloc(cpu="4", memory="8Gi").obj()) for n in ("n1", "n2")]
    evs.append(ev(0.1, "ADDED", x.obj()))
    evs.append(ev(0.2, "MODIFIED", x.on("n2").obj()))
    evs.append(ev(1.4, "MODIFIED", x.set("status.phase", "Running").start_time("2026-03-01T10:00:01Z").obj()))
    evs.append(ev(0.3, "ADDED", a.obj()))
    evs.append(ev(0.31, "MODIFIED", a.on("n1").obj()))
    evs.append(ev(0.8, "MODIFIED", a.set("status.phase", "Running").start_time("2026-03-01T10:00:00Z").obj()))
    evs.append(ev(0.6, "ADDED", make_pod("low-b").priority(1).req(cpu="2").obj()))
    evs.append(ev(5, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()))
    evs.sort(key=lambda e: e["time"])
    return trace(*evs, end=20)


class _Starts(Listener):
    def __init__(self) -> None:
        self.start_times: dict[str, str] = {}
        self.victims: list[str] = []

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.start_times[pod.name] = pod.status.get("startTime")

    def preempting(self, t: float, preemptor: Pod, node: str, victims: list[Pod]) -> None:
        self.victims += [v.name for v in victims]


def test_replayed_bindings_start_at_the_kubelets_whole_second() -> None:
    seen = _Starts()
    replay(start_trace(), listener=seen)
    # low-a after the 0.5 s its kubelet took in the trace: second 0; low-b, which the trace did
    # not see start, after the median of the measured delays (0.85 s): second 1 (before: the
    # binding instants, 10:00:00.300Z and 10:00:00.600Z)
    assert seen.start_times["low-a"] == "2026-03-01T10:00:00Z"
    assert seen.start_times["low-b"] == "2026-03-01T10:00:01Z"
    # the later start is the less important pod (util.MoreImportantPod): low-b is the victim
    assert seen.victims == ["low-b"]


def test_a_pod_bound_before_the_trace_starts_when_its_kubelet_says() -> None:
    """A trace that begins while pods are bound but not yet running (record started during a
    rollout): their kubelets' first status writes, recorded later, set status.startTime, which
    DefaultPreemption orders victims by (util.GetPodStartTime: a pod without one counts as started
    now, later than any that started). The replay did not bind them, so the recording's start is
    theirs: b (Running as 10:00:00) outranks a (Running as 10:00:02), and hi evicts a. Before, both
    stayed unstarted and tied, and the node's list order (b's later status write moved it last)
    gave b."""
    pods = [make_pod(n).priority(1).req(cpu="2").on("n1") for n in ("a", "b")]
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj())]
    for p in pods:
        bound = p.obj()
        bound["status"] = {"phase": "Pending"}  # bound, not started yet
        evs.append(ev(0, "ADDED", bound))
    evs.append(ev(1, "MODIFIED", pods[1].set("status.phase", "Running").start_time("2026-03-01T10:00:00Z").obj()))
    evs.append(ev(2, "MODIFIED", pods[0].set("status.phase", "Running").start_time("2026-03-01T10:00:02Z").obj()))
    evs.append(ev(3, "MODIFIED", pods[1].set("status.conditions", [{"type": "Ready", "status": "True"}]).obj()))
    evs.append(ev(5, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()))
    seen = _Starts()
    replay(trace(*evs, end=20), listener=seen)
    assert seen.victims == ["a"]
