"""Objects beyond nodes, pods, PDBs and classes (claims, volumes, classes of storage, Services...)
change during a trace: the replay applies them at their times, the next cycle sees them, and pods
they may help leave the unschedulable pool."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.framework.config import default_config
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins.volumebinding import ERR_REASON_BIND_CONFLICT, ERR_UNBOUND_IMMEDIATE
from kubectl_preempt.plugins.volumeutil.index import PVC_RESOURCE, StorageIndex, not_found
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.follow import Follow
from kubectl_preempt.replay.simulate import Listener
from kubectl_preempt.replay.state import ReplayState, build_cluster
from kubectl_preempt.replay.timeline import normalize
from tests.builders import make_node, make_pdb, make_pod, make_priority_class, make_pv, make_pvc, make_storage_class

from .helpers import START, ev, trace


class Log(Listener):
    def __init__(self) -> None:
        self.binds: dict[str, tuple[float, str]] = {}
        self.failures: dict[str, list[str]] = {}

    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.binds[pod.key] = (t, node)

    def unschedulable(self, t: float, pod: Pod, message: str, fields: object = None) -> None:
        self.failures.setdefault(pod.key, []).append(message)


def _nodes() -> list[dict[str, Any]]:
    return [ev(0, "ADDED", make_node(n).alloc(cpu="4", memory="8Gi").label("kubernetes.io/hostname", n).obj())
            for n in ("n1", "n2")]


def _bound_at(log: Log, key: str) -> tuple[float, str]:
    t, node = log.binds[key]
    return round(t - START, 3), node


@pytest.mark.parametrize("initial, later, reason, node", [
    ([], [make_pv("pv-data", claim=("default", "data"), hostname="n2"), make_pvc("data", volume="pv-data")],
     not_found(PVC_RESOURCE, "data"), "n2"),
    ([make_pvc("data", storage_class="local"), make_storage_class("local")],
     [make_pv("pv-local", storage_class="local", hostname="n1")], ERR_REASON_BIND_CONFLICT, "n1"),
    ([make_pvc("data")], [make_pv("pv-data", claim=("default", "data"), hostname="n2"),
                          make_pvc("data", volume="pv-data")], ERR_UNBOUND_IMMEDIATE, "n2"),
], ids=["a pod waiting for a claim that does not exist is scheduled once the claim and its bound volume are added",
        "a pod whose late-binding claim finds no volume is scheduled once a volume is added",
        "a pod whose immediate claim is unbound is scheduled once the claim is bound to a volume"])
def test_a_pod_waiting_on_storage_is_scheduled_when_the_storage_arrives(
        initial: list[dict[str, Any]], later: list[dict[str, Any]], reason: str, node: str) -> None:
    events = _nodes() + [ev(0, "ADDED", o) for o in initial]
    events.append(ev(0, "ADDED", make_pod("db").priority(1).req(cpu="1").pvc("data").obj()))
    events += [ev(20, "MODIFIED" if any(o["kind"] == e["object"]["kind"] and o["metadata"]["name"] ==
                                         e["object"]["metadata"]["name"] for e in events) else "ADDED", o)
               for o in later]
    log = Log()
    report = replay(trace(*events, end=120), listener=log)
    assert reason in log.failures["default/db"][0]
    # moved out of the unschedulable pool by the storage event itself, not by the 5-minute flush
    assert _bound_at(log, "default/db") == (20.0, node)
    assert report["summary"]["scheduled"] == 1


def test_a_volume_alone_does_not_requeue_a_pod_missing_its_claim_the_claim_does() -> None:
    # VolumeRestrictions' PreFilter rejects the pod first (it runs before VolumeBinding's), and it
    # registers for claims being added, not for volumes: the pod is tried again only at 30 s
    pv = make_pv("pv-data", claim=("default", "data"), hostname="n1")
    log = Log()
    replay(trace(*_nodes(),
                 ev(0, "ADDED", make_pod("db").priority(1).req(cpu="1").pvc("data").obj()),
                 ev(10, "ADDED", pv),
                 ev(30, "ADDED", make_pvc("data", volume="pv-data")),
                 end=120), listener=log)
    assert len(log.failures["default/db"]) == 1
    assert _bound_at(log, "default/db") == (30.0, "n1")


def test_a_claim_changed_in_place_is_seen_by_the_next_cycle() -> None:
    # the first pod's cycle indexes the claims; "b" then changes (same number of claims) and the
    # second pod must see the new "b", bound to a volume on n2
    log = Log()
    replay(trace(*_nodes(),
                 ev(0, "ADDED", make_pv("pv-a", claim=("default", "a"), hostname="n1")),
                 ev(0, "ADDED", make_pv("pv-b", claim=("default", "b"), hostname="n2")),
                 ev(0, "ADDED", make_pvc("a", volume="pv-a")),
                 ev(0, "ADDED", make_pvc("b")),
                 ev(1, "ADDED", make_pod("first").priority(1).req(cpu="1").pvc("a").obj()),
                 ev(10, "MODIFIED", make_pvc("b", volume="pv-b")),
                 ev(20, "ADDED", make_pod("second").priority(1).req(cpu="1").pvc("b").obj()),
                 end=60), listener=log)
    assert _bound_at(log, "default/first") == (1.0, "n1")
    assert _bound_at(log, "default/second") == (20.0, "n2")


def test_a_deleted_claim_is_gone_for_the_next_cycle() -> None:
    log = Log()
    replay(trace(*_nodes(),
                 ev(0, "ADDED", make_pv("pv-a", claim=("default", "a"), hostname="n1")),
                 ev(0, "ADDED", make_pvc("a", volume="pv-a")),
                 ev(1, "ADDED", make_pod("first").priority(1).req(cpu="1").pvc("a").obj()),
                 ev(10, "DELETED", make_pvc("a", volume="pv-a")),
                 ev(20, "ADDED", make_pod("second").priority(1).req(cpu="1").pvc("a").obj()),
                 end=60), listener=log)
    assert _bound_at(log, "default/first") == (1.0, "n1")
    assert "default/second" not in log.binds
    assert not_found(PVC_RESOURCE, "a") in log.failures["default/second"][0]


def _state(*objects: dict[str, Any]) -> ReplayState:
    return ReplayState(build_cluster(objects), default_config())


def test_extra_objects_replace_by_namespace_and_name_and_bump_the_cluster_version() -> None:
    st = _state(make_node("n1").obj(), make_pvc("data"), make_pvc("data", namespace="other"))
    before = st.cluster.version
    old_list = st.cluster.extra["PersistentVolumeClaim"]
    assert StorageIndex(st.cluster).pvc("default", "data")["spec"].get("volumeName") is None

    st.set_extra(make_pvc("data", volume="pv-1"))
    claims = st.cluster.extra["PersistentVolumeClaim"]
    assert claims is not old_list  # a new list: what was derived from the old one is not reused
    assert sorted((c["metadata"]["namespace"], c["spec"].get("volumeName")) for c in claims) == \
        [("default", "pv-1"), ("other", None)]
    assert StorageIndex(st.cluster).pvc("default", "data")["spec"]["volumeName"] == "pv-1"
    assert st.cluster.version > before

    v = st.cluster.version
    st.set_extra(make_pvc("data"), deleted=True)
    assert StorageIndex(st.cluster).pvc("default", "data") is None
    assert StorageIndex(st.cluster).pvc("other", "data") is not None
    assert st.cluster.version > v


@pytest.mark.parametrize("change", [
    lambda st: st.set_pdb(make_pdb("p", {"matchLabels": {"app": "x"}}, 1)),
    lambda st: st.delete_pdb(make_pdb("p", {"matchLabels": {"app": "x"}}, 1)),
    lambda st: st.set_priority_class(make_priority_class("high", 1000)),
    lambda st: st.delete_priority_class(make_priority_class("high", 1000)),
    lambda st: st.set_extra({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                             "spec": {"selector": {"app": "web"}}}),
], ids=["a PDB added or changed", "a PDB deleted", "a class added or changed", "a class deleted",
        "a Service added"])
def test_every_change_to_objects_other_than_pods_and_nodes_bumps_the_cluster_version(change: Any) -> None:
    st = _state(make_node("n1").obj())
    before = st.cluster.version
    change(st)
    assert st.cluster.version > before


def test_follow_mode_applies_storage_changes_too() -> None:
    tl = normalize(trace(*_nodes(),
                         ev(0, "ADDED", make_pvc("data")),
                         ev(5, "MODIFIED", make_pvc("data", volume="pv-data")),
                         ev(6, "ADDED", make_pv("pv-data", claim=("default", "data"), hostname="n1")),
                         ev(7, "DELETED", make_pvc("data", volume="pv-data")),
                         end=10))
    f = Follow(tl, default_config())
    before = f.state.cluster.version
    for e in tl.events[:2]:
        f.apply(e)
    idx = StorageIndex(f.state.cluster)
    assert idx.pvc("default", "data")["spec"]["volumeName"] == "pv-data"
    assert idx.pv("pv-data") is not None
    f.apply(tl.events[2])
    assert StorageIndex(f.state.cluster).pvc("default", "data") is None
    assert f.state.cluster.version > before
