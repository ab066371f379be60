"""Traces for the HTML report's tests, built from tests/builders, each with its replay.

- zones: serving and batch across two zones (node pools), a PDB on batch, a burst of serving pods,
  a node added later, a pod completing, one pod that never gets a node (simulate mode);
- recorded: what a real cluster's recording of one preemption looks like (follow mode);
- fleet: more nodes than GROUP_THRESHOLD, in pools and zones, with preemptions in one pool;
- storm: many preemptions, for the page's size;
- gangs: v1.36 pod groups: a gang that preempts a PodGroup evicted whole and a single pod.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.replay.view import ActivityRecorder
from kubectl_preempt.replay.api import replay
from tests.builders import make_gang, make_node, make_pdb, make_pod, make_priority_class
from tests.replay.helpers import T0, ev, trace

CLASSES = [make_priority_class("critical-serving", 100000), make_priority_class("serving", 10000),
           make_priority_class("batch", 100), make_priority_class("best-effort", -10)]


def _batch(name: str, node: str | None = None, cpu: str = "2", ns: str = "batch", cls: str = "batch",
           prio: int = 100, grace: int | None = None) -> dict[str, Any]:
    b = make_pod(name).ns(ns).priority(prio).priority_class(cls).req(cpu=cpu, memory="1Gi").label("app", name.rsplit("-", 1)[0])
    if node:
        b = b.on(node).start_time(T0)
    if grace is not None:
        b = b.set("spec.terminationGracePeriodSeconds", grace)
    return b.obj()


def zones() -> dict[str, Any]:
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    for i in range(4):
        zone = "eu-a" if i < 2 else "eu-b"
        evs.append(ev(0, "ADDED", make_node(f"node-{i}").alloc(cpu="8", memory="16Gi").zone(zone)
                      .label("cloud.google.com/gke-nodepool", "general").obj()))
    for i in range(8):
        evs.append(ev(0, "ADDED", _batch(f"etl-{i}", f"node-{i % 4}", cpu="3", grace=20)))
    for i in range(4):
        evs.append(ev(0, "ADDED", _batch(f"scratch-{i}", f"node-{i}", cpu="1", ns="sandbox", cls="best-effort",
                                         prio=-10, grace=5)))
    evs.append(ev(0, "ADDED", make_pdb("etl", {"matchLabels": {"app": "etl"}}, 1, namespace="batch")))
    t = 30
    for i in range(6):
        evs.append(ev(t + 5 * i, "ADDED", make_pod(f"web-{i}").ns("shop").priority(10000).priority_class("serving")
                      .req(cpu="4", memory="2Gi").obj()))
    # a completing batch pod frees room: it ran 100 s in the recording
    evs.append(ev(120, "MODIFIED", make_pod("etl-7").ns("batch").priority(100).priority_class("batch")
                  .req(cpu="3", memory="1Gi").label("app", "etl").on("node-3").set("status.phase", "Succeeded").obj()))
    evs.append(ev(150, "ADDED", make_node("node-4").alloc(cpu="8", memory="16Gi").zone("eu-b")
                  .label("cloud.google.com/gke-nodepool", "general").obj()))
    evs.append(ev(200, "ADDED", make_pod("checkout-0").ns("shop").priority(100000).priority_class("critical-serving")
                  .req(cpu="6", memory="2Gi").obj()))
    evs.append(ev(240, "ADDED", make_pod("giant").ns("batch").priority(100).priority_class("batch")
                  .req(cpu="64").obj()))
    evs.append(ev(300, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "zones-test"}}, "events": evs}


def recorded() -> dict[str, Any]:
    """A recording of one preemption as a cluster writes it: the preemptor nominated, the victims
    given the DisruptionTarget condition and deleted after their grace period, the preemptor bound."""
    disruption = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                  "message": "default-scheduler: preempting to accommodate a higher priority pod"}
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    for i in range(2):
        evs.append(ev(0, "ADDED", make_node(f"node-{i}").alloc(cpu="4", memory="8Gi").zone(f"z{i}").obj()))
    for i in range(4):
        evs.append(ev(0, "ADDED", _batch(f"etl-{i}", f"node-{i % 2}")))
    web = make_pod("web-0").ns("shop").priority(10000).priority_class("serving").req(cpu="3", memory="1Gi")
    evs.append(ev(10, "ADDED", web.obj()))
    evs.append(ev(10.2, "MODIFIED", web.nominated("node-0").obj()))
    for name in ("etl-0", "etl-2"):
        victim = _batch(name, "node-0")
        victim["status"]["conditions"] = [disruption]
        victim["metadata"]["deletionTimestamp"] = "2026-03-01T10:00:40Z"
        evs.append(ev(10.3, "MODIFIED", victim))
    for name in ("etl-0", "etl-2"):
        victim = _batch(name, "node-0")
        victim["status"]["conditions"] = [disruption]
        evs.append(ev(40, "DELETED", victim))
    bound = make_pod("web-0").ns("shop").priority(10000).priority_class("serving").req(cpu="3", memory="1Gi").on("node-0").obj()
    evs.append(ev(40.5, "MODIFIED", bound))
    evs.append(ev(50, "ADDED", make_pod("web-1").ns("shop").priority(10000).priority_class("serving").req(cpu="8").obj()))
    evs.append(ev(60, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "recorded-test"}}, "events": evs}


def fleet(nodes: int = 72) -> dict[str, Any]:
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    for i in range(nodes):
        pool = "gpu" if i < 12 else "general"
        zone = "eu-a" if i % 2 else "eu-b"
        b = make_node(f"n{i:03d}").zone(zone).label("cloud.google.com/gke-nodepool", pool)
        b = b.alloc(cpu="8", memory="32Gi", nvidia_com__gpu="4") if pool == "gpu" else b.alloc(cpu="8", memory="32Gi")
        evs.append(ev(0, "ADDED", b.obj()))
    for i in range(12):
        evs.append(ev(0, "ADDED", make_pod(f"infer-{i}").ns("ml").priority(100).priority_class("batch")
                      .req(cpu="1", memory="4Gi", nvidia_com__gpu="3").on(f"n{i:03d}").start_time(T0).obj()))
    for i in range(12, nodes):
        evs.append(ev(0, "ADDED", _batch(f"fill-{i}", f"n{i:03d}", cpu="6")))
    for i in range(4):
        evs.append(ev(20 + i, "ADDED", make_pod(f"train-{i}").ns("ml").priority(10000).priority_class("serving")
                      .req(cpu="2", memory="8Gi", nvidia_com__gpu="4").obj()))
    evs.append(ev(120, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "fleet-test"}}, "events": evs}


def storm(preemptions: int = 1000, nodes: int = 100) -> dict[str, Any]:
    """`preemptions` serving pods arriving one per second, each evicting one batch pod."""
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    for i in range(nodes):
        evs.append(ev(0, "ADDED", make_node(f"node-{i:03d}").alloc(cpu="64", memory="256Gi").zone(f"z{i % 3}").obj()))
    per_node = -(-preemptions // nodes)
    for i in range(nodes * per_node):
        evs.append(ev(0, "ADDED", _batch(f"batch-{i:05d}", f"node-{i % nodes:03d}", cpu=f"{64000 // per_node}m", grace=0)))
    for i in range(preemptions):
        evs.append(ev(1 + i, "ADDED", make_pod(f"web-{i:05d}").ns("shop").priority(10000).priority_class("serving")
                      .req(cpu=f"{64000 // per_node}m").obj()))
    evs.append(ev(preemptions + 30, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "storm-test"}}, "events": evs}


GANG_GATES = {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}


def gangs() -> dict[str, Any]:
    """Three nodes of 8 cpu, each with a member of batch/lowgang (3 cpu; disruptionMode PodGroup,
    so it is one victim unit) and a 1-cpu filler; node-0 also runs a 2-cpu pod. ml/train, a gang of
    three 6-cpu members, preempts for the whole cluster: lowgang goes whole, the filler of node-0
    goes, the other fillers and node-0's pod are reprieved."""
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    evs += [ev(0, "ADDED", make_node(f"node-{i}").alloc(cpu="8", memory="16Gi").obj()) for i in range(3)]
    evs.append(ev(0, "ADDED", make_gang("lowgang", 3, namespace="batch", priority=100, priority_class="batch",
                                        disruption_mode="PodGroup")))
    for i in range(3):
        evs.append(ev(0, "ADDED", make_pod(f"lowgang-{i}").ns("batch").priority(100).priority_class("batch")
                      .req(cpu="3", memory="1Gi").in_pod_group("lowgang").on(f"node-{i}").start_time(T0)
                      .set("spec.terminationGracePeriodSeconds", 10).obj()))
        evs.append(ev(0, "ADDED", _batch(f"filler-{i}", f"node-{i}", cpu="1", ns="sandbox", cls="best-effort",
                                         prio=-10, grace=5)))
    evs.append(ev(0, "ADDED", _batch("etl-0", "node-0", cpu="2", prio=100, grace=5)))
    evs.append(ev(10, "ADDED", make_gang("train", 3, namespace="ml", priority=10000, priority_class="serving")))
    for i in range(3):
        evs.append(ev(10, "ADDED", make_pod(f"train-{i}").ns("ml").priority(10000).priority_class("serving")
                      .req(cpu="6", memory="1Gi").in_pod_group("train").obj()))
    evs.append(ev(120, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "gangs-test"}}, "events": evs}


