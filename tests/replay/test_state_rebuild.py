"""The replay's snapshot after a node comes or goes (replay/state.py ReplayState.prepare,
framework/snapshot.py from_cluster): as upstream's Cache.UpdateSnapshot visits only the NodeInfos
whose generation moved, the rebuild keeps every node whose pods did not change while it waited,
and takes the others' pods from the cache's order, whatever changed them meanwhile."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.replay.state import ReplayState, build_cluster
from tests.builders import make_node, make_pod


def _state() -> ReplayState:
    return ReplayState(build_cluster([
        make_node("n1").alloc(cpu="4", memory="8Gi").obj(),
        make_node("n2").alloc(cpu="4", memory="8Gi").obj(),
        make_node("n3").alloc(cpu="4", memory="8Gi").obj(),
        make_pod("a").req(cpu="1").on("n1").obj(),
        make_pod("b").req(cpu="1").on("n2").obj(),
        make_pod("c").req(cpu="1").on("n3").obj(),
    ]), default_config())


def _names(st: ReplayState, node: str) -> list[str]:
    return [pi.pod.name for pi in st.snapshot.get(node).pods]


def _pod(st: ReplayState, name: str) -> Pod:
    return st.cluster.pods[f"default/{name}"]


def _bind_new(st: ReplayState) -> None:
    pending = Pod(make_pod("d").req(cpu="1").obj())
    st.add_pod(pending)
    st.bind(pending, "n2", 0.0)


def _remove(st: ReplayState) -> None:
    st.remove_pod(_pod(st, "b"))


def _add_bound(st: ReplayState) -> None:
    st.add_pod(Pod(make_pod("d").req(cpu="1").on("n2").obj()))


def _status_update(st: ReplayState) -> None:
    # a status patch moves the pod to the end of its node's list (cacheImpl.updatePod)
    st.add_pod(Pod(make_pod("e").req(cpu="1").on("n2").obj()))
    st.prepare()
    st.set_node(make_node("n4").alloc(cpu="4", memory="8Gi").obj())
    st.touch(_pod(st, "b"))


@pytest.mark.parametrize("change, n2", [
    (_bind_new, ["b", "d"]),
    (_remove, []),
    (_add_bound, ["b", "d"]),
    (_status_update, ["e", "b"]),
], ids=["a binding", "a removal", "a bound pod added", "a status update reordering the node's pods"])
def test_a_node_whose_pods_changed_while_the_snapshot_waited_is_rebuilt_the_others_are_kept(
        change: Callable[[ReplayState], Any], n2: list[str]) -> None:
    st = _state()
    st.set_node(make_node("n4").alloc(cpu="4", memory="8Gi").obj())  # a new node: a rebuild is due
    assert st.snapshot_dirty
    kept = {n: st.snapshot.get(n) for n in ("n1", "n3")}
    change(st)
    st.prepare()
    assert not st.snapshot_dirty
    assert _names(st, "n2") == n2
    assert st.snapshot.get("n2").requested.milli_cpu == 1000 * len(n2)
    assert all(st.snapshot.get(n) is ni for n, ni in kept.items())
    assert _names(st, "n1") == ["a"] and _names(st, "n3") == ["c"] and _names(st, "n4") == []


def test_a_node_replaced_while_the_snapshot_waited_gets_a_new_node_info() -> None:
    st = _state()
    st.set_node(make_node("n4").alloc(cpu="4", memory="8Gi").obj())
    before = st.snapshot.get("n1")
    st.set_node(make_node("n1").alloc(cpu="8", memory="8Gi").obj())  # same pods, a new Node object
    st.prepare()
    assert st.snapshot.get("n1") is not before
    assert st.snapshot.get("n1").allocatable.milli_cpu == 8000
    assert _names(st, "n1") == ["a"]
