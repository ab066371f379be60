"""Plugins own their requeue rules: each plugin that can reject a pod declares the events that may
make it schedulable again, with a hint (EventsToRegister); the scheduler gathers them per profile
(buildQueueingHintMap) and the scheduling queue asks them, and takes its order from the profile's
QueueSort plugin."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from kubectl_preempt.errors import InputError

from kubectl_preempt.framework import events as ev
from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.framework.interface import EnqueueExtensions
from kubectl_preempt.framework.status import Status
from kubectl_preempt.framework.versions import V1_34_1, V1_36_2
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins import names
from kubectl_preempt.scheduler.backend.queue import ACTIVE, BACKOFF, UNSCHEDULABLE, SchedulingQueue, default_queue_setup
from kubectl_preempt.scheduler.schedule_one import SCHEDULED
from kubectl_preempt.framework.runtime import build_queueing_hint_map, enqueue_extensions
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pod


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def node(name: str = "n1", cpu: str = "4") -> Any:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods="110")


def _schedule(objects: list[dict], version: Any) -> tuple[Scheduler, Pod, Any]:
    cluster = Cluster.from_objects(objects)
    sched = Scheduler(cluster, parse_config(None, version=version))
    pod = cluster.pods["default/p"]
    return sched, pod, sched.schedule(pod)


# --- every plugin that can reject declares its events ----------------------------------------------

@pytest.mark.parametrize("version", [V1_34_1, V1_36_2], ids=lambda v: v.name)
def test_every_plugin_that_can_reject_a_pod_declares_its_events(version: Any) -> None:
    sched = Scheduler(Cluster(), parse_config(None, version=version))
    fwk = sched.framework_for_profile("default-scheduler")
    plugins = enqueue_extensions(fwk)
    for pl in fwk.points["filter"] + fwk.points["preFilter"] + fwk.points["preEnqueue"]:
        assert pl in plugins
    undeclared = [pl.name for pl in plugins if not isinstance(pl, EnqueueExtensions)]
    assert undeclared == []  # none falls back to "every event"
    hints = sched.queueing_hints()["default-scheduler"]
    # score-only plugins have no say on requeueing
    assert names.IMAGE_LOCALITY not in hints.plugins
    assert names.NODE_RESOURCES_BALANCED_ALLOCATION not in hints.plugins
    assert (names.NODE_DECLARED_FEATURES in hints.plugins) is version.features.enable_node_declared_features


def test_a_plugin_at_a_rejecting_point_without_declared_events_is_registered_for_every_event() -> None:
    class Gate:
        name = "Gate"

        def pre_enqueue(self, pod: Pod) -> Status:
            return Status()

    cfg = parse_config({"profiles": [{"schedulerName": "default-scheduler",
                                      "plugins": {"preEnqueue": {"enabled": [{"name": "Gate"}]}}}]})
    sched = Scheduler(Cluster(), cfg, out_of_tree_registry={"Gate": lambda args, handle: Gate()})
    hints = build_queueing_hint_map(sched.framework_for_profile("default-scheduler"))
    for event in (ev.EVENT_NODE_ADD, ev.EVENT_ASSIGNED_POD_DELETE, ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD)):
        assert hints.registered("Gate", event)


# --- the declared events cover what each Filter reads ---------------------------------------------
# Each scenario: a pod one plugin rejects, a change of the cluster that lets the pod schedule (run
# through the scheduler to prove it), and a change that helps nothing. The queue, built from the
# plugins' own registrations, must requeue the pod on the first and leave it on the second.

Change = Callable[[], tuple[list[dict], ev.ClusterEvent, Any, Any]]


def _node_change(before: dict, after: dict, objs: list[dict]) -> tuple[list[dict], ev.ClusterEvent, Any, Any]:
    old, new = Node(before), Node(after)
    event = ev.node_scheduling_properties_change(old, new)
    assert event is not None
    return [after] + objs, event, old, new


def _pod_deleted(victim: dict, objs: list[dict]) -> tuple[list[dict], ev.ClusterEvent, Any, Any]:
    return objs, ev.EVENT_ASSIGNED_POD_DELETE, Pod(victim), None


def _node_added(new: dict, objs: list[dict]) -> tuple[list[dict], ev.ClusterEvent, Any, Any]:
    return [new] + objs, ev.EVENT_NODE_ADD, None, Node(new)


def _scenarios() -> list[tuple[str, str, list[dict], Change, Change]]:
    pending = make_pod("p").req(cpu="2")
    hog = make_pod("hog").req(cpu="3").on("n1").obj()
    web = make_pod("web").label("app", "db").on("n1").obj()
    port = make_pod("port").host_port(8080).on("n1").obj()
    n1 = node().obj()
    tainted = node().taint("dedicated", "gpu").obj()
    cordoned = node().unschedulable().obj()
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    spread = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    annotated = node().set("metadata.annotations", {"note": "x"})
    return [
        ("NodeResourcesFit: a bound pod deleted", names.NODE_RESOURCES_FIT,
         [n1, hog, pending.obj()],
         lambda: _pod_deleted(hog, [n1, pending.obj()]),
         lambda: _pod_deleted(make_pod("idle").obj(), [n1, hog, pending.obj()])),
        ("NodeResourcesFit: the node's allocatable grows", names.NODE_RESOURCES_FIT,
         [n1, hog, pending.obj()],
         lambda: _node_change(n1, node(cpu="8").obj(), [hog, pending.obj()]),
         lambda: _node_change(n1, node().set("metadata.annotations", {"note": "x"}).obj(), [hog, pending.obj()])),
        ("TaintToleration: the taint is removed", names.TAINT_TOLERATION,
         [tainted, pending.obj()],
         lambda: _node_change(tainted, n1, [pending.obj()]),
         lambda: _node_change(tainted, node().taint("dedicated", "gpu").label("x", "y").obj(), [pending.obj()])),
        ("NodeUnschedulable: the node is uncordoned", names.NODE_UNSCHEDULABLE,
         [cordoned, pending.obj()],
         lambda: _node_change(cordoned, n1, [pending.obj()]),
         lambda: _node_change(cordoned, node().unschedulable().label("x", "y").obj(), [pending.obj()])),
        ("NodeAffinity: the node gets the label", names.NODE_AFFINITY,
         [n1, make_pod("p").req(cpu="2").node_selector(disk="ssd").obj()],
         lambda: _node_change(n1, node().label("disk", "ssd").obj(), [make_pod("p").req(cpu="2").node_selector(disk="ssd").obj()]),
         lambda: _node_change(n1, node().label("disk", "hdd").obj(), [make_pod("p").req(cpu="2").node_selector(disk="ssd").obj()])),
        ("NodePorts: the pod holding the port is deleted", names.NODE_PORTS,
         [n1, port, make_pod("p").host_port(8080).obj()],
         lambda: _pod_deleted(port, [n1, make_pod("p").host_port(8080).obj()]),
         lambda: _pod_deleted(make_pod("other").host_port(9090).on("n1").obj(), [n1, port, make_pod("p").host_port(8080).obj()])),
        ("NodeName: the named node is added", names.NODE_NAME,
         [n1, make_pod("p").set("spec.nodeName", "n2").obj()],
         lambda: _node_added(node("n2").obj(), [n1, make_pod("p").set("spec.nodeName", "n2").obj()]),
         lambda: _node_change(n1, annotated.obj(), [make_pod("p").set("spec.nodeName", "n2").obj()])),
        ("InterPodAffinity: the pod it must avoid is deleted", names.INTER_POD_AFFINITY,
         [n1, web, make_pod("p").affinity(anti).obj()],
         lambda: _pod_deleted(web, [n1, make_pod("p").affinity(anti).obj()]),
         lambda: _node_change(n1, annotated.obj(), [web, make_pod("p").affinity(anti).obj()])),
        ("PodTopologySpread: the node gets the topology label", names.POD_TOPOLOGY_SPREAD,
         [n1, make_pod("p").label("app", "web").spread(spread).obj()],
         lambda: _node_change(n1, node().label("zone", "a").obj(), [make_pod("p").label("app", "web").spread(spread).obj()]),
         lambda: _node_change(n1, annotated.obj(), [make_pod("p").label("app", "web").spread(spread).obj()])),
    ]


SCENARIOS = _scenarios()


@pytest.mark.parametrize("version", [V1_34_1, V1_36_2], ids=lambda v: v.name)
@pytest.mark.parametrize("plugin, before, helps, idle", [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_the_change_a_filter_reads_requeues_the_pod_it_rejected(plugin: str, before: list[dict], helps: Change,
                                                                 idle: Change, version: Any) -> None:
    sched, pod, res = _schedule(before, version)
    assert res.outcome != SCHEDULED
    assert res.diagnosis.unschedulable_plugins == {plugin}
    after, event, old, new = helps()
    _, _, res_after = _schedule(after, version)
    assert res_after.outcome == SCHEDULED  # the change really lets the pod schedule

    for change, requeued in ((helps, True), (idle, False)):
        clock = Clock()
        q = SchedulingQueue(clock, queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
        q.add(pod)
        p = q.pop()
        assert q.add_unschedulable_if_not_present(p, res.diagnosis.unschedulable_plugins,
                                                  res.diagnosis.pending_plugins) == UNSCHEDULABLE
        clock.t += 30  # past its backoff
        _, event, old, new = change()
        q.move_all_to_active_or_backoff(event, old, new)
        assert q.where(pod) == (ACTIVE if requeued else UNSCHEDULABLE)


EVENTS = [ev.EVENT_ASSIGNED_POD_ADD, ev.EVENT_ASSIGNED_POD_DELETE, ev.EVENT_NODE_ADD, ev.EVENT_NODE_DELETE,
          ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL), ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT),
          ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_ALLOCATABLE), ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_ANNOTATION),
          ev.ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ADD), ev.ClusterEvent(ev.STORAGE_CLASS, ev.UPDATE),
          ev.ClusterEvent(ev.RESOURCE_SLICE, ev.ADD)]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: f"{e.resource}/{e.action}")
def test_a_plugin_is_asked_only_about_the_events_it_registered(event: ev.ClusterEvent) -> None:
    """A pod rejected by one plugin: an event that plugin did not register for never requeues it;
    one it registered for without a hint always does; with a hint, the hint decides."""
    sched = Scheduler(Cluster(), parse_config(None))
    hints = sched.queueing_hints()["default-scheduler"]
    fwk = sched.framework_for_profile("default-scheduler")
    pending = Pod(make_pod("p").req(cpu="2").obj())
    bound = Pod(make_pod("b").req(cpu="1").on("n1").obj())
    n_old, n_new = Node(node().obj()), Node(node(cpu="8").label("a", "b").obj())
    old, new = {(ev.POD, ev.ADD): (None, bound), (ev.POD, ev.DELETE): (bound, None),
                (ev.NODE, ev.ADD): (None, n_new), (ev.NODE, ev.DELETE): (n_old, None)}.get(
        (event.resource, event.action), (n_old, n_new) if event.resource == ev.NODE else (None, {}))
    for pl in enqueue_extensions(fwk):
        declared = list(pl.events_to_register())
        node_actions = 0
        for r in declared:
            node_actions |= r.event.action if r.event.resource == ev.NODE else 0
        if node_actions & ev.ADD and not node_actions & ev.UPDATE_NODE_TAINT:
            # buildQueueingHintMap (kubernetes#109437): Node/Add without UpdateNodeTaint gets
            # UpdateNodeTaint too, with no hint
            declared.append(ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT)))
        regs = [r for r in declared if r.event.resource == event.resource and r.event.action & event.action]
        if not regs:
            expected = False
        elif any(r.hint is None for r in regs):
            expected = True
        else:
            expected = any(r.hint(pending, old, new) for r in regs)
        clock = Clock()
        q = SchedulingQueue(clock, queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
        q.add(pending)
        p = q.pop()
        q.add_unschedulable_if_not_present(p, {pl.name})
        clock.t += 30
        q.move_all_to_active_or_backoff(event, old, new)
        assert (q.where(pending) == ACTIVE) is expected, pl.name
        assert hints.registered(pl.name, event) is bool(regs), pl.name


# --- the queue's order is the QueueSort plugin's -----------------------------------------------------

class FIFOSort:
    """A QueueSort plugin of one's own: first come, first served, whatever the priority."""

    name = "FIFOSort"

    def less(self, a: Any, b: Any) -> bool:
        return a.timestamp < b.timestamp


