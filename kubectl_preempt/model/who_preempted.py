"""Who preempted my pod: what the cluster recorded about the scheduler preempting a pod.

kube-scheduler v1.34.1 leaves two traces (framework/preemption/preemption.go, prepareCandidate):
the victim's status gets a DisruptionTarget condition with reason PreemptionByScheduler while it
terminates, and a Preempted event "Preempted by pod <preemptor UID> on node <node>" is recorded
(kept about an hour by the API server, also after the pod is gone). This module reads them from
plain objects, wherever they came from: a live cluster, a snapshot, a trace.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

from ..errors import InputError

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
EVENT_REASON_PREEMPTED = "Preempted"
PREEMPTED_BY = re.compile(r"^Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)$")
# v1.36's executor.go PreemptPod: under workload-aware preemption the preemptor is a PodGroup, the
# node "cluster", and the Event's `related` names the PodGroup; a victim that was waiting at Permit
# or in PreBind is rejected there without an API call, and the sentence ends IN_MEMORY
IN_MEMORY = " (in kube-scheduler memory)."
# the node such an Event names: the search's one domain, the whole cluster (podgrouppreemption.go)
POD_GROUP_PREEMPTION_NODE = "cluster"
PREEMPTED_BY_ANY = re.compile(r"^Preempted by (?P<type>pod|podgroup) (?P<uid>\S+) on node (?P<node>\S+)"
                              r"(?P<memory> \(in kube-scheduler memory\)\.)?$")


def preempted_by(event: Mapping[str, Any]) -> tuple[str, str] | None:
    """(preemptor UID, node) of a Preempted event's message (events.k8s.io `note` or core
    `message`), or None when it says something else."""
    m = PREEMPTED_BY_ANY.match((event.get("message") or event.get("note") or "").strip())
    return (m.group("uid"), m.group("node")) if m else None


def preempted_in_memory(event: Mapping[str, Any]) -> bool:
    """Whether a Preempted event says its victim was rejected in the scheduler's memory (waiting at
    Permit or in PreBind: not deleted, back to the scheduling queue)."""
    m = PREEMPTED_BY_ANY.match((event.get("message") or event.get("note") or "").strip())
    return bool(m and m.group("memory"))


def event_time(ev: Mapping[str, Any]) -> str:
    series = ev.get("series") or {}
    return (series.get("lastObservedTime") or ev.get("lastTimestamp") or ev.get("eventTime")
            or ev.get("firstTimestamp") or (ev.get("metadata") or {}).get("creationTimestamp") or "")


def _pods_by_uid(objects: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for o in objects:
        if o.get("kind") == "Pod":
            uid = (o.get("metadata") or {}).get("uid")
            if uid:
                out[uid] = o
    return out


def pod_key(obj: Mapping[str, Any]) -> str:
    """namespace/name of an object."""
    md = obj.get("metadata") or {}
    return f"{md.get('namespace') or 'default'}/{md.get('name')}"


def preemption_record(pod: Mapping[str, Any] | None, events: list[Mapping[str, Any]],
                      objects: Iterable[Mapping[str, Any]],
                      pods_visible: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
    """What the cluster recorded about the scheduler preempting this pod, or None.

    Two traces exist (kube-scheduler v1.34.1, preemption.go): the victim's status gets a
    DisruptionTarget condition with reason PreemptionByScheduler (while it terminates), and a
    Preempted event "Preempted by pod <preemptor UID> on node <node>" (kept about an hour,
    also after the pod is gone). The UID is resolved to the preemptor's name when that pod is
    still in `objects`, else taken from the event's `related` reference. `pods_visible(ns)` says
    whether `objects` holds every pod of a namespace: a preemptor not found there is gone only
    then (default: `objects` holds every pod).
    """
    condition = None
    uid = None
    if pod is not None:
        uid = (pod.get("metadata") or {}).get("uid")
        for c in (pod.get("status") or {}).get("conditions") or ():
            if c.get("type") == DISRUPTION_TARGET and c.get("reason") == REASON_PREEMPTION_BY_SCHEDULER \
                    and c.get("status", "True") == "True":
                condition = c
    # events of this very pod first; an earlier pod of the same name (a StatefulSet replica,
    # recreated) is reported as such
    own = [e for e in events if uid is None or (e.get("involvedObject") or {}).get("uid") in (None, "", uid)]
    earlier = [e for e in events if e not in own]
    event = own[-1] if own else (earlier[-1] if earlier else None)
    if condition is None and event is None:
        return None

    record: dict[str, Any] = {"preempted": True, "sources": []}
    if condition is not None:
        record["sources"].append("condition")
        record["time"] = condition.get("lastTransitionTime")
        record["conditionMessage"] = condition.get("message") or ""
        if pod is not None and (pod.get("spec") or {}).get("nodeName"):
            record["node"] = pod["spec"]["nodeName"]
    if event is not None:
        record["sources"].append("event")
        msg = event.get("message") or event.get("note") or ""
        record["eventMessage"] = msg
        record["time"] = record.get("time") or event_time(event) or None
        by = preempted_by(event)
        if by is not None:
            record["preemptorUID"], record["node"] = by
            if preempted_in_memory(event):
                record["inSchedulerMemory"] = True
        record["reportingController"] = event.get("reportingComponent") or (event.get("source") or {}).get("component") or ""
        if event in earlier:
            record["earlierPodUID"] = (event.get("involvedObject") or {}).get("uid")
        related = event.get("related") or {}
        if related.get("name"):
            record["preemptorFromEvent"] = f"{related.get('namespace') or 'default'}/{related['name']}"
            record.setdefault("preemptorUID", related.get("uid"))
    record.setdefault("node", None)
    record.setdefault("time", None)

    preemptor_uid = record.get("preemptorUID")
    preemptor = _pods_by_uid(objects).get(preemptor_uid) if preemptor_uid else None
    if preemptor is not None:
        record["preemptor"] = pod_key(preemptor)
        spec = preemptor.get("spec") or {}
        status = preemptor.get("status") or {}
        if spec.get("nodeName"):
            record["preemptorState"] = "Scheduled"
            record["preemptorNode"] = spec["nodeName"]
        elif status.get("phase") in ("Succeeded", "Failed"):
            record["preemptorState"] = status["phase"]
        elif status.get("nominatedNodeName"):
            record["preemptorState"] = "Nominated"
            record["preemptorNode"] = status["nominatedNodeName"]
        else:
            record["preemptorState"] = "Pending"
        record["preemptorPriority"] = spec.get("priority")
    else:
        record["preemptor"] = record.get("preemptorFromEvent")
        ns = (record["preemptor"] or "").partition("/")[0] or None
        if not preemptor_uid:
            record["preemptorState"] = "Unknown"
        elif pods_visible is None or pods_visible(ns or ""):  # "": every namespace was read
            record["preemptorState"] = "Gone"
        else:
            record["preemptorState"] = "Unknown"
            record["preemptorUnreadable"] = f"pods of namespace {ns} could not be read" if ns else \
                "pods of other namespaces could not be read"
    return record


def events_about(key: str, objects: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The scheduler's Preempted events among `objects` whose pod is `key`, oldest first."""
    out = [o for o in objects if o.get("kind") == "Event" and o.get("reason") == EVENT_REASON_PREEMPTED
           and pod_key({"metadata": o.get("involvedObject") or o.get("regarding") or {}}) == key]
    return sorted(out, key=event_time)


