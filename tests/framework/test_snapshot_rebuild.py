"""A rebuilt snapshot carries the cache's node tree and image states on from the one it replaces
(framework/snapshot.py NodeTree.carried, ImageBook.carried), as upstream's cache changes them one
node at a time (backend/cache/node_tree.go addNode/updateNode, cache.go addNodeImageStates):
whatever changed, the rebuilt snapshot lists the nodes, their NodeInfos' image states and the
generations exactly as a snapshot built afresh (and one rebuilt with every memory off) does."""
from __future__ import annotations

from typing import Callable

import pytest

from kubectl_preempt.framework.snapshot import NodeTree, Snapshot, node_tree_order
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.memory import MEMORY
from kubectl_preempt.model.objects import Node
from tests.builders import make_node


def _node(name: str, zone: str | None, *images: str) -> Node:
    b = make_node(name)
    if zone is not None:
        b = b.zone(zone)
    for img in images:
        b = b.image(img, 1000 + len(img))
    return Node(b.obj())


def _cluster() -> Cluster:
    # zones of unequal sizes, so the round robin skips the short ones; two nodes hold image "a"
    nodes = [_node("n0", "z1", "a"), _node("n1", "z2"), _node("n2", "z1"), _node("n3", "z3", "a", "b"),
             _node("n4", "z1"), _node("n5", "z2")]
    return Cluster.from_objects([n.raw for n in nodes])


def _add(c: Cluster, *nodes: Node) -> None:
    for n in nodes:
        c.nodes[n.name] = n


def _replace(name: str, zone: str | None, *images: str) -> Callable[[Cluster], None]:
    def change(c: Cluster) -> None:
        c.nodes[name] = _node(name, zone, *images)
    return change


CHANGES: list[tuple[str, Callable[[Cluster], None], bool]] = [
    ("a node joins a zone that has nodes", lambda c: _add(c, _node("n6", "z2")), True),
    ("nodes join a new zone and the zone without a label", lambda c: _add(c, _node("n6", "z9"), _node("n7", None)),
     True),
    ("a node holding an image others hold joins", lambda c: _add(c, _node("n6", "z3", "a")), True),
    ("a node holding a new image joins", lambda c: _add(c, _node("n6", "z1", "c")), True),
    ("a node is replaced in its zone with the same images", _replace("n2", "z1"), True),
    ("a node is replaced in its zone with another image", _replace("n2", "z1", "b"), True),
    ("a node moves to another zone", _replace("n0", "z3", "a"), False),
    ("a node is removed", lambda c: c.nodes.pop("n1"), False),
    ("the first node of a zone is removed", lambda c: c.nodes.pop("n0"), False),
]


def _image_view(snap: Snapshot) -> list[tuple[str, dict[str, tuple[int, int]]]]:
    return [(ni.name, {k: (v.size, v.num_nodes) for k, v in ni.image_states.items()}) for ni in snap.list()]


@pytest.mark.parametrize("change,carried", [(c, k) for _, c, k in CHANGES], ids=[d for d, _, _ in CHANGES])
def test_a_rebuilt_snapshot_lists_nodes_and_image_states_as_one_built_afresh(
        change: Callable[[Cluster], None], carried: bool) -> None:
    c = _cluster()
    old = Snapshot.from_cluster(c)
    generations = {ni.name: ni.generation for ni in old.list()}
    change(c)
    assert (NodeTree.carried(old.tree, c.nodes)[1] is not None) == carried
    new = Snapshot.from_cluster(c, previous=old)
    fresh = Snapshot.from_cluster(c)
    with MEMORY.off():
        off = Snapshot.from_cluster(c, previous=old)
    order = node_tree_order(c.nodes.values())
    assert new.node_names == fresh.node_names == off.node_names == [n.name for n in order]
    assert all(ni.node is n for ni, n in zip(new.list(), order))  # the cluster's Node objects
    assert _image_view(new) == _image_view(fresh) == _image_view(off)
    # a kept NodeInfo whose image summaries changed moves on, as with every memory off; the
    # others keep their generation
    moved = {ni.name for ni in new.list() if generations.get(ni.name) != ni.generation}
    assert moved == {ni.name for ni in off.list() if generations.get(ni.name) != ni.generation}


def test_a_node_joining_moves_on_the_nodes_holding_an_image_and_no_other() -> None:
    """ImageLocality's spread counts all nodes: every holder of an image gets a new generation
    when the node count changes, the nodes without images keep theirs."""
    c = _cluster()
    old = Snapshot.from_cluster(c)
    before = {ni.name: ni.generation for ni in old.list()}
    _add(c, _node("n6", "z2"))
    new = Snapshot.from_cluster(c, previous=old)
    moved = {ni.name for ni in new.list() if ni.name in before and before[ni.name] != ni.generation}
    assert moved == {"n0", "n3"}
    assert new.get("n3").image_states["a"].num_nodes == 2


def test_a_second_rebuild_carries_on_from_the_first() -> None:
    c = _cluster()
    snap = Snapshot.from_cluster(c)
    for k, zone in enumerate(["z2", "z4", "z1", "z4"]):
        _add(c, _node(f"m{k}", zone, "a" if k % 2 else "d"))
        snap = Snapshot.from_cluster(c, previous=snap)
    fresh = Snapshot.from_cluster(c)
    assert snap.node_names == fresh.node_names
    assert _image_view(snap) == _image_view(fresh)
