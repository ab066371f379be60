"""Pods made as the controllers make them, priorities as admission gives them, bad input named."""
from __future__ import annotations

import random
import re

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.plan import workloads
from kubectl_preempt.plan.api import plan, plan_spec
from kubectl_preempt.plan.workloads import (MAX_GENERATED_NAME_LENGTH, RAND_ALPHABET, generate_name,
                                            is_gang_scheduling_candidate, pod_group_name_for_workload, rand_string,
                                            safe_encode_string, workload_name_for_job)
from tests.builders import with_value

from .scenarios import busy_cluster, deployment, node, pclass, pod, replica_set


def _creations(objects, manifests=(), scale=(), seed=0):
    return plan_spec(objects, manifests, scale, seed=seed).creations


def test_generated_names_use_apimachinerys_alphabet_and_length() -> None:
    rng = random.Random(1)
    s = rand_string(rng)
    assert len(s) == 5 and set(s) <= set(RAND_ALPHABET)
    long = "x" * 70 + "-"
    assert generate_name(long, rng)[:-5] == long[:MAX_GENERATED_NAME_LENGTH]
    assert len(generate_name(long, rng)) == 63


def test_safe_encode_string_maps_bytes_into_the_alphabet() -> None:
    # rand.SafeEncodeString: alphanums[b % 27] for each byte
    assert safe_encode_string("0") == RAND_ALPHABET[ord("0") % 27]
    assert all(c in RAND_ALPHABET for c in safe_encode_string("1234567890"))


def test_names_follow_the_seed() -> None:
    objs = busy_cluster()
    dep = [("d.yaml", "", deployment("web", "shop", 3, "1", "high"))]
    a = [p["metadata"]["name"] for p in _creations(objs, dep, seed=1)[0].pods]
    b = [p["metadata"]["name"] for p in _creations(objs, dep, seed=1)[0].pods]
    c = [p["metadata"]["name"] for p in _creations(objs, dep, seed=2)[0].pods]
    assert a == b and a != c


def test_a_replica_set_makes_pods_named_after_it() -> None:
    rs = replica_set("cache", "shop", 2, "500m", "medium")
    rs["metadata"].pop("uid")
    c = _creations(busy_cluster(), [("rs.yaml", "", rs)])[0]
    assert [bool(re.fullmatch(f"cache-[{RAND_ALPHABET}]{{5}}", p["metadata"]["name"])) for p in c.pods] == [True, True]
    assert all(p["metadata"]["generateName"] == "cache-" for p in c.pods)
    assert c.workload == "shop/cache"


def test_a_stateful_set_makes_ordinals_one_after_another() -> None:
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"priorityClassName": "high",
                                          "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}}}
    objs = [pclass("high", 1000)] + [node(f"n-{i}") for i in range(2)]
    c = _creations(objs, [("s.yaml", "", sts)])[0]
    assert [p["metadata"]["name"] for p in c.ordered] == ["db-0", "db-1", "db-2"] and not c.pods
    assert c.ordered[1]["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
    report = plan(objs, [("s.yaml", "", sts)])
    bound = [e for e in report["activity"]["events"] if e[0] == "bound"]
    keys = [report["activity"]["pods"][e[2]]["key"] for e in bound]
    assert keys == ["shop/db-0", "shop/db-1", "shop/db-2"]  # OrderedReady: each after the one before runs
    assert report["workloads"][0]["placed"] == 3
    # Parallel: all at once
    sts["spec"]["podManagementPolicy"] = "Parallel"
    assert len(_creations(objs, [("s.yaml", "", sts)])[0].pods) == 3


def test_an_ordered_stateful_set_stops_at_the_pod_that_does_not_run() -> None:
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]}}}}
    objs = [node("n-0")]
    w = plan(objs, [("s.yaml", "", sts)])["workloads"][0]
    assert (w["placed"], w["pending"], w["notCreated"]) == (1, 1, 1)


