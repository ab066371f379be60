"""The data the HTML report embeds: lanes, runs, occupancy layers, marks and aggregations, checked
against the replay report they come from (hand-built traces and every bundled trace)."""
from __future__ import annotations

from typing import Any

import orjson
import pytest

from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.view import (COMPLETED, GROUP_CHUNK, NO_CLASS, PREEMPTED, RUNNING,
                                              ActivityRecorder, build_view, group_nodes, steps)
from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.state import parse_time
from tests.conftest import REPO
from tests.render import scenarios

BUNDLED = sorted(p for p in (REPO / "traces").glob("*.jsonl*") if p.is_file())


# --- pure helpers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("deltas, expected", [
    pytest.param([(1, 2), (3, -2)], [1, 2, 3, 0], id="an interval opens and closes"),
    pytest.param([(0, 2), (0, 3)], [0, 5], id="changes at one instant are merged"),
    pytest.param([(1, 2), (1, -2)], [], id="a change undone at the same instant leaves nothing"),
    pytest.param([(0, 2), (5, -2), (5, 2), (9, -2)], [0, 2, 9, 0], id="back-to-back intervals do not dip"),
    pytest.param([(9, -2), (0, 2), (4, 1)], [0, 2, 4, 3, 9, 1], id="unsorted changes are taken in time order"),
    pytest.param([(0, 1), (2, 1), (2, -1)], [0, 1], id="an instant that changes nothing is dropped"),
    pytest.param([], [], id="no changes give an empty series"),
])
def test_steps(deltas: list[tuple[float, int]], expected: list[float]) -> None:
    assert steps(deltas) == expected


def _node(name: str, **labels: str) -> tuple[str, dict[str, str]]:
    return name, labels


@pytest.mark.parametrize("nodes, expected", [
    pytest.param([_node("a", **{"cloud.google.com/gke-nodepool": "gpu", "topology.kubernetes.io/zone": "z1"}),
                  _node("b", **{"cloud.google.com/gke-nodepool": "gpu", "topology.kubernetes.io/zone": "z2"}),
                  _node("c", **{"cloud.google.com/gke-nodepool": "gpu", "topology.kubernetes.io/zone": "z1"})],
                 [("gpu · z1", [0, 2]), ("gpu · z2", [1])], id="pool and zone name a group"),
    pytest.param([_node("a", **{"topology.kubernetes.io/zone": "z1"}), _node("b", **{"karpenter.sh/nodepool": "spot"})],
                 [("z1", [0]), ("spot", [1])], id="a zone alone or a pool alone is enough"),
    pytest.param([_node("b"), _node("a")], [("a … b", [0, 1])], id="unlabelled nodes are grouped by name"),
])
def test_group_nodes(nodes: list[tuple[str, dict[str, str]]], expected: list[tuple[str, list[int]]]) -> None:
    assert group_nodes(nodes) == expected


def test_unlabelled_nodes_are_grouped_in_runs_of_a_fixed_size() -> None:
    nodes = [_node(f"n{i:03d}") for i in range(GROUP_CHUNK * 2 + 1)]
    groups = group_nodes(nodes)
    assert [len(g[1]) for g in groups] == [GROUP_CHUNK, GROUP_CHUNK, 1]
    assert groups[0][0] == f"n000 … n{GROUP_CHUNK - 1:03d}"


# --- views of replays --------------------------------------------------------------------------------

def _replayed(name: str) -> tuple[dict[str, Any], Any, ActivityRecorder]:
    if name.startswith("bundled:"):
        tr: Any = read_trace(str(REPO / "traces" / name.split(":", 1)[1]))
        mode = "simulate"
    else:
        tr = getattr(scenarios, name)()
        mode = "follow" if name == "recorded" else "simulate"
    report, rec = scenarios.run(tr, mode)
    return report, tr, rec


_CACHE: dict[str, tuple[dict[str, Any], Any, ActivityRecorder, dict[str, Any]]] = {}


def view_of(name: str) -> tuple[dict[str, Any], dict[str, Any], ActivityRecorder]:
    if name not in _CACHE:
        report, tr, rec = _replayed(name)
        _CACHE[name] = (report, tr, rec, build_view(report, tr, rec))
    report, _tr, rec, view = _CACHE[name]
    return report, view, rec