def _pop_order(q: SchedulingQueue, clock: Clock) -> list[str]:
    for name, prio in (("low-early", 1), ("high-late", 100), ("mid-later", 50)):
        q.add(Pod(make_pod(name).priority(prio).obj()))
        clock.t += 1
    order = []
    while (p := q.pop()) is not None:
        order.append(p.pod.name)
    return order


def test_the_queue_pops_in_the_order_of_the_profiles_queue_sort_plugin() -> None:
    cfg = parse_config({"profiles": [{"schedulerName": "default-scheduler", "plugins": {"queueSort": {
        "enabled": [{"name": "FIFOSort"}], "disabled": [{"name": "*"}]}}}]})
    sched = Scheduler(Cluster(), cfg, out_of_tree_registry={"FIFOSort": lambda args, handle: FIFOSort()})
    clock = Clock()
    q = SchedulingQueue(clock, queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
    assert _pop_order(q, clock) == ["low-early", "high-late", "mid-later"]

    default = Scheduler(Cluster(), parse_config(None))
    clock = Clock()
    q = SchedulingQueue(clock, queueing_hints=default.queueing_hints(), less=default.queue_sort_less())
    assert _pop_order(q, clock) == ["high-late", "mid-later", "low-early"]  # PrioritySort


def test_profiles_with_different_queue_sort_plugins_are_refused_in_upstreams_words() -> None:
    # profile.NewMap's cfgValidator: one queue serves every profile, so all must sort alike
    cfg = parse_config({"profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "fifo", "plugins": {"queueSort": {"enabled": [{"name": "FIFOSort"}],
                                                            "disabled": [{"name": "*"}]}}}]})
    with pytest.raises(InputError) as e:
        Scheduler(Cluster(), cfg, out_of_tree_registry={"FIFOSort": lambda args, handle: FIFOSort()})
    assert 'different queue sort plugins for profile "fifo": "FIFOSort", first: "PrioritySort"' in str(e.value)


