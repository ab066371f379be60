"""A secret planted in every place redaction promises to clear (io.redact.REMOVED, docs/capture.md's table)
is in none of what `capture` writes and `record` writes, while what the scheduler reads stays."""
from __future__ import annotations

import copy
import gzip
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.io import live
from kubectl_preempt.io.redact import REMOVED
from kubectl_preempt.io.record import record
from kubectl_preempt.io.trace import read_trace
from tests.builders import make_node, make_pod
from tests.live.conftest import SECRET
from tests.live.fakeapi import FakeAPIServer

PAGE = Path(__file__).resolve().parents[2] / "docs" / "capture.md"


def _meta(name: str, ns: str | None = None) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "labels": {"app": name},
                          "annotations": {"example.com/token": SECRET,
                                          "kubectl.kubernetes.io/last-applied-configuration": SECRET},
                          "managedFields": [{"manager": "m", "fieldsV1": {"f:x": SECRET}}]}
    if ns:
        md["namespace"] = ns
    return md


def _containers() -> list[dict[str, Any]]:
    return [{"name": "main", "image": "registry.example/app:1",
             "resources": {"requests": {"cpu": "100m"}},
             "env": [{"name": "PW", "value": SECRET},
                     {"name": "REF", "valueFrom": {"secretKeyRef": {"name": "s", "key": SECRET}}}],
             "envFrom": [{"secretRef": {"name": SECRET}}], "command": [SECRET], "args": [SECRET],
             "livenessProbe": {"exec": {"command": [SECRET]}},
             "readinessProbe": {"httpGet": {"port": 80, "httpHeaders": [{"name": "A", "value": SECRET}]}},
             "startupProbe": {"exec": {"command": [SECRET]}},
             "lifecycle": {"preStop": {"exec": {"command": [SECRET]}}}}]