ALL = ["zones", "recorded", "fleet"] + [f"bundled:{p.name}" for p in BUNDLED]
SIMULATED = [n for n in ALL if n != "recorded"]


def _pod(view: dict[str, Any], i: int) -> str:
    return view["pods"][i][0]


def _lane(view: dict[str, Any], i: int) -> str:
    return view["lanes"][i]["name"]


def _value_at(series: list[float], t: float) -> float:
    v = 0
    for i in range(0, len(series), 2):
        if series[i] > t:
            break
        v = series[i + 1]
    return v


def _total_at(layers: list[list[Any]], t: float) -> float:
    return sum(_value_at(layer[-1], t) for layer in layers)


@pytest.mark.parametrize("name", ALL)
def test_every_preemption_is_a_mark_on_its_node_naming_its_preemptor_and_victims(name: str) -> None:
    report, view, _ = view_of(name)
    assert len(view["marks"]) == len(report["preemptions"])
    for p, m in zip(report["preemptions"], view["marks"]):
        assert _lane(view, m["node"]) == p["node"]
        assert m["t"] == pytest.approx(parse_time(p["time"]) - view["start"], abs=1e-3)
        assert _pod(view, m["pod"]) == p["preemptor"]
        runs = [view["runs"][ri] for ri in m["victims"]]
        assert sorted(_pod(view, r[0]) for r in runs) == sorted(p["victims"])
        assert m["missing"] == []
        for r in runs:
            assert _lane(view, r[1]) == p["node"], "a victim runs on the preemption's node"
            assert r[2] <= m["t"] + 1e-3 and (r[3] is None or r[3] >= m["t"] - 1e-3)


@pytest.mark.parametrize("name", ALL)
def test_views_are_plain_data_and_deterministic(name: str) -> None:
    report, view, _ = view_of(name)
    again = build_view(report, _replayed(name)[1], _CACHE[name][2])
    assert orjson.dumps(view) == orjson.dumps(again)


@pytest.mark.parametrize("name", SIMULATED)
def test_victims_end_preempted_after_their_grace_period(name: str) -> None:
    report, view, _ = view_of(name)
    end = view["duration"]
    for p, m in zip(report["preemptions"], view["marks"]):
        grace = {d["pod"]: d["gracePeriodSeconds"] for d in p["victimDetails"]}
        for ri in m["victims"]:
            pod, _node, _start, stop, how, pre, mark = view["runs"][ri]
            key = _pod(view, pod)
            if next(d for d in p["victimDetails"] if d["pod"] == key)["alreadyTerminating"]:
                continue
            # the victim is hit by its delete call, a few API calls after the decision (asynchronous
            # preemption), and its grace period runs from there
            detail = next(d for d in p["victimDetails"] if d["pod"] == key)
            deleted = parse_time(detail["deletionTimestamp"]) - view["start"] if "deletionTimestamp" in detail else None
            if deleted is None:
                continue  # its delete call was still to come when the trace ended
            assert deleted >= m["t"]
            assert pre == pytest.approx(deleted, abs=1e-3)
            if deleted + grace[key] <= end:
                assert how == PREEMPTED
                assert stop == pytest.approx(deleted + grace[key], abs=1e-3)
            else:
                assert how == RUNNING and stop is None


@pytest.mark.parametrize("name", SIMULATED)
def test_the_preemptor_is_bound_where_and_when_the_replay_bound_it(name: str) -> None:
    report, view, rec = view_of(name)
    bound = {}
    for e in rec.events:
        if e[0] == "bound":
            bound.setdefault(rec.pods[e[2]]["key"], []).append((e[1] - view["start"], e[3]))
    for m in view["marks"]:
        key = _pod(view, m["pod"])
        later = [b for b in bound.get(key, ()) if b[0] >= m["t"] - 1e-3]
        if not later:
            assert m["bound"] is None
            continue
        assert m["bound"][0] == pytest.approx(later[0][0], abs=1e-3)
        assert _lane(view, m["bound"][1]) == later[0][1]


