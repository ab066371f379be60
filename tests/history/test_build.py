"""history's join, rule by rule, on small inputs built for each: Events of either API group, the
victim's DisruptionTarget condition, the preemptors' nominations, kube-batch's Evict Events."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.api import preemption_history
from tests.builders import make_gang, make_pod

from .objects import evict_event, iso, preempted_event, with_condition

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def _victim(name: str = "etl-1", uid: str = "uid-v", node: str = "node-1", *, t: float | None = None,
            terminating: bool = True) -> dict[str, Any]:
    b = make_pod(name).ns("batch").uid(uid).priority(10).priority_class("low").req(cpu="1").running(node)
    if terminating:
        b = b.terminating(iso(NOW))
    pod = b.obj()
    return with_condition(pod, t) if t is not None else pod


def _preemptor(name: str = "web-0", uid: str = "uid-p", node: str | None = "node-1", *, bound: bool = False,
               priority: int = 1000) -> dict[str, Any]:
    b = make_pod(name).ns("team-a").uid(uid).priority(priority).priority_class("high").req(cpu="1")
    if bound and node:
        b = b.running(node)
    elif node:
        b = b.nominated(node)
    return b.obj()


def _rows(objects: list[dict], **kw: Any) -> list[dict]:
    kw.setdefault("now", NOW)
    kw.setdefault("since", 3600.0)
    # these rules are written as a v1.34 scheduler leaves its records (a nomination alone is
    # evidence there); a test of a later release names it, or the API server's version
    if "server_version" not in kw:
        kw.setdefault("kubernetes_version", "v1.34")
    return preemption_history(objects, **kw)["items"]


def _trace(*steps: tuple[float, str, dict]) -> list[dict]:
    return [{"ts": t, "time": iso(t), "type": typ, "object": o} for t, typ, o in steps]


@pytest.mark.parametrize("group", ["v1", "events.k8s.io/v1"])
def test_an_event_and_the_victim_s_condition_make_one_row_found_by_both(group: str) -> None:
    t = NOW - 60
    objs = [_victim(t=t), _preemptor(), preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", t + 0.25,
                                                        related="team-a/web-0", group=group)]
    [row] = _rows(objs)
    assert row["victim"] == "batch/etl-1" and row["victimClass"] == "low" and row["victimPriority"] == 10
    assert row["preemptor"] == "team-a/web-0" and row["preemptorClass"] == "high" and row["preemptorPriority"] == 1000
    assert row["node"] == "node-1" and row["found"] == "both"
    assert row["sources"] == [f"event ({group})", "condition"]
    assert row["time"] == iso(t + 0.25)  # the Event's eventTime, to the microsecond, before the condition's second
    assert row["preemptorState"] == "Nominated to node-1"
    assert row["conflicts"] == []


def test_the_same_event_read_through_both_groups_is_one_row() -> None:
    t = NOW - 60
    objs = [_victim(t=t), _preemptor(),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", t, related="team-a/web-0", uid="e1"),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", t, related="team-a/web-0", uid="e1",
                            group="events.k8s.io/v1")]
    [row] = _rows(objs)
    assert row["sources"] == ["event (v1)", "condition"]  # the object read once: the first group's copy


def test_copies_of_one_preemption_in_both_groups_with_their_own_uids_still_make_one_row() -> None:
    t = NOW - 60
    objs = [_preemptor(), preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", t),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", t, group="events.k8s.io/v1")]
    [row] = _rows(objs)
    assert row["sources"] == ["event (events.k8s.io/v1)", "event (v1)"]
    assert row["found"] == "event"


def test_a_gone_preemptor_is_named_by_the_event_s_related_object() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-gone", "node-1", NOW - 60, related="team-a/api-7")]
    [row] = _rows(objs)
    assert row["preemptor"] == "team-a/api-7" and row["preemptorUID"] == "uid-gone"
    assert row["preemptorState"] == "Gone" and row["preemptorClass"] is None
    assert "preemptor gone; named by the Event" in row["notes"]
    assert "victim gone" in row["notes"]


def test_a_preemptor_no_pod_or_event_names_is_shown_by_its_uid_with_a_note() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-missing", "node-1", NOW - 60)]
    [row] = _rows(objs)
    assert row["preemptor"] is None and row["preemptorUID"] == "uid-missing"
    assert "preemptor pod UID uid-missing not found: gone, and no Event names it" in row["notes"]


def test_a_preemptor_in_a_namespace_not_read_is_said_to_be_unreadable_not_gone() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-x", "node-1", NOW - 60, related="team-a/api-7")]
    [row] = _rows(objs, pods_visible=lambda ns: ns == "batch")
    assert "preemptor's pods (namespace team-a) not read; named by the Event" in row["notes"]


def test_another_event_about_the_preemptor_names_it_when_the_preempted_event_does_not() -> None:
    other = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "x", "namespace": "team-a", "uid": "e9"},
             "involvedObject": {"kind": "Pod", "namespace": "team-a", "name": "api-9", "uid": "uid-p9"},
             "reason": "Preempted", "message": "Preempted by pod uid-zzz on node node-4", "eventTime": iso(NOW - 50)}
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-p9", "node-1", NOW - 60), other]
    row = next(r for r in _rows(objs) if r["victim"] == "batch/etl-1")
    assert row["preemptor"] == "team-a/api-9"
    assert "preemptor gone; named by another Event about it" in row["notes"]


def test_an_event_older_than_since_is_left_out() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 7200), _preemptor()]
    assert _rows(objs) == []
    assert [r["victim"] for r in _rows(objs, since=3 * 3600.0)] == ["batch/etl-1"]


def test_a_victim_with_only_a_condition_takes_the_only_higher_priority_pod_nominated_to_its_node() -> None:
    objs = [_victim(t=NOW - 30), _preemptor(node="node-1"), _preemptor("low-0", "uid-low", "node-1", priority=5),
            _preemptor("elsewhere", "uid-e", "node-2")]
    [row] = _rows(objs)
    assert row["found"] == "condition" and row["preemptor"] == "team-a/web-0"
    assert "nomination" in row["sources"]
    assert any("no Preempted Event" in n for n in row["notes"])
    assert row["time"] == iso(int(NOW - 30))


def test_a_condition_only_row_takes_the_scheduler_from_the_condition_s_message() -> None:
    victim = _victim(t=NOW - 30)
    victim["status"]["conditions"][0]["message"] = "my-scheduler: preempting to accommodate a higher priority pod"
    [row] = _rows([victim])
    assert row["scheduler"] == "my-scheduler"
    [row] = _rows([_victim(t=NOW - 30)])
    assert row["scheduler"] == "default-scheduler"


def test_a_victim_with_only_a_condition_and_two_candidates_names_neither() -> None:
    objs = [_victim(t=NOW - 30), _preemptor(), _preemptor("web-1", "uid-p1", "node-1")]
    [row] = _rows(objs)
    assert row["preemptor"] is None
    assert "preemptor unknown: no Event; nominated to node-1 now: team-a/web-0, team-a/web-1" in row["notes"]


def test_a_failed_victim_s_old_condition_is_not_attributed_to_a_nomination_of_today() -> None:
    victim = _victim(t=NOW - 30, terminating=False)
    victim["status"]["phase"] = "Failed"
    [row] = _rows([victim, _preemptor()])
    assert row["preemptor"] is None
    assert "preemptor unknown: no Event, and the victim no longer terminates" in row["notes"]


def test_without_events_read_a_condition_only_row_does_not_claim_the_event_expired() -> None:
    [row] = _rows([_victim(t=NOW - 30)], events_read=False)
    assert not any("no Preempted Event" in n for n in row["notes"])


def test_an_event_naming_another_node_than_the_victim_s_is_a_conflict() -> None:
    objs = [_victim(node="node-1", t=NOW - 60), _preemptor(),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-3", NOW - 60)]
    [row] = _rows(objs)
    assert row["conflicts"] == ["the Event says node node-3, the victim's condition was set on node node-1"]


def test_an_event_on_a_pod_that_runs_on_without_condition_is_a_conflict() -> None:
    objs = [_victim(terminating=False), _preemptor(),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 60)]
    [row] = _rows(objs)
    assert row["found"] == "event"
    assert row["conflicts"] == ["the Event says preempted, but the pod has no DisruptionTarget condition and is "
                                "not terminating"]


def test_an_event_whose_related_pod_is_not_the_pod_with_its_uid_is_a_conflict() -> None:
    objs = [_preemptor(), preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 60,
                                          related="team-a/other")]
    [row] = _rows(objs)
    assert row["conflicts"] == ["the Event's related pod is team-a/other, the pod with UID uid-p is team-a/web-0"]


def test_an_event_of_an_earlier_pod_of_the_same_name_does_not_join_the_new_pod_s_row() -> None:
    # a StatefulSet replica preempted, recreated with a new UID, and preempted again (condition only)
    objs = [_victim(uid="uid-new", t=NOW - 10), _preemptor(),
            preempted_event("batch/etl-1", "uid-old", "uid-p", "node-1", NOW - 600)]
    rows = _rows(objs)
    assert sorted((r["victimUID"], r["found"]) for r in rows) == [("uid-new", "condition"), ("uid-old", "event")]


def test_a_victim_two_preemptors_deleted_has_a_row_for_each() -> None:
    objs = [_victim(t=NOW - 60), _preemptor(), _preemptor("web-1", "uid-p1", "node-1"),
            preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 60, uid="e1"),
            preempted_event("batch/etl-1", "uid-v", "uid-p1", "node-1", NOW - 60, uid="e2")]
    rows = _rows(objs)
    assert sorted(r["preemptor"] for r in rows) == ["team-a/web-0", "team-a/web-1"]
    assert all(r["found"] == "both" for r in rows)
    assert "also preempted by team-a/web-1 (another Event on this victim)" in \
        next(r for r in rows if r["preemptor"] == "team-a/web-0")["notes"]


def test_an_event_whose_message_is_not_the_scheduler_s_keeps_the_row_and_says_so() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 60, message="Preempted somehow")]
    [row] = _rows(objs)
    assert row["preemptor"] is None and row["node"] is None
    assert any("not the scheduler's" in n for n in row["notes"])


def test_namespace_keeps_that_namespace_s_victims() -> None:
    objs = [preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW - 60),
            preempted_event("web/w-1", "uid-w", "uid-p", "node-1", NOW - 60)]
    assert [r["victim"] for r in _rows(objs, namespace="web")] == ["web/w-1"]


def test_kube_batch_evictions_are_labelled_by_the_evict_event_s_reason() -> None:
    t = NOW - 120
    kb = make_pod("job-a-0").ns("batch").uid("uid-kb").priority(1).group("job-a").running("node-2") \
        .set("metadata.deletionTimestamp", iso(t + 30)).set("metadata.deletionGracePeriodSeconds", 30).obj()
    kb_other = make_pod("job-a-1").ns("batch").uid("uid-kb1").group("job-a").running("node-2").obj()
    objs = [kb, kb_other, evict_event("batch/job-a", "reclaim", t), evict_event("batch/job-b", "preempt", t)]
    rows = _rows(objs)
    by_victim = {r["victim"]: r for r in rows}
    row = by_victim["batch/job-a-0"]
    assert row["scheduler"] == "kube-batch" and row["reason"] == "reclaim" and row["podGroup"] == "batch/job-a"
    assert row["node"] == "node-2" and row["preemptor"] is None and row["found"] == "event"
    assert "batch/job-a-1" not in by_victim  # not being deleted
    gone = by_victim[None]
    assert gone["podGroup"] == "batch/job-b" and gone["reason"] == "preempt"
    assert "no pod of the group was seen being deleted then" in gone["notes"][0]


def test_rows_are_grouped_into_preemptions_by_preemptor_and_node() -> None:
    t = NOW - 60
    objs = [_preemptor(), _preemptor("web-1", "uid-p1", "node-2"),
            preempted_event("batch/a", "uid-a", "uid-p", "node-1", t),
            preempted_event("batch/b", "uid-b", "uid-p", "node-1", t + 0.1),
            preempted_event("batch/c", "uid-c", "uid-p1", "node-2", t + 0.2)]
    doc = preemption_history(objs, now=NOW, since=3600.0)
    assert [(p["preemptor"], p["node"], p["victims"]) for p in doc["preemptions"]] == [
        ("team-a/web-0", "node-1", ["batch/a", "batch/b"]), ("team-a/web-1", "node-2", ["batch/c"])]


# --- from a trace: every version, times to the millisecond ---------------------------------------

def test_a_trace_victim_without_event_takes_the_nomination_on_its_node_closest_in_time() -> None:
    v0 = _victim(terminating=False)
    p0 = _preemptor(node=None)
    q0 = _preemptor("web-1", "uid-p1", None)
    v1 = with_condition(_victim(), NOW + 1.2)
    steps = _trace((NOW, "ADDED", v0), (NOW, "ADDED", p0), (NOW, "ADDED", q0),
                   (NOW + 1.0, "MODIFIED", _preemptor("web-1", "uid-p1", "node-1")),   # 0.25 s before
                   (NOW + 1.2, "MODIFIED", _preemptor(node="node-1")),                 # 0.05 s before
                   (NOW + 1.25, "MODIFIED", v1))
    doc = preemption_history(trace_events=steps, kubernetes_version="v1.34")
    [row] = doc["items"]
    assert row["preemptor"] == "team-a/web-0" and row["found"] == "condition" and "nomination" in row["sources"]
    assert row["time"] == iso(NOW + 1.25)
    assert "also nominated to node-1 within 2s: team-a/web-1" in row["notes"]


def test_a_trace_victim_with_no_nomination_at_the_same_instant_has_no_preemptor() -> None:
    steps = _trace((NOW, "ADDED", _victim(terminating=False)),
                   (NOW, "ADDED", _preemptor(node=None)),
                   (NOW + 1, "MODIFIED", _preemptor(node="node-1")),
                   (NOW + 9, "MODIFIED", with_condition(_victim(), NOW + 9)))
    [row] = preemption_history(trace_events=steps, events_read=False)["items"]
    assert row["preemptor"] is None
    assert "preemptor unknown: no Event, and no pod was nominated to node-1 at the same instant" in row["notes"]


def test_a_trace_event_whose_preemptor_was_nominated_elsewhere_at_that_instant_is_a_conflict() -> None:
    steps = _trace((NOW, "ADDED", _victim(terminating=False)), (NOW, "ADDED", _preemptor(node=None)),
                   (NOW + 1.0, "MODIFIED", _preemptor(node="node-9")),
                   (NOW + 1.0, "ADDED", preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW + 1.0)),
                   (NOW + 1.1, "MODIFIED", with_condition(_victim(), NOW + 1)),
                   (NOW + 3, "DELETED", with_condition(_victim(), NOW + 1)))
    [row] = preemption_history(trace_events=steps, kubernetes_version="v1.34")["items"]
    assert row["found"] == "both"
    assert row["conflicts"] == ["the Event says node node-1, the preemptor's nomination at the same instant names "
                                "node-9"]


def test_since_on_a_trace_counts_back_from_its_last_event() -> None:
    steps = _trace((NOW, "ADDED", _preemptor()),
                   (NOW, "ADDED", preempted_event("batch/a", "uid-a", "uid-p", "node-1", NOW)),
                   (NOW + 600, "ADDED", preempted_event("batch/b", "uid-b", "uid-p", "node-1", NOW + 600)))
    assert [r["victim"] for r in preemption_history(trace_events=steps, since=300.0)["items"]] == ["batch/b"]
    assert len(preemption_history(trace_events=steps, kubernetes_version="v1.34")["items"]) == 2


# --- bad input: one line naming the file, the object and the field, exit 2 ------------------------

@pytest.mark.parametrize("mutate, field", [
    (lambda e: e.update(involvedObject="batch/etl-1"), "involvedObject"),
    (lambda e: e.update(message=["Preempted by pod x on node y"]), "message"),
    (lambda e: e["involvedObject"].update(name=7), "involvedObject.name"),
    (lambda e: e.update(related=[1]), "related"),
    # a group's name, kept in a set (history's event_groups): a list raised TypeError
    (lambda e: e.update(apiVersion=["v1"]), "apiVersion"),
    (lambda e: e.update(count="3"), "count"),
    (lambda e: e.update(series={"count": [2]}), "series.count"),
    # the time that orders the events: a dict raised TypeError in the sort
    (lambda e: e.update(eventTime={"x": 1}), "eventTime"),
    (lambda e: e.update(series={"lastObservedTime": 5}), "series.lastObservedTime"),
])
def test_a_trace_event_of_a_bad_shape_is_one_line_naming_file_line_object_and_field(
        mutate: Any, field: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import gzip
    import json

    from kubectl_preempt.cli.main import main

    ev = preempted_event("batch/etl-1", "uid-v", "uid-p", "node-1", NOW)
    mutate(ev)
    header = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": iso(NOW)}
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(json.dumps(x).encode() for x in (
        header, {"time": iso(NOW), "type": "ADDED", "object": _preemptor()},
        {"time": iso(NOW + 1), "type": "ADDED", "object": ev}))))
    assert main(["history", "-A", "--trace", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: {path}: line 3 (Event batch/") and f".{field}: must be" in err


def test_a_snapshot_pod_of_a_bad_shape_is_named(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from kubectl_preempt.cli.main import main

    pod = _victim(t=NOW)
    pod["status"]["conditions"] = "DisruptionTarget"
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [_preemptor(), pod]}))
    assert main(["history", "-A", "--snapshot", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: {path}: items[1] (Pod batch/etl-1).status.conditions")


def test_a_file_with_neither_pods_nor_events_is_refused(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """history reads snapshots without Nodes (Events and pods suffice), but a file holding none of
    those is nonsense: one line naming the file and what it holds, exit 2, not an empty report."""
    import json

    from kubectl_preempt.cli.main import main

    path = tmp_path / "cm.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "d"}}))
    assert main(["history", "-A", "--snapshot", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert str(path) in err and "no Pod or Event" in err and "1 ConfigMap" in err


# --- v1.35+: the scheduler also nominates pods it placed (NominatedNodeNameForExpectation) -----------

@pytest.mark.parametrize("release,named", [("v1.34", "team-a/web-0"), ("v1.35", None), ("v1.36", None)],
                         ids=["v1.34: the nomination at the same instant names the preemptor",
                              "v1.35: a nomination alone names no preemptor",
                              "v1.36: a nomination alone names no preemptor"])
def test_a_condition_only_victim_is_attributed_by_a_nomination_only_before_v135(release: str, named: Any) -> None:
    steps = _trace((NOW, "ADDED", _victim(terminating=False)),
                   (NOW, "ADDED", _preemptor(node=None)),
                   (NOW + 1.2, "MODIFIED", _preemptor(node="node-1")),
                   (NOW + 1.25, "MODIFIED", with_condition(_victim(), NOW + 1.25)))
    [row] = preemption_history(trace_events=steps, kubernetes_version=release)["items"]
    assert row["preemptor"] == named
    if named is None:
        assert any(n.startswith("preemptor unknown: no Event; nominated to node-1 at the same instant: team-a/web-0")
                   for n in row["notes"])


def test_the_release_comes_from_the_api_servers_version_when_none_is_given() -> None:
    objs = [_victim(t=NOW - 30), _preemptor(node="node-1")]
    assert _rows(objs, server_version="v1.34.1")[0]["preemptor"] == "team-a/web-0"
    [row] = _rows(objs, server_version="v1.36.2")
    assert row["preemptor"] is None
    assert any("a nomination alone is no preemption" in n for n in row["notes"])


def test_a_workload_aware_preemption_groups_its_victims_by_pod_group_and_names_a_group_gone_whole() -> None:
    """v1.36's workload-aware preemption: Events "Preempted by podgroup <uid> on node cluster" related
    to the PodGroup; a PodGroup of disruptionMode PodGroup goes whole for the one preemptor."""
    t = NOW - 60
    objs: list[dict[str, Any]] = []
    for i in range(3):
        pod = make_pod(f"low-{i}").ns("batch").uid(f"uid-low-{i}").priority(50).req(cpu="1").running(f"node-{i}") \
            .terminating(iso(NOW)).obj()
        pod["spec"]["schedulingGroup"] = {"podGroupName": "low"}
        objs.append(with_condition(pod, t))
    objs.append(with_condition(_victim("filler-1", "uid-f1", "node-1"), t))
    for victim, uid in (("batch/low-0", "uid-low-0"), ("batch/low-1", "uid-low-1"), ("batch/low-2", "uid-low-2"),
                        ("batch/filler-1", "uid-f1")):
        e = preempted_event(victim, uid, "uid-pg", "cluster", t + 0.1, message="Preempted by podgroup uid-pg on node cluster")
        e["related"] = {"kind": "PodGroup", "namespace": "gang", "name": "train", "uid": "uid-pg",
                        "apiVersion": "scheduling.k8s.io/v1alpha2"}
        objs.append(e)
    doc = preemption_history(objs, now=NOW, since=3600.0)
    assert {r["preemptor"] for r in doc["items"]} == {"gang/train"}
    assert all("preempted by a PodGroup (workload-aware preemption)" in r["notes"] for r in doc["items"])
    [p] = doc["preemptions"]
    assert p["node"] == "cluster" and sorted(p["victimsByPodGroup"]["batch/low"]) == ["batch/low-0", "batch/low-1",
                                                                                        "batch/low-2"]
    assert p["wholePodGroups"] == ["batch/low"]


@pytest.mark.parametrize("with_group", [True, False], ids=["the PodGroup read", "the PodGroup not read"])
def test_a_pod_group_preemptors_class_and_priority_are_its_pod_groups(with_group: bool) -> None:
    # util.PodGroupPriority: a PodGroup's priority (spec.priority, from spec.priorityClassName) is
    # its members' and its preemption's; the row names them as a pod preemptor's own
    t = NOW - 60
    objs: list[dict[str, Any]] = [with_condition(_victim("filler-1", "uid-f1", "node-1"), t),
                                  _pod_group_event("batch/filler-1", "uid-f1", t + 0.1,
                                                   "Preempted by podgroup uid-pg on node cluster")]
    if with_group:
        objs.append(make_gang("train", 2, namespace="gang", priority=10000, priority_class="high"))
    [row] = preemption_history(objs, now=NOW, since=3600.0)["items"]
    assert row["preemptor"] == "gang/train"
    assert (row["preemptorClass"], row["preemptorPriority"]) == (("high", 10000) if with_group else (None, None))


def test_a_pod_group_preemption_whose_event_lost_its_message_is_on_the_cluster_all_the_same() -> None:
    # podgrouppreemption.go Preempt: the search's one domain is the whole cluster, and its Event
    # says "on node cluster"; a recorder that drops Events' messages leaves the related PodGroup,
    # and the row stands on the cluster as with the message, in the same preemption
    t = NOW - 60
    objs: list[dict[str, Any]] = []
    for i, message in enumerate(("Preempted by podgroup uid-pg on node cluster", "")):
        objs.append(with_condition(_victim(f"filler-{i}", f"uid-f{i}", f"node-{i}"), t))
        e = _pod_group_event(f"batch/filler-{i}", f"uid-f{i}", t + 0.1, message)
        if not message:
            del e["message"]
        objs.append(e)
    doc = preemption_history(objs, now=NOW, since=3600.0)
    assert [(r["victim"], r["node"], r["conflicts"]) for r in doc["items"]] == [
        ("batch/filler-0", "cluster", []), ("batch/filler-1", "cluster", [])]
    [p] = doc["preemptions"]
    assert p["node"] == "cluster" and sorted(p["victims"]) == ["batch/filler-0", "batch/filler-1"]


def _pod_group_event(victim: str, uid: str, t: float, message: str) -> dict[str, Any]:
    e = preempted_event(victim, uid, "uid-pg", "cluster", t, message=message)
    e["related"] = {"kind": "PodGroup", "namespace": "gang", "name": "train", "uid": "uid-pg",
                    "apiVersion": "scheduling.k8s.io/v1alpha2"}
    return e


def test_a_pod_group_s_victim_rejected_in_the_scheduler_s_memory_is_no_conflict() -> None:
    # v1.36 executor.go PreemptPod: a victim waiting at Permit (or in PreBind) is rejected there
    # without an API call (no condition, no deletion), and its Event ends " (in kube-scheduler
    # memory)."; the node of a PodGroup's Event is "cluster", whatever node the victim is on
    t = NOW - 60
    waiting = make_pod("w-0").ns("batch").uid("uid-w").priority(50).req(cpu="1").running("node-1").obj()
    objs = [waiting, _pod_group_event("batch/w-0", "uid-w", t,
                                      "Preempted by podgroup uid-pg on node cluster (in kube-scheduler memory).")]
    [row] = _rows(objs, kubernetes_version="v1.36")
    assert row["preemptor"] == "gang/train" and row["node"] == "cluster"
    assert row.get("conflicts", []) == []
    assert any("rejected in kube-scheduler's memory" in n for n in row["notes"])


def test_a_pod_group_s_condition_names_the_scheduler_that_wrote_it() -> None:
    # v1.36 executor.go PreemptPod: "<schedulerName>: preempting to accommodate a higher priority podgroup"
    t = NOW - 60
    victim = _victim("filler-1", "uid-f1", "node-1")
    victim["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                                       "message": "gang-scheduler: preempting to accommodate a higher priority podgroup",
                                       "lastTransitionTime": iso(int(t))}]
    # the Event expired: the condition alone says which scheduler preempted
    [row] = _rows([victim], kubernetes_version="v1.36")
    assert row["scheduler"] == "gang-scheduler" and row["found"] == "condition"
