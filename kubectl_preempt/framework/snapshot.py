"""The scheduler's view of the cluster for one cycle (backend/cache/snapshot.go)."""
from __future__ import annotations

import operator
from itertools import chain, compress, repeat, zip_longest
from typing import Callable, Collection, Iterable, Mapping, Sequence

from ..model.cluster import Cluster, bulk_allocation
from ..model.memory import MEMORY
from ..model.objects import Node, Pod
from .types import ImageStateSummary, NodeCounting, NodeInfo, NodeJournal

_POD = operator.attrgetter("pod")
_NAME = operator.attrgetter("name")
_NODE = operator.attrgetter("node")
_JOURNAL = operator.attrgetter("journal")
_WITH_AFFINITY = operator.attrgetter("pods_with_affinity")
_WITH_ANTI_AFFINITY = operator.attrgetter("pods_with_required_anti_affinity")
_GAP = object()  # what zip_longest fills a short zone with in the round robin
# a rebuild that finds more nodes than this replaced builds its node tree afresh (each one
# replaced is looked up in its zone's list)
MAX_REPLACED = 64


class _Absent:
    """What a name new to a rebuild finds among the previous NodeInfos: it holds no node."""

    __slots__ = ()
    node = None


_ABSENT = _Absent()


def zone_key(node: Node) -> str:
    # mirrors topology.GetZoneKey
    labels = node.labels
    zone = labels.get("failure-domain.beta.kubernetes.io/zone", labels.get("topology.kubernetes.io/zone", ""))
    region = labels.get("failure-domain.beta.kubernetes.io/region", labels.get("topology.kubernetes.io/region", ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def _round_robin(lists: Sequence[list[Node]]) -> list[Node]:
    """mirrors nodeTree.list(): the first node of each zone, then the second of each, ... (a zone
    with fewer nodes is skipped once exhausted), taken at C speed."""
    if len(lists) == 1:
        return list(lists[0])
    flat = list(chain.from_iterable(zip_longest(*lists, fillvalue=_GAP)))
    return list(compress(flat, map(operator.is_not, flat, repeat(_GAP))))


def node_tree_order(nodes: Iterable[Node]) -> list[Node]:
    """mirrors nodeTree.list(): zones in order of first appearance, nodes taken round-robin."""
    zones: dict[str, list[Node]] = {}
    for n in nodes:
        zones.setdefault(zone_key(n), []).append(n)
    return _round_robin(list(zones.values()))


class NodeTree:
    """The cache's nodeTree (backend/cache/node_tree.go) as a snapshot line keeps it: the nodes by
    zone, zones in order of first appearance, each zone's nodes in the order the cluster lists
    them; `order()` takes them round-robin (nodeTree.list). Upstream's cache keeps its tree across
    snapshots, changed by addNode and updateNode one node at a time; a replay's rebuild does the
    same (`carried`) when nodes were only added at the end of the cluster's list or replaced
    without leaving their zone (a node joining, a node's labels or images changing), and builds it
    afresh from the cluster's order otherwise (a node removed, a zone changed): both give the
    lists node_tree_order gives."""

    __slots__ = ("names", "nodes", "zones")

    def __init__(self, names: list[str], nodes: list[Node], zones: dict[str, list[Node]]) -> None:
        self.names = names  # the cluster's node names in its order
        self.nodes = nodes  # their Node objects
        self.zones = zones  # zone key -> its nodes

    @classmethod
    def build(cls, nodes: Mapping[str, Node]) -> "NodeTree":
        listed = list(nodes.values())
        zones: dict[str, list[Node]] = {}
        for n in listed:
            zones.setdefault(zone_key(n), []).append(n)
        return cls(list(nodes), listed, zones)

    @classmethod
    def carried(cls, previous: "NodeTree | None", nodes: Mapping[str, Node]) -> tuple["NodeTree", list[int] | None]:
        """The tree of `nodes`, from `previous` where it can be carried on (addNode for the nodes
        added, updateNode for those replaced in their zone), else built afresh. Also the
        positions (in the cluster's order) of the nodes replaced, None when built afresh: the
        image states carry on too when those kept their images (ImageBook.carried)."""
        if previous is None or not MEMORY.on:
            return cls.build(nodes), None
        names = list(nodes)
        m = len(previous.names)
        if len(names) < m or names[:m] != previous.names:
            return cls.build(nodes), None  # a node removed (or the order changed)
        listed = list(nodes.values())
        replaced = list(compress(range(m), map(operator.is_not, listed, previous.nodes)))
        if len(replaced) > MAX_REPLACED:
            return cls.build(nodes), None
        zones = {z: list(lst) for z, lst in previous.zones.items()}
        for k in replaced:
            was, now = previous.nodes[k], listed[k]
            z = zone_key(was)
            if zone_key(now) != z:
                return cls.build(nodes), None  # the node moves to another zone: afresh
            lst = zones[z]
            lst[lst.index(was)] = now
        for n in listed[m:]:
            zones.setdefault(zone_key(n), []).append(n)
        return cls(names, listed, zones), replaced

    def order(self) -> list[Node]:
        return _round_robin(list(self.zones.values()))


class ImageBook:
    """The cache's imageStates (backend/cache/cache.go addNodeImageStates): per image name the
    size from the first node (in the cluster's order) reporting it and the number of nodes
    reporting it, as the summaries every NodeInfo holding the image shares. Kept across a
    snapshot line like upstream's: a rebuild after nodes were only added counts their images in
    (`carried`); the names whose summary changed are the ones whose holders get new states."""

    __slots__ = ("first_size", "counts", "summaries")

    def __init__(self) -> None:
        self.first_size: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.summaries: dict[str, ImageStateSummary] = {}

    def _add(self, nodes: Iterable[Node]) -> set[str]:
        """Count in the images of `nodes` (in the cluster's order); returns the names counted."""
        first_size, counts = self.first_size, self.counts
        touched: set[str] = set()
        for node in nodes:
            seen = set()
            for img in node.images:
                for name in img.get("names") or ():
                    if name not in first_size:
                        first_size[name] = int(img.get("sizeBytes") or 0)
                    seen.add(name)
            for name in seen:
                counts[name] = counts.get(name, 0) + 1
            touched |= seen
        return touched

    @classmethod
    def build(cls, nodes: Iterable[Node]) -> "ImageBook":
        book = cls()
        book._add(nodes)
        book.summaries = {name: ImageStateSummary(size, book.counts[name]) for name, size in book.first_size.items()}
        return book

    def carried(self, added: Sequence[Node]) -> tuple["ImageBook", set[str]]:
        """This book with the images of `added` (nodes after all of this book's) counted in, and
        the names whose summary is new."""
        book = ImageBook()
        book.first_size, book.counts, book.summaries = dict(self.first_size), dict(self.counts), dict(self.summaries)
        touched = book._add(added)
        for name in touched:
            book.summaries[name] = ImageStateSummary(book.first_size[name], book.counts[name])
        return book, touched

    def states_for(self, node: Node) -> dict[str, ImageStateSummary]:
        summaries = self.summaries
        states = {}
        for img in node.images:
            for name in img.get("names") or ():
                states[name] = summaries[name]
        return states


def _image_key(states: dict[str, ImageStateSummary]) -> dict[str, tuple[int, int]]:
    return {name: (st.size, st.num_nodes) for name, st in states.items()}


class Snapshot:
    """NodeInfos in node-tree order, and the lists InterPodAffinity reads."""

    # (cluster, its version, the pods bound to no node) as from_cluster found them going through
    # every pod of the cluster; None when it did not (see unbound_pods)
    unbound: "tuple[Cluster, int, list[Pod]] | None" = None

    def __init__(self, node_infos: list[NodeInfo], journal: NodeJournal | None = None) -> None:
        self.node_info_list = node_infos
        # the names in node_info_list's order: the filter walk takes its node names from here
        self.node_names = names = list(map(_NAME, node_infos))
        self.node_info_map = dict(zip(names, node_infos))
        # each node's position in node_info_list, by name: answers kept in node order
        # (scheduler/memo/equivalence.py NodeAnswers) find a node's place in one lookup
        self.node_index = dict(zip(names, range(len(names))))
        # what moved in this line of snapshots (a rebuild carrying on from a snapshot shares its
        # journal): NodeInfos new to the line are noted as moved
        self.journal = journal = journal if journal is not None else NodeJournal()
        for ni in compress(node_infos, map(operator.is_not, map(_JOURNAL, node_infos), repeat(journal))):
            ni.journal = journal
            journal.note(ni)
        self.have_pods_with_affinity_list = list(compress(node_infos, map(_WITH_AFFINITY, node_infos)))
        self.have_pods_with_required_anti_affinity_list = list(
            compress(node_infos, map(_WITH_ANTI_AFFINITY, node_infos)))
        # the snapshot this one carries on from (from_cluster's `previous`): its unchanged
        # NodeInfos, generations included, are this one's; the scheduler reads it once
        self.continues: Snapshot | None = None
        # how its NodeInfos count pods (the release's; None: v1.34's), use_counting
        self.counting: NodeCounting | None = None
        # the cache's node tree and image states this snapshot was built from (from_cluster), for
        # the next rebuild of its line to carry on from, as upstream's cache keeps them
        self.tree: NodeTree | None = None
        self.images: ImageBook | None = None

    def unbound_pods(self, cluster: Cluster) -> list[Pod] | None:
        """The pods of `cluster` that were bound to no node when this snapshot was built from it,
        while the cluster has taken in no object since (its version): a superset of those bound
        to none now (a binding writes the pod in place). None when the snapshot cannot say."""
        u = self.unbound
        if u is None or u[0] is not cluster or u[1] != cluster.version:
            return None
        return u[2]

    @classmethod
    def from_cluster(cls, cluster: Cluster, exclude: Iterable[str] = (),
                     pods: Iterable[Pod] | None = None, previous: "Snapshot | None" = None,
                     pods_on: Callable[[str], Sequence[Pod]] | None = None,
                     counting: NodeCounting | None = None,
                     pods_changed: Collection[str] | None = None) -> "Snapshot":
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
        an image, or of all nodes when it holds any) gets a new generation. `pods_changed`: the
        nodes whose pods may have changed since `previous` (the caller kept count); every other
        node holds the pods its NodeInfo in `previous` lists, and is not compared pod by pod. The node tree and
        the image states carry on from `previous` where they can (NodeTree.carried,
        ImageBook.carried), as upstream's cache changes them one node at a time."""
        excluded = set(exclude)
        if previous is not None:
            counting = previous.counting
        tree, replaced = NodeTree.carried(previous.tree if previous is not None else None, cluster.nodes)
        ordered = tree.order()
        on_node: dict[str, list[Pod]] = {}
        # the cluster's pods bound to no node, when every pod of the cluster passes here
        unbound: list[Pod] | None = [] if pods_on is None and pods is None else None
        for pod in (() if pods_on is not None else cluster.pods.values() if pods is None else pods):
            node_name = pod.node_name
            if node_name and (not excluded or pod.key not in excluded):
                group = on_node.get(node_name)
                if group is None:
                    on_node[node_name] = [pod]
                else:
                    group.append(pod)
            elif not node_name and unbound is not None:
                unbound.append(pod)
        n = len(ordered)
        names = list(map(_NAME, ordered))
        # the previous NodeInfo of each node (_ABSENT: none), and which hold the same Node object
        olds: list = list(map(previous.node_info_map.get, names, repeat(_ABSENT))) if previous is not None else (
            [_ABSENT] * n)
        same_node = list(map(operator.is_, map(_NODE, olds), ordered))
        # the nodes whose NodeInfo is kept without looking at their pods (the caller says they
        # did not change); the others are compared pod by pod or built anew
        quick = list(map(operator.and_, same_node, map(operator.not_, map(pods_changed.__contains__, names)))) if (
            pods_changed is not None and previous is not None) else [False] * n
        infos: list = olds
        fresh: list[NodeInfo] = []  # the NodeInfos built here
        keep = bytearray(quick)  # per position: the NodeInfo is the previous one
        for k in compress(range(n), map(operator.not_, quick)):
            node, ni, name = ordered[k], olds[k], names[k]
            want = on_node.get(name, ()) if pods_on is None else pods_on(name)
            if (same_node[k] and len(ni.pods) == len(want)
                    and all(map(operator.is_, map(_POD, ni.pods), want))):
                keep[k] = True
            else:
                ni = infos[k] = NodeInfo(node)
                # a rebuild keeps the way the snapshot it replaces counts pods
                ni.counting = counting
                ni.add_pods(want)
                fresh.append(ni)
        kept: list[NodeInfo] = list(compress(infos, keep))
        snap = cls(infos, previous.journal if previous is not None else None)
        snap.counting = counting
        if unbound is not None:
            snap.unbound = (cluster, cluster.version, unbound)
        snap.tree = tree
        count_moved = previous is not None and previous.num_nodes() != n
        book = previous.images if previous is not None else None
        if (book is not None and replaced is not None
                and all(previous.tree.nodes[k].images == tree.nodes[k].images for k in replaced)):
            # only nodes added: their images counted in; the kept NodeInfos holding an image whose
            # summary changed get new states, the others hold theirs (equal to what a count over
            # every node gives)
            book, touched = book.carried(tree.nodes[len(previous.tree.nodes):])
            for ni in fresh:
                if ni.node.images:
                    ni.image_states = book.states_for(ni.node)
            holders = list(compress(kept, map(operator.attrgetter("image_states"), kept)))
            recounted = [ni for ni in holders if not touched.isdisjoint(ni.image_states)] if touched else []
        else:
            book = ImageBook.build(cluster.nodes.values())
            holders = recounted = kept
            for ni in fresh:
                ni.image_states = book.states_for(ni.node)
        snap.images = book
        before = {id(ni): ni.image_states for ni in recounted}
        for ni in recounted:
            ni.image_states = book.states_for(ni.node)
        for ni in holders:
            was = before.get(id(ni), ni.image_states)
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
        book = ImageBook.build(listed if listed is not None else [ni.node for ni in self.node_info_list])
        for ni in self.node_info_list:
            ni.image_states = book.states_for(ni.node)
        self.images = book

    def use_counting(self, counting: NodeCounting | None, pod_level: bool = True) -> None:
        """Its NodeInfos count pods as a release does (the Scheduler asks it of the snapshot it is
        given: framework/versions.py node_counting). `pod_level` False: no pod sets pod-level
        resources (Cluster.has_pod_level_resources), so no node need look for one."""
        if counting == self.counting:
            return
        self.counting = counting
        for ni in self.node_info_list:
            ni.use_counting(counting, pod_level)

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
        self.tree, self.images = None, None  # a cycle's layer is never rebuilt
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