@pytest.mark.parametrize("name", SIMULATED)
def test_occupancy_fits_a_nodes_allocatable_whenever_the_replay_binds_there(name: str) -> None:
    # checked at the replay's bindings only: the state at the trace's start is as recorded, and a
    # recording may hold more than a node's allocatable (a node shrunk under running pods)
    _, view, rec = view_of(name)
    lanes = {lane["name"]: lane for lane in view["lanes"]}
    res = view["resource"]["name"]
    checked = 0
    for e in rec.events:
        if e[0] == "bound":
            lane = lanes[e[3]]
            t = round(e[1] - view["start"], 3)
            assert _total_at(lane["layers"], t) <= lane["capacity"], (lane["name"], t, res)
            checked += 1
    assert checked == sum(1 for e in rec.events if e[0] == "bound")


@pytest.mark.parametrize("name", SIMULATED)
def test_pending_pods_and_time_to_schedule_agree_with_the_report(name: str) -> None:
    report, view, _ = view_of(name)
    s = report["summary"]
    assert view["timeToSchedule"] == s["timeToSchedule"]
    assert len(view["pendingAtEnd"]) == s["podsNeverScheduled"]
    listed = {n["pod"] for n in s["neverScheduled"]}
    assert listed <= {_pod(view, p) for p, _ in view["pendingAtEnd"]}
    assert _total_at(view["pending"], view["duration"]) == s["podsNeverScheduled"]


@pytest.mark.parametrize("name", ALL)
def test_preemptions_per_bucket_add_up_to_the_report_by_class(name: str) -> None:
    report, view, _ = view_of(name)
    by_class: dict[str, int] = {}
    for c, _n, series in view["perBucket"]:
        cls = view["classes"][c]["name"] if c >= 0 else NO_CLASS
        by_class[cls] = by_class.get(cls, 0) + sum(series[1::2])
        assert all(0 <= b < view["buckets"] for b in series[0::2])
    assert by_class == {r["priorityClass"]: r["preemptions"] for r in report["summary"]["byPriorityClass"]}


def test_a_node_added_during_the_trace_has_a_lane_from_then() -> None:
    _, view, _ = view_of("zones")
    lane = next(lane for lane in view["lanes"] if lane["name"] == "node-4")
    assert lane["alive"] == [[150.0, None]]


def test_a_pod_that_completes_in_the_recording_completes_in_the_replay() -> None:
    _, view, _ = view_of("zones")
    runs = [r for r in view["runs"] if _pod(view, r[0]) == "batch/etl-7"]
    assert [(r[3], r[4]) for r in runs] == [(120.0, COMPLETED)]


def test_classes_are_ordered_by_priority_with_their_colours() -> None:
    _, view, _ = view_of("zones")
    names = [c["name"] for c in view["classes"]]
    assert names == ["critical-serving", "serving", "batch", "best-effort"]
    assert len({c["colour"] for c in view["classes"]}) == len(names)


def test_victims_in_their_grace_period_are_a_terminating_layer() -> None:
    _, view, _ = view_of("zones")
    m = view["marks"][0]
    lane = view["lanes"][m["node"]]
    batch = next(i for i, c in enumerate(view["classes"]) if c["name"] == "batch")
    term = [layer for layer in lane["layers"] if layer[0] == batch and layer[2] == 1]
    assert term and _value_at(term[0][3], m["t"] + 1) > 0


def test_occupancy_is_drawn_in_the_busiest_resource_unless_asked() -> None:
    report, view, rec = view_of("fleet")
    assert view["resource"]["name"] == "nvidia-com/gpu"
    assert view_of("zones")[1]["resource"]["name"] == "cpu"
    tr = scenarios.fleet()
    assert build_view(report, tr, rec, resource="memory")["resource"] == {"name": "memory", "unit": "GiB",
                                                                          "scale": 1024 ** 3}


def test_more_nodes_than_the_threshold_are_lanes_per_pool_and_zone() -> None:
    _, view, _ = view_of("fleet")
    assert view["grouped"] is True
    assert [(g["name"], len(g["nodes"])) for g in view["groups"]] == [
        ("gpu · eu-b", 6), ("gpu · eu-a", 6), ("general · eu-b", 30), ("general · eu-a", 30)]
    for gi, g in enumerate(view["groups"]):
        assert all(view["lanes"][ni]["group"] == gi for ni in g["nodes"])
        assert g["capacity"] == sum(view["lanes"][ni]["capacity"] for ni in g["nodes"])
        for t in (0.0, 21.0, 40.0, 100.0):
            assert _total_at(g["layers"], t) == sum(_total_at(view["lanes"][ni]["layers"], t) for ni in g["nodes"])
    assert view_of("zones")[1]["grouped"] is False and view_of("zones")[1]["groups"] == []


