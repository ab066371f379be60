"""NodeInfo and its parts, as in kube-scheduler's framework/types.go."""
from __future__ import annotations

import itertools
import operator
from datetime import datetime, timezone
from typing import Iterable, NamedTuple

from ..model.objects import Node, Pod
from ..model.memory import remembered
from ..model.resources import PodResource, PodResourcesOptions, Resource
from .podinfo import DEFAULT_BIND_ALL_HOST_IP, PodInfo, container_host_ports, pod_info


_PRIORITY = operator.attrgetter("pod.priority")

# mirrors nextGeneration(): one counter for every NodeInfo, so that a generation names one state
# of one node for the whole process (caches key on it)
_generations = itertools.count(1)
NO_PODS = 2**63  # lowest_priority of a node without pods: above every priority
# a pod without status.startTime counts as starting now (GetPodStartTime)
FAR_FUTURE = datetime(9999, 1, 1, tzinfo=timezone.utc)


def host_ports(pod: Pod) -> list[tuple[str, str, int]]:
    """mirrors schedutil.GetHostPorts: (hostIP, protocol, hostPort) of sidecars, then containers."""
    return (pod.info or pod_info(pod)).host_ports


class HostPortInfo(dict):
    """ip -> set of (protocol, port)."""

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        self.setdefault(ip or DEFAULT_BIND_ALL_HOST_IP, set()).add((protocol or "TCP", port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        s = self.get(ip)
        if s is not None:
            s.discard((protocol or "TCP", port))
            if not s:
                del self[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        pp = (protocol or "TCP", port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in m for m in self.values())
        return any(pp in self.get(k, ()) for k in (DEFAULT_BIND_ALL_HOST_IP, ip))

    def clone(self) -> "HostPortInfo":
        h = HostPortInfo()
        for k, v in self.items():
            h[k] = set(v)
        return h


class ImageStateSummary:
    __slots__ = ("size", "num_nodes")

    def __init__(self, size: int, num_nodes: int) -> None:
        self.size = size
        self.num_nodes = num_nodes


class NodeJournal:
    """The NodeInfos of one line of snapshots whose generation moved, in the order they moved
    (a NodeInfo new to the line counts as moved). A cache that remembers answers per node
    generation reads what moved since it last looked instead of comparing every node's
    generation on every cycle (scheduler/memo/equivalence.py). Entries are numbered from `base`;
    the reader that has seen every entry drops them (`forget_before`), and past MAX_ENTRIES
    the journal drops them itself: a reader behind `base` then starts over."""

    MAX_ENTRIES = 1 << 18

    __slots__ = ("entries", "base")

    def __init__(self) -> None:
        self.entries: list[NodeInfo] = []
        self.base = 0

    def note(self, ni: "NodeInfo") -> None:
        entries = self.entries
        entries.append(ni)
        if len(entries) > self.MAX_ENTRIES:
            self.forget_before(self.end)

    @property
    def end(self) -> int:
        """The number of the next entry."""
        return self.base + len(self.entries)

    def since(self, pos: int) -> list["NodeInfo"]:
        return self.entries[pos - self.base:]

    def forget_before(self, pos: int) -> None:
        del self.entries[:pos - self.base]
        self.base = pos


class NodeCounting(NamedTuple):
    """How a release's NodeInfo.update counts a pod, where it differs from v1.34's."""

    # how its requests add up (PodInfo.CalculateResource's PodResourcesOptions); None: v1.34's
    resources: PodResourcesOptions | None = None
    # since v1.34 updateUsedPorts takes schedutil.GetHostPorts (sidecars' ports, then the
    # containers'); before, the containers' ports only
    sidecar_host_ports: bool = True


@remembered("framework.types countings alike", 64)
def _countings_alike(a: NodeCounting | None, b: NodeCounting | None) -> bool:
    """Whether two ways of counting differ at most in pod_level_status (v1.36's
    InPlacePodLevelResourcesVerticalScaling). Kept per pair: a scheduler's start asks it of every
    node of its snapshot, which all count one way."""
    a, b = a or NodeCounting(), b or NodeCounting()
    if a.sidecar_host_ports != b.sidecar_host_ports:
        return False
    ra, rb = a.resources or PodResourcesOptions(), b.resources or PodResourcesOptions()
    return ra._replace(pod_level_status=False) == rb._replace(pod_level_status=False)


def _counts_alike(a: NodeCounting | None, b: NodeCounting | None, pods: Iterable[PodInfo]) -> bool:
    """Whether two ways of counting give these pods the same totals: they differ at most in
    pod_level_status, which reads only a pod with pod-level requests, and no pod here has them."""
    if not _countings_alike(a, b):
        return False
    # a plain loop: asked once per node of a snapshot of every pod, when a scheduler starts
    for pi in pods:
        r = pi.pod.spec.get("resources")
        if r and r.get("requests"):
            return False
    return True


def _ports(pi: PodInfo, counting: NodeCounting) -> list[tuple[str, str, int]]:
    return pi.host_ports if counting.sidecar_host_ports else container_host_ports(pi.pod.spec)


class NodeInfo:
    """A node with its pods and the aggregates every filter reads, kept up to date incrementally."""

    __slots__ = ("node", "pods", "requested", "non_zero_requested", "used_ports", "pods_with_affinity",
                 "pods_with_required_anti_affinity", "pvc_ref_counts", "image_states", "generation", "lowest_priority",
                 "journal", "name", "counting", "label_index")

    def __init__(self, node: Node | None = None, pods: Iterable[Pod] = ()) -> None:
        self.node = node
        # the node's name, read per node on every walk: an attribute, not a property
        self.name: str = node.name if node is not None else ""
        # the node's pods, each as its PodInfo (NodeInfo.Pods []*PodInfo)
        self.pods: list[PodInfo] = []
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.used_ports = HostPortInfo()
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.pvc_ref_counts: dict[str, int] = {}
        self.image_states: dict[str, ImageStateSummary] = {}
        self.generation = next(_generations)
        # the lowest priority of the node's pods (NO_PODS without pods), kept up to date: preemption
        # asks it of every node on every failed cycle
        self.lowest_priority = NO_PODS
        # the journal of the snapshot line this NodeInfo belongs to (Snapshot sets it); copies
        # for dry runs and nominated pods have none: their changes concern no cache
        self.journal: NodeJournal | None = None
        # how this release counts a pod here (framework/versions.py node_counting); None: v1.34's
        self.counting: NodeCounting | None = None
        # what the fast core beside the PreFilter counts keeps of this node's pods by label, for
        # the generation it was built at (scheduler/fast/labels.py pods_with_label). Upstream has
        # no such index; NodeInfo neither reads it nor keeps it up to date: a change of the pods
        # moves the generation, and the core builds it afresh when next asked.
        self.label_index: object | None = None
        for p in pods:
            self.add_pod(p)

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable if self.node is not None else Resource()

    def snapshot(self) -> "NodeInfo":
        """A copy whose pod list and aggregates can change without touching this one."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.pods = list(self.pods)
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.used_ports = self.used_ports.clone()
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.pvc_ref_counts = dict(self.pvc_ref_counts)
        c.image_states = self.image_states
        c.generation = self.generation
        c.lowest_priority = self.lowest_priority
        c.journal = None
        c.counting = self.counting
        c.label_index = self.label_index  # same pods, same generation: the index holds for both
        return c

    def emptied(self) -> "NodeInfo":
        """A copy without any of the node's pods: what remove_pod of each leaves (a dry run where
        every pod may be evicted), but for sums of scalar resources, which it leaves without the
        entry rather than at 0 (read alike: absent counts 0)."""
        c = NodeInfo(self.node)
        c.image_states = self.image_states
        c.counting = self.counting
        return c

    def use_counting(self, counting: NodeCounting | None, pod_level: bool = True) -> None:
        """Count the pods as a release does (upstream's gates and code are the process's: its
        NodeInfos never change; ours follow the release a scheduler imitates), and from now on the
        pods that come and go so."""
        if counting == self.counting:
            return
        if _counts_alike(self.counting, counting, self.pods if pod_level else ()):
            self.counting = counting  # the same totals: only the pods to come count otherwise
            return
        self.counting = counting
        options = counting.resources if counting is not None else None
        cpu = memory = storage = non0_cpu = non0_mem = 0
        scalar: dict[str, int] = {}
        self.used_ports = HostPortInfo()
        for pi in self.pods:
            for ip, proto, port in _ports(pi, counting):
                self.used_ports.add(ip, proto, port)
            res = pi.pod.resource_for(options)
            pr = res.resource
            cpu += pr.milli_cpu
            memory += pr.memory
            storage += pr.ephemeral_storage
            for k, v in pr.scalar.items():
                scalar[k] = scalar.get(k, 0) + v
            non0_cpu += res.non0_cpu
            non0_mem += res.non0_mem
        self.requested = Resource(cpu, memory, storage, scalar=scalar)
        self.non_zero_requested = Resource(non0_cpu, non0_mem)
        self._next_generation()

    def changed(self) -> None:
        """Something a plugin reads of this node changed outside add/remove/set_node (its image
        summaries): a new generation."""
        self._next_generation()

    def _next_generation(self) -> None:
        self.generation = next(_generations)
        if self.journal is not None:
            self.journal.note(self)

    def set_node(self, node: Node) -> None:
        """Swap in a changed Node object (labels, taints, allocatable) in place."""
        self.node = node
        self.name = node.name
        self._next_generation()

    def add_pod(self, pod: Pod) -> None:
        """mirrors NodeInfo.AddPod: the pod joins as its PodInfo, and the node's sums count it."""
        pi = pod.info or pod_info(pod)
        self.pods.append(pi)
        if pod.priority < self.lowest_priority:
            self.lowest_priority = pod.priority
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
        if pi.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pi, 1)

    def add_pods(self, pods: Iterable[Pod]) -> None:
        """add_pod of each pod in turn, in bulk (a snapshot's build adds 150,000): the sums are
        added up first and the generation moves once, which is all a plugin can tell apart."""
        infos = self.pods
        with_affinity = self.pods_with_affinity
        with_anti = self.pods_with_required_anti_affinity
        lowest = self.lowest_priority
        cpu = memory = storage = non0_cpu = non0_mem = 0
        scalar: dict[str, int] = {}
        counting = self.counting
        options = counting.resources if counting is not None else None
        for pod in pods:
            pi = pod.info
            if pi is None:
                pi = pod.info = PodInfo(pod)
            infos.append(pi)
            if pod.priority < lowest:
                lowest = pod.priority
            if pi.has_affinity:
                with_affinity.append(pi)
            if pi.has_required_anti_affinity:
                with_anti.append(pi)
            res = (pod._resource or pod.resource) if options is None else pod.resource_for(options)
            pr = res.resource
            cpu += pr.milli_cpu
            memory += pr.memory
            storage += pr.ephemeral_storage
            if pr.scalar:
                for k, v in pr.scalar.items():
                    scalar[k] = scalar.get(k, 0) + v
            non0_cpu += res.non0_cpu
            non0_mem += res.non0_mem
            ports = pi.host_ports if counting is None else _ports(pi, counting)
            if ports:
                for ip, proto, port in ports:
                    self.used_ports.add(ip, proto, port)
            if pi.pvc_keys:
                counts = self.pvc_ref_counts
                for key in pi.pvc_keys:
                    counts[key] = counts.get(key, 0) + 1
        self.lowest_priority = lowest
        r = self.requested
        r.milli_cpu += cpu
        r.memory += memory
        r.ephemeral_storage += storage
        for k, v in scalar.items():
            r.scalar[k] = r.scalar.get(k, 0) + v
        nz = self.non_zero_requested
        nz.milli_cpu += non0_cpu
        nz.memory += non0_mem
        self._next_generation()

    def remove_pod(self, pod: Pod) -> bool:
        """mirrors NodeInfo.RemovePod: the pod with this uid leaves (whichever object of it is held)."""
        pi = self._take_out(pod)
        if pi is None:
            return False
        self._next_generation()
        if pi.pod.priority <= self.lowest_priority:
            self.lowest_priority = min(map(_PRIORITY, self.pods), default=NO_PODS)
        return True

    def remove_pods(self, pods: Iterable[Pod]) -> None:
        """remove_pod of each pod in turn, in bulk (a dry run takes off every pod preemption may
        take): the lists end as one removal after another leaves them and the sums lose each pod;
        the lowest priority is taken and the generation moves once, which is all a plugin can
        tell apart."""
        for pod in pods:
            self._take_out(pod)
        self.lowest_priority = min(map(_PRIORITY, self.pods), default=NO_PODS)
        self._next_generation()

    def _take_out(self, pod: Pod) -> PodInfo | None:
        """The pod with this uid off the lists and out of the sums; its PodInfo, None when absent."""
        uid = pod.uid
        pods = self.pods
        for i in range(len(pods) - 1, -1, -1):
            pi = pods[i]
            if pi.pod.uid == uid:
                # mirrors removeFromSlice: the last pod takes the removed one's place
                pods[i] = pods[-1]
                pods.pop()
                for flag, lst in ((pi.has_affinity, self.pods_with_affinity),
                                  (pi.has_required_anti_affinity, self.pods_with_required_anti_affinity)):
                    if flag:
                        for j, q in enumerate(lst):
                            if q.pod.uid == uid:
                                lst[j] = lst[-1]
                                lst.pop()
                                break
                self._sums(pi, -1)
                return pi
        return None

    def requeue_pod(self, pod: Pod) -> bool:
        """An update of a pod that changes nothing counted here (a status patch): upstream's
        cache removes and re-adds it, which moves it in the pod lists exactly so; nothing a
        plugin reads of the node changes, so the generation holds."""
        uid = pod.uid
        for lst in (self.pods, self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i in range(len(lst) - 1, -1, -1):
                p = lst[i]
                if p.pod.uid == uid:
                    lst[i] = lst[-1]
                    lst.pop()
                    lst.append(p)
                    break
            else:
                if lst is self.pods:
                    return False
        return True

    def counted(self, pod: Pod) -> PodResource:
        """The pod's requests as this node adds them up (the release's counting; v1.34's without)."""
        counting = self.counting
        return pod.resource if counting is None else pod.resource_for(counting.resources)

    def _update(self, pi: PodInfo, sign: int) -> None:
        self._sums(pi, sign)
        self._next_generation()

    def _sums(self, pi: PodInfo, sign: int) -> None:
        counting = self.counting
        res = pi.pod.resource if counting is None else pi.pod.resource_for(counting.resources)
        r = self.requested
        pr = res.resource
        r.milli_cpu += sign * pr.milli_cpu
        r.memory += sign * pr.memory
        r.ephemeral_storage += sign * pr.ephemeral_storage
        if pr.scalar:
            for k, v in pr.scalar.items():
                r.scalar[k] = r.scalar.get(k, 0) + sign * v
        nz = self.non_zero_requested
        nz.milli_cpu += sign * res.non0_cpu
        nz.memory += sign * res.non0_mem
        ports = pi.host_ports if counting is None else _ports(pi, counting)
        if ports:
            for ip, proto, port in ports:
                if sign > 0:
                    self.used_ports.add(ip, proto, port)
                else:
                    self.used_ports.remove(ip, proto, port)
        if pi.pvc_keys:
            for key in pi.pvc_keys:
                n = self.pvc_ref_counts.get(key, 0) + sign
                if n <= 0:
                    self.pvc_ref_counts.pop(key, None)
                else:
                    self.pvc_ref_counts[key] = n

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)})"
