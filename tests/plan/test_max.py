"""`plan --max`: the count on free room is cluster-capacity's count (copies scheduled one after
another with the same filters and scores, each bound where it goes, no preemption); the count
with preemption is what a replay of the same copies, arriving at the same times, places."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import kubectl_preempt
from kubectl_preempt.framework.config import parse_config
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plan.capacity import plan_max
from kubectl_preempt.replay.state import format_time, parse_time
from kubectl_preempt.scheduler.scheduler import Scheduler

from .synthetic import copy_pod, snapshot

DEMO = Path(__file__).resolve().parents[2] / "examples" / "cluster.json"


def free_room_count(objects: list[dict], template: dict, limit: int) -> int:
    """cluster-capacity's loop, written independently of the replay: schedule a copy on the
    current cluster; if a node fits, bind it there and go on; stop at the first that does not."""
    cluster = Cluster.from_objects(objects)
    cfg = parse_config(None)
    n = 0
    while n < limit:
        raw = copy.deepcopy(template)
        raw["metadata"].update(name=f"cc-{n}", uid=f"cc-{n}")
        pod = Pod(raw)
        pod.priority, pod.has_priority = raw["spec"]["priority"], True
        res = Scheduler(cluster, cfg).schedule(pod)
        if res.outcome != "Scheduled":
            return n
        raw["spec"]["nodeName"] = res.suggested_host
        raw["status"] = {"phase": "Running"}
        bound = Pod(raw)
        bound.priority, bound.has_priority = pod.priority, True
        cluster.pods[bound.key] = bound
        n += 1
    return n


def replay_copies(objects: list[dict], report: dict, template: dict) -> dict:
    """The snapshot, then each copy created at the time the search created it."""
    start = parse_time(report["snapshot"]["time"])
    events = [{"time": format_time(start), "ts": start, "type": "ADDED", "object": o} for o in objects]
    for c in report["copies"]:
        ns, name = c["pod"].split("/")
        raw = copy.deepcopy(template)
        raw["metadata"].update(name=name, namespace=ns, uid=f"plan-max-{ns}-{name}")
        t = start + c["arrivedSeconds"]
        events.append({"time": format_time(t), "ts": t, "type": "ADDED", "object": raw})
    end = parse_time(report["end"])
    events.append({"time": format_time(end), "ts": end, "type": "BOOKMARK", "object": {}})
    return kubectl_preempt.replay({"header": {"startTime": format_time(start)}, "events": events})


def _template(report: dict, manifest: dict) -> dict:
    t = copy.deepcopy(manifest)
    t["metadata"] = {"namespace": t["metadata"].get("namespace", "default"), "labels": t["metadata"].get("labels", {})}
    t["spec"]["priority"] = report["template"]["priority"]
    t["spec"]["preemptionPolicy"] = report["template"]["preemptionPolicy"]
    return t


def _bound_copies(rep: dict, report: dict) -> set[str]:
    keys = {c["pod"] for c in report["copies"]}
    pods = rep["activity"]["pods"]
    bound = {pods[e[2]]["key"] for e in rep["activity"]["events"] if e[0] == "bound"}
    gone = {pods[e[2]]["key"] for e in rep["activity"]["events"] if e[0] == "deleted"}
    return (bound - gone) & keys


API_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "api", "namespace": "shop", "labels": {"app": "api"}},
           "spec": {"priorityClassName": "serving",
                    "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def test_max_on_the_demo_snapshot() -> None:
    objects = json.loads(DEMO.read_text())["items"]
    report = plan_max(objects, ("api.yaml", "", API_POD), keep_state=True)
    template = _template(report, API_POD)
    assert report["withoutPreemption"]["count"] == free_room_count(report["stateAtFirstCopy"], template, 100)
    assert report["withPreemption"]["count"] > report["withoutPreemption"]["count"]
    assert report["withPreemption"]["stoppedAt"]["reason"] == "Unschedulable"
    assert report["withPreemption"]["stoppedAt"]["message"].startswith("0/4 nodes are available: ")
    assert report["victims"]["total"] == sum(v["victims"] for v in report["victims"]["byPriorityClass"])
    rep = replay_copies(objects, report, template)
    assert len(_bound_copies(rep, report)) == report["withPreemption"]["count"]
    last = report["copies"][-1]["pod"]
    assert last in {p["pod"] for p in rep["summary"]["neverScheduled"]}


def test_max_without_a_class_that_resolves_is_bad_input() -> None:
    objects = json.loads(DEMO.read_text())["items"]
    bad = copy.deepcopy(API_POD)
    bad["spec"]["priorityClassName"] = "gold"
    with pytest.raises(kubectl_preempt.errors.InputError) as e:
        plan_max(objects, ("api.yaml", "", bad))
    assert str(e.value).startswith("api.yaml: Pod api: spec.priorityClassName: ")


def test_max_on_a_1000_node_snapshot() -> None:
    # one CPU free on every twentieth node (none of them among the tainted): 50 copies fit on free room,
    # then each preempts one low pod
    objects = snapshot(1000, low_per_node=4, tainted_every=50, free_every=20)
    manifest = copy_pod()
    report = plan_max(objects, ("synthetic", "", manifest), max_count=70, keep_state=True)
    template = _template(report, manifest)
    assert report["withoutPreemption"]["count"] == free_room_count(report["stateAtFirstCopy"], template, 70) == 50
    assert report["withPreemption"]["count"] == 70
    assert report["withPreemption"]["stoppedAt"]["reason"] == "MaxCount"
    assert report["victims"]["total"] == 20
    rep = replay_copies(objects, report, template)
    assert len(_bound_copies(rep, report)) == 70