def test_follow_mode_takes_bindings_and_ends_from_the_recording() -> None:
    report, view, _ = view_of("recorded")
    assert view["mode"] == "follow" and view["approximate"] is False
    m = view["marks"][0]
    assert m["t"] == 10.2
    assert m["bound"][0] == 40.5 and _lane(view, m["bound"][1]) == "node-0"
    for ri in m["victims"]:
        _pod_i, _node, start, stop, how, pre, mark = view["runs"][ri]
        assert (start, stop, how, pre, mark) == (0.0, 40.0, PREEMPTED, 10.3, 0)
    assert [_pod(view, p) for p, _ in view["pendingAtEnd"]] == ["shop/web-1"]
    assert view["timeToSchedule"] == {"pods": 1, "p50Seconds": 30.5, "p99Seconds": 30.5, "maxSeconds": 30.5}


def test_a_simulate_report_carries_its_own_activity_for_the_page() -> None:
    tr = scenarios.zones()
    report = replay(tr)
    assert report["activity"]["events"], "the replayed bindings are part of the report (-o json)"
    view = build_view(report, tr)
    assert view["approximate"] is False
    assert len(view["marks"]) == len(report["preemptions"])


def test_a_simulate_report_without_activity_falls_back_to_the_recording_and_says_so() -> None:
    tr = scenarios.zones()
    report = replay(tr)
    del report["activity"]
    view = build_view(report, tr)
    assert view["approximate"] is True
    assert len(view["marks"]) == len(report["preemptions"])


def test_what_if_classes_set_the_class_order() -> None:
    tr = scenarios.zones()
    rec = ActivityRecorder()
    swapped = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"},
                "value": 1000000}]
    report = replay(tr, priority_classes=swapped, listener=rec)
    view = build_view(report, tr, rec)
    assert view["classes"][0]["name"] == "batch"
    assert view["classes"][0]["value"] == 1000000


def test_the_recorder_is_a_replay_listener_keeping_plain_data() -> None:
    _, _, rec = view_of("zones")
    kinds = {e[0] for e in rec.events}
    assert {"bound", "preempted", "deleted", "nominated", "unschedulable"} <= kinds
    act = rec.activity()
    assert orjson.loads(orjson.dumps(act))["pods"].keys() == act["pods"].keys()


# --- pod groups (v1.36) -------------------------------------------------------------------------------

def _gang_view() -> tuple[dict[str, Any], dict[str, Any]]:
    if "gangs" not in _CACHE:
        report, rec = scenarios.run_gangs()
        tr = scenarios.gangs()
        _CACHE["gangs"] = (report, tr, rec, build_view(report, tr, rec))
    report, _tr, _rec, view = _CACHE["gangs"]
    return report, view


def test_each_pod_names_its_pod_group_and_each_group_lists_its_members_and_their_runs() -> None:
    _, view = _gang_view()
    groups = view["podGroups"]
    assert [(g["key"], g["minCount"]) for g in groups] == [("batch/lowgang", 3), ("ml/train", 3)]
    gi = view["podFields"].index("group")
    for i, g in enumerate(groups):
        members = sorted(_pod(view, m) for m in g["members"])
        assert members == sorted(p[0] for p in view["pods"] if p[gi] == i)
        assert sorted(_pod(view, view["runs"][ri][0]) for ri in g["runs"]) == members
    assert all(p[gi] is None for p in view["pods"] if not p[0].split("/")[1].startswith(("lowgang", "train")))
    train = groups[1]
    assert train["firstBound"] == train["lastBound"], "a gang's members are bound in one cycle"