def test_profiles_with_the_same_queue_sort_plugin_but_different_args_are_refused() -> None:
    # the same check compares the plugin's args too: one Less must serve every profile
    fifo = {"queueSort": {"enabled": [{"name": "FIFOSort"}], "disabled": [{"name": "*"}]}}
    def profile(name: str, x: int) -> dict:
        return {"schedulerName": name, "plugins": fifo, "pluginConfig": [{"name": "FIFOSort", "args": {"x": x}}]}
    registry = {"FIFOSort": lambda args, handle: FIFOSort()}
    Scheduler(Cluster(), parse_config({"profiles": [profile("a", 1), profile("b", 1)]}), out_of_tree_registry=registry)
    with pytest.raises(InputError) as e:
        Scheduler(Cluster(), parse_config({"profiles": [profile("a", 1), profile("b", 2)]}), out_of_tree_registry=registry)
    assert str(e.value).endswith('different queue sort plugin args for profile "b"')
    assert "profiles[1].plugins.queueSort" in str(e.value)


# --- a pending pod's own update -------------------------------------------------------------------

def _own_update_cases() -> list[tuple[str, list[dict], dict, dict, bool]]:
    n1 = node().obj()
    tainted = node().taint("dedicated", "gpu").obj()
    cordoned = node().unschedulable().obj()
    tolerates_gpu = make_pod("p").req(cpu="2").toleration("dedicated", "gpu", "NoSchedule")
    tolerates_cordon = make_pod("p").req(cpu="2").toleration("node.kubernetes.io/unschedulable", "", "NoSchedule",
                                                            operator="Exists")
    return [
        ("TaintToleration: the pod gets the toleration", [tainted], make_pod("p").req(cpu="2").obj(),
         tolerates_gpu.obj(), True),
        ("TaintToleration: only the pod's labels change", [tainted], make_pod("p").req(cpu="2").obj(),
         make_pod("p").req(cpu="2").label("a", "b").obj(), False),
        ("NodeUnschedulable: the pod tolerates the cordon", [cordoned], make_pod("p").req(cpu="2").obj(),
         tolerates_cordon.obj(), True),
        ("NodeResourcesFit: the pod asks for less", [n1, make_pod("hog").req(cpu="3").on("n1").obj()],
         make_pod("p").req(cpu="2").obj(), make_pod("p").req(cpu="1").obj(), True),
        ("NodeResourcesFit: only the pod's labels change", [n1, make_pod("hog").req(cpu="3").on("n1").obj()],
         make_pod("p").req(cpu="2").obj(), make_pod("p").req(cpu="2").label("a", "b").obj(), False),
    ]