def _volumes() -> list[dict[str, Any]]:
    return [
        {"name": "csi", "csi": {"driver": "d.example.com", "volumeAttributes": {"k": SECRET}}},
        {"name": "flex", "flexVolume": {"driver": "f", "options": {"k": SECRET}}},
        {"name": "git", "gitRepo": {"repository": f"https://deploy:{SECRET}@git.example.com/app.git"}},
        {"name": "scp", "gitRepo": {"repository": f"{SECRET}@git.example.com:app.git"}},
        {"name": "eph", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"annotations": {"example.com/k": SECRET}, "labels": {"tier": "scratch"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
    ]


def _pod_spec() -> dict[str, Any]:
    return {"containers": _containers(), "initContainers": _containers(), "volumes": _volumes()}


def _template() -> dict[str, Any]:
    return {"metadata": _meta("tmpl"), "spec": _pod_spec()}


def _workload(kind: str, api_version: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": _meta(kind.lower(), "team-a"),
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": _template(), **spec}}


def planted() -> list[dict[str, Any]]:
    """One object of every kind capture and record read, a secret in each place REMOVED names."""
    pod = make_pod("p").ns("team-a").req(cpu="1").on("node-1").obj()
    pod["metadata"] = _meta("p", "team-a")
    pod["spec"].update(_pod_spec())
    pod["spec"]["ephemeralContainers"] = _containers()
    pod["status"]["containerStatuses"] = [{"name": "main", "ready": False, "restartCount": 0, "image": "i",
                                           "imageID": "", "state": {"waiting": {"reason": "E", "message": SECRET}},
                                           "lastState": {"terminated": {"exitCode": 1, "message": SECRET}}}]
    node = make_node("node-1").alloc(cpu="4").obj()
    node["metadata"]["annotations"] = {"example.com/token": SECRET}
    pv_spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "mountOptions": [f"password={SECRET}"],
               "csi": {"driver": "d", "volumeHandle": "h", "volumeAttributes": {"k": SECRET}},
               "flexVolume": {"driver": "f", "options": {"k": SECRET}}}
    return [
        node, pod,
        {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta("team-a")},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": _meta("high"), "value": 10},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": _meta("pdb", "team-a"),
         "spec": {"selector": {"matchLabels": {"app": "p"}}}, "status": {"disruptionsAllowed": 1}},
        {"apiVersion": "v1", "kind": "Service", "metadata": _meta("svc", "team-a"), "spec": {"selector": {"app": "p"}}},
        _workload("ReplicaSet", "apps/v1"),
        _workload("StatefulSet", "apps/v1", serviceName="s", volumeClaimTemplates=[
            {"metadata": {"name": "data", "annotations": {"example.com/k": SECRET},
                          "managedFields": [{"manager": SECRET}]},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]),
        {"apiVersion": "v1", "kind": "ReplicationController", "metadata": _meta("rc", "team-a"),
         "spec": {"selector": {"app": "x"}, "template": _template()}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": _meta("pvc", "team-a"),
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": _meta("pv"), "spec": pv_spec},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": _meta("sc"), "provisioner": "d",
         "parameters": {"k": SECRET}, "mountOptions": [f"password={SECRET}"]},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": _meta("node-1"), "spec": {"drivers": []}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": _meta("d"), "spec": {}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": _meta("cap", "team-a"),
         "storageClassName": "sc"},
        {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": _meta("va"),
         "spec": {"attacher": "d", "nodeName": "node-1", "source": {"inlineVolumeSpec": copy.deepcopy(pv_spec)}},
         "status": {"attached": True, "attachmentMetadata": {"k": SECRET}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": _meta("rc", "team-a"),
         "spec": {"devices": {"requests": [{"name": "g"}],
                              "config": [{"opaque": {"driver": "g", "parameters": {"k": SECRET}}}]}},
         "status": {"allocation": {"devices": {"results": [], "config": [
             {"opaque": {"driver": "g", "parameters": {"k": SECRET}}}]}},
             "devices": [{"driver": "g", "pool": "p", "device": "d", "data": {"k": SECRET}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": _meta("dc"),
         "spec": {"config": [{"opaque": {"driver": "g", "parameters": {"k": SECRET}}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": _meta("slice"),
         "spec": {"driver": "g", "nodeName": "node-1", "pool": {"name": "p", "generation": 1,
                                                                 "resourceSliceCount": 1}}},
        # the scheduler's Preempted events are kept, but only the sentence attribution reads: a
        # secret after it, or in the events.k8s.io `note`, goes
        _event("p.1", "Preempted", f"Preempted by pod uid-web on node node-1 (token {SECRET})"),
        _event("p.2", "Preempted", "Preempted by pod uid-web on node node-1", note=SECRET),
    ]


def _event(name: str, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": _meta(name, "team-a"), "reason": reason,
            "message": message, "type": "Normal",
            "involvedObject": {"kind": "Pod", "namespace": "team-a", "name": "p", "uid": "uid-p"}, **extra}


# an Event of a reason nothing reads: a failed image pull names the URL, token and all
FAILED_PULL = _event("p.3", "Failed", f"Failed to pull image \"registry.example/app:1\": "
                                      f"https://registry.example/v2/token?secret={SECRET}: 401")


# kinds that capture and record do not list, but that redact_object is given by whoever passes
# objects through it (a snapshot assembled from `kubectl get -o json`)
OTHER_KINDS = [_workload("Deployment", "apps/v1"), _workload("DaemonSet", "apps/v1"),
               _workload("Job", "batch/v1"),
               {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": _meta("cj", "team-a"),
                "spec": {"jobTemplate": {"metadata": _meta("jt"), "spec": {"template": _template()}}}},
               {"apiVersion": "v1", "kind": "PodTemplate", "metadata": _meta("pt", "team-a"), "template": _template()}]


def test_event_messages_keep_only_what_attribution_reads() -> None:
    from kubectl_preempt.io.redact import keeps_event, redact_objects
    from kubectl_preempt.model.who_preempted import preempted_by

    events = [o for o in planted() if o["kind"] == "Event"] + [FAILED_PULL]
    out = redact_objects(copy.deepcopy(events))
    assert SECRET not in json.dumps(out)
    first, second, failed = out
    # the first message had text after the node: it no longer parses as the scheduler's, so it goes
    assert "message" not in first and preempted_by(first) is None
    assert second["message"] == "Preempted by pod uid-web on node node-1" and "note" not in second
    assert preempted_by(second) == ("uid-web", "node-1")
    assert failed["reason"] == "Failed" and "message" not in failed
    assert [keeps_event(e) for e in events] == [True, True, False]


def test_capture_keeps_no_event_of_a_reason_nothing_reads_even_if_the_server_sends_it(
        cli, api_planted: FakeAPIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api_planted.add(copy.deepcopy(FAILED_PULL))
    from tests.live import fakeapi

    # an API server (or a proxy) that ignores the field selector answers with every Event
    monkeypatch.setattr(fakeapi, "field_selector_matches", lambda obj, selector: True)
    path = tmp_path / "snap.json"
    code, out, err = cli("capture", "-o", str(path))
    assert code == 0, err
    text = path.read_text()
    assert SECRET not in text
    reasons = sorted(o["reason"] for o in json.loads(text)["items"] if o["kind"] == "Event")
    assert reasons == ["Preempted", "Preempted"]


def test_the_fixture_plants_a_secret_in_every_kind_capture_reads() -> None:
    kinds = {o["kind"] for o in planted()}
    assert kinds >= {s.kind for s in live.LIST_SPECS if s.api != live.CUSTOM_OBJECTS_API}
    assert all(SECRET in json.dumps(o) for o in planted() + OTHER_KINDS)


@pytest.fixture
def api_planted(api: FakeAPIServer) -> FakeAPIServer:
    for o in planted():
        if o["kind"] in ("Node", "Namespace"):
            continue  # the fixture's own stay; node-1's secrets are planted below
        api.add(copy.deepcopy(o))
    return api


def _kept(objects: list[dict[str, Any]]) -> None:
    """What the scheduler reads of the planted objects is still there."""
    by = {(o["kind"], o["metadata"]["name"]): o for o in objects}
    pod = by[("Pod", "p")]
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}
    assert [e["name"] for e in pod["spec"]["containers"][0]["env"]] == ["PW", "REF"]
    vols = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert vols["git"]["gitRepo"]["repository"] == "https://git.example.com/app.git"
    assert vols["eph"]["ephemeral"]["volumeClaimTemplate"]["metadata"] == {"labels": {"tier": "scratch"}}
    assert vols["csi"]["csi"] == {"driver": "d.example.com"}
    sts = by[("StatefulSet", "statefulset")]
    assert sts["spec"]["volumeClaimTemplates"][0]["metadata"] == {"name": "data"}
    assert by[("PersistentVolume", "pv")]["spec"]["capacity"] == {"storage": "1Gi"}
    assert by[("StorageClass", "sc")]["provisioner"] == "d"


def test_capture_leaves_no_planted_secret(cli, api_planted: FakeAPIServer, tmp_path: Path) -> None:
    path = tmp_path / "snap.json.gz"
    code, out, err = cli("capture", "-o", str(path))
    assert code == 0, err
    text = gzip.decompress(path.read_bytes()).decode()
    assert SECRET not in text
    _kept(json.loads(text)["items"])


def test_record_leaves_no_planted_secret_in_listed_or_watched_objects(
        api_planted: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    came = planted()[1]
    came["metadata"]["name"] = "came"
    bare = {k: v for k, v in came.items() if k not in ("kind", "apiVersion")}
    bare["metadata"]["resourceVersion"] = "9001"
    api_planted.script_watch("pods", [(0, "ADDED", bare)])
    path = tmp_path / "t.jsonl"
    stop = threading.Event()
    result: dict[str, Any] = {}
    t = threading.Thread(target=lambda: result.update(stats=record(str(path), max_events=1, watch_timeout=1,
                                                                  stop=stop)))
    t.start()
    t.join(timeout=30)
    stop.set()
    t.join(timeout=10)
    text = path.read_text()
    assert SECRET not in text
    tr = read_trace(str(path))
    assert any(e["object"]["metadata"]["name"] == "came" for e in tr.events if e["type"] == "ADDED")
    _kept([e["object"] for e in tr.events if e["type"] != "BOOKMARK"])


def test_kinds_passed_in_by_hand_lose_their_secrets_too() -> None:
    from kubectl_preempt.io.redact import redact_objects

    out = redact_objects(copy.deepcopy(OTHER_KINDS + [FAILED_PULL]))
    assert SECRET not in json.dumps(out)
    cron = out[3]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert cron["containers"][0]["image"] == "registry.example/app:1"


def test_the_capture_page_tables_every_place_redaction_clears() -> None:
    assert len(REMOVED) >= 9
    text = re.sub(r"\s+", " ", PAGE.read_text())
    for where, removed, kept in REMOVED:
        assert f"| {where} | {removed} | {kept} |" in text, where
