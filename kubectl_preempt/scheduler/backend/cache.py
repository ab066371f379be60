"""The order of each node's pods in kube-scheduler's cache (backend/cache/cache.go).

SelectVictimsOnNode takes a node's pods in the order the cache's NodeInfo holds them, and its
sort of the victims is not stable, so victims of equal priority and start time are reprieved in
an order that depends on the history of the node: the cache appends a pod when it is added
(addPod), moves the node's last pod into the hole when one is removed (NodeInfo.RemovePod), and
turns every update of an assigned pod into a removal and an add (updatePod), whatever changed.
A replay keeps that order from the trace's initial lists and every event after them; the
snapshot of each cycle lists the pods in it.

The order the recorded scheduler had when the trace starts comes from its history before the
trace, which the trace does not hold. `PodOrder.from_history` rebuilds that history from what the
initial pods carry (see there) and plays it through the same rules.
"""
from __future__ import annotations

import operator
from typing import Any, Iterable, Iterator, Mapping

from ...model.objects import Pod
from ...model.rfc3339 import NANOS, parse_nanos

_NODE_NAME = operator.attrgetter("node_name")


class PodOrder:
    """Per node, the uids of its pods in the cache's order."""

    def __init__(self) -> None:
        self.by_node: dict[str, list[str]] = {}

    @classmethod
    def from_list(cls, pods: Iterable[Pod]) -> "PodOrder":
        """The order of a scheduler that starts on these pods: its informer's initial list adds
        them in the list's order (the API server lists by namespace and name). What the
        recorded scheduler's cache held is its own history before the trace, which the trace
        does not have."""
        order = cls()
        for p in pods:
            if p.node_name:
                order.add(p.node_name, p.uid)
        return order

    @classmethod
    def from_history(cls, pods: Iterable[Pod], *, status_delay: float | None = None) -> "PodOrder":
        """The order of a scheduler that saw these pods bound and started before the trace.

        Each bound pod was added to its node when the scheduler bound it, and moved (an update)
        when its last write came in: the kubelet's status update, the write the pod's
        resourceVersion names. What the objects tell about when:
        - the last write: its second is the latest time in the status (startTime, conditions'
          lastTransitionTime, containers' startedAt); within a second, resourceVersions are the
          API server's own order of writes, so a pod's place in its second is read from where its
          resourceVersion falls between the first of that second and the first of the next;
        - the binding: `status_delay` before the last write (the kubelets' delay from binding to
          status, measured on the pods bound during a trace: replay/calibration.py), never before
          the pod's creation second nor after its PodScheduled condition's second when that is
          earlier than the last write's; for a pod no kubelet has written yet (no start time, no
          container state), the last write is the binding itself.
        Played in time order (an add before an update at the same instant), this gives the order
        pods bound in one burst end in, which neither the list order nor a sort gives: a status
        update in the middle of a burst moves the node's last pod into the hole.
        Without a resourceVersion on every bound pod, nothing says when: the list's order."""
        pods = [p for p in pods if p.node_name]
        marks = [_last_write(p) for p in pods]
        if not pods or any(m is None for m in marks):
            return cls.from_list(pods)
        delay = max(status_delay or 0.0, 0.0)
        first_rv: dict[int, int] = {}
        for sec, rv in marks:  # type: ignore[misc]
            if sec not in first_rv or rv < first_rv[sec]:
                first_rv[sec] = rv
        seconds = sorted(first_rv)
        next_rv = {sec: first_rv[seconds[i + 1]] for i, sec in enumerate(seconds[:-1])}
        last_rv = max(rv for _, rv in marks)  # type: ignore[misc]
        events: list[tuple[float, int, int, int, Pod]] = []
        for i, (p, (sec, rv)) in enumerate(zip(pods, marks)):  # type: ignore[misc]
            lo, hi = first_rv[sec], next_rv.get(sec, last_rv + 1)
            written = sec + min((rv - lo) / max(hi - lo, 1), 0.999)
            if _started(p):
                bound = written - delay
                scheduled = _second(_condition_time(p, "PodScheduled"))
                if scheduled is not None and scheduled < sec:
                    bound = min(max(bound, scheduled), scheduled + 0.999)
                created = _second(p.metadata.get("creationTimestamp"))
                if created is not None:
                    bound = max(bound, created)
            else:
                # no kubelet has written its status yet: its last write is the binding, when the
                # cache took the bound pod it had assumed moments before (cache.go AddPod)
                bound = written
            events.append((bound, 0, rv, i, p))
            events.append((written, 1, rv, i, p))
        events.sort(key=lambda e: e[:4])
        order = cls()
        for _, kind, _, _, p in events:
            if kind == 0:
                order.add(p.node_name, p.uid)
            else:
                order.update(p.node_name, p.uid)
        return order

    def add(self, node: str, uid: str) -> None:
        # mirrors cacheImpl.addPod -> NodeInfo.AddPodInfo: appended
        self.by_node.setdefault(node, []).append(uid)

    def remove(self, node: str, uid: str) -> None:
        # mirrors NodeInfo.RemovePod: the last pod takes the removed one's place
        lst = self.by_node.get(node)
        if not lst:
            return
        for i, u in enumerate(lst):
            if u == uid:
                lst[i] = lst[-1]
                lst.pop()
                return

    def update(self, node: str, uid: str) -> None:
        # mirrors cacheImpl.updatePod: removePod then addPod, for any change
        self.remove(node, uid)
        self.add(node, uid)

    def pods(self, pods_by_uid: Mapping[str, Pod]) -> Iterator[Pod]:
        """The bound pods, node by node, each node's in the cache's order."""
        for node, uids in self.by_node.items():
            for uid in uids:
                p = pods_by_uid.get(uid)
                if p is not None and p.node_name == node:
                    yield p

    def pods_on(self, node: str, pods_by_uid: Mapping[str, Pod]) -> list[Pod]:
        """The node's bound pods in the cache's order (what pods() gives for it), found at C speed
        when every uid listed is a pod bound there."""
        uids = self.by_node.get(node)
        if not uids:
            return []
        got = list(map(pods_by_uid.get, uids))
        # a count in C, not a call per pod: a replay's snapshot rebuild asks every node (5,000)
        if None not in got and list(map(_NODE_NAME, got)).count(node) == len(got):
            return got
        return [p for p in got if p is not None and p.node_name == node]

    def on_node(self, node: str) -> list[str]:
        return list(self.by_node.get(node, ()))