def test_a_job_makes_parallelism_pods_with_its_labels_and_indexes() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": "ml"},
           "spec": {"parallelism": 3, "completions": 2, "completionMode": "Indexed",
                    "template": {"spec": {"priorityClassName": "medium", "restartPolicy": "Never",
                                          "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}}
    c = _creations(busy_cluster(), [("j.yaml", "", job)])[0]
    assert len(c.pods) == 2  # min(parallelism, completions)
    for i, p in enumerate(c.pods):
        md = p["metadata"]
        assert re.fullmatch(f"train-{i}-[{RAND_ALPHABET}]{{5}}", md["name"])
        assert md["labels"]["batch.kubernetes.io/job-name"] == "train" and md["labels"]["job-name"] == "train"
        assert md["labels"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert md["annotations"]["batch.kubernetes.io/job-completion-index"] == str(i)
        assert md["ownerReferences"][0]["kind"] == "Job"
        assert p["spec"]["priority"] == 100


@pytest.mark.parametrize("classes, cls, want", [
    ([pclass("a", 7, default=True)], None, (7, "PreemptLowerPriority")),
    ([pclass("a", 7, policy="Never")], "a", (7, "Never")),
    ([], None, (0, "PreemptLowerPriority")),
    ([], "system-cluster-critical", (2000000000, "PreemptLowerPriority")),
], ids=["the globalDefault class when none is named", "the class's preemptionPolicy",
        "0 without a class", "a system class that is not in the snapshot"])
def test_priority_is_resolved_as_admission_does(classes, cls, want) -> None:
    objs = classes + [node("n-0")]
    c = _creations(objs, [("d.yaml", "", deployment("web", "shop", 1, "1", cls))])[0]
    spec = c.pods[0]["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == want


def test_a_template_no_class_resolves_is_bad_input_naming_file_object_and_field() -> None:
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), [("web.yaml", "items[1]", deployment("web", "shop", 1, "1", "gold"))])
    msg = str(e.value)
    assert msg.startswith("web.yaml: items[1] (Deployment web): spec.template.spec.priorityClassName: ")
    assert "gold" in msg


def test_an_unknown_kind_is_bad_input() -> None:
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), [("x.yaml", "items[0]", {"kind": "DaemonSet", "metadata": {"name": "d"}})])
    assert str(e.value).startswith("x.yaml: items[0] (DaemonSet d): kind: kind DaemonSet cannot be planned")


def test_a_scale_target_not_in_the_snapshot_is_bad_input() -> None:
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), scale=["batch/replicaset/nope=3"])
    assert "ReplicaSet batch/nope is not in the snapshot" in str(e.value) and "--scale" in str(e.value)
    with pytest.raises(InputError):
        _creations(busy_cluster(), scale=["batch/deployment/etl=3"])  # the RS has no Deployment owner


def test_a_count_past_the_pods_a_cluster_holds_is_refused_at_once() -> None:
    # plan/workloads.py MAX_NEW_PODS: Kubernetes supports 150,000 pods in a cluster; a plan that
    # made 1,000,000,000 pods ran for minutes and took gigabytes before it was bounded
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), [("web.yaml", "items[0]", deployment("web", "shop", 10**9, "1", None))])
    assert str(e.value) == ("web.yaml: items[0] (Deployment web): spec.replicas: 1,000,000,000 pods are more than the "
                            "150,000 a plan makes (as many as Kubernetes supports in a cluster)")
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), scale=["batch/rs/etl=150001"])
    assert "--scale batch/rs/etl=150001: REPLICAS: 150,001 replicas are more than the 150,000" in str(e.value)


def test_workloads_that_make_more_pods_together_than_a_plan_makes_are_refused_naming_the_one_past_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workloads, "MAX_NEW_PODS", 5)
    manifests = [("web.yaml", "items[0]", deployment("web", "shop", 3, "1", None)),
                 ("web.yaml", "items[1]", deployment("api", "shop", 3, "1", None))]
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), manifests)
    assert str(e.value).startswith("web.yaml: items[1] (Deployment api): the plan's workloads make more than the 5 pods")
    assert len(_creations(busy_cluster(), manifests[:1])[0].pods) == 3


