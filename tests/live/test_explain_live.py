"""`kubectl preempt explain` without --snapshot: the live cluster, read with GETs only; and who
preempted my pod, from what the scheduler recorded (DisruptionTarget condition, Preempted event)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.io import live
from kubectl_preempt.model import who_preempted
from tests.live.conftest import GONE_PREEMPTOR_UID, PREEMPTOR_UID, cluster_objects
from tests.live.fakeapi import FakeAPIServer


def _json(out: str) -> list[dict]:
    doc = json.loads(out)
    return doc["items"] if doc.get("kind") == "ExplanationList" else [doc]


def test_live_verdict_equals_the_verdict_on_a_snapshot_of_the_same_cluster(cli, api: FakeAPIServer,
                                                                           tmp_path: Path) -> None:
    code, out, err = cli("explain", "team-a/api-1", "-o", "json")
    assert code == 0, err
    snap = tmp_path / "all.json"
    # the snapshot names the server's release, as capture writes it
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster_objects(),
                                "metadata": {"annotations": {"kubectl-preempt/server-version":
                                                             api.version_info["gitVersion"]}}}))
    code2, out2, _ = cli("explain", "team-a/api-1", "--snapshot", str(snap), "-o", "json")
    assert code2 == 0
    live, snapshot = json.loads(out), json.loads(out2)
    assert (live.pop("schedulerVersionFrom"), snapshot.pop("schedulerVersionFrom")) == ("live", "snapshot")
    assert live == snapshot
    assert json.loads(out)["outcome"] == "Preempted"
    assert api.methods == {"GET"}


def test_a_name_without_namespace_is_in_the_contexts_namespace_as_kubectl(cli) -> None:
    code, out, _ = cli("explain", "api-1", "-o", "json")
    assert code == 0 and json.loads(out)["pod"] == "team-a/api-1"


def test_explain_every_pending_pod_of_the_live_cluster(cli) -> None:
    code, out, _ = cli("explain", "-A", "-o", "json")
    assert code == 0
    docs = json.loads(out)["items"]
    assert sorted(d["pod"] for d in docs) == ["team-a/api-1", "team-a/web-0"]


def test_a_manifest_is_explained_against_the_live_cluster(cli, api: FakeAPIServer, tmp_path: Path) -> None:
    manifest = tmp_path / "big.yaml"
    manifest.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big"},
        "spec": {"priorityClassName": "high", "containers": [{"name": "c", "image": "x",
                                                              "resources": {"requests": {"cpu": "2"}}}]}}))
    code, out, err = cli("explain", "-f", str(manifest), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    # the manifest lands in the context's namespace and takes its priority from the live class
    assert doc["pod"] == "team-a/big" and doc["priority"] == 1000
    assert doc["outcome"] == "Preempted"
    assert api.methods == {"GET"}


def test_who_preempted_a_pod_still_terminating_and_what_its_preemptor_faces_now(cli, api: FakeAPIServer) -> None:
    code, out, err = cli("explain", "batch/etl-2")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Pod        batch/etl-2"
    assert lines[1] == "Preempted  by the scheduler at 2026-03-01 10:00:03 on node-2"
    assert lines[2].split() == ["by", "team-a/web-0", "(uid", f"{PREEMPTOR_UID}),", "priority", "1000"]
    assert "pending, nominated to node-2: explained below" in lines[3]
    assert "condition DisruptionTarget/PreemptionByScheduler: default-scheduler: preempting to accommodate " \
           "a higher priority pod" in out
    assert f"event Preempted: Preempted by pod {PREEMPTOR_UID} on node node-2" in out
    # then the preemptor, explained as it stands: the victim itself is not explained as if pending
    assert "Pod        team-a/web-0   priority 1000 (high)" in out
    assert "Pod        batch/etl-2   priority" not in out
    assert "team-a/web-0 preempted batch/etl-2 and is still pending" in err
    # the events were asked for with the Preempted reason, in the victim's namespace
    ev = api.requests_for("events")
    assert ev and all(r.path == "/api/v1/namespaces/batch/events" for r in ev)
    assert "reason=Preempted" in ev[0].query["fieldSelector"]
    assert "involvedObject.name=etl-2" in ev[0].query["fieldSelector"]
    assert api.methods == {"GET"}


def test_who_preempted_as_json(cli) -> None:
    code, out, _ = cli("explain", "batch/etl-2", "-o", "json")
    assert code == 0
    victim, preemptor = _json(out)
    assert victim["pod"] == "batch/etl-2" and victim["exists"] is True
    rec = victim["preemptedBy"]
    assert rec["sources"] == ["condition", "event"]
    assert (rec["node"], rec["preemptor"], rec["preemptorUID"], rec["preemptorState"], rec["preemptorNode"]) == \
        ("node-2", "team-a/web-0", PREEMPTOR_UID, "Nominated", "node-2")
    assert rec["time"] == "2026-03-01T10:00:03Z"
    assert preemptor["pod"] == "team-a/web-0" and "outcome" in preemptor


def test_who_preempted_a_pod_that_is_gone(cli) -> None:
    code, out, err = cli("explain", "gone-1", "-n", "batch")
    assert code == 0, err
    assert out.splitlines()[:5] == [
        "Pod        batch/gone-1",
        "Preempted  by the scheduler at 2026-03-01 09:30:00 on node-1",
        f"  by             team-a/api-7 (uid {GONE_PREEMPTOR_UID})",
        "  preemptor now  no longer in the cluster (name from the event)",
        f"  recorded       event Preempted: Preempted by pod {GONE_PREEMPTOR_UID} on node node-1",
    ]
    code, out, _ = cli("explain", "batch/gone-1", "-o", "json")
    doc = json.loads(out)
    assert doc["exists"] is False and doc["preemptedBy"]["preemptorState"] == "Gone"


def test_a_pod_that_was_never_there_is_still_not_found(cli) -> None:
    code, out, err = cli("explain", "batch/nope")
    assert code == 2 and out == ""
    assert "pod batch/nope not found" in err


def test_a_pending_pod_without_a_record_has_no_preemption_section(cli) -> None:
    code, out, _ = cli("explain", "team-a/api-1")
    assert code == 0 and "Preempted  by the scheduler" not in out


def test_namespace_only_access_shows_the_record_and_says_what_it_could_not_read(cli, api: FakeAPIServer) -> None:
    api.namespace_only("batch")
    code, out, err = cli("explain", "batch/etl-2")
    assert code == 3
    assert out.startswith("Pod        batch/etl-2\nPreempted  by the scheduler at 2026-03-01 10:00:03 on node-2\n")
    assert "preemptor now  unknown: pods of namespace team-a could not be read" in out
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert notes[0] == ("note: cannot list nodes at the cluster scope (forbidden): none read; no node can be "
                        "considered, so there is no verdict")
    assert 'note: cannot list pods at the cluster scope (forbidden): read pods in namespace "batch" only' in err
    # the refusal in capture's words (issue 12): the same 403 reads the same in every command
    assert err.splitlines()[-1] == (
        f'error: {api.url}: forbidden: cannot list nodes at the cluster scope (nodes is forbidden: User "jane" '
        'cannot list resource "nodes" in API group "" at the cluster scope)')
    assert api.methods == {"GET"}


def test_nodes_readable_but_pods_only_in_one_namespace_still_gives_a_verdict_with_a_warning(
        cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: ns is None and resource in ("nodes", "priorityclasses") \
        or ns == "team-a"
    code, out, err = cli("explain", "team-a/api-1", "-o", "json")
    assert code == 0
    assert 'read pods in namespace "team-a" only; pods of other namespaces on the same nodes are missing' in err
    # without the batch pods, node-2 is free enough: the verdict differs, and the note says why
    assert json.loads(out)["outcome"] == "Scheduled"


@pytest.mark.parametrize("setup, args, message", [
    (lambda a: a.fail(None, 401), (), 'unauthorized (401) to list nodes: the credentials of context "fake"'),
    (lambda a: a.delay("pods", 3.0), ("--request-timeout", "1s"),
     "the API server did not answer list pods within 1s (--request-timeout)"),
    (lambda a: a.fail("pods", 500), (), "list pods failed: 500"),
], ids=["rejected credentials", "a timeout", "a server error"])
def test_cluster_failures_exit_3(cli, api: FakeAPIServer, setup, args, message: str) -> None:
    setup(api)
    code, out, err = cli("explain", "team-a/api-1", *args)
    assert code == 3 and out == ""
    assert err.startswith(f"error: {api.url}: {message}")
    assert err.count("\n") == 1


def test_live_flags_do_not_apply_to_a_snapshot(cli, tmp_path: Path) -> None:
    snap = tmp_path / "s.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster_objects()}))
    code, _, err = cli("explain", "team-a/api-1", "--snapshot", str(snap), "--request-timeout", "5s")
    assert code == 2 and "--request-timeout" in err


def test_the_event_message_matches_what_kube_scheduler_writes() -> None:
    # preemption.go: Eventf(victim, preemptor, Normal, "Preempted", "Preempting",
    #                        "Preempted by pod %v on node %v", preemptor.UID, c.Name())
    m = who_preempted.PREEMPTED_BY.match("Preempted by pod 1f0c-7a on node ip-10-0-1-2.ec2.internal")
    assert m and m.group("uid") == "1f0c-7a" and m.group("node") == "ip-10-0-1-2.ec2.internal"
    assert who_preempted.EVENT_REASON_PREEMPTED == "Preempted"
    assert (who_preempted.DISRUPTION_TARGET, who_preempted.REASON_PREEMPTION_BY_SCHEDULER) == (
        "DisruptionTarget", "PreemptionByScheduler")


def test_a_recreated_pod_of_the_same_name_reports_the_earlier_pods_record() -> None:
    pod = {"kind": "Pod", "metadata": {"name": "db-0", "namespace": "x", "uid": "new"}, "spec": {}, "status": {}}
    event = {"involvedObject": {"kind": "Pod", "name": "db-0", "namespace": "x", "uid": "old"},
             "reason": "Preempted", "message": "Preempted by pod p1 on node n1",
             "lastTimestamp": "2026-03-01T10:00:00Z"}
    rec = live.preemption_record(pod, [event], [pod])
    assert rec is not None and rec["earlierPodUID"] == "old" and rec["node"] == "n1"
    assert rec["preemptorState"] == "Gone" and rec["preemptor"] is None


def test_who_preempted_reads_a_snapshot_with_the_victims_condition_and_the_schedulers_event() -> None:
    from kubectl_preempt.api import who_preempted as api_who_preempted

    victim = {"kind": "Pod", "metadata": {"name": "etl-1", "namespace": "batch", "uid": "v1"},
              "spec": {"nodeName": "node-a"},
              "status": {"conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                                         "lastTransitionTime": "2026-03-01T10:00:00Z",
                                         "message": "shop/checkout: preempting to accommodate a higher priority pod"}]}}
    preemptor = {"kind": "Pod", "metadata": {"name": "checkout", "namespace": "shop", "uid": "p1"},
                 "spec": {"priority": 1000}, "status": {"nominatedNodeName": "node-a"}}
    event = {"kind": "Event", "reason": "Preempted", "message": "Preempted by pod p1 on node node-a",
             "involvedObject": {"kind": "Pod", "name": "etl-1", "namespace": "batch", "uid": "v1"},
             "lastTimestamp": "2026-03-01T10:00:00Z"}
    rec = api_who_preempted([victim, preemptor, event], "batch/etl-1")
    assert rec is not None
    assert (rec["preemptor"], rec["preemptorState"], rec["preemptorNode"], rec["node"]) == (
        "shop/checkout", "Nominated", "node-a", "node-a")
    assert rec["sources"] == ["condition", "event"]
    assert api_who_preempted([preemptor, event], "shop/checkout") is None