def test_a_workload_aware_preemption_is_one_mark_on_every_node_it_took_victims_from() -> None:
    report, view = _gang_view()
    first = report["preemptions"][0]
    mark = view["marks"][0]
    assert first["podGroup"] and first["node"] == "cluster"
    assert "cluster" not in [lane["name"] for lane in view["lanes"]], "the cluster is no node"
    assert mark["node"] is None and mark["pod"] is None
    assert view["podGroups"][mark["group"]]["key"] == "ml/train"
    victim_nodes = {d["node"] for d in first["victimDetails"]}
    assert sorted(_lane(view, n) for n in mark["nodes"]) == sorted(victim_nodes)
    # each victim's run is found on the node its detail names
    for ri, vkey in zip(mark["victims"], first["victims"]):
        run = view["runs"][ri]
        assert _pod(view, run[0]) == vkey
        assert _lane(view, run[1]) == next(d["node"] for d in first["victimDetails"] if d["pod"] == vkey)
    assert mark["missing"] == []


def test_a_workload_aware_preemptions_victims_are_grouped_by_the_unit_they_were_evicted_in() -> None:
    report, view = _gang_view()
    units = view["marks"][0]["units"]
    assert [(u["key"], u["kind"], sorted(_pod(view, view["runs"][ri][0]) for ri in u["victims"])) for u in units] == [
        ("batch/lowgang", "PodGroup", ["batch/lowgang-0", "batch/lowgang-1", "batch/lowgang-2"]),
        ("sandbox/filler-0", "Pod", ["sandbox/filler-0"])]


def test_a_pod_groups_preemption_says_where_each_member_was_bound() -> None:
    _, view = _gang_view()
    bound = view["marks"][0]["membersBound"]
    assert sorted(_pod(view, pi) for pi, _ in bound) == ["ml/train-0", "ml/train-1", "ml/train-2"]
    assert all(b is not None for _, b in bound)
    assert len({b[1] for _, b in bound}) == 3, "three 6-cpu members take a node each"
    assert len({b[0] for _, b in bound}) == 1, "and they are bound together"


def test_a_replay_before_v1_35_reads_no_pod_group_of_a_pod() -> None:
    tr = scenarios.gangs()
    report, rec = scenarios.run(tr, kubernetes_version="v1.34")
    view = build_view(report, tr, rec)
    assert view["podGroups"] == [] and all(p[-1] is None for p in view["pods"])
# --- the page counts as the text does ---------------------------------------------------------------

def _two_schedulers(batch_conf: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    from kubectl_preempt.api import read_scheduler_conf

    path = REPO / "traces" / "two-schedulers.jsonl.gz"
    tr = read_trace(str(path))
    conf, source = read_scheduler_conf(str(REPO / "traces" / "kube-batch.conf")) if batch_conf else (None, "")
    report = replay(tr, batch_scheduler_conf=conf, batch_scheduler_conf_source=source)
    return report, build_view(report, tr)


@pytest.mark.parametrize("name", ALL + ["two schedulers with kube-batch's reclaim", "the demo, followed"])
def test_the_marks_count_the_victims_the_text_report_totals(name: str) -> None:
    """An already-terminating victim, named again by a later decision, counts once, as in the
    text's `N preemptions (V victims)` (replay/report.py's summary)."""
    if name == "two schedulers with kube-batch's reclaim":
        report, view = _two_schedulers(True)
    elif name == "the demo, followed":
        tr = read_trace(str(REPO / "traces" / "demo.jsonl.gz"))
        report = replay(tr, mode="follow")
        view = build_view(report, tr)
    else:
        report, view, _ = view_of(name)
    assert sum(m["evicts"] for m in view["marks"]) == report["summary"]["victims"]


def test_a_victim_named_twice_counts_once_and_the_binds_say_whose_they_are() -> None:
    report, view = _two_schedulers(False)
    named = sum(len(p["victims"]) for p in report["preemptions"])
    assert named > report["summary"]["victims"] == sum(m["evicts"] for m in view["marks"])
    kb = report["summary"]["kubeBatch"]
    assert view["binds"] == [["kube-scheduler", report["summary"]["scheduled"]], ["kube-batch", kb["binds"]]]
    # the time to schedule is of both schedulers' pods: the sum of what each bound
    assert report["summary"]["timeToSchedule"]["pods"] == sum(n for _, n in view["binds"])
