"""The scheduler's view of the cluster for one cycle (backend/cache/snapshot.go)."""
from __future__ import annotations

import operator
from typing import Callable, Iterable, Sequence

from ..model.cluster import Cluster, bulk_allocation
from ..model.objects import Node, Pod
from .types import ImageStateSummary, NodeCounting, NodeInfo, NodeJournal

_POD = operator.attrgetter("pod")


def zone_key(node: Node) -> str:
    # mirrors topology.GetZoneKey
    labels = node.labels
    zone = labels.get("failure-domain.beta.kubernetes.io/zone", labels.get("topology.kubernetes.io/zone", ""))
    region = labels.get("failure-domain.beta.kubernetes.io/region", labels.get("topology.kubernetes.io/region", ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(nodes: Iterable[Node]) -> list[Node]:
    """mirrors nodeTree.list(): zones in order of first appearance, nodes taken round-robin."""
    zones: dict[str, list[Node]] = {}
    for n in nodes:
        zones.setdefault(zone_key(n), []).append(n)
    out: list[Node] = []
    lists = list(zones.values())
    i = 0
    while True:
        took = False
        for lst in lists:
            if i < len(lst):
                out.append(lst[i])
                took = True
        if not took:
            return out
        i += 1


def _image_key(states: dict[str, ImageStateSummary]) -> dict[str, tuple[int, int]]:
    return {name: (st.size, st.num_nodes) for name, st in states.items()}


class Snapshot:
    """NodeInfos in node-tree order, and the lists InterPodAffinity reads."""

    def __init__(self, node_infos: list[NodeInfo], journal: NodeJournal | None = None) -> None:
        self.node_info_list = node_infos
        self.node_info_map = {ni.name: ni for ni in node_infos}
        # the names in node_info_list's order: the filter walk takes its node names from here
        self.node_names = [ni.name for ni in node_infos]
        # each node's position in node_info_list, by name: answers kept in node order
        # (scheduler/memo/equivalence.py NodeAnswers) find a node's place in one lookup
        self.node_index = {name: i for i, name in enumerate(self.node_names)}
        # what moved in this line of snapshots (a rebuild carrying on from a snapshot shares its
        # journal): NodeInfos new to the line are noted as moved
        self.journal = journal if journal is not None else NodeJournal()
        for ni in node_infos:
            if ni.journal is not self.journal:
                ni.journal = self.journal
                self.journal.note(ni)
        self.have_pods_with_affinity_list = [ni for ni in node_infos if ni.pods_with_affinity]
        self.have_pods_with_required_anti_affinity_list = [
            ni for ni in node_infos if ni.pods_with_required_anti_affinity]
        # the snapshot this one carries on from (from_cluster's `previous`): its unchanged
        # NodeInfos, generations included, are this one's; the scheduler reads it once
        self.continues: Snapshot | None = None
        # how its NodeInfos count pods (the release's; None: v1.34's), use_counting
        self.counting: NodeCounting | None = None

    @classmethod
    def from_cluster(cls, cluster: Cluster, exclude: Iterable[str] = (),
                     pods: Iterable[Pod] | None = None, previous: "Snapshot | None" = None,
                     pods_on: Callable[[str], Sequence[Pod]] | None = None,
                     counting: NodeCounting | None = None,
                     pods_unchanged: Callable[[str], bool] | None = None) -> "Snapshot":
        """`pods`: the bound pods in the order each node's NodeInfo lists them (the scheduler
        cache's order, kept by a replay); the cluster's own order (a snapshot file's) without.
        `pods_on`: instead of `pods`, a node's bound pods in that order, by node name (a
        replay's index, which spares going through every pod).

        `counting`: how the NodeInfos count pods (a release's node_counting; None: v1.34's), unless
        `previous` says (a rebuild keeps its line's).

        `previous`: the snapshot this one replaces (a replay rebuilding after a node came, went
        or moved in the node tree). A node whose Node object and pods are the same objects in
        the same order keeps its NodeInfo and generation, as upstream's cache keeps a NodeInfo
        across snapshots; a NodeInfo whose image summaries change (the count of nodes holding
        an image, or of all nodes when it holds any) gets a new generation. `pods_unchanged`:
        the nodes for which it says True hold the pods their NodeInfo in `previous` lists (the
        caller kept count of the others), and are not compared pod by pod."""
        excluded = set(exclude)
        if previous is not None:
            counting = previous.counting
        ordered = node_tree_order(cluster.nodes.values())
        on_node: dict[str, list[Pod]] = {}
        for pod in (() if pods_on is not None else cluster.pods.values() if pods is None else pods):
            node_name = pod.node_name
            if node_name and (not excluded or pod.key not in excluded):
                group = on_node.get(node_name)
                if group is None:
                    on_node[node_name] = [pod]
                else:
                    group.append(pod)
        old = previous.node_info_map if previous is not None else {}
        infos: list[NodeInfo] = []
        kept: list[NodeInfo] = []
        for node in ordered:
            ni = old.get(node.name)
            if ni is not None and ni.node is node and pods_unchanged is not None and pods_unchanged(node.name):
                kept.append(ni)
                infos.append(ni)
                continue
            want = on_node.get(node.name, ()) if pods_on is None else pods_on(node.name)
            if (ni is not None and ni.node is node and len(ni.pods) == len(want)
                    and all(map(operator.is_, map(_POD, ni.pods), want))):
                kept.append(ni)
            else:
                ni = NodeInfo(node)
                # a rebuild keeps the way the snapshot it replaces counts pods
                ni.counting = counting
                ni.add_pods(want)
            infos.append(ni)
        before = {id(ni): ni.image_states for ni in kept}
        snap = cls(infos, previous.journal if previous is not None else None)
        snap.counting = counting
        snap.compute_image_states(cluster.nodes.values())
        count_moved = previous is not None and previous.num_nodes() != len(infos)
        for ni in kept:
            was = before[id(ni)]
            if (was or ni.image_states) and (count_moved or _image_key(was) != _image_key(ni.image_states)):
                ni.changed()
        snap.continues = previous
        return snap

    @classmethod
    def build(cls, cluster: Cluster, counting: NodeCounting | None = None) -> "Snapshot":
        """The snapshot of a cluster as it is now, built in bulk (150,000 pods). Its owner keeps it:
        the Scheduler, a replay's state, or a caller explaining many pods against one state.
        Cycles never change it (dry runs work on copies of NodeInfos)."""
        with bulk_allocation():
            return cls.from_cluster(cluster, counting=counting)

    def compute_image_states(self, listed: Iterable[Node] | None = None) -> None:
        # mirrors the cache's addNodeImageStates: keyed by the names the node reports, as they
        # are (ImageLocality normalizes only the pod's image names); one summary per name shared
        # by every node, its size from the first node added to the cache that reports the name
        # (`listed`, the nodes in the order the informer delivered them, else node-tree order),
        # its count the number of nodes reporting it
        first_size: dict[str, int] = {}
        counts: dict[str, int] = {}
        for node in (listed if listed is not None else [ni.node for ni in self.node_info_list]):
            seen = set()
            for img in node.images:
                for name in img.get("names") or ():
                    if name not in first_size:
                        first_size[name] = int(img.get("sizeBytes") or 0)
                    seen.add(name)
            for name in seen:
                counts[name] = counts.get(name, 0) + 1
        summaries = {name: ImageStateSummary(size, counts[name]) for name, size in first_size.items()}
        for ni in self.node_info_list:
            states = {}
            for img in ni.node.images:
                for name in img.get("names") or ():
                    states[name] = summaries[name]
            ni.image_states = states

    def use_counting(self, counting: NodeCounting | None) -> None:
        """Its NodeInfos count pods as a release does (the Scheduler asks it of the snapshot it is
        given: framework/versions.py node_counting)."""
        if counting == self.counting:
            return
        self.counting = counting
        for ni in self.node_info_list:
            ni.use_counting(counting)

    def get(self, name: str) -> NodeInfo | None:
        return self.node_info_map.get(name)

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def add_pod(self, pod: Pod) -> None:
        """Put a bound pod on its node (replay's binding)."""
        ni = self.node_info_map.get(pod.node_name)
        if ni is not None:
            had_aff, had_anti = bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity)
            ni.add_pod(pod)
            self._refresh_lists(ni, had_aff, had_anti)

    def remove_pod(self, pod: Pod) -> None:
        ni = self.node_info_map.get(pod.node_name)
        if ni is not None:
            had_aff, had_anti = bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity)
            ni.remove_pod(pod)
            self._refresh_lists(ni, had_aff, had_anti)

    def requeue_pod(self, pod: Pod) -> None:
        """An update of a bound pod that changes nothing the node counts (NodeInfo.requeue_pod)."""
        ni = self.node_info_map.get(pod.node_name)
        if ni is not None:
            ni.requeue_pod(pod)

    def _refresh_lists(self, ni: NodeInfo, had_aff: bool, had_anti: bool) -> None:
        if had_aff != bool(ni.pods_with_affinity) or had_anti != bool(ni.pods_with_required_anti_affinity):
            self.have_pods_with_affinity_list = [n for n in self.node_info_list if n.pods_with_affinity]
            self.have_pods_with_required_anti_affinity_list = [
                n for n in self.node_info_list if n.pods_with_required_anti_affinity]


