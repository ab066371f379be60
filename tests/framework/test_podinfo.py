"""PodInfo: what the scheduler derives from a pod lives in one typed object per Pod object, and a
changed pod (a new Pod object) never sees what was derived from its old version."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.podinfo import PodInfo, pod_info
from kubectl_preempt.framework.types import NodeInfo, host_ports
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Node, Pod
from kubectl_preempt.plugins.defaultpreemption import filter_pods_with_pdb_violation
from kubectl_preempt.plugins.noderesources.fit import compute_pod_resource_request


def _pod(name: str, cpu: str = "100m", labels: dict | None = None, port: int = 0) -> Pod:
    container: dict = {"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}
    if port:
        container["ports"] = [{"containerPort": port, "hostPort": port}]
    return Pod({"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name,
                                            "labels": labels or {}},
                "spec": {"containers": [container]}})


def _pdb(name: str, app: str, allowed: int) -> dict:
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}}}, "status": {"disruptionsAllowed": allowed}}


def test_a_pod_info_is_typed_and_slotted_and_a_pod_keeps_no_dict_of_derived_data() -> None:
    p = _pod("a")
    assert not hasattr(p, "cache")
    pi = pod_info(p)
    assert pi is pod_info(p) and pi.pod is p
    with pytest.raises(AttributeError):
        pi.anything_else = 1  # type: ignore[attr-defined]
    assert not hasattr(PodInfo(p), "__dict__")


def test_a_changed_pod_is_a_new_object_and_gets_its_own_pod_info() -> None:
    old = _pod("a", cpu="100m", port=80)
    assert compute_pod_resource_request(old).milli_cpu == 100 and host_ports(old) == [("0.0.0.0", "TCP", 80)]
    new = _pod("a", cpu="2", port=8080)  # the same pod after an update: a new object
    assert pod_info(new) is not pod_info(old)
    assert compute_pod_resource_request(new).milli_cpu == 2000 and host_ports(new) == [("0.0.0.0", "TCP", 8080)]
    assert compute_pod_resource_request(old).milli_cpu == 100


def test_a_node_info_holds_pod_infos_and_counts_their_ports() -> None:
    node = Node({"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}})
    a, b = _pod("a", port=80), _pod("b")
    ni = NodeInfo(node, [a, b])
    assert [pi.pod for pi in ni.pods] == [a, b] and all(type(pi) is PodInfo for pi in ni.pods)
    assert ni.used_ports.check_conflict("0.0.0.0", "TCP", 80)
    # removal goes by uid: a newer object of the same pod removes the one held
    assert ni.remove_pod(_pod("a", port=80))
    assert [pi.pod for pi in ni.pods] == [b] and not ni.used_ports.check_conflict("0.0.0.0", "TCP", 80)


def test_pdb_matches_follow_the_pdb_list_not_the_list_object() -> None:
    cluster = Cluster.from_objects([_pdb("guard", "web", 0)])
    web = _pod("w", labels={"app": "web"})
    gen = cluster.pdb_generation
    violating, _, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, gen)
    assert violating == [web] and matched == {"default/w": ["default/guard"]}
    # the PDB now selects other pods: a new list, a new generation, the pod's matches recomputed
    # (the same length and, possibly, a recycled list address: neither may keep the old answer)
    cluster.pdbs = [Cluster.from_objects([_pdb("guard", "db", 0)]).pdbs[0]]
    assert cluster.pdb_generation != gen
    violating, non_violating, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, cluster.pdb_generation)
    assert violating == [] and non_violating == [web] and matched == {}
    # a PDB listed later (loading appends) moves the generation on as well
    before = cluster.pdb_generation
    cluster.add_object(_pdb("second", "web", 1))
    assert cluster.pdb_generation != before
    _, _, matched = filter_pods_with_pdb_violation([web], cluster.pdbs, cluster.pdb_generation)
    assert matched == {"default/w": ["default/second"]}


def test_a_pod_the_replay_drops_is_freed_with_its_pod_info_even_when_loaded_in_bulk() -> None:
    import gc
    import weakref

    from kubectl_preempt.framework.config import default_config
    from kubectl_preempt.replay.state import ReplayState, build_cluster

    node = {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}
    gc.collect()
    was = gc.isenabled()
    gc.disable()  # reference counting alone must free the pair
    try:
        st = ReplayState(build_cluster([node, {**_pod("a").raw, "spec": {**_pod("a").spec, "nodeName": "n1"}}]),
                         default_config())
        pod = st.cluster.pods["default/a"]
        assert pod_info(pod).pod is pod and st.snapshot.get("n1").pods[0].pod is pod
        gc.freeze()  # as bulk loading leaves the initial pods: out of the collector's reach
        gone = weakref.ref(pod)
        st.remove_pod(pod)
        assert pod.info is None
        del pod
        assert gone() is None
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
