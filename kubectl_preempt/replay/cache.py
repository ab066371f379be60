"""The order of each node's pods in kube-scheduler's cache (backend/cache/cache.go).

SelectVictimsOnNode takes a node's pods in the order the cache's NodeInfo holds them, and its
sort of the victims is not stable, so victims of equal priority and start time are reprieved in
an order that depends on the history of the node: the cache appends a pod when it is added
(addPod), moves the node's last pod into the hole when one is removed (NodeInfo.RemovePod), and
turns every update of an assigned pod into a removal and an add (updatePod), whatever changed.
A replay keeps that order from the trace's initial lists and every event after them; the
snapshot of each cycle lists the pods in it.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from ..model.objects import Pod


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

    def on_node(self, node: str) -> list[str]:
        return list(self.by_node.get(node, ()))

