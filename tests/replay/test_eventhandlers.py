"""One trace event handler (eventhandlers.go's counterpart) serves both replay modes: what the
recording says about nodes, PDBs, classes, other objects and pods the replayed scheduler does not
own reaches the cache the same way in simulate and follow; follow adds only what the recorded
scheduler did (bindings, nominations), and only simulate has a queue the events requeue."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.replay.eventhandlers import EventHandler
from kubectl_preempt.replay.follow import Follow
from kubectl_preempt.scheduler.backend.queue import ACTIVE, UNSCHEDULABLE
from kubectl_preempt.replay.simulate import Simulation
from kubectl_preempt.replay.timeline import normalize
from tests.builders import make_node, make_pdb, make_pod, make_pvc

from .helpers import ev, trace


def _node(name: str, **labels: str) -> Any:
    b = make_node(name).alloc(cpu="4", memory="8Gi", pods="110")
    for k, v in labels.items():
        b = b.label(k, v)
    return b


def _other(name: str, node: str = "", cpu: str = "1") -> Any:
    """A pod of another scheduler: the replayed one never places it, so both modes apply its
    recorded binding."""
    b = make_pod(name).req(cpu=cpu).scheduler("other-scheduler")
    return b.on(node) if node else b


def _cache(state: Any) -> dict[str, Any]:
    """What the scheduler's cache holds, as a user of the replay would compare it."""
    c = state.cluster
    return {
        "nodes": {n: (dict(o.labels), o.unschedulable) for n, o in c.nodes.items()},
        "pods": {k: p.node_name for k, p in c.pods.items()},
        "order": {n: list(u) for n, u in state.order.by_node.items() if u},
        "snapshot": sorted((ni.node.name, sorted(p.pod.key for p in ni.pods)) for ni in state.snapshot.list()),
        "pdbs": sorted(p.key for p in c.pdbs),
        "claims": sorted(o["metadata"]["name"] for o in c.extra["PersistentVolumeClaim"]),
    }


def _recording() -> Any:
    return normalize(trace(
        ev(0, "ADDED", _node("n1").obj()), ev(0, "ADDED", _node("n2").obj()),
        ev(0, "ADDED", _other("a", "n1").obj()), ev(0, "ADDED", _other("b", "n2").obj()),
        ev(5, "ADDED", _other("c").obj()),
        ev(6, "MODIFIED", _other("c", "n1").obj()),                    # another scheduler binds it
        ev(7, "MODIFIED", _node("n2", zone="b").obj()),                # a node relabelled
        ev(8, "ADDED", _node("n3").obj()),
        ev(9, "ADDED", make_pdb("guard", {"matchLabels": {"app": "x"}}, 1)),
        ev(10, "ADDED", make_pvc("data")),
        ev(11, "MODIFIED", _other("a", "n1").label("v", "2").obj()),   # labels of a bound pod
        ev(12, "DELETED", _other("b", "n2").obj()),
        ev(13, "DELETED", _node("n3").obj()),
        end=20))


def test_both_modes_leave_the_cache_as_the_recording_says_when_the_replayed_scheduler_had_nothing_to_do() -> None:
    sim = Simulation(_recording(), default_config(), workloads=False).run()
    fol = Follow(_recording(), default_config()).run()
    assert isinstance(sim.handler, EventHandler) and isinstance(fol.handler, EventHandler)
    expected = {
        "nodes": {"n1": ({"kubernetes.io/hostname": "n1"}, False),
                  "n2": ({"kubernetes.io/hostname": "n2", "zone": "b"}, False)},
        "pods": {"default/a": "n1", "default/c": "n1"},
        "order": {"n1": [sim.state.cluster.pods["default/c"].uid, sim.state.cluster.pods["default/a"].uid]},
        "snapshot": [("n1", ["default/a", "default/c"]), ("n2", [])],
        "pdbs": ["default/guard"],
        "claims": ["data"],
    }
    for mode in (sim, fol):
        mode.state.prepare()
        assert _cache(mode.state) == expected, mode.mode
    assert sim.events_applied == fol.events_applied == 9  # the bookmark is none


