"""Objects as the scheduler and kube-batch leave them, for history's tests."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.model.rfc3339 import format_seconds


def iso(t: float) -> str:
    return format_seconds(t)


def preempted_event(victim: str, victim_uid: str, preemptor_uid: str, node: str, t: float, *,
                    related: str | None = None, group: str = "v1", uid: str | None = None,
                    message: str | None = None) -> dict[str, Any]:
    """kube-scheduler's Preempted Event on a victim (framework/preemption PreemptPod), as core/v1
    (`group` "v1": involvedObject, message) or events.k8s.io/v1 (regarding, note) serve it."""
    ns, name = victim.split("/")
    ref = {"kind": "Pod", "namespace": ns, "name": name, "uid": victim_uid, "apiVersion": "v1"}
    text = message if message is not None else f"Preempted by pod {preemptor_uid} on node {node}"
    md = {"name": f"{name}.{int(t * 1000):x}", "namespace": ns, "uid": uid or f"ev-{name}-{group}",
          "creationTimestamp": iso(int(t))}
    e: dict[str, Any] = {"apiVersion": group, "kind": "Event", "metadata": md, "reason": "Preempted",
                         "type": "Normal", "action": "Preempting", "eventTime": iso(t)}
    if group == "v1":
        e.update({"involvedObject": ref, "message": text, "reportingComponent": "default-scheduler",
                  "reportingInstance": "default-scheduler-cp", "source": {}})
    else:
        e.update({"regarding": ref, "note": text, "reportingController": "default-scheduler",
                  "reportingInstance": "default-scheduler-cp"})
    if related:
        rns, rname = related.split("/")
        e["related"] = {"kind": "Pod", "namespace": rns, "name": rname, "uid": preemptor_uid, "apiVersion": "v1"}
    return e


def with_condition(pod: dict[str, Any], t: float) -> dict[str, Any]:
    """The DisruptionTarget condition PreemptPod patches onto a victim."""
    pod.setdefault("status", {}).setdefault("conditions", []).append(
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
         "message": "default-scheduler: preempting to accommodate a higher priority pod",
         "lastTransitionTime": iso(int(t))})
    return pod


def evict_event(group: str, action: str, t: float, *, count: int = 1) -> dict[str, Any]:
    """kube-batch's Evict Event on a PodGroup (cache.go SchedulerCache.Evict), through core/v1."""
    ns, name = group.split("/")
    return {"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{name}.{int(t):x}", "namespace": ns, "uid": f"ev-evict-{name}-{int(t)}"},
            "involvedObject": {"kind": "PodGroup", "namespace": ns, "name": name, "uid": f"uid-pg-{name}",
                               "apiVersion": "scheduling.incubator.k8s.io/v1alpha1"},
            "reason": "Evict", "message": action, "type": "Normal", "count": count,
            "firstTimestamp": iso(int(t)), "lastTimestamp": iso(int(t)), "source": {"component": "kube-batch"}}