# each of these raised a Python exception with a traceback before the manifest's shape was checked
# (plan/workloads.py MANIFEST_SHAPES), found by mutating examples/storefront-deployment.yaml
@pytest.mark.parametrize("path, value, expected", [
    (("spec", "selector"), 5, "spec.selector: must be an object, got a number (5)"),
    (("spec", "template", "metadata"), [], "spec.template.metadata: must be an object, got a list"),
    (("spec", "template", "metadata", "labels", "web"), 10**20,
     "spec.template.metadata.labels.web: must be a string, got a number (100000000000000000000)"),
    (("spec", "template", "spec", "containers", 0, "resources"), "x",
     'spec.template.spec.containers[0].resources: must be an object, got a string ("x")'),
    (("spec", "template", "spec", "containers", 0, "resources", "requests"), 1,
     "spec.template.spec.containers[0].resources.requests: must be an object (a map of names to values), got a "
     "number (1)"),
    (("spec", "replicas"), -1, "spec.replicas: must be between 0 and 2147483647, inclusive, got a number (-1)"),
])
def test_a_manifest_of_another_shape_is_refused_naming_the_field(path: tuple, value: object, expected: str) -> None:
    with pytest.raises(InputError) as e:
        _creations(busy_cluster(), [("web.yaml", "items[0]", with_value(deployment("web", "shop", 1, "1", None), path,
                                                                         value))])
    assert str(e.value) == f"web.yaml: items[0] (Deployment web): {expected}"


def test_scale_up_adds_the_missing_replicas_to_the_replica_set() -> None:
    c = _creations(busy_cluster(), scale=["batch/rs/etl=10"])[0]
    assert len(c.pods) == 2 and c.owners[0]["spec"]["replicas"] == 10
    assert all(p["metadata"]["name"].startswith("etl-") for p in c.pods)
    assert all(p["spec"]["priority"] == 10 for p in c.pods)


def test_scale_of_a_deployment_goes_through_its_newest_replica_set() -> None:
    objs = busy_cluster()
    old = replica_set("web-aaa", "shop", 0, "1", "high", owner="web")
    new = replica_set("web-bbb", "shop", 1, "1", "high", owner="web")
    new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "2"
    objs += [old, new, pod("web-bbb-x1", "shop", "1", node="node-0", prio=1000, owner=("ReplicaSet", "web-bbb"))]
    c = _creations(objs, scale=["shop/deployment/web=3"])[0]
    assert c.workload == "shop/web" and len(c.pods) == 2
    assert all(p["metadata"]["generateName"] == "web-bbb-" for p in c.pods)


def test_scale_down_lets_the_replays_controller_remove_pods() -> None:
    report = plan(busy_cluster(), scale=["batch/replicaset/etl=6"])
    w = report["workloads"][0]
    assert w["scaleDownTo"] == 6
    deleted = [e for e in report["activity"]["events"] if e[0] == "deleted"]
    assert len(deleted) == 2


def test_a_manifest_of_an_existing_replica_set_is_an_update_that_makes_only_the_missing_pods() -> None:
    rs = replica_set("etl", "batch", 10, "1500m", "low")
    c = _creations(busy_cluster(), [("rs.yaml", "", rs)])[0]
    assert len(c.pods) == 2 and c.owners[0]["metadata"]["uid"] == "uid-etl"


def test_a_scaled_template_no_class_resolves_names_the_snapshot_and_target() -> None:
    objs = busy_cluster()
    rs = next(o for o in objs if o["kind"] == "ReplicaSet")
    rs["spec"]["template"]["spec"]["priorityClassName"] = "gone"
    with pytest.raises(InputError) as e:
        plan_spec(objs, scale=["batch/rs/etl=9"], source="snap.json")
    assert str(e.value).startswith("snap.json: --scale batch/rs/etl=9: spec.template.spec.priorityClassName: ")