def test_follow_applies_the_recorded_binding_and_nomination_simulate_makes_its_own() -> None:
    mine = make_pod("mine").req(cpu="3").priority(100)
    tl = normalize(trace(
        ev(0, "ADDED", _node("n1").obj()), ev(0, "ADDED", _node("n2").obj()),
        ev(0, "ADDED", _other("hog", "n1", cpu="3").obj()),
        ev(5, "ADDED", mine.obj()),
        ev(5.5, "MODIFIED", make_pod("mine").req(cpu="3").priority(100).nominated("n1").obj()),
        ev(6, "MODIFIED", make_pod("mine").req(cpu="3").priority(100).on("n1").obj()),
        end=20))
    fol = Follow(tl, default_config())
    for e in tl.events[:2]:
        fol.apply(e)
    assert fol.state.cluster.pods["default/mine"].nominated_node_name == "n1"
    assert [p.key for p in fol.state.nominator.nominated_pods_for_node("n1")] == ["default/mine"]
    fol.apply(tl.events[2])
    assert fol.state.cluster.pods["default/mine"].node_name == "n1"  # as recorded, though n1 is full
    assert fol.bindings == 1
    sim = Simulation(tl, default_config(), workloads=False).run()
    assert sim.state.cluster.pods["default/mine"].node_name == "n2"  # the replay's own choice


def test_in_simulate_mode_the_handler_tells_the_queue_what_the_recording_did() -> None:
    """A pending pod that lacked room waits in the unschedulable pool; the recording deletes the
    pod in its way, and the handler that takes it out of the cache requeues the waiting pod."""
    objs = [ev(0, "ADDED", _node("n1").obj()), ev(0, "ADDED", _other("hog", "n1", cpu="3").obj()),
            ev(1, "ADDED", make_pod("p").req(cpu="2").obj())]
    sim = Simulation(normalize(trace(*objs, end=20)), default_config(), workloads=False).run()
    pod = sim.state.cluster.pods["default/p"]
    assert sim.queue.where(pod) == UNSCHEDULABLE
    deletion = normalize(trace(*objs, ev(19, "DELETED", _other("hog", "n1", cpu="3").obj()), end=20)).events[-2]
    assert deletion.type == "DELETED" and deletion.name == "hog"
    sim.handler.apply(deletion)
    assert "default/hog" not in sim.state.cluster.pods
    assert sim.queue.where(pod) == ACTIVE


class _Tries:
    def __init__(self) -> None:
        self.tries: list[tuple[float, str]] = []

    def unschedulable(self, t: float, pod: Any, message: str, fields: Any = None) -> None:
        self.tries.append((t, pod.key))


def test_a_nomination_moved_off_a_node_requeues_the_others_when_its_patch_comes_back() -> None:
    """kube-scheduler sets a preemptor's nominated node in its nominator at once, but the other
    pending pods are requeued only when the informer delivers the pod with its new
    nominatedNodeName (updatePodInSchedulingQueue): one API call after the decision. A requeue at
    the decision's instant let equal-priority preemptors move each other at once, over and over,
    deciding dozens of times in one instant (s1-rollout, runs 5 and 15)."""
    objs = [ev(0, "ADDED", _node("n1").obj()), ev(0, "ADDED", _other("hog", "n1", cpu="3").obj()),
            ev(1, "ADDED", make_pod("p").req(cpu="2").obj()),
            ev(1, "ADDED", make_pod("hi").priority(10).req(cpu="1").set("spec.nodeSelector", {"x": "y"}).obj())]
    rec = _Tries()
    cfg = default_config()
    sim = Simulation(normalize(trace(*objs, end=20)), cfg, workloads=False, listener=rec).run()  # type: ignore[arg-type]
    p, hi = sim.state.cluster.pods["default/p"], sim.state.cluster.pods["default/hi"]
    assert sim.queue.where(p) == UNSCHEDULABLE
    sim._set_nomination(hi, "n1")
    sim._set_nomination(hi, "n2")  # leaves n1: room there for pods of lower priority
    now = sim.engine.now
    rec.tries.clear()
    sim.engine.run(until=now + sim.api_latency / 2)
    assert sim.queue.where(p) == UNSCHEDULABLE and rec.tries == []
    sim.engine.run(until=now + sim.api_latency)
    assert rec.tries == [(now + sim.api_latency, "default/p")]


