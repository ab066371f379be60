"""A small real-looking cluster behind a loopback API server, and a kubeconfig pointing at it.

The cluster: three nodes (one tainted), a batch job's pods at priority 10, a pending web pod at
1000 nominated to node-2 after preempting batch/etl-2 (still terminating, with the scheduler's
DisruptionTarget condition and Preempted event), an event for batch/gone-1 (preempted and deleted),
a database with a CSI volume, and secrets everywhere the scheduler never looks, each containing
SECRET, so that a test can grep for it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.builders import make_node, make_pdb, make_pod, make_priority_class
from tests.live.fakeapi import FakeAPIServer
from tests.conftest import in_process_cli

SECRET = "S3CRET-do-not-share"
PREEMPTOR_UID = "uid-web-0"
GONE_PREEMPTOR_UID = "uid-api-7"


def _noisy(pod: dict[str, Any], app: str | None = None) -> dict[str, Any]:
    """Put secrets where real manifests have them: env, envFrom, args, probes, annotations
    (and label the pod app=`app` when given)."""
    md = pod["metadata"]
    if app is not None:
        md.setdefault("labels", {})["app"] = app
    md["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": '{"password": "%s"}' % SECRET,
        "example.com/api-token": SECRET,
        "kubernetes.io/config.source": "api",
    }
    md["managedFields"] = [{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:token": SECRET}}]
    for c in pod["spec"].get("containers", []) + pod["spec"].get("initContainers", []):
        c["env"] = [{"name": "DB_PASSWORD", "value": SECRET},
                    {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "db", "key": SECRET}}}]
        c["envFrom"] = [{"secretRef": {"name": SECRET}}]
        c["command"] = ["/bin/app", f"--password={SECRET}"]
        c["args"] = ["--token", SECRET]
        c["livenessProbe"] = {"httpGet": {"path": "/healthz", "port": 8080,
                                          "httpHeaders": [{"name": "Authorization", "value": SECRET}]}}
        c["lifecycle"] = {"preStop": {"exec": {"command": ["sh", "-c", f"curl -H {SECRET}"]}}}
    return pod


def cluster_objects() -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for ns in ("default", "team-a", "batch"):
        objs.append({"apiVersion": "v1", "kind": "Namespace",
                     "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns},
                                  "annotations": {"owner": SECRET}}})
    objs.append(make_priority_class("high", 1000))
    objs.append(make_priority_class("low", 10))
    for i in (1, 2, 3):
        n = make_node(f"node-{i}").alloc(cpu="4", memory="8Gi", pods="110").zone("zone-a" if i < 3 else "zone-b")
        if i == 3:
            n = n.taint("dedicated", "gpu")
        node = n.image("registry.example/app:1", 50_000_000).obj()
        node["metadata"]["annotations"] = {"flannel.alpha.coreos.com/public-ip": "10.0.0.%d" % i,
                                           "example.com/bootstrap-token": SECRET}
        objs.append(node)

    etl1 = make_pod("etl-1").ns("batch").uid("uid-etl-1").priority(10).priority_class("low") \
        .req(cpu="3", memory="1Gi").on("node-1").start_time("2026-03-01T08:00:00Z").obj()
    etl1["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "etl-rs",
                                            "uid": "uid-etl-rs", "controller": True}]
    objs.append(_noisy(etl1, "etl"))

    etl2 = make_pod("etl-2").ns("batch").uid("uid-etl-2").priority(10).priority_class("low") \
        .req(cpu="3", memory="1Gi").on("node-2").start_time("2026-03-01T08:00:00Z") \
        .terminating("2026-03-01T10:00:04Z").obj()
    etl2["status"]["conditions"] = [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
         "message": "default-scheduler: preempting to accommodate a higher priority pod",
         "lastTransitionTime": "2026-03-01T10:00:03Z"},
        {"type": "Ready", "status": "False", "lastTransitionTime": "2026-03-01T10:00:04Z"},
    ]
    etl2["status"]["containerStatuses"] = [{
        "name": "main", "ready": False, "restartCount": 0, "image": "registry.example/app:1", "imageID": "",
        "state": {"terminated": {"exitCode": 1, "reason": "Error", "message": f"panic: token={SECRET}"}}}]
    objs.append(_noisy(etl2, "etl"))

    web0 = make_pod("web-0").ns("team-a").uid(PREEMPTOR_UID).priority(1000).priority_class("high") \
        .req(cpu="2", memory="1Gi").nominated("node-2").obj()
    objs.append(_noisy(web0, "web"))

    api1 = make_pod("api-1").ns("team-a").uid("uid-api-1").priority(1000).priority_class("high") \
        .req(cpu="2", memory="1Gi").obj()
    objs.append(_noisy(api1, "api"))

    sys_pod = make_pod("sys").ns("default").uid("uid-sys").priority(0).req(cpu="1").on("node-3") \
        .toleration("dedicated", "gpu", "NoSchedule").obj()
    objs.append(sys_pod)

    db0 = make_pod("db-0").ns("team-a").uid("uid-db-0").priority(1000).priority_class("high") \
        .req(cpu="500m", memory="1Gi").on("node-1").obj()
    db0["spec"]["volumes"] = [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
        {"name": "creds", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": True,
                                  "volumeAttributes": {"token": SECRET}}},
    ]
    objs.append(_noisy(db0, "db"))

    objs.append(make_pdb("etl-pdb", {"matchLabels": {"app": "etl"}}, 0, namespace="batch"))
    objs.append({"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": "web", "namespace": "team-a",
                              "annotations": {"service.beta.kubernetes.io/aws-load-balancer-ssl-cert": SECRET}},
                 "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
    rs_tmpl = _noisy(make_pod("tmpl").ns("batch").req(cpu="3", memory="1Gi").obj(), "etl")
    objs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                 "metadata": {"name": "etl-rs", "namespace": "batch", "uid": "uid-etl-rs"},
                 "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "etl"}},
                          "template": {"metadata": rs_tmpl["metadata"], "spec": rs_tmpl["spec"]}}})
    objs.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                 "metadata": {"name": "db", "namespace": "team-a"},
                 "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                          "template": {"metadata": {"labels": {"app": "db"}},
                                       "spec": {"containers": [{"name": "db", "image": "db:1",
                                                                "env": [{"name": "PW", "value": SECRET}]}]}}}})
    objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "data-db-0", "namespace": "team-a",
                              "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                              "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
                                              "example.com/backup-key": SECRET}},
                 "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "volumeName": "pv-1",
                          "resources": {"requests": {"storage": "10Gi"}}},
                 "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}})
    objs.append({"apiVersion": "v1", "kind": "PersistentVolume",
                 "metadata": {"name": "pv-1", "annotations": {"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"},
                              "labels": {"topology.kubernetes.io/zone": "zone-a"}},
                 "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                          "storageClassName": "gp3", "persistentVolumeReclaimPolicy": "Delete",
                          "claimRef": {"namespace": "team-a", "name": "data-db-0"},
                          "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-123",
                                  "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": SECRET}},
                          "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                              {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}]}}},
                 "status": {"phase": "Bound"}})
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com",
                 "volumeBindingMode": "WaitForFirstConsumer", "parameters": {"type": "gp3", "kmsKeyId": SECRET}})
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                 "metadata": {"name": "node-1"},
                 "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25},
                                       "topologyKeys": ["topology.kubernetes.io/zone"]}]}})
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                 "metadata": {"name": "ebs.csi.aws.com"}, "spec": {"attachRequired": True}})
    return objs


def cluster_events() -> list[dict[str, Any]]:
    """Events as the scheduler's events.k8s.io recorder leaves them, read through core/v1."""
    def ev(name: str, pod: str, pod_uid: str, reason: str, message: str, related: dict | None,
           t: str) -> dict[str, Any]:
        e = {"apiVersion": "v1", "kind": "Event",
             "metadata": {"name": name, "namespace": "batch", "creationTimestamp": t},
             "involvedObject": {"kind": "Pod", "namespace": "batch", "name": pod, "uid": pod_uid,
                                "apiVersion": "v1"},
             "reason": reason, "message": message, "type": "Normal", "action": "Preempting",
             "eventTime": t.replace("Z", ".000000Z"), "reportingComponent": "default-scheduler",
             "reportingInstance": "default-scheduler-control-plane", "source": {}}
        if related:
            e["related"] = related
        return e

    return [
        ev("etl-2.1", "etl-2", "uid-etl-2", "Preempted", f"Preempted by pod {PREEMPTOR_UID} on node node-2",
           {"kind": "Pod", "namespace": "team-a", "name": "web-0", "uid": PREEMPTOR_UID, "apiVersion": "v1"},
           "2026-03-01T10:00:03Z"),
        ev("etl-2.2", "etl-2", "uid-etl-2", "Killing", "Stopping container main", None, "2026-03-01T10:00:04Z"),
        ev("gone-1.1", "gone-1", "uid-gone-1", "Preempted", f"Preempted by pod {GONE_PREEMPTOR_UID} on node node-1",
           {"kind": "Pod", "namespace": "team-a", "name": "api-7", "uid": GONE_PREEMPTOR_UID, "apiVersion": "v1"},
           "2026-03-01T09:30:00Z"),
    ]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No kubeconfig, no in-cluster service: HOME is an empty temporary directory."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def api() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(cluster_objects() + cluster_events()) as server:
        yield server


@pytest.fixture
def kubeconfig(api: FakeAPIServer, clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$KUBECONFIG names a file whose current context (namespace team-a) is the fake server."""
    path = api.kubeconfig(tmp_path / "kubeconfig", context="fake", namespace="team-a")
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


@pytest.fixture
def cli(kubeconfig: Path, capsys: pytest.CaptureFixture[str]):
    """Run the command line in-process: returns (exit code, stdout, stderr)."""
    return in_process_cli(capsys)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

