"""Redaction removes every place a secret hides that the scheduler never reads, and nothing the
scheduler reads: verdicts on a redacted snapshot equal those on the full one."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.io.redact import ANNOTATION_ALLOW_LIST, redact_object, redact_objects
from tests.corpus import case_files, case_key, read_bytes
from tests.live.conftest import SECRET, _noisy, cluster_objects


def _find(objects: list[dict], kind: str, name: str) -> dict:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def test_no_secret_survives_redaction() -> None:
    objects = cluster_objects()
    assert SECRET in json.dumps(objects)
    assert SECRET not in json.dumps(redact_objects(objects))


def test_redaction_copies_unless_asked_to_work_in_place() -> None:
    objects = cluster_objects()
    before = copy.deepcopy(objects)
    redact_objects(objects)
    assert objects == before
    redact_objects(objects, in_place=True)
    assert SECRET not in json.dumps(objects)


def test_what_the_scheduler_reads_stays() -> None:
    full = cluster_objects()
    red = redact_objects(full)
    pod, rpod = _find(full, "Pod", "etl-1"), _find(red, "Pod", "etl-1")
    for field in ("labels", "ownerReferences", "uid", "namespace", "creationTimestamp"):
        assert rpod["metadata"][field] == pod["metadata"][field]
    c, rc = pod["spec"]["containers"][0], rpod["spec"]["containers"][0]
    assert rc["resources"] == c["resources"] and rc["image"] == c["image"]
    assert [e["name"] for e in rc["env"]] == ["DB_PASSWORD", "FROM_SECRET"]  # names only
    assert all(set(e) == {"name"} for e in rc["env"])
    for gone in ("envFrom", "command", "args", "livenessProbe", "lifecycle"):
        assert gone not in rc
    assert rpod["status"] == pod["status"]
    assert rpod["spec"]["nodeName"] == pod["spec"]["nodeName"] and rpod["spec"]["priority"] == 10
    # annotations: only the allow-list; managedFields and last-applied-configuration gone
    assert rpod["metadata"]["annotations"] == {"kubernetes.io/config.source": "api"}
    assert "managedFields" not in rpod["metadata"]
    # volumes: claim names and CSI drivers stay, free-form attributes go
    db = _find(red, "Pod", "db-0")
    assert db["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
        {"name": "creds", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": True}}]
    pvc = _find(red, "PersistentVolumeClaim", "data-db-0")
    assert pvc["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes",
                                              "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"}
    pv = _find(red, "PersistentVolume", "pv-1")
    assert pv["spec"]["csi"] == {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-123"}
    assert pv["spec"]["nodeAffinity"] == _find(full, "PersistentVolume", "pv-1")["spec"]["nodeAffinity"]
    sc = _find(red, "StorageClass", "gp3")
    assert "parameters" not in sc and sc["volumeBindingMode"] == "WaitForFirstConsumer"
    node = _find(red, "Node", "node-3")
    assert node["spec"]["taints"] and node["status"]["images"] and "annotations" not in node["metadata"]
    rs = _find(red, "ReplicaSet", "etl-rs")
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "etl"}}
    assert "args" not in rs["spec"]["template"]["spec"]["containers"][0]


def test_termination_messages_are_removed_from_pod_status() -> None:
    etl2 = _find(redact_objects(cluster_objects()), "Pod", "etl-2")
    terminated = etl2["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated == {"exitCode": 1, "reason": "Error"}
    assert etl2["status"]["conditions"][0]["reason"] == "PreemptionByScheduler"


@pytest.mark.parametrize("obj, kept", [
    ({"kind": "ResourceClaim", "metadata": {"name": "c"},
      "spec": {"devices": {"requests": [{"name": "gpu"}],
                           "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"key": SECRET}}}]}},
      "status": {"devices": [{"driver": "d", "pool": "p", "device": "x", "data": {"token": SECRET}}]}},
     lambda o: o["spec"]["devices"]["requests"] == [{"name": "gpu"}]),
    ({"kind": "VolumeAttachment", "metadata": {"name": "va"},
      "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-1"}},
      "status": {"attached": True, "attachmentMetadata": {"devicePath": SECRET}}},
     lambda o: o["status"] == {"attached": True} and o["spec"]["nodeName"] == "node-1"),
    ({"kind": "Secret", "metadata": {"name": "s"}, "data": {"k": SECRET}, "stringData": {"k": SECRET}},
     lambda o: o["metadata"] == {"name": "s"}),
    ({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
      "metadata": {"name": "train", "namespace": "gang", "annotations": {"team/secret": SECRET}},
      "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}, "disruptionMode": "PodGroup", "priority": 10}},
     lambda o: o["spec"] == {"schedulingPolicy": {"gang": {"minCount": 4}}, "disruptionMode": "PodGroup",
                             "priority": 10}),
    ({"kind": "Event", "metadata": {"name": "e"}, "reason": "Preempted",
      "message": f"Preempted by podgroup u-1 on node cluster {SECRET}"},
     lambda o: "message" not in o),
    ({"kind": "Event", "metadata": {"name": "e"}, "reason": "Preempted",
      "message": "Preempted by podgroup u-1 on node cluster"},
     lambda o: o["message"] == "Preempted by podgroup u-1 on node cluster"),
    # v1.36 executor.go PreemptPod: a victim rejected at Permit or PreBind without an API call
    ({"kind": "Event", "metadata": {"name": "e"}, "reason": "Preempted",
      "message": "Preempted by pod u-2 on node node-1 (in kube-scheduler memory)."},
     lambda o: o["message"] == "Preempted by pod u-2 on node node-1 (in kube-scheduler memory)."),
], ids=["a ResourceClaim keeps its requests and loses opaque parameters and device data",
        "a VolumeAttachment keeps node and attacher and loses attachment metadata",
        "a Secret passed in by mistake keeps nothing of its payload",
        "a PodGroup is redacted as other objects are: its metadata, and its spec kept",
        "a workload-aware Preempted event with anything appended loses its message",
        "a workload-aware Preempted event keeps the sentence attribution parses",
        "a Preempted event of a victim rejected in the scheduler's memory keeps its suffix"])
def test_other_kinds(obj: dict, kept: Any) -> None:
    out = redact_object(copy.deepcopy(obj))
    assert SECRET not in json.dumps(out)
    assert kept(out)


def test_the_allow_list_is_short_and_only_names_annotations_kubernetes_reads_or_people_use() -> None:
    assert len(ANNOTATION_ALLOW_LIST) <= 16
    # kubernetes' own, and the two kube-batch reads to find a pod's PodGroup (issue 15)
    assert all("kubernetes.io/" in a or a in ("scheduling.k8s.io/group-name", "scheduling.k8s.io/group-min-member")
               for a in ANNOTATION_ALLOW_LIST)


# --- verdicts ------------------------------------------------------------------------------------

def _verdict_pods(objects: list[dict]) -> list[str]:
    return [f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}" for o in objects
            if o["kind"] == "Pod" and not o.get("spec", {}).get("nodeName")]


def test_verdicts_on_the_redacted_fixture_equal_those_on_the_full_one() -> None:
    full = cluster_objects()
    red = redact_objects(full)
    pods = _verdict_pods(full)
    assert sorted(pods) == ["team-a/api-1", "team-a/web-0"]
    outcomes = []
    for key in pods:
        a = kubectl_preempt.explain(full, key)
        b = kubectl_preempt.explain(red, key)
        assert a == b, key
        outcomes.append(a["outcome"])
    assert "Preempted" in outcomes  # the comparison covers victims and the choice chain


def _add_noise(objects: list[dict]) -> list[dict]:
    """The case's objects with secrets added where the scheduler never looks (labels untouched)."""
    out = []
    for o in objects:
        o = copy.deepcopy(o)
        if o.get("kind") == "Pod" and o.get("spec", {}).get("containers"):
            _noisy(o)
        elif isinstance(o.get("metadata"), dict):
            o["metadata"].setdefault("annotations", {})["example.com/secret"] = SECRET
            o["metadata"]["managedFields"] = [{"manager": "m", "fieldsV1": {"f:x": SECRET}}]
        out.append(o)
    return out