def test_with_no_api_latency_the_nomination_requeues_at_once() -> None:
    objs = [ev(0, "ADDED", _node("n1").obj()), ev(0, "ADDED", _other("hog", "n1", cpu="3").obj()),
            ev(1, "ADDED", make_pod("p").req(cpu="2").obj()),
            ev(1, "ADDED", make_pod("hi").priority(10).req(cpu="1").set("spec.nodeSelector", {"x": "y"}).obj())]
    cfg = default_config()
    cfg.api_latency = 0.0
    sim = Simulation(normalize(trace(*objs, end=20)), cfg, workloads=False).run()
    p, hi = sim.state.cluster.pods["default/p"], sim.state.cluster.pods["default/hi"]
    sim._set_nomination(hi, "n1")
    sim._set_nomination(hi, "n2")
    assert sim.queue.where(p) != UNSCHEDULABLE


def _lo2_behind_hi(grace: int) -> list[dict[str, Any]]:
    """hi (2 cpu) preempts on n1 at 5 s and is nominated there; lo2 (3 cpu, n1 only) waits behind
    that nomination from 6 s."""
    st = "2026-03-01T09:00:00Z"
    evs = [ev(0, "ADDED", make_node("n1").alloc(cpu="4", memory="8Gi").obj()),
           ev(0, "ADDED", make_node("n2").alloc(cpu="4", memory="8Gi").obj()),
           ev(0, "ADDED", make_pod("fill").priority(1000).req(cpu="4").start_time(st).on("n2").obj())]
    evs += [ev(0, "ADDED", make_pod(f"low-{n}").priority(1).req(cpu="2").start_time(st)
               .set("spec.terminationGracePeriodSeconds", grace).on("n1").obj()) for n in ("a", "b")]
    evs += [ev(5, "ADDED", make_pod("hi").priority(100).req(cpu="2").obj()),
            ev(6, "ADDED", make_pod("lo2").priority(50).req(cpu="3")
               .node_selector(**{"kubernetes.io/hostname": "n1"}).obj())]
    return evs


def _lo2_preempts(evs: list[dict[str, Any]], version: str) -> list[str]:
    from kubectl_preempt.replay.api import replay
    report = replay(trace(*evs, end=80), kubernetes_version=version)
    return [p["time"] for p in report["preemptions"] if p["preemptor"] == "default/lo2"]


def test_binding_a_nominated_pod_requeues_lower_priority_pods_in_v1_33_and_v1_34() -> None:
    # eventhandlers.go: in v1.33 and v1.34 a binding is the unscheduled-pod informer's OnDelete of
    # the pod as it was (FilteringResourceEventHandler), and deletePodFromSchedulingQueue moves the
    # pods of lower or equal priority its nomination held room from (AssignedPodDelete); v1.35's
    # deletePodFromSchedulingQueue(pod, inBinding=true) returns before that. A small node n3
    # appears and hi is bound there, its nomination still on.
    evs = _lo2_behind_hi(30) + [ev(10, "ADDED", make_node("n3").alloc(cpu="2", memory="8Gi").obj())]
    assert _lo2_preempts(evs, "v1.34") == ["2026-03-01T10:00:10Z"]
    assert _lo2_preempts(evs, "v1.33") == ["2026-03-01T10:00:10Z"]
    assert _lo2_preempts(evs, "v1.35")[0] > "2026-03-01T10:00:30Z"


def test_deleting_a_nominated_pending_pod_requeues_lower_priority_pods_from_v1_33() -> None:
    # eventhandlers.go deletePodFromSchedulingQueue: v1.33 added the AssignedPodDelete move of the
    # pods of lower or equal priority when the deleted pending pod had a nominated node; v1.32 moves
    # them only for a pod rejected at Permit, so lo2 waits (here past the trace's end)
    evs = _lo2_behind_hi(300)
    evs.append(ev(12, "DELETED", evs[-2]["object"]))
    assert _lo2_preempts(evs, "v1.33") == ["2026-03-01T10:00:12Z"]
    assert _lo2_preempts(evs, "v1.32") == []