def run(tr: dict[str, Any], mode: str = "simulate", **kw: Any) -> tuple[dict[str, Any], ActivityRecorder]:
    """The replay's report of a trace, and what its scheduler did."""
    rec = ActivityRecorder()
    return replay(tr, mode=mode, listener=rec, **kw), rec


def run_gangs() -> tuple[dict[str, Any], ActivityRecorder]:
    """gangs() replayed as kube-scheduler v1.36 with the workload gates on."""
    return run(gangs(), kubernetes_version="v1.36", feature_gates=GANG_GATES)


def gang_followed() -> dict[str, Any]:
    """A recorded workload-aware preemption whose victim is another order's choice than the
    replay's own: two fillers of one priority, size and start on node-0, and the recording's
    Preempted Event (related to the PodGroup) names filler-0. Followed, its row is `tied`."""
    evs = [ev(0, "ADDED", pc) for pc in CLASSES]
    evs.append(ev(0, "ADDED", make_node("node-0").alloc(cpu="4", memory="16Gi").obj()))
    evs += [ev(0, "ADDED", _batch(f"filler-{i}", "node-0", cpu="2", ns="batch", prio=100, grace=5)) for i in range(2)]
    evs.append(ev(0, "ADDED", make_gang("train", 1, namespace="ml", priority=10000, priority_class="serving")))
    evs.append(ev(10, "ADDED", make_pod("train-0").ns("ml").priority(10000).priority_class("serving")
                  .req(cpu="2", memory="1Gi").in_pod_group("train").obj()))
    evs.append(ev(10.05, "ADDED", {
        "apiVersion": "v1", "kind": "Event", "metadata": {"name": "filler-0.1", "namespace": "batch"},
        "reason": "Preempted", "message": "Preempted by podgroup uid-pg-ml-train on node cluster",
        "involvedObject": {"kind": "Pod", "namespace": "batch", "name": "filler-0", "uid": "uid-filler-0"},
        "related": {"kind": "PodGroup", "namespace": "ml", "name": "train"}}))
    evs.append(ev(60, "BOOKMARK", {}))
    return {"header": {"startTime": T0, "source": {"context": "gang-followed-test"}}, "events": evs}


__all__ = ["zones", "recorded", "fleet", "storm", "gangs", "gang_followed", "run", "run_gangs", "trace"]


def check_rollout_html(page: Path) -> Any:
    """`check` of the bundled rollout trace against its proposed class, its HTML written to
    `page` and its document as JSON on stdout (the conftest's Run)."""
    from tests.conftest import REPO, run_cli

    rollout = REPO / "traces" / "priorityclass-rollout.jsonl.gz"
    proposed = REPO / "traces" / "proposed-platform-critical.yaml"
    if not (rollout.exists() and proposed.exists()):
        pytest.skip("the bundled rollout trace and its proposed class are not in traces/")
    return run_cli(["check", "-t", str(rollout), "-p", str(proposed), "--html", str(page), "-o", "json"])
