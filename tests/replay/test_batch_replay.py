"""replay with kube-batch beside kube-scheduler: pods naming kube-batch are placed by its sessions,
one every --schedule-period; its reclaim and preempt evictions are preemptions that say which
scheduler and which action made them."""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.cli.main import main
from kubectl_preempt.errors import InputError
from kubectl_preempt.io.trace import TraceWriter, trace_header
from kubectl_preempt.replay.api import replay
from kubectl_preempt.batch.conf import ALL_ACTIONS_CONF

START = datetime.datetime(2026, 3, 2, 9, 0, 0, tzinfo=datetime.timezone.utc)
RECLAIM_CONF = ALL_ACTIONS_CONF


def _t(s: float) -> str:
    return (START + datetime.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _node(name: str) -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": alloc, "capacity": dict(alloc), "conditions": [{"type": "Ready", "status": "True"}]}}


def _queue(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": 1}}


def _group(name: str, ns: str, queue: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": {"minMember": min_member, "queue": queue}}


def _pod(name: str, ns: str, cpu: str, *, scheduler: str = "kube-batch", group: str | None = None,
         node: str | None = None, created: float = 0, priority: int = 0, grace: int = 30) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"{ns}-{name}", "creationTimestamp": _t(created)}
    if group:
        md["annotations"] = {"scheduling.k8s.io/group-name": group}
    spec: dict[str, Any] = {"schedulerName": scheduler, "priority": priority, "terminationGracePeriodSeconds": grace,
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    status: dict[str, Any] = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running", "startTime": _t(created)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def two_queues_trace(*, serving_priority: int = 0) -> dict[str, Any]:
    """Queue team-b's gang `train` holds both nodes; at 10 s queue team-a's gang `etl` arrives (two
    pods of 1 CPU); web-0 and web-1 are kube-scheduler's."""
    events: list[dict[str, Any]] = []

    def add(s: float, obj: dict[str, Any], typ: str = "ADDED") -> None:
        events.append({"time": _t(s), "type": typ, "object": obj})

    for n in ("n1", "n2"):
        add(0, _node(n))
    add(0, _queue("team-a"))
    add(0, _queue("team-b"))
    add(0, _group("train", "team-b", "team-b", 2))
    for i in range(4):
        add(0, _pod(f"train-{i}", "team-b", "2", group="train", node=("n1", "n2")[i % 2], grace=5))
    add(0, _pod("web-0", "shop", "1", scheduler="default-scheduler", priority=serving_priority))
    add(10, _group("etl", "team-a", "team-a", 2))
    for i in range(2):
        add(10, _pod(f"etl-{i}", "team-a", "1", group="etl", created=10))
    add(20, _pod("web-1", "shop", "1", scheduler="default-scheduler", created=20, priority=serving_priority))
    add(120, {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "0"}}, "BOOKMARK")
    return {"header": {"startTime": _t(0)}, "events": events}


def test_kube_batch_reclaims_for_the_queue_under_its_share_and_binds_the_gang() -> None:
    report = replay(two_queues_trace(), batch_scheduler_conf=RECLAIM_CONF)
    reclaims = [p for p in report["preemptions"] if p.get("action") == "reclaim"]
    assert reclaims and all(p["scheduler"] == "kube-batch" for p in reclaims)
    first = reclaims[0]
    # the first session after etl arrives (sessions at 0, 1, 2 ... s): at 10 s
    assert first["time"] == "2026-03-02T09:00:10Z"
    assert first["preemptor"] in ("team-a/etl-0", "team-a/etl-1")
    assert first["preemptorJob"] == "team-a/etl"
    assert first["why"]["reclaimingQueue"] == "team-a"
    assert all(v.startswith("team-b/train-") for v in first["victims"])
    assert first["victimDetails"][0]["queue"] == "team-b"
    assert first["victimDetails"][0]["eligibleBy"] == ["conformance", "gang"]
    kb = report["summary"]["kubeBatch"]
    assert kb["binds"] == 2 and kb["actions"] == ["reclaim", "allocate", "backfill", "preempt"]
    assert report["summary"]["podsNeverScheduled"] == 0


def test_each_session_reclaims_again_while_the_victims_terminate() -> None:
    # kube-batch's reclaim counts only running tasks as reclaimable and no queue allocation for a
    # pipelined task, so the next session (1 s later) reclaims again until the gang may not shrink
    report = replay(two_queues_trace(), batch_scheduler_conf=RECLAIM_CONF)
    times = [p["time"] for p in report["preemptions"] if p.get("action") == "reclaim"]
    assert times == ["2026-03-02T09:00:10Z", "2026-03-02T09:00:11Z"]
    victims = [v for p in report["preemptions"] for v in p["victims"]]
    assert len(victims) == len(set(victims)) == 2  # train's minMember 2 stops it


def test_a_longer_schedule_period_runs_fewer_sessions() -> None:
    every_second = replay(two_queues_trace(), batch_scheduler_conf=RECLAIM_CONF)["summary"]["kubeBatch"]
    every_4s = replay(two_queues_trace(), batch_scheduler_conf=RECLAIM_CONF, schedule_period=4)
    kb = every_4s["summary"]["kubeBatch"]
    assert kb["schedulePeriodSeconds"] == 4.0
    assert kb["sessions"] < every_second["sessions"]
    # sessions at 0, 4, 8, 12 s: etl (10 s) is first seen at 12 s
    assert [p["time"] for p in every_4s["preemptions"]][0] == "2026-03-02T09:00:12Z"


def test_kube_scheduler_preemptions_say_which_scheduler_beside_kube_batch() -> None:
    report = replay(two_queues_trace(serving_priority=1000), batch_scheduler_conf=RECLAIM_CONF)
    by = {(p["scheduler"], p["action"]) for p in report["preemptions"]}
    assert ("default-scheduler", "DefaultPreemption") in by
    mine = [p for p in report["preemptions"] if p["scheduler"] == "default-scheduler"]
    assert all(p["preemptor"].startswith("shop/web-") for p in mine)


def test_kube_batch_pods_are_not_placed_by_kube_scheduler() -> None:
    # kube-batch's default configuration (allocate, backfill) never evicts: etl waits, gang and all
    report = replay(two_queues_trace())
    s = report["summary"]
    assert s["kubeBatch"]["evictions"] == 0 and s["kubeBatch"]["binds"] == 0
    pending = {n["pod"]: n for n in s["neverScheduled"]}
    assert pending["team-a/etl-0"]["queue"] == "kube-batch"
    assert pending["team-a/etl-0"]["lastMessage"].startswith("Unschedulable: ")
    assert all(p.get("scheduler") == "default-scheduler" for p in report["preemptions"])


def test_a_trace_without_kube_batch_pods_reports_as_before() -> None:
    trace = two_queues_trace()
    trace["events"] = [e for e in trace["events"]
                       if (e["object"].get("spec") or {}).get("schedulerName") != "kube-batch"]
    report = replay(trace, batch_scheduler_conf=RECLAIM_CONF)
    assert "kubeBatch" not in report["summary"]
    assert all("scheduler" not in p for p in report["preemptions"])


def test_another_batch_scheduler_name() -> None:
    trace = two_queues_trace()
    for e in trace["events"]:
        spec = e["object"].get("spec") or {}
        if spec.get("schedulerName") == "kube-batch":
            spec["schedulerName"] = "volcano"
    assert "kubeBatch" not in replay(trace, batch_scheduler_conf=RECLAIM_CONF)["summary"]
    report = replay(trace, batch_scheduler_conf=RECLAIM_CONF, batch_scheduler_name="volcano")
    assert report["summary"]["kubeBatch"]["schedulerName"] == "volcano"
    assert {p["scheduler"] for p in report["preemptions"]} == {"volcano"}


def test_a_bad_configuration_names_the_file() -> None:
    with pytest.raises(InputError) as e:
        replay(two_queues_trace(), batch_scheduler_conf='actions: "reclaim, shuffle"\n',
               batch_scheduler_conf_source="kb.conf")
    assert e.value.source == "kb.conf"


@pytest.mark.parametrize("period", [0, -1, float("inf")])
def test_the_schedule_period_must_be_positive(period: float) -> None:
    with pytest.raises(InputError) as e:
        replay(two_queues_trace(), schedule_period=period)
    assert e.value.field == "--schedule-period"


def test_cli_table_says_who_evicted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "trace.jsonl"
    with TraceWriter(str(trace), trace_header(START.timestamp(), context="two-queues", server_version="v1.34.1")) as w:
        for e in two_queues_trace(serving_priority=1000)["events"]:
            w.event(datetime.datetime.strptime(e["time"], "%Y-%m-%dT%H:%M:%S%z").timestamp(), e["type"], e["object"])
    conf = tmp_path / "kb.conf"
    conf.write_text(RECLAIM_CONF)
    assert main(["replay", str(trace), "--batch-scheduler-conf", str(conf)]) == 0
    out = capsys.readouterr().out
    assert "Batch     kube-batch places the pods named kube-batch: a session every 1s" in out
    assert "kube-batch reclaim" in out and "default-scheduler DefaultPreemption" in out
    assert "queue team-a reclaims for job team-a/etl; eligible by conformance, gang; frees cpu 2, memory 1Gi" in out
    assert main(["replay", str(trace), "--batch-scheduler-conf", str(conf), "--schedule-period", "0"]) == 2
    assert "--schedule-period" in capsys.readouterr().err
    conf.write_text("actions: [")
    assert main(["replay", str(trace), "--batch-scheduler-conf", str(conf)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {conf}") and err.count("\n") == 1


def test_runs_count_kube_batchs_pending_pods_too() -> None:
    # kube-batch's default configuration never evicts: etl (kube-batch's) and web (kube-scheduler's) wait
    dist = replay(two_queues_trace(), runs=2, jobs=1)["distribution"]
    assert dist["pendingProbability"] == {"shop/web-0": 1.0, "shop/web-1": 1.0, "team-a/etl-0": 1.0, "team-a/etl-1": 1.0}
    assert dist["podsNeverScheduled"]["p50"] == 4


def test_a_period_that_makes_more_sessions_than_a_replay_runs_is_refused_before_any_run() -> None:
    # cmd/kube-batch wait.Until(runOnce, schedulePeriod): one session a period over the trace's
    # span (replay/api.py _check_sessions); a nanosecond over this trace's seconds is unbounded work
    with pytest.raises(InputError) as e:
        replay(two_queues_trace(), batch_scheduler_conf=RECLAIM_CONF, schedule_period=1e-9)
    assert e.value.field == "--schedule-period"
    assert "sessions of kube-batch, more than the 5,000,000 a replay runs (--max-trace-events raises it)" in str(e.value)


def test_a_trace_without_pods_of_the_batch_scheduler_takes_any_period() -> None:
    # no pod names volcano: no session runs, so no period costs anything
    report = replay(two_queues_trace(), batch_scheduler_name="volcano", schedule_period=1e-9)
    assert "kubeBatch" not in report["summary"]
