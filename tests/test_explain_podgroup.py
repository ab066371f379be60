"""explain of a pod group and of its members (explain/podgroup.py, render/podgroup.py), and what
explain and replay refuse or note about workload objects (model/workload.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt import api
from tests.builders import make_gang, make_node, make_pod, make_workload
from tests.conftest import run_cli

GATES = "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true"


def cluster() -> list[dict[str, Any]]:
    objs = [make_node(f"n{i}").alloc(cpu="4", memory="16Gi").obj() for i in (1, 2)]
    objs += [make_pod(f"f{i}").ns("batch").priority(100).req(cpu="1", memory="1Gi").on(f"n{i % 2 + 1}")
             .start_time(f"2026-01-01T00:00:0{i}Z").obj() for i in range(6)]
    objs.append(make_gang("low", 2, namespace="batch", priority=50, disruption_mode="PodGroup"))
    objs += [make_pod(f"low-{i}").ns("batch").priority(50).req(cpu="1", memory="1Gi").on(f"n{i + 1}")
             .in_pod_group("low").obj() for i in range(2)]
    objs.append(make_gang("train", 2, namespace="gang", priority=10000))
    objs += [make_pod(f"train-{i}").ns("gang").priority(10000).req(cpu="3", memory="1Gi").in_pod_group("train")
             .created(f"2026-01-01T00:01:0{i}Z").obj() for i in range(2)]
    objs.append(make_gang("huge", 3, namespace="gang", priority=10000))
    objs += [make_pod(f"huge-{i}").ns("gang").priority(10000).req(cpu="3", memory="1Gi").in_pod_group("huge").obj()
             for i in range(3)]
    return objs


def snapshot(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


def test_a_members_explanation_carries_its_groups_decision_with_victims_by_unit() -> None:
    [doc] = api.explain_pods(cluster(), ["gang/train-0"], kubernetes_version="v1.36", feature_gates=GATES)
    # schedule_one_podgroup.go submitPodGroupAlgorithmResult: the group's preemption nominates no
    # member ("cluster" is only the Event's word for its search); train-0 did not fit, so its
    # nomination is left as it was (none)
    assert doc["outcome"] == "Preempted" and "nominatedNode" not in doc
    g = doc["podGroup"]
    assert g["podGroup"] == "gang/train" and g["outcome"] == "WaitingOnPreemption"
    assert [m["pod"] for m in g["members"]] == ["gang/train-0", "gang/train-1"]
    units = {u["name"]: u for u in g["preemption"]["victimUnits"]}
    # the PodGroup of disruptionMode PodGroup goes whole, its pods listed under it
    assert [p["pod"] for p in units["batch/low"]["pods"]] == ["batch/low-0", "batch/low-1"]
    assert units["batch/low"]["unit"] == "PodGroup" and units["batch/low"]["priority"] == 50
    assert set(doc["victims"]) == {p["pod"] for u in g["preemption"]["victimUnits"] for p in u["pods"]}
    assert g["preemption"]["frees"] and g["preemption"]["needs"] == {"cpu": "6", "memory": "2Gi"}


def test_a_gang_that_cannot_fit_even_with_preemption_says_so_with_the_failing_member(tmp_path: Path) -> None:
    run = run_cli(["explain", "podgroup/gang/huge", "--snapshot", snapshot(tmp_path, cluster()),
                   "--kubernetes-version", "v1.36", "--feature-gates", GATES])
    assert run.code == 0, run.err
    assert "PodGroup   gang/huge   gang minCount 3" in run.out
    assert "UNSCHEDULABLE: no member is placed (all or nothing)" in run.out
    assert "the group cannot fit even with every lower-priority pod gone: no victims" in run.out
    assert "even then fails first: gang/huge-" in run.out and "Insufficient cpu" in run.out
    assert "PodGroupScheduled=False Unschedulable: pod group is unschedulable, pod group is unschedulable" in run.out


def test_explain_podgroup_by_name_in_a_namespace_and_a_missing_one(tmp_path: Path) -> None:
    path = snapshot(tmp_path, cluster())
    ok = run_cli(["explain", "podgroup/train", "-n", "gang", "--snapshot", path, "--kubernetes-version", "v1.36",
                  "--feature-gates", GATES, "-o", "json"])
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["podGroup"] == "gang/train"
    missing = run_cli(["explain", "podgroup/gang/nope", "--snapshot", path, "--kubernetes-version", "v1.36",
                       "--feature-gates", GATES])
    assert missing.code == 2 and "podgroup gang/nope not found" in missing.err


@pytest.mark.parametrize("spec,field", [
    ({"schedulingPolicy": {"gang": {"minCount": 0}}}, "spec.schedulingPolicy.gang.minCount"),
    ({"schedulingPolicy": {"topology": {}}}, "spec.schedulingPolicy.topology"),
    ({"schedulingPolicy": {"basic": {}, "gang": {"minCount": 2}}}, "spec.schedulingPolicy"),
    ({"schedulingPolicy": {"gang": {"minCount": 2}}, "disruptionMode": "Node"}, "spec.disruptionMode"),
], ids=["a gang of minCount 0", "an unknown policy", "two policies", "an unknown disruptionMode"])
def test_a_pod_group_of_a_bad_policy_exits_2_naming_the_object_and_field(tmp_path: Path, spec: dict, field: str) -> None:
    objs = cluster()
    bad = make_gang("bad", 1, namespace="gang")
    bad["spec"] = spec
    objs.append(bad)
    run = run_cli(["explain", "gang/train-0", "--snapshot", snapshot(tmp_path, objs), "--kubernetes-version", "v1.36",
                   "--feature-gates", GATES])
    assert (run.code, run.out) == (2, "")
    assert f"(PodGroup gang/bad).{field}:" in run.err and run.err.count("\n") == 1


def test_a_v1alpha2_object_given_to_v1_35_exits_2_naming_the_release_and_kind(tmp_path: Path) -> None:
    run = run_cli(["explain", "gang/train-0", "--snapshot", snapshot(tmp_path, cluster()), "--kubernetes-version",
                   "v1.35"])
    assert (run.code, run.out) == (2, "")
    assert "scheduling.k8s.io/v1alpha2 PodGroup is not read by kube-scheduler v1.35.6" in run.err
    assert run.err.count("\n") == 1


def test_a_v1alpha1_workload_given_to_v1_36_exits_2(tmp_path: Path) -> None:
    objs = [o for o in cluster() if o["kind"] != "PodGroup"] + [make_workload("old", {"w": 2}, namespace="gang",
                                                                              version="v1alpha1")]
    run = run_cli(["explain", "batch/f0", "--snapshot", snapshot(tmp_path, objs), "--kubernetes-version", "v1.36"])
    assert run.code == 2 and "scheduling.k8s.io/v1alpha1 Workload is not read by kube-scheduler v1.36.2" in run.err


def test_pods_naming_a_missing_pod_group_get_one_note_per_group_and_wait_at_preenqueue(tmp_path: Path) -> None:
    objs = [o for o in cluster() if not (o["kind"] == "PodGroup" and o["metadata"]["name"] == "train")]
    run = run_cli(["explain", "gang/train-0", "--snapshot", snapshot(tmp_path, objs), "--kubernetes-version", "v1.36",
                   "--feature-gates", GATES, "-o", "json"])
    assert run.code == 0, run.err
    notes = [line for line in run.err.splitlines() if "gang/train" in line]
    assert notes == [f"note: {tmp_path / 's.json'}: gang/train-0 and 1 more name PodGroup gang/train, which is not "
                     "there: GangScheduling holds them at PreEnqueue (waiting for pods's pod group \"train\" to "
                     "appear in scheduling queue)"]
    doc = json.loads(run.out)
    assert doc["outcome"] == "Unschedulable" and doc["message"] == 'waiting for pods\'s pod group "train" to appear in scheduling queue'


def test_a_member_being_deleted_is_explained_by_its_own_cycle_as_any_pod() -> None:
    # a pod being deleted takes no part in its group's cycle (skipPodGroupPodSchedule): it is
    # explained as explain explains any named pod, by its own cycle
    objs = cluster()
    i = next(k for k, o in enumerate(objs) if o["metadata"]["name"] == "train-1")
    objs[i] = make_pod("train-1").ns("gang").priority(10000).req(cpu="3", memory="1Gi").in_pod_group("train") \
        .terminating().obj()
    [doc] = api.explain_pods(objs, ["gang/train-1"], kubernetes_version="v1.36", feature_gates=GATES)
    assert doc["pod"] == "gang/train-1" and "podGroup" not in doc
    assert doc["outcome"] == "Unschedulable"


def test_without_nodes_every_member_is_rejected_and_the_cycle_goes_on() -> None:
    # schedulingAlgorithm gives ErrNoNodesAvailable as UnschedulableAndUnresolvable, a rejection:
    # podGroupSchedulingDefaultAlgorithm goes on to the next member (an error would stop it), and
    # each member gets its own status (submitPodGroupAlgorithmResult)
    objs = [o for o in cluster() if o["kind"] != "Node"]
    [doc] = api.explain_pods(objs, ["gang/train-1"], kubernetes_version="v1.36",
                             feature_gates="GenericWorkload=true,GangScheduling=true")
    assert doc["outcome"] == "Unschedulable"
    assert doc["message"] == "no nodes available to schedule pods"
    assert doc["podGroup"]["podGroup"] == "gang/train"
    assert [(m["pod"], m["outcome"]) for m in doc["podGroup"]["members"]] == [
        ("gang/train-0", "Unschedulable"), ("gang/train-1", "Unschedulable")]
    assert doc["podGroup"]["condition"]["reason"] == "Unschedulable"


def test_a_member_the_groups_cycle_never_tried_gets_the_groups_error() -> None:
    # podGroupSchedulingDefaultAlgorithm stops at a member whose cycle ends in an error
    # (VolumeBinding's PreFilter: a StorageClass without volumeBindingMode); the members after it
    # get the group's status (submitPodGroupAlgorithmResult), shown as errors
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sc-nomode"},
          "provisioner": "example.com/p"}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "ns"},
           "spec": {"storageClassName": "sc-nomode", "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Pending"}}
    objs = [make_node("n1").alloc(cpu="8", memory="8Gi").obj(), make_gang("g", 3, namespace="ns", priority=100), sc, pvc]
    objs += [make_pod(f"m{i}").ns("ns").priority(300 - 100 * i).req(cpu="1", memory="1Gi").in_pod_group("g").obj()
             for i in range(3)]
    objs[-2]["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    [doc] = api.explain_pods(objs, ["ns/m2"], kubernetes_version="v1.36",
                             feature_gates="GenericWorkload=true,GangScheduling=true")
    assert doc["message"].startswith("failed to schedule other pod from a pod group: ")
    assert [(m["pod"], m["outcome"]) for m in doc["podGroup"]["members"]] == [
        ("ns/m0", "Error"), ("ns/m1", "Error"), ("ns/m2", "Error")]
    assert doc["podGroup"]["condition"]["reason"] == "SchedulerError"


def test_a_member_that_fitted_is_nominated_where_it_fitted_when_its_group_preempts() -> None:
    # schedule_one_podgroup.go submitPodGroupAlgorithmResult: the group waits on its preemption, and
    # a member whose own cycle placed it goes back to the queue nominated to that node
    # (ModeOverride); a member that did not fit keeps its nomination as it was
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_node("n2").alloc(cpu="4", memory="8Gi").obj()]
    objs += [make_pod(f"f{i}").ns("batch").priority(100).req(cpu="2", memory="1Gi").on("n2").obj() for i in range(2)]
    objs.append(make_gang("pair", 2, namespace="gang", priority=10000))
    objs += [make_pod(f"pair-{i}").ns("gang").priority(10000).req(cpu="3", memory="1Gi").in_pod_group("pair")
             .created(f"2026-01-01T00:01:0{i}Z").obj() for i in range(2)]
    docs = api.explain_pods(objs, ["gang/pair-0", "gang/pair-1"], kubernetes_version="v1.36", feature_gates=GATES)
    by_pod = {d["pod"]: d for d in docs}
    assert all(d["outcome"] == "Preempted" for d in docs)
    fitted = [d for d in docs if d.get("nominatedNode")]
    assert [d["nominatedNode"] for d in fitted] == ["n1"], by_pod
    assert by_pod["gang/pair-0"]["victims"] == by_pod["gang/pair-1"]["victims"] != []


@pytest.mark.parametrize("point, preempts", [("postFilter", True), ("multiPoint", False)],
                         ids=["postFilter disabled: still the group's", "multiPoint disabled: not registered"])
def test_workload_aware_preemption_runs_while_the_profile_initialises_default_preemption(
        tmp_path: Path, point: str, preempts: bool) -> None:
    # runtime/framework.go NewFramework: DefaultPreemption is the PodGroupPostFilter plugin when it is
    # in the profile's pluginsMap (any extension point, multiPoint included); disabling its
    # postFilter point alone leaves it there. schedule_one_podgroup.go runWorkloadAwarePreemption
    # otherwise answers "default preemption plugin is not registered, ..."
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                   f"- schedulerName: default-scheduler\n  plugins:\n    {point}:\n      disabled:\n"
                   "      - name: DefaultPreemption\n")
    run = run_cli(["explain", "podgroup/gang/train", "--snapshot", snapshot(tmp_path, cluster()), "-o", "json",
                   "--kubernetes-version", "v1.36", "--feature-gates", GATES, "--config", str(cfg)])
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert (doc["outcome"] == "WaitingOnPreemption") is preempts, doc["outcome"]
    message = doc["condition"]["message"]
    assert ("default preemption plugin is not registered, workload aware preemption is disabled" in message) \
        is not preempts, message


def test_a_group_scheduled_already_keeps_its_true_condition_when_an_extra_member_fails() -> None:
    # schedule_one_podgroup.go updatePodGroupCondition: "If the PodGroup was already successfully
    # scheduled, don't regress the condition back to False on a subsequent cycle for extra pods"
    from kubectl_preempt.scheduler.schedule_one_podgroup import update_pod_group_condition
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj()]
    objs.append(make_pod("big").ns("gang").priority(10000).req(cpu="4", memory="1Gi").on("n1").obj())
    group = make_gang("pair", 1, namespace="gang", priority=10000)
    group["status"] = {"conditions": [{"type": "PodGroupScheduled", "status": "True", "reason": "Scheduled",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    objs.append(group)
    objs.append(make_pod("pair-1").ns("gang").priority(10000).req(cpu="1", memory="1Gi").in_pod_group("pair").obj())
    [doc] = api.explain_pods(objs, ["podgroup/gang/pair"], kubernetes_version="v1.36",
                             feature_gates="GenericWorkload=true,GangScheduling=true")
    assert doc["outcome"] != "Scheduled"
    assert doc["condition"]["status"] == "True" and doc["condition"]["unchanged"] is True
    new = {"type": "PodGroupScheduled", "status": "False", "reason": "Unschedulable", "message": "x"}
    assert update_pod_group_condition(None, new) == new
    assert update_pod_group_condition({**new, "status": "True", "reason": "Scheduled"}, new) is None
    assert update_pod_group_condition(new, new) is None  # SetStatusCondition: nothing changed


def test_members_of_two_schedulers_fail_the_cycle_without_a_condition(tmp_path: Path) -> None:
    # schedule_one_podgroup.go scheduleOnePodGroup: frameworkForPodGroup's error goes to each
    # member's FailureHandler, and the cycle returns before submitPodGroupAlgorithmResult, so the
    # PodGroup gets no PodGroupScheduled condition
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                   "- schedulerName: default-scheduler\n- schedulerName: other-scheduler\n")
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_gang("g", 2, namespace="gang", priority=10)]
    objs += [make_pod(f"g-{i}").ns("gang").priority(10).req(cpu="1", memory="1Gi").in_pod_group("g")
             .created(f"2026-01-01T00:01:0{i}Z").obj() for i in range(2)]
    objs[-1]["spec"]["schedulerName"] = "other-scheduler"
    run = run_cli(["explain", "podgroup/gang/g", "--snapshot", snapshot(tmp_path, objs), "-o", "json",
                   "--kubernetes-version", "v1.36", "--feature-gates", "GenericWorkload=true,GangScheduling=true",
                   "--config", str(cfg)])
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["condition"] == {}
    assert len(doc["members"]) == 2
    assert all("all pods in a single pod group should have the same .spec.schedulerName set" in m["message"]
               for m in doc["members"]), doc["members"]


def test_a_pending_pod_of_a_scheduler_without_a_profile_is_not_in_its_group(tmp_path: Path) -> None:
    # eventhandlers.go addPod: a pending pod reaches the cache's pod-group state
    # (addPodToSchedulingQueue -> AddPodGroupMember) only when responsibleForPod; so GangScheduling's
    # PreEnqueue counts 1 of minCount 2, and a basic group's cycle holds the one pod of this scheduler
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_gang("g", 2, namespace="gang", priority=10)]
    objs += [make_pod(f"g-{i}").ns("gang").priority(10).req(cpu="1", memory="1Gi").in_pod_group("g")
             .created(f"2026-01-01T00:01:0{i}Z").obj() for i in range(2)]
    objs[-1]["spec"]["schedulerName"] = "other-scheduler"
    gates = "GenericWorkload=true,GangScheduling=true"
    [doc] = api.explain_pods(objs, ["gang/g-0"], kubernetes_version="v1.36", feature_gates=gates)
    assert doc["outcome"] == "Unschedulable"
    assert doc["message"] == "waiting for minCount pods from a gang to appear in scheduling queue"
    basic = make_gang("g", 2, namespace="gang", priority=10)
    basic["spec"]["schedulingPolicy"] = {"basic": {}}
    objs[1] = basic
    [doc] = api.explain_pods(objs, ["podgroup/gang/g"], kubernetes_version="v1.36", feature_gates=gates)
    assert [m["pod"] for m in doc["members"]] == ["gang/g-0"]
    assert doc["outcome"] == "Scheduled" and doc["condition"]["status"] == "True"


def test_a_gang_short_of_its_pods_is_held_before_any_cycle(tmp_path: Path) -> None:
    # gangscheduling.go PreEnqueue keeps every member out of activeQ while fewer than minCount pods
    # exist: no pod-group cycle runs (scheduleOnePodGroup never sees them) and no condition is written
    objs = [make_node("n1").alloc(cpu="8", memory="8Gi").obj(), make_gang("g", 3, namespace="gang", priority=10)]
    objs += [make_pod(f"g-{i}").ns("gang").priority(10).req(cpu="1", memory="1Gi").in_pod_group("g").obj()
             for i in range(2)]
    gates = "GenericWorkload=true,GangScheduling=true"
    [doc] = api.explain_pods(objs, ["podgroup/gang/g"], kubernetes_version="v1.36", feature_gates=gates)
    assert doc["heldAtPreEnqueue"] == {"plugin": "GangScheduling", "message":
                                       "waiting for minCount pods from a gang to appear in scheduling queue"}
    assert doc["outcome"] == "Unschedulable" and doc["condition"] == {}
    assert [m["outcome"] for m in doc["members"]] == ["Held", "Held"]
    run = run_cli(["explain", "podgroup/gang/g", "--snapshot", snapshot(tmp_path, objs),
                   "--kubernetes-version", "v1.36", "--feature-gates", gates])
    assert run.code == 0 and "held before any cycle (GangScheduling PreEnqueue)" in run.out


def test_a_pod_preenqueue_holds_gets_no_post_filter_in_its_explanation() -> None:
    # scheduling_queue.go Add: runPreEnqueuePlugins keeps the pod out of activeQ, so no cycle runs
    # and PostFilter (preemption) never does: the explanation names the PreEnqueue plugin instead
    objs = [make_node("n1").alloc(cpu="8", memory="8Gi").obj(), make_gang("g", 3, namespace="gang", priority=10),
            make_pod("g-0").ns("gang").priority(10).req(cpu="1", memory="1Gi").in_pod_group("g").obj()]
    [doc] = api.explain_pods(objs, ["gang/g-0"], kubernetes_version="v1.36",
                             feature_gates="GenericWorkload=true,GangScheduling=true")
    assert doc["heldAtPreEnqueue"]["plugin"] == "GangScheduling"
    assert doc["postFilterMessage"] == "" and doc["postFilterCode"] == ""


def test_member_rows_say_error_and_a_partly_placed_group_says_how_many() -> None:
    # submitPodGroupAlgorithmResult: a member whose FailureHandler gets an Error status (its own, or
    # the group's when the cycle stopped before it) has PodScheduled reason SchedulerError; a basic
    # group binds the members that fitted and the others wait for another cycle
    from kubectl_preempt.render.podgroup import pod_group_explanation
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_gang("g", 1, namespace="ns", priority=100)]
    objs[1]["spec"]["schedulingPolicy"] = {"basic": {}}
    objs += [make_pod(f"m{i}").ns("ns").priority(100).req(cpu="3", memory="1Gi").in_pod_group("g")
             .created(f"2026-01-01T00:01:0{i}Z").obj() for i in range(2)]
    [doc] = api.explain_pods(objs, ["podgroup/ns/g"], kubernetes_version="v1.36",
                             feature_gates="GenericWorkload=true,GangScheduling=true")
    assert doc["outcome"] == "Scheduled"
    assert "SCHEDULED: 1 of 2 members placed" in pod_group_explanation(doc)


@pytest.mark.parametrize("gates, noted", [("", True), ("GenericWorkload=true,GangScheduling=true", False)])
def test_with_generic_workload_off_pending_members_get_one_note_per_group_saying_each_is_decided_alone(
        tmp_path: Path, gates: str, noted: bool) -> None:
    # schedule_one.go ScheduleOne: without GenericWorkload a pod naming a PodGroup goes through
    # scheduleOnePod, as any pod; the note says so once per group, counting only pending members
    # (low-0 and low-1 are bound: their group gets none)
    run = run_cli(["explain", "gang/train-0", "--snapshot", snapshot(tmp_path, cluster()), "--kubernetes-version",
                   "v1.36", *(["--feature-gates", gates] if gates else []), "-o", "json"])
    assert run.code == 0, run.err
    notes = [line for line in run.err.splitlines() if "GenericWorkload off" in line]
    if not noted:
        assert notes == []
        return
    src = tmp_path / "s.json"
    assert notes == [
        f"note: {src}: gang/train-0 and 1 more name PodGroup gang/train, which kube-scheduler v1.36.2 does not read "
        "with GenericWorkload off: each is decided alone, as any pod (--feature-gates "
        "GenericWorkload=true,GangScheduling=true schedules it as a gang)",
        f"note: {src}: gang/huge-0 and 2 more name PodGroup gang/huge, which kube-scheduler v1.36.2 does not read "
        "with GenericWorkload off: each is decided alone, as any pod (--feature-gates "
        "GenericWorkload=true,GangScheduling=true schedules it as a gang)"]
    # and the verdict is a pod's own: no group in it
    assert "podGroup" not in json.loads(run.out)