class TracedPodOrder(PodOrder):
    """A PodOrder that also knows which pods' places it cannot vouch for.

    The order a replay starts from (from_history, from_list) is an estimate of a history the trace
    does not hold: any arrangement of the pods bound at the start over the places they hold is as
    consistent with the trace. The cache's rules then carry that doubt along: a removal moves the
    node's last pod into the removed pod's place (NodeInfo.RemovePod), so
    - removing a pod of unknown place moves the last pod to a place that is unknown too (the last
      pod's place becomes unknown; the removed one leaves the doubtful set);
    - removing a pod of known place moves the last pod to a known place: if that pod's place was
      unknown, which pod lands there is unknown, and the doubtful set keeps it;
    - an added pod is appended: its place is known.
    `unknown[node]` holds, per node, the uids whose relative places any arrangement may hold
    (follow mode enumerates them: replay/victim_orders.py)."""

    def __init__(self, base: PodOrder, unknown: Iterable[str] = ()) -> None:
        super().__init__()
        self.by_node = base.by_node
        doubtful = set(unknown)
        self.unknown: dict[str, set[str]] = {}
        for node, uids in self.by_node.items():
            mine = {u for u in uids if u in doubtful}
            if len(mine) > 1:
                self.unknown[node] = mine

    def remove(self, node: str, uid: str) -> None:
        doubtful = self.unknown.get(node)
        if doubtful:
            lst = self.by_node.get(node) or ()
            last = lst[-1] if lst else None
            if uid in doubtful:
                doubtful.discard(uid)
                if last is not None and last != uid and uid in lst:
                    doubtful.add(last)
            if len(doubtful) < 2:
                del self.unknown[node]
        super().remove(node, uid)

    def unknown_on(self, node: str) -> frozenset[str]:
        """The node's pods whose relative places the trace does not tell (none, or two or more)."""
        return frozenset(self.unknown.get(node, ()))



def _second(value: Any) -> int | None:
    n = parse_nanos(value)
    return None if n is None else n // NANOS


def _condition_time(pod: Pod, kind: str) -> Any:
    for c in pod.status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == kind:
            return c.get("lastTransitionTime")
    return None


def _started(pod: Pod) -> bool:
    """Whether a kubelet has written the pod's status: a start time or a container's state."""
    return bool(pod.status.get("startTime") or pod.status.get("containerStatuses")
                or pod.status.get("initContainerStatuses"))


def _last_write(pod: Pod) -> tuple[int, int] | None:
    """(second, resourceVersion) of the pod's last write, as far as the object tells."""
    rv = pod.metadata.get("resourceVersion")
    if not isinstance(rv, str) or not rv.isdigit():
        return None
    times = [pod.status.get("startTime")]
    times += [c.get("lastTransitionTime") for c in pod.status.get("conditions") or () if isinstance(c, dict)]
    for cs in pod.status.get("containerStatuses") or ():
        state = cs.get("state") if isinstance(cs, dict) else None
        for st in (state or {}).values():
            if isinstance(st, dict):
                times += [st.get("startedAt"), st.get("finishedAt")]
    seconds = [s for s in (_second(t) for t in times) if s is not None]
    if not seconds:
        seconds = [s for s in (_second(pod.metadata.get("creationTimestamp")),) if s is not None]
    return (max(seconds), int(rv)) if seconds else None