def test_a_workload_its_pod_group_and_their_pods_are_planned_together() -> None:
    """plan -f of a v1.36 Workload, its PodGroup (its priority its class's, as admission gives it)
    and the pods naming it: the gang preempts as one unit, on the cluster."""
    import json
    from pathlib import Path

    items = json.loads((Path(__file__).resolve().parents[2] / "examples" / "gang.json").read_text())["items"]
    base = [o for o in items if (o.get("metadata") or {}).get("namespace") != "ml"]
    new = [o for o in items if (o.get("metadata") or {}).get("namespace") == "ml"]
    pg = next(o for o in new if o["kind"] == "PodGroup")
    del pg["spec"]["priority"]  # a manifest as written: admission resolves it from priorityClassName
    doc = plan(base, [("gang.json", f"items[{i}]", o) for i, o in enumerate(new)], kubernetes_version="v1.36",
               feature_gates="GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true")
    first = doc["preemptions"][0]
    assert (first["preemptor"], first["node"], first["priority"]) == ("ml/train-workers", "cluster", 10000)
    assert sorted(first["victims"]) == ["batch/lowgang-0", "batch/lowgang-1", "batch/lowgang-2"]


def test_a_pod_group_of_a_bad_policy_in_a_manifest_is_refused_naming_it() -> None:
    bad = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "ml"},
           "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}}
    with pytest.raises(InputError) as e:
        _creations([node("n1")], [("m.yaml", "items[0]", bad)])
    assert str(e.value) == ("m.yaml: items[0] (PodGroup g): spec.schedulingPolicy.gang.minCount: must be greater "
                            "than or equal to 1, got 0")


# --- an Indexed Job under WorkloadWithJob (v1.36) ---------------------------------------------------

WORKLOAD_WITH_JOB = "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true,WorkloadWithJob=true"


