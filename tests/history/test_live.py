"""history against the loopback API server: Events planted in both API groups, a preemptor that
is gone, one no object names, an expired Event, a victim with only its condition, kube-batch's
Evict Event; and what happens without access to Events or pods. Only GETs are ever sent."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.live.fakeapi import FakeAPIServer


def _rows(out: str) -> dict[str, dict]:
    return {r["victim"] or f"<{r['podGroup']}>": r for r in json.loads(out)["items"]}


def test_history_joins_events_of_both_groups_conditions_and_nominations(cli, api: FakeAPIServer) -> None:
    code, out, err = cli("history", "-A", "-o", "json")
    assert code == 0, err
    rows = _rows(out)
    assert sorted(rows) == ["batch/etl-1", "batch/etl-2", "batch/gone-1", "batch/gone-2", "batch/job-a-0",
                            "team-a/side-1"]

    etl1 = rows["batch/etl-1"]
    assert (etl1["preemptor"], etl1["preemptorClass"], etl1["victimClass"], etl1["node"], etl1["found"]) == \
        ("team-a/web-0", "high", "low", "node-1", "both")
    assert etl1["sources"] == ["event (events.k8s.io/v1)", "condition"]

    gone1 = rows["batch/gone-1"]
    assert (gone1["preemptor"], gone1["preemptorUID"], gone1["found"]) == ("team-a/api-7", "uid-api-7", "event")
    assert gone1["sources"] == ["event (v1)"]
    assert "preemptor gone; named by the Event" in gone1["notes"]

    gone2 = rows["batch/gone-2"]
    assert gone2["preemptor"] is None and gone2["preemptorUID"] == "uid-lost"
    assert "preemptor pod UID uid-lost not found: gone, and no Event names it" in gone2["notes"]

    etl2 = rows["batch/etl-2"]
    assert (etl2["found"], etl2["preemptor"], etl2["node"]) == ("condition", "team-a/web-2", "node-2")
    assert "nomination" in etl2["sources"]

    kb = rows["batch/job-a-0"]
    assert (kb["scheduler"], kb["reason"], kb["podGroup"]) == ("kube-batch", "preempt", "batch/job-a")

    # GETs only; Events listed through both groups, by reason
    assert api.methods == {"GET"}
    groups = {(r.path.rsplit("/events", 1)[0], r.query.get("fieldSelector")) for r in api.requests_for("events")}
    assert groups == {("/apis/events.k8s.io/v1", "reason=Preempted"), ("/apis/events.k8s.io/v1", "reason=Evict"),
                      ("/api/v1", "reason=Preempted"), ("/api/v1", "reason=Evict")}


def test_rows_of_one_preemptor_on_one_node_are_one_preemption(cli) -> None:
    code, out, _ = cli("history", "-A", "-o", "json")
    # etl-2 (its condition; web-2 nominated to node-2) and side-1 (web-2 on node-2, 10 s before)
    assert [p["victims"] for p in json.loads(out)["preemptions"] if p["preemptor"] == "team-a/web-2"] == [
        ["team-a/side-1", "batch/etl-2"]]


def test_nothing_found_is_said_on_stderr_as_kubectl_does(cli) -> None:
    code, out, err = cli("history", "-n", "nobody")
    assert code == 0 and out == ""
    assert err.startswith('No preemptions found in namespace "nobody" since ')


def test_since_reaches_further_back(cli) -> None:
    code, out, _ = cli("history", "-A", "--since", "3h", "-o", "json")
    assert code == 0
    assert "batch/old-1" in _rows(out)


def test_without_a_namespace_flag_the_context_s_namespace_is_read_and_preemptors_elsewhere_are_fetched(
        cli, api: FakeAPIServer) -> None:
    code, out, err = cli("history", "-o", "json")  # the context's namespace is batch
    assert code == 0, err
    rows = _rows(out)
    assert "team-a/side-1" not in rows
    assert rows["batch/etl-1"]["preemptor"] == "team-a/web-0"  # read by a GET in team-a
    assert rows["batch/etl-1"]["preemptorClass"] == "high"
    assert any(r.path == "/api/v1/namespaces/team-a/pods/web-0" for r in api.requests)


def test_the_table_has_kubectl_s_look(cli) -> None:
    code, out, err = cli("history", "-A")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["TIME", "VICTIM", "CLASS", "PREEMPTOR", "CLASS", "NODE", "FOUND", "NOTES"]
    assert len(lines) == 7
    etl1 = next(line for line in lines if "batch/etl-1" in line)
    assert etl1.split()[1:7] == ["batch/etl-1", "low", "team-a/web-0", "high", "node-1", "both"]
    assert "<uid uid-lost>" in next(line for line in lines if "batch/gone-2" in line)
    assert err == ""
    code, out2, _ = cli("history", "-A", "--no-headers")
    assert len(out2.splitlines()) == 6 and not out2.startswith("TIME")


def test_without_access_to_events_the_missing_permission_is_named_and_conditions_still_listed(
        cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: resource != "events"
    code, out, err = cli("history", "-A", "-o", "json")
    assert code == 3
    assert 'cannot list events at the cluster scope (API group "events.k8s.io" nor "")' in err
    assert "listing the victims the pods' DisruptionTarget conditions show" in err
    assert err.strip().splitlines()[-1].startswith("error: ")
    rows = _rows(out)
    assert sorted(rows) == ["batch/etl-1", "batch/etl-2"]
    assert all(r["found"] == "condition" for r in rows.values())
    assert rows["batch/etl-1"]["preemptor"] == "team-a/web-0"  # the only pod nominated to node-1


def test_with_one_event_group_refused_the_other_one_serves(cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: True
    api.fail("events", 403, when=lambda r: r.path.startswith("/apis/events.k8s.io"))
    code, out, err = cli("history", "-A", "-o", "json")
    assert code == 0, err
    assert "batch/gone-1" in _rows(out) and "batch/etl-1" not in {
        v for v, r in _rows(out).items() if "event" in r["found"]}


def test_without_access_to_pods_events_are_listed_and_the_refusal_named(cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: resource != "pods"
    code, out, err = cli("history", "-A", "-o", "json")
    assert code == 3
    assert "cannot list pods" in err and "no pods could be read" in err
    rows = _rows(out)
    assert rows["batch/etl-1"]["preemptor"] == "team-a/web-0"  # from the Event's related object
    assert "batch/etl-2" not in rows  # its condition could not be read


def test_without_any_access_one_line_and_exit_3(cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: False
    code, out, err = cli("history", "-A")
    assert code == 3 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert "cannot list events" in err and "cannot list pods" in err


@pytest.mark.parametrize("args, message", [
    (["--since", "yesterday"], "is not a duration"),
    (["--since", "0s"], "must be more than zero"),
    # time.ParseDuration's int64 of nanoseconds: its window started in year -11405920 before
    (["--since", "99999999999h"], "longer than the longest duration Go reads (2562047h47m16.854775807s)"),
    (["-n", "x", "-A"], "do not go together"),
])
def test_bad_flags_exit_2_in_one_line(cli, args: list[str], message: str) -> None:
    code, out, err = cli("history", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_a_capture_of_this_cluster_gives_the_same_preemptions_read_back(cli, api: FakeAPIServer,
                                                                        tmp_path: Path) -> None:
    snap = tmp_path / "snap.json"
    code, _, err = cli("capture", "-o", str(snap))
    assert code == 0, err
    code, out, err = cli("history", "-A", "--snapshot", str(snap), "-o", "json")
    assert code == 0, err
    rows = _rows(out)
    # capture keeps the Preempted Events of the last hour (core/v1), not kube-batch's Evict Events
    assert sorted(rows) == ["batch/etl-1", "batch/etl-2", "batch/gone-1", "batch/gone-2", "team-a/side-1"]
    assert rows["batch/gone-1"]["found"] == "event" and rows["batch/gone-1"]["preemptor"] == "team-a/api-7"
    # this loopback server serves etl-1's Event through events.k8s.io only (a real one serves every
    # Event through both groups), and capture reads core/v1: its condition and nomination remain
    assert rows["batch/etl-1"]["found"] == "condition" and rows["batch/etl-1"]["preemptor"] == "team-a/web-0"
