"""record lists and watches every kind a verdict depends on, as capture lists them: the required
four or an error, the optional ones when the server serves them and lets us read them (else a
note, on stderr and in the trace's header, and the recording goes on)."""
from __future__ import annotations

import copy
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.errors import ClusterError
from kubectl_preempt.io import live
from kubectl_preempt.io.record import record
from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay
from tests.builders import (make_node, make_pod, make_pv, make_pvc, make_storage_capacity,
                            make_volume_attachment)
from tests.live.fakeapi import FakeAPIServer

# every kind a verdict depends on, and the scheduler's Preempted events
ALL_KINDS = [s.kind for s in live.LIST_SPECS] + [s.kind for s in live.EXTRA_SPECS]
ALL_PLURALS = {s.plural for s in live.LIST_SPECS} | {s.plural for s in live.EXTRA_SPECS}


def _bare(obj: dict[str, Any], rv: str) -> dict[str, Any]:
    """An object as a watch streams it: no kind or apiVersion, a newer resourceVersion."""
    o = {k: v for k, v in copy.deepcopy(obj).items() if k not in ("kind", "apiVersion")}
    o["metadata"]["resourceVersion"] = rv
    return o


def _add_the_kinds_the_fixture_lacks(api: FakeAPIServer) -> None:
    api.add({"apiVersion": "v1", "kind": "ReplicationController",
             "metadata": {"name": "legacy", "namespace": "default"},
             "spec": {"replicas": 1, "selector": {"app": "legacy"}}})
    api.add(make_storage_capacity("cap-1", "gp3", "100Gi", node_labels={"topology.kubernetes.io/zone": "zone-a"}))
    api.add(make_volume_attachment("va-1", "node-1", "pv-1", "ebs.csi.aws.com"))
    api.add({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "gpu", "namespace": "team-a"},
             "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com"}}]}}})
    api.add({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
             "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}})
    api.add({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpu"},
             "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                      "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                      "devices": [{"name": "gpu-0"}]}})
    # workload-aware scheduling's Workloads and PodGroups (v1.36's v1alpha2, v1.35's v1alpha1 Workload)
    api.add({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload", "metadata": {"name": "train", "namespace": "gang"},
             "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}}]}})
    api.add({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
             "metadata": {"name": "train-workers", "namespace": "gang"},
             "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}, "disruptionMode": "PodGroup", "priority": 100}})
    api.add({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload", "metadata": {"name": "old", "namespace": "gang"},
             "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]}})
    for group in ("scheduling.incubator.k8s.io/v1alpha1", "scheduling.volcano.sh/v1beta1"):
        api.add({"apiVersion": group, "kind": "Queue", "metadata": {"name": "research"}, "spec": {"weight": 2}})
        api.add({"apiVersion": group, "kind": "PodGroup", "metadata": {"name": "train", "namespace": "team-a"},
                 "spec": {"minMember": 2, "queue": "research"}})


def _watched(api: FakeAPIServer) -> set[str]:
    return {r.resource for r in api.requests if r.query.get("watch") in ("1", "true", "True") and r.resource}


def test_every_kind_a_verdict_depends_on_is_listed_at_the_start_and_watched(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    _add_the_kinds_the_fixture_lacks(api)
    path = tmp_path / "t.jsonl.gz"
    stop = threading.Event()
    result: dict[str, Any] = {}
    t = threading.Thread(target=lambda: result.update(stats=record(str(path), stop=stop, watch_timeout=1)))
    t.start()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _watched(api) != ALL_PLURALS:
        time.sleep(0.05)
    stop.set()
    t.join(timeout=10)
    stats = result["stats"]
    tr = read_trace(str(path))
    start = tr.events[0]["ts"]
    initial = {e["object"]["kind"] for e in tr.events if e["ts"] == start and e["type"] == "ADDED"}
    assert initial == set(ALL_KINDS)
    assert tr.header["recorder"]["kinds"] == ALL_KINDS
    assert "skipped" not in tr.header["recorder"]
    assert stats.kinds == ALL_KINDS and stats.skipped == {} and stats.notes == []
    # the initial objects are redacted as capture redacts them
    sc = next(e["object"] for e in tr.events if e["object"].get("kind") == "StorageClass")
    assert "parameters" not in sc
    assert _watched(api) == ALL_PLURALS
    assert api.methods == {"GET"}
    # of the events, the scheduler's Preempted ones only, listed and watched with that selector
    events = [e["object"] for e in tr.events if e["object"].get("kind") == "Event"]
    assert {e["reason"] for e in events} == {"Preempted"} and len(events) == 2
    assert all(r.query.get("fieldSelector") == "reason=Preempted" for r in api.requests if r.resource == "events")
    # workload-aware scheduling's objects are recorded with their API version (issue 32), and replay reads them
    workload = {(e["object"]["apiVersion"], e["object"]["kind"], e["object"]["metadata"]["name"])
                for e in tr.events if str(e["object"].get("apiVersion", "")).startswith("scheduling.k8s.io/v1alpha")}
    assert workload == {("scheduling.k8s.io/v1alpha2", "Workload", "train"),
                        ("scheduling.k8s.io/v1alpha2", "PodGroup", "train-workers"),
                        ("scheduling.k8s.io/v1alpha1", "Workload", "old")}


def test_an_optional_kind_refused_or_not_served_is_skipped_with_a_note_and_recording_goes_on(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    api.fail("csistoragecapacities", 404)
    api.fail("volumeattachments", 403)
    came = make_pod("came").ns("team-a").priority(5).req(cpu="1").obj()
    api.script_watch("pods", [(0, "ADDED", _bare(came, "5001"))])
    heard: list[str] = []
    path = tmp_path / "t.jsonl"
    stats = record(str(path), max_events=1, watch_timeout=1, notice=heard.append)
    assert stats.reason == "event limit reached"
    tr = read_trace(str(path))
    rec = tr.header["recorder"]
    assert rec["skipped"] == {"CSIStorageCapacity": live.SKIPPED_NOT_SERVED,
                              "VolumeAttachment": live.SKIPPED_FORBIDDEN}
    assert "CSIStorageCapacity" not in rec["kinds"] and "VolumeAttachment" not in rec["kinds"]
    assert len(rec["kinds"]) == len(ALL_KINDS) - 2
    # the notes say it as capture says it, once on the way (stderr) and once in the header
    assert heard == stats.notes == rec["notes"]
    assert "storage.k8s.io/v1 is not served by this cluster: csistoragecapacities not read" in heard
    assert "cannot list volumeattachments at the cluster scope (forbidden): none read" in heard
    # and whoever replays the trace hears them again
    assert tr.notes == [f"{path}: when recorded: {n}" for n in heard]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in tr.events if e["ts"] > tr.events[0]["ts"]
            and e["type"] != "BOOKMARK"] == [("ADDED", "came")]
    assert not {"csistoragecapacities", "volumeattachments"} & _watched(api)


def test_a_required_kind_refused_is_an_error_and_writes_no_trace(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    api.fail("poddisruptionbudgets", 403)
    path = tmp_path / "t.jsonl"
    with pytest.raises(live.Forbidden, match="cannot list poddisruptionbudgets at the cluster scope"):
        record(str(path), max_events=1, watch_timeout=1)
    assert not path.exists()


def test_an_optional_kind_whose_watch_is_refused_is_dropped_with_a_note(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    api.authorize = lambda verb, resource, ns: not (verb == "watch" and resource == "resourceslices")
    heard: list[str] = []
    stop = threading.Event()

    def notice(text: str) -> None:
        heard.append(text)
        stop.set()

    stats = record(str(tmp_path / "t.jsonl"), duration=15, stop=stop, watch_timeout=1, notice=notice)
    # the recording went on after the refusal: only the stop request ended it
    assert stats.reason == "stopped"
    assert heard == ["cannot watch resourceslices at the cluster scope (forbidden): changes to resourceslices "
                     "after this point are not in the trace"]


def test_a_required_kind_whose_watch_is_refused_ends_the_recording(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    api.authorize = lambda verb, resource, ns: not (verb == "watch" and resource == "nodes")
    with pytest.raises(ClusterError, match="cannot watch nodes"):
        record(str(tmp_path / "t.jsonl"), duration=5, watch_timeout=1)


def test_a_volume_and_a_claim_binding_mid_recording_are_watch_events_a_replay_schedules_on(
        kubeconfig: Path, api: FakeAPIServer, tmp_path: Path) -> None:
    # a fresh cluster: one node, a pod waiting for its claim "data", not bound yet
    api.store.clear()
    api.add(make_node("n1").alloc(cpu="4", memory="8Gi").obj())
    api.add(make_pod("db").priority(1).req(cpu="1").pvc("data").obj())
    api.add(make_pvc("data"))
    pv = make_pv("pv-data", claim=("default", "data"), hostname="n1")
    api.script_watch("persistentvolumes", [(0.2, "ADDED", _bare(pv, "3001"))])
    # the claim's binding follows the volume's creation, whenever each watch happened to start
    api.script_watch("persistentvolumeclaims", [(api.after_sent("persistentvolumes"), "MODIFIED",
                                                 _bare(make_pvc("data", volume="pv-data"), "3002"))])
    path = tmp_path / "t.jsonl"
    stats = record(str(path), max_events=2, watch_timeout=1)
    assert stats.reason == "event limit reached"
    tr = read_trace(str(path))
    later = [(e["type"], e["object"]["kind"], e["object"]["metadata"]["name"]) for e in tr.events
             if e["ts"] > tr.events[0]["ts"] and e["type"] != "BOOKMARK"]
    assert later == [("ADDED", "PersistentVolume", "pv-data"), ("MODIFIED", "PersistentVolumeClaim", "data")]
    # replayed, the pod waits for its claim and is scheduled once the claim is bound
    report = replay(tr)
    assert report["summary"]["scheduled"] == 1
    assert report["summary"]["unschedulableAttempts"] >= 1


def test_after_410_gone_an_optional_kind_is_listed_again_in_the_same_scope(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    def expire(req: Any) -> bool:
        if req.query.get("watch") not in ("1", "true", "True"):
            return False
        # while the watch was away, the claim was deleted and another created
        api.store[("v1", "persistentvolumeclaims")].clear()
        api.add(make_pvc("scratch", "team-a"))
        return True

    api.fail("persistentvolumeclaims", 410, when=expire, times=1)
    stats = record(str(tmp_path / "t.jsonl"), max_events=2, watch_timeout=1)
    assert stats.relists == 1
    tr = read_trace(str(tmp_path / "t.jsonl"))
    changes = sorted((e["type"], e["object"]["metadata"]["name"]) for e in tr.events
                     if e["ts"] > tr.events[0]["ts"] and e["type"] != "BOOKMARK")
    assert changes == [("ADDED", "scratch"), ("DELETED", "data-db-0")]


def test_the_command_says_what_it_skipped_on_stderr(api: FakeAPIServer, cli, tmp_path: Path) -> None:
    api.disable_group("resource.k8s.io/v1")
    path = tmp_path / "t.jsonl"
    code, out, err = cli("record", "-o", str(path), "--duration", "1s")
    assert code == 0, err
    assert ("note: resource.k8s.io/v1 is not served by this cluster: resourceclaims, deviceclasses, "
            "resourceslices not read") in err.splitlines()
    assert read_trace(str(path)).header["recorder"]["skipped"] == {
        "ResourceClaim": "not served", "DeviceClass": "not served", "ResourceSlice": "not served"}


def test_an_optional_kind_refused_cluster_wide_is_recorded_and_watched_in_the_contexts_namespace(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    api.fail("services", 403, namespace=None)
    svc = {"metadata": {"name": "api", "namespace": "team-a", "resourceVersion": "4001"},
           "spec": {"selector": {"app": "api"}}}
    api.script_watch("services", [(0, "ADDED", svc)])
    heard: list[str] = []
    stats = record(str(tmp_path / "t.jsonl"), max_events=1, watch_timeout=1, notice=heard.append)
    assert stats.reason == "event limit reached"
    assert "Service" in stats.kinds and stats.skipped == {}
    assert heard == ['cannot list services at the cluster scope (forbidden): read in namespace "team-a" only']
    watches = [r.path for r in api.requests_for("services") if r.query.get("watch") in ("1", "true", "True")]
    assert watches and set(watches) == {"/api/v1/namespaces/team-a/services"}
    tr = read_trace(str(tmp_path / "t.jsonl"))
    assert [e["object"]["metadata"]["name"] for e in tr.events if e["object"].get("kind") == "Service"] == ["web", "api"]