def _indexed_job(parallelism: int | None = 3, completions: int | None = 3, mode: str = "Indexed",
                 group: str | None = None) -> dict:
    spec: dict = {"completionMode": mode,
                  "template": {"spec": {"priorityClassName": "high", "restartPolicy": "Never",
                                        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    if group is not None:
        spec["template"]["spec"]["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "jobgang", "namespace": "gang"}, "spec": spec}


def test_the_job_controllers_workload_and_pod_group_names_are_upstreams() -> None:
    """computeWorkloadName and computePodGroupName, checked against a real v1.36.2 cluster's
    objects for Job gang/jobgang of UID e6658021-... (../shared/realcluster/v136 s9 traces)."""
    wl = workload_name_for_job("jobgang", "e6658021-6a57-4e04-b743-0b36829b6848")
    assert wl == "jobgang-647966b5b6"
    assert pod_group_name_for_workload(wl, "jobgang-pgt-0") == "jobgang-647966b5b6-jobgang-pgt-0-7c7d8c988"
    # a long name is cut so the whole stays a DNS subdomain (253), each part to its share
    long = pod_group_name_for_workload("w" * 200, "t" * 200)
    assert len(long) == 253 and long.startswith("w" * 121 + "-" + "t" * 120 + "-")
    assert len(workload_name_for_job("j" * 300, "u")) == 253


@pytest.mark.parametrize("parallelism, completions, indexed, group, want", [
    (3, 3, True, False, True),
    (1, 1, True, False, False),
    (None, 3, True, False, False),
    (3, None, True, False, False),
    (3, 2, True, False, False),
    (3, 3, False, False, False),
    (3, 3, True, True, False),
], ids=["an Indexed Job of parallelism equal to completions is a gang", "one pod is no gang",
        "no parallelism given is none", "no completions given is none", "fewer completions than parallelism is none",
        "a NonIndexed Job is none", "a template naming its own scheduling group is left alone"])
def test_which_jobs_the_controller_makes_gangs_of(parallelism, completions, indexed, group, want) -> None:
    assert is_gang_scheduling_candidate(parallelism, completions, indexed, group) is want


def test_an_indexed_job_under_workload_with_job_is_planned_as_a_gang() -> None:
    spec = plan_spec(busy_cluster(), [("j.yaml", "", _indexed_job())], kubernetes_version="v1.36",
                     feature_gates=WORKLOAD_WITH_JOB)
    [c] = spec.creations
    wl, pg = c.owners
    assert (wl["kind"], pg["kind"]) == ("Workload", "PodGroup")
    assert wl["spec"]["podGroupTemplates"] == [{"name": "jobgang-pgt-0", "schedulingPolicy": {"gang": {"minCount": 3}}}]
    assert wl["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "jobgang"}
    assert pg["metadata"]["name"] == pod_group_name_for_workload(wl["metadata"]["name"], "jobgang-pgt-0")
    assert pg["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    assert pg["spec"]["priority"] == 5, "no class named: admission gives the global default's (default-prio)"
    assert [o["kind"] for o in pg["metadata"]["ownerReferences"]] == ["Job", "Workload"]
    for p in c.pods:
        assert p["spec"]["schedulingGroup"] == {"podGroupName": pg["metadata"]["name"]}
        assert [(o["kind"], o.get("controller", False)) for o in p["metadata"]["ownerReferences"]] == [
            ("Job", True), ("PodGroup", False)]
        assert p["spec"]["priority"] == 1000, "the pods keep their own class's priority"


@pytest.mark.parametrize("gates, job", [
    ("", _indexed_job()),
    ("GenericWorkload=true", _indexed_job()),
    (WORKLOAD_WITH_JOB, _indexed_job(completions=4)),
    (WORKLOAD_WITH_JOB, _indexed_job(group="mine")),
], ids=["without the gate", "with the generic workload alone", "completions other than parallelism",
        "a template that names its own group"])
def test_a_job_the_controller_leaves_alone_is_planned_pod_by_pod(gates: str, job: dict) -> None:
    spec = plan_spec(busy_cluster(), [("j.yaml", "", job)], kubernetes_version="v1.36", feature_gates=gates or None)
    [c] = spec.creations
    assert c.owners == [] or all(o["kind"] == "Job" for o in c.owners)
    assert all(p["spec"].get("schedulingGroup") in (None, {"podGroupName": "mine"}) for p in c.pods)


def _job_of_two_cpu_members() -> dict:
    job = _indexed_job()
    job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    return job


def test_a_job_gang_preempts_with_its_pod_groups_priority_not_its_pods() -> None:
    """The Job controller names no class on the PodGroup, so admission gives it the global
    default's priority (5): under WorkloadAwarePreemption the group preempts with that, below the
    low etl pods (10), and finds no victims though its pods are high (1000)."""
    doc = plan(busy_cluster(), [("j.yaml", "", _job_of_two_cpu_members())], kubernetes_version="v1.36",
               feature_gates=WORKLOAD_WITH_JOB, duration=120)
    assert not [p for p in doc["preemptions"] if p["preemptor"].startswith("gang/")]
    never = {p["pod"] for p in doc["summary"]["neverScheduled"]}
    assert sum(1 for p in never if p.startswith("gang/jobgang-")) == 3, "all or nothing: no member binds"


def test_without_workload_aware_preemption_each_job_member_preempts_with_its_own_priority() -> None:
    doc = plan(busy_cluster(), [("j.yaml", "", _job_of_two_cpu_members())], kubernetes_version="v1.36",
               feature_gates="GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true", duration=120)
    mine = [p for p in doc["preemptions"] if p["preemptor"].startswith("gang/jobgang-")]
    assert mine and all(p["priority"] == 1000 and p["node"] != "cluster" for p in mine)
