"""Every key a pod is remembered by, in one place: which part of a pod decides an answer.

Upstream computes every answer afresh; our memories (model/memory.py) keep answers per key, and a
key must hold everything the answer reads, or two pods that should be told apart are not. There is
one pod shape: `node_shape`, what of a pod decides a node-local answer (the kube-scheduler
plugins' Filter and Score on one node). The other keys differ from it on purpose, each for the
reason given beside it:

| key | what it holds | who remembers by it |
| --- | --- | --- |
| `node_shape(spec)` | the spec but NOT_READ_BY_NODE_LOCAL | scheduler/memo/equivalence.py: node-local answers |
| `cycle_shape(...)` | node_shape plus the namespace, priority, preemption policy and the spec fields node_shape leaves out: what a whole cycle reads besides the labels | scheduler/memo/failed_cycles.py: whole failed cycles |
| `batch_shape(spec)` | the part of the spec kube-batch's v1.16 predicates and per-node priorities read | batch/util/scheduler_helper.py: node answers per task shape |
| `requests_key(spec, status)` | what resourcehelper.PodRequests reads: requests, overhead, pod-level resources, status resources | model/resources.py: requests and PodResource |
| `pod_spec_key(spec)` | the whole spec with nodeName blanked | model/resources.py, where the object check has it already |
| `container_requests_key(spec, status)` | the containers' requests, for a pod whose requests are theirs alone | model/resources.py, when the load's typed read has checked the pod (no spec key made) |

All are JSON (orjson) text but batch_shape, which sorts each container's requests (a session's
tasks of one job list them in any order). None (or, for requests_key, an exception) means the spec
holds a value JSON cannot carry: the caller then remembers nothing.
"""
from __future__ import annotations

from typing import Any, Mapping

import orjson

from .memory import MEMORY

# spec fields no node-local plugin reads (tests/scheduler/test_node_local.py holds them to it): pods
# of one template in several priority classes, or with another grace period, share the nodes' answers
NOT_READ_BY_NODE_LOCAL = frozenset({"priority", "priorityClassName", "preemptionPolicy",
                                    "terminationGracePeriodSeconds"})


def node_shape(spec: Mapping[str, Any]) -> bytes | None:
    """The pod shape: what node-local plugins read of a pod, its spec but the fields in
    NOT_READ_BY_NODE_LOCAL (None: the spec holds a value JSON cannot carry)."""
    try:
        return orjson.dumps({k: v for k, v in spec.items() if k not in NOT_READ_BY_NODE_LOCAL})
    except TypeError:
        return None


def cycle_shape(namespace: str, priority: int, preemption_policy: str, spec: Mapping[str, Any],
                node: bytes | None) -> bytes | None:
    """What a scheduling cycle reads of a pod besides its metadata: the pod shape `node`
    (node_shape(spec)) and what it leaves out, the spec fields in NOT_READ_BY_NODE_LOCAL, with the
    namespace, the priority and the preemption policy. node_shape is one whole JSON object, so the
    text after it starts where it ends: two pods share a cycle shape only when they share all of
    it. None: the spec holds a value JSON cannot carry."""
    if node is None:
        return None
    try:
        rest = orjson.dumps((namespace, priority, preemption_policy,
                             {k: v for k, v in spec.items() if k in NOT_READ_BY_NODE_LOCAL}))
    except TypeError:
        return None
    return node + rest


def batch_shape(spec: Mapping[str, Any]) -> str:
    """What kube-batch's v1.16 predicates and the per-node priorities read of a task (requests,
    containers' host ports, node selector, affinity, tolerations): narrower than node_shape, as
    those read less than kube-scheduler's plugins, and tasks of one job differ in fields they do
    not read (hostname, subdomain, env), which node_shape would tell apart."""
    def reqs(cs: Any) -> tuple:
        return tuple(tuple(sorted(((c.get("resources") or {}).get("requests") or {}).items())) for c in cs or ())
    ports = tuple((p.get("hostIP"), p.get("protocol"), p.get("hostPort"))
                  for c in spec.get("containers") or () for p in c.get("ports") or ())
    return repr((reqs(spec.get("containers")), reqs(spec.get("initContainers")), ports,
                 spec.get("nodeSelector"), spec.get("affinity"), spec.get("tolerations")))