OWN = _own_update_cases()


@pytest.mark.parametrize("objects, before, after, requeued", [c[1:] for c in OWN], ids=[c[0] for c in OWN])
def test_a_pending_pods_own_update_requeues_it_when_its_rejecting_plugin_registered_that_change(
        objects: list[dict], before: dict, after: dict, requeued: bool) -> None:
    sched, pod, res = _schedule(objects + [before], V1_34_1)
    assert res.outcome != SCHEDULED
    _, _, res_after = _schedule(objects + [after], V1_34_1)
    assert (res_after.outcome == SCHEDULED) is requeued  # the update really helps, or really does not
    clock = Clock()
    q = SchedulingQueue(clock, queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
    q.add(pod)
    p = q.pop()
    q.add_unschedulable_if_not_present(p, res.diagnosis.unschedulable_plugins, res.diagnosis.pending_plugins)
    clock.t += 30
    new = Pod(after)
    new.priority = pod.priority
    q.update(pod, new)
    assert q.where(new) == (ACTIVE if requeued else UNSCHEDULABLE)


# --- a plugin that left the pod Pending ---------------------------------------------------------------

class Waiter:
    """A plugin of one's own that makes pods wait (Pending) for an assigned pod to appear."""

    name = "Waiter"

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status:
        return Status()

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.ADD))]