class CycleSnapshot(Snapshot):
    """The snapshot a pod-group cycle places its pods in, over the scheduler's own (mirrors the
    snapshot's AssumePod, ForgetPod and BackupSnapshot of backend/cache/snapshot.go): a NodeInfo
    the cycle changes is a copy (NodeInfo.snapshot), the rest are the base's, which nothing here
    changes. `pod_group_states`: the pod groups' states as the cycle sees them (copies of the
    cache's, podGroupStateSnapshot), where assumed members are counted. Layers stack: workload-aware
    preemption removes victims in a layer over the cycle's (`layer`), dropped when it is done."""

    def __init__(self, base: Snapshot, pod_group_states: dict | None = None) -> None:
        # no Snapshot.__init__: the base's NodeInfos keep their journal, none is noted
        self.base = base
        self.node_info_list = list(base.node_info_list)
        self.node_info_map = dict(base.node_info_map)
        self.node_names = base.node_names
        self.journal = NodeJournal()  # the copies' changes concern no cache
        self.have_pods_with_affinity_list = list(base.have_pods_with_affinity_list)
        self.have_pods_with_required_anti_affinity_list = list(base.have_pods_with_required_anti_affinity_list)
        self.continues = None
        self.counting = base.counting
        self._index = {ni.name: i for i, ni in enumerate(self.node_info_list)}
        self._copied: set[str] = set()
        self.pod_group_states: dict = pod_group_states if pod_group_states is not None else {}
        # pod uid -> the pod as assumed on its node (its node_name set)
        self.assumed: dict[str, Pod] = {}

    def layer(self) -> "CycleSnapshot":
        """A snapshot over this one whose changes this one never sees (BackupSnapshot)."""
        return CycleSnapshot(self, {k: v.copy() for k, v in self.pod_group_states.items()})

    def writable(self, name: str) -> NodeInfo | None:
        """The cycle's own copy of a node's NodeInfo, made on the first change."""
        ni = self.node_info_map.get(name)
        if ni is None or name in self._copied:
            return ni
        c = ni.snapshot()
        self._copied.add(name)
        self.node_info_map[name] = c
        self.node_info_list[self._index[name]] = c
        for lst in (self.have_pods_with_affinity_list, self.have_pods_with_required_anti_affinity_list):
            for i, x in enumerate(lst):
                if x is ni:
                    lst[i] = c
        return c

    def add_pod(self, pod: Pod) -> None:
        self._change(pod, NodeInfo.add_pod)

    def remove_pod(self, pod: Pod) -> None:
        self._change(pod, NodeInfo.remove_pod)

    def _change(self, pod: Pod, change: Callable[[NodeInfo, Pod], object]) -> None:
        """A pod added to or removed from its node, in the cycle's own copy of the node."""
        ni = self.writable(pod.node_name)
        if ni is not None:
            had_aff, had_anti = bool(ni.pods_with_affinity), bool(ni.pods_with_required_anti_affinity)
            change(ni, pod)
            self._refresh_lists(ni, had_aff, had_anti)

    def assume_pod(self, pod: Pod, group_key: str = "") -> None:
        """mirrors Snapshot.AssumePod: `pod` (its node_name set) joins its node, and its pod
        group's state in this snapshot counts it assumed."""
        self.add_pod(pod)
        self.assumed[pod.uid] = pod
        st = self.pod_group_states.get(group_key) if group_key else None
        if st is not None:
            st.assume_pod(pod)

    def forget_pod(self, pod: Pod, group_key: str = "") -> None:
        """mirrors Snapshot.ForgetPod."""
        assumed = self.assumed.pop(pod.uid, None)
        if assumed is None:
            return
        self.remove_pod(assumed)
        st = self.pod_group_states.get(group_key) if group_key else None
        if st is not None:
            st.forget_pod(pod.uid)