@pytest.mark.parametrize("case", case_files("cases", "cases-real"), ids=case_key)
def test_verdicts_on_redacted_conformance_cases_equal_those_on_the_full_ones(case: Path) -> None:
    data = orjson.loads(read_bytes(case))
    full = _add_noise(data["objects"])
    red = redact_objects(full)
    assert SECRET not in orjson.dumps(red).decode()
    a = kubectl_preempt.api.explain(full, data["pod"], data.get("config"))
    b = kubectl_preempt.api.explain(red, data["pod"], data.get("config"))
    assert a == b


@pytest.mark.parametrize("obj", [
    {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": -1, "volumes": 5}, "status": {"containerStatuses": 7}},
    {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"initContainers": {"a": 1}}},
    {"kind": "ReplicaSet", "metadata": {"name": "r"}, "spec": {"template": {"spec": {"containers": 3}}}},
    {"kind": "StatefulSet", "metadata": {"name": "s"}, "spec": {"volumeClaimTemplates": 2}},
    {"kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": {"devices": [1]},
     "status": {"allocation": [2], "devices": 3}},
    {"kind": "DeviceClass", "metadata": {"name": "d"}, "spec": {"config": 4}},
], ids=["pod lists that are numbers", "containers a dict", "a template's containers a number",
        "claim templates a number", "claim parts of other types", "device configs a number"])
def test_an_object_of_another_shape_is_redacted_as_far_as_it_goes(obj: dict) -> None:
    # capture and record walk what the server answered: a containers of -1 raised TypeError
    assert redact_object(copy.deepcopy(obj)) == obj