# the fields of an Event a reader of preemptions reads (history's join, the replay's recorded
# preemptions), and the type each must have: a Kubernetes Event of another shape was never stored
_EVENT_MAPPINGS = ("involvedObject", "regarding", "related", "series", "source", "deprecatedSource")
_EVENT_STRINGS = ("apiVersion", "message", "note", "reason", "type", "reportingComponent", "reportingController")
# int32 in both core/v1 and events.k8s.io/v1 (series.count as well)
_EVENT_COUNTS = ("count", "deprecatedCount")
# times (metav1.Time, MicroTime: RFC 3339 text), which order the events (event_time)
_EVENT_TIMES = ("eventTime", "firstTimestamp", "lastTimestamp", "deprecatedFirstTimestamp", "deprecatedLastTimestamp")


def check_event(o: Mapping[str, Any]) -> None:
    """InputError naming the field when an Event's fields that readers of preemptions read are not
    of the API's types."""
    md = o.get("metadata")
    if isinstance(md, Mapping) and md.get("uid") is not None and not isinstance(md.get("uid"), str):
        raise InputError("must be a string", field="metadata.uid")
    for f in _EVENT_MAPPINGS:
        if o.get(f) is not None and not isinstance(o[f], Mapping):
            raise InputError("must be an object", field=f)
    for f in _EVENT_STRINGS:
        if o.get(f) is not None and not isinstance(o[f], str):
            raise InputError("must be a string", field=f)
    series = o.get("series") or {}
    times = [(f, o.get(f)) for f in _EVENT_TIMES] + [("series.lastObservedTime", series.get("lastObservedTime"))]
    if isinstance(md, Mapping):
        times.append(("metadata.creationTimestamp", md.get("creationTimestamp")))
    for f, v in times:
        if v is not None and not isinstance(v, str):
            raise InputError("must be a string (an RFC 3339 time)", field=f)
    counts = [(f, o.get(f)) for f in _EVENT_COUNTS] + [("series.count", series.get("count"))]
    for f, v in counts:
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise InputError("must be an integer", field=f)
    for f in _EVENT_MAPPINGS[:3]:
        for k in ("name", "namespace", "uid", "kind"):
            v = (o.get(f) or {}).get(k)
            if v is not None and not isinstance(v, str):
                raise InputError("must be a string", field=f"{f}.{k}")