@pytest.mark.parametrize("pending, where", [(True, ACTIVE), (False, BACKOFF)],
                         ids=["a pod a plugin left Pending goes to activeQ at once, backoff or not",
                              "a pod the same plugin found unschedulable waits out its backoff"])
def test_a_queue_from_a_plugin_that_left_the_pod_pending_skips_the_backoff(pending: bool, where: str) -> None:
    cfg = parse_config({"profiles": [{"schedulerName": "default-scheduler",
                                      "plugins": {"filter": {"enabled": [{"name": "Waiter"}]}}}]})
    sched = Scheduler(Cluster(), cfg, out_of_tree_registry={"Waiter": lambda args, handle: Waiter()})
    clock = Clock()
    q = SchedulingQueue(clock, queueing_hints=sched.queueing_hints(), less=sched.queue_sort_less())
    pod = Pod(make_pod("p").obj())
    q.add(pod)
    p = q.pop()
    if pending:
        q.add_unschedulable_if_not_present(p, (), {"Waiter"})
    else:
        q.add_unschedulable_if_not_present(p, {"Waiter"})
    clock.t += 0.5  # still backing off (1 s after its first failure)
    assert q.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_ADD, None, Pod(make_pod("b").on("n1").obj())) == 1
    assert q.where(pod) == where


def test_a_queue_built_without_a_scheduler_gets_the_default_profiles_declared_events_and_queue_sort() -> None:
    # default_queue_setup reads the plugins' own declarations; it must register what a Scheduler
    # over the default configuration registers, plugin for plugin and event for event
    hints, less = default_queue_setup()
    sched = Scheduler(Cluster(), parse_config(None))
    want = sched.queueing_hints()
    assert list(hints) == list(want) == ["default-scheduler"]
    got_map, want_map = hints["default-scheduler"], want["default-scheduler"]
    assert got_map.plugins == want_map.plugins
    assert {r: [(a, p) for a, p, _ in regs] for r, regs in got_map.by_resource.items()} == \
        {r: [(a, p) for a, p, _ in regs] for r, regs in want_map.by_resource.items()}
    high, low = Pod(make_pod("h").priority(10).obj()), Pod(make_pod("l").priority(1).obj())

    class Q:
        def __init__(self, pod: Pod) -> None:
            self.pod, self.timestamp = pod, 0.0

    assert less(Q(high), Q(low)) and not less(Q(low), Q(high))


@pytest.mark.parametrize("release, gates, registered", [
    ("v1.32", None, False), ("v1.33", None, False), ("v1.34", None, True),
    ("v1.34", {"SchedulerAsyncPreemption": False}, False), ("v1.36", None, True)],
    ids=["v1.32 (alpha, off)", "v1.33 (on, but v1.33.0 registers nothing)", "v1.34 (on)", "v1.34 turned off",
         "v1.36"])
def test_default_preemption_registers_pod_deletions_only_with_asynchronous_preemption(release: str, gates: Any,
                                                                                      registered: bool) -> None:
    # default_preemption.go EventsToRegister: v1.34.1 on, Pod/Delete (always QueueSkip) with
    # fts.EnableAsyncPreemption, nothing without; v1.33.0 returns nil whatever the gate
    from kubectl_preempt.framework.versions import apply_feature_gates, by_name
    version = apply_feature_gates(by_name(release), gates)
    hints = Scheduler(Cluster(), parse_config(None, version=version)).queueing_hints()["default-scheduler"]
    assert (names.DEFAULT_PREEMPTION in hints.plugins) is registered