def requests_key(spec: Mapping[str, Any], status: Mapping[str, Any]) -> bytes:
    """Everything resourcehelper.PodRequests reads: the containers' requests (and init containers'
    restart policy), the overhead, the pod-level resources and the status resources (in-place
    resize): narrower than node_shape, so the pods of one workload share it whatever else of
    them differs. Raises on a malformed spec (the caller then computes without it)."""
    statuses = None
    if status.get("containerStatuses") or status.get("initContainerStatuses"):
        statuses = [(cs.get("name"), cs.get("resources"), cs.get("allocatedResources"))
                    for cs in (status.get("containerStatuses") or []) + (status.get("initContainerStatuses") or [])]
        statuses.append([c for c in status.get("conditions") or () if c.get("type") == "PodResizePending"])
    if spec.get("resources") and (status.get("resources") is not None or status.get("allocatedResources")):
        # pod-level resources read with the pod's own status (in-place pod-level resize)
        statuses = (statuses, status.get("resources"), status.get("allocatedResources"),
                    [c for c in status.get("conditions") or () if c.get("type") == "PodResizePending"])
    return orjson.dumps((
        [(c.get("name"), (c.get("resources") or {}).get("requests")) for c in spec.get("containers") or ()],
        [(c.get("name"), (c.get("resources") or {}).get("requests"), c.get("restartPolicy"))
         for c in spec.get("initContainers") or ()],
        spec.get("overhead"), spec.get("resources"), statuses))


def container_requests_key(spec: Mapping[str, Any], status: Mapping[str, Any]) -> bytes | None:
    """What resourcehelper.PodRequests reads of a pod whose requests are its containers' alone (no
    init containers, overhead, pod-level resources or container statuses, as most pods): the
    containers' requests, in order. Narrower than requests_key and cheaper to make (no names, no
    tuples: the load keys 150,000 pods by it); None for any other pod, which requests_key then
    keys. Its first byte is no JSON's, so it never equals a key of another kind."""
    if (spec.get("initContainers") or spec.get("overhead") or spec.get("resources")
            or status.get("containerStatuses") or status.get("initContainerStatuses")):
        return None
    requests = []
    try:
        # a loop, not a comprehension: the load keys 150,000 pods of one or two containers, and a
        # comprehension is a call of its own
        for c in spec.get("containers") or ():
            requests.append((c.get("resources") or _NONE).get("requests"))
        return b"\x00" + orjson.dumps(requests)
    except (TypeError, AttributeError):  # not plain JSON objects: the computation says what is wrong
        return None


_NONE: Mapping[str, Any] = {}

# `"nodeName":"node-1"` as orjson writes it, per node name; what spec_key puts in its place
NODE_NAME_BLANK = b'"nodeName":""'
NODE_NAME_TEXT: dict[str, bytes] = {}
MEMORY.register("model.podshape nodeName texts", NODE_NAME_TEXT)


def pod_spec_key(spec: Any) -> bytes | None:
    """The JSON of a pod's whole spec with nodeName blanked (`"nodeName":"node-1"` can stand only
    for that key's value, unescaped): wider than node_shape (every field, so a bound and a pending
    pod of one template share it), it is what the object check (schema.pod_ok) dumps anyway, and
    without container statuses it keys the requests as well as requests_key. None when the spec
    is not plain JSON or nodeName not a string."""
    try:
        key = orjson.dumps(spec)
    except TypeError:
        return None
    node = spec.get("nodeName") if type(spec) is dict else None
    if node is not None:
        if type(node) is not str:
            return None
        needle = NODE_NAME_TEXT.get(node) if MEMORY.on else None
        key = key.replace(needle if needle is not None else node_name_text(node), NODE_NAME_BLANK)
    return key


def node_name_text(node: str) -> bytes:
    """`"nodeName":"<node>"` as orjson writes it (kept for the next pod of that node)."""
    needle = orjson.dumps({"nodeName": node})[1:-1]
    if MEMORY.on and len(NODE_NAME_TEXT) < 100_000:
        NODE_NAME_TEXT[node] = needle
    return needle
