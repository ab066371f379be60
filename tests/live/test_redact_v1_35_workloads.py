"""v1.35's workload objects through redaction (io/redact.py): a v1alpha1 Workload keeps its pod
groups and controller reference and loses what any object loses; a pod keeps its spec.workloadRef;
and a v1.35 gang member's verdict (waiting at Permit) is the same on the redacted objects."""
from __future__ import annotations

import copy
import json

import kubectl_preempt
from kubectl_preempt.io.redact import redact_object, redact_objects
from tests.builders import make_node, make_pod, make_workload
from tests.live.conftest import SECRET, _noisy

GATES = "GenericWorkload=true,GangScheduling=true"


def _objects() -> list[dict]:
    wl = make_workload("train", {"workers": 2}, namespace="gang", version="v1alpha1")
    wl["spec"]["controllerRef"] = {"apiGroup": "batch", "kind": "Job", "name": "train"}
    wl["metadata"]["annotations"] = {"team/secret": SECRET}
    wl["metadata"]["managedFields"] = [{"manager": "m", "fieldsV1": {"f:x": SECRET}}]
    pods = [make_pod(f"w-{i}").ns("gang").req(cpu="1", memory="1Gi").workload_ref("train", "workers").obj()
            for i in range(2)]
    for p in pods:
        _noisy(p)
    return [make_node("n1").alloc(cpu="4", memory="16Gi").obj(), wl, *pods]


def test_a_v1alpha1_workload_keeps_its_pod_groups_and_loses_its_secrets() -> None:
    wl = _objects()[1]
    out = redact_object(copy.deepcopy(wl))
    assert SECRET not in json.dumps(out)
    assert out["spec"] == wl["spec"] and out["apiVersion"] == "scheduling.k8s.io/v1alpha1"


def test_a_pod_keeps_the_workload_reference_its_gang_is_read_from() -> None:
    pod = _objects()[2]
    out = redact_object(copy.deepcopy(pod))
    assert SECRET not in json.dumps(out)
    assert out["spec"]["workloadRef"] == {"name": "train", "podGroup": "workers"}


def test_a_v1_35_gang_members_verdict_is_the_same_on_the_redacted_objects() -> None:
    full = _objects()
    red = redact_objects(full)
    assert SECRET not in json.dumps(red)
    a = kubectl_preempt.explain(full, "gang/w-0", kubernetes_version="v1.35", feature_gates=GATES)
    b = kubectl_preempt.explain(red, "gang/w-0", kubernetes_version="v1.35", feature_gates=GATES)
    assert a == b and a["permit"]["gang"]["podGroup"] == "gang/train/workers"
