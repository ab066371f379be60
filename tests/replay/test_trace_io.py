"""Trace files: the writer, the reader in its three forms, and validation that names the line
(one line on stderr, exit 2, from the CLI)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import pytest

from kubectl_preempt.cli.main import main
from kubectl_preempt.errors import InputError
from kubectl_preempt.io.trace import (TraceWriter, format_rfc3339, parse_rfc3339, read_trace, trace_header)
from tests.builders import make_node, make_pod

from .helpers import T0, at

HEADER = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": T0}


def _line(t: float, typ: str, obj: dict) -> str:
    return json.dumps({"time": at(t), "type": typ, "object": obj})


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_written_traces_read_back_event_for_event(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    with TraceWriter(str(path), trace_header(parse_rfc3339(T0), context="prod", server_version="v1.34.1")) as w:
        w.event(parse_rfc3339(T0), "ADDED", make_node("n1").obj())
        w.event(parse_rfc3339(T0) + 1.25, "ADDED", make_pod("a").obj())
        w.event(parse_rfc3339(T0) + 2, "BOOKMARK", {"kind": "Pod", "metadata": {"resourceVersion": "7"}})
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    tr = read_trace(str(path))
    assert tr.form == "trace"
    assert tr.header["source"] == {"context": "prod", "serverVersion": "v1.34.1"}
    assert [(e["time"], e["type"], e["line"]) for e in tr.events] == [
        (T0, "ADDED", 2), ("2026-03-01T10:00:01.250Z", "ADDED", 3), ("2026-03-01T10:00:02Z", "BOOKMARK", 4)]


def test_the_writer_never_writes_time_backwards(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TraceWriter(str(path), trace_header(parse_rfc3339(T0))) as w:
        w.event(parse_rfc3339(T0) + 5, "ADDED", make_pod("a").obj())
        w.event(parse_rfc3339(T0) + 3, "ADDED", make_pod("b").obj())  # a clock that stepped back
    times = [e["ts"] for e in read_trace(str(path)).events]
    assert times == sorted(times)


def test_a_cut_short_gzip_trace_is_read_up_to_its_last_complete_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    with TraceWriter(str(path), trace_header(parse_rfc3339(T0))) as w:
        for i in range(3):
            w.event(parse_rfc3339(T0) + i, "ADDED", make_pod(f"p{i}").obj())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[:-8])  # no gzip trailer, as after a kill -9
    tr = read_trace(str(cut))
    assert len(tr.events) == 3
    assert "ends early" in tr.notes[0]


@pytest.mark.parametrize("lines, where, message", [
    ([json.dumps({**HEADER, "apiVersion": "v1"})], "line 1", "header apiVersion \"v1\" is not kubectl-preempt/v1"),
    ([json.dumps({**HEADER, "startTime": "yesterday"})], "line 1", "header startTime \"yesterday\" is not an RFC 3339 time"),
    ([json.dumps(HEADER), "{not json"], "line 2", "not JSON"),
    ([json.dumps(HEADER), json.dumps({"time": T0, "type": "CHANGED", "object": {}})], "line 2",
     "type \"CHANGED\" is not one of ADDED, MODIFIED, DELETED, BOOKMARK"),
    ([json.dumps(HEADER), json.dumps({"time": "10:00", "type": "ADDED", "object": {}})], "line 2",
     "time \"10:00\" is not an RFC 3339 time"),
    ([json.dumps(HEADER), json.dumps({"time": T0, "type": "ADDED", "object": {"metadata": {"name": "a"}}})], "line 2",
     "object.kind is missing"),
    ([json.dumps(HEADER), json.dumps({"time": T0, "type": "ADDED", "object": {"kind": "Pod", "metadata": {}}})], "line 2",
     "object.metadata.name is missing (Pod)"),
    ([json.dumps(HEADER), _line(5, "ADDED", make_pod("a").obj()), "", _line(3, "ADDED", make_pod("b").obj())], "line 4",
     "time 2026-03-01T10:00:03Z is before the previous event's (2026-03-01T10:00:05Z): events must be in time order"),
    ([json.dumps(HEADER), _line(-1, "ADDED", make_pod("a").obj())], "line 2",
     "is before the trace's startTime"),
], ids=["a header of another apiVersion", "a header without a valid startTime", "a line that is not JSON",
        "an unknown event type", "a time that is not RFC 3339", "an object without kind",
        "an object without a name", "an event earlier than the one before it", "an event before the start"])
def test_validation_names_the_line(tmp_path: Path, lines: list[str], where: str, message: str) -> None:
    path = _write(tmp_path / "bad.jsonl", lines)
    with pytest.raises(InputError) as e:
        read_trace(str(path))
    assert str(e.value).startswith(f"{path}: {where}: ")
    assert message in str(e.value)


def test_the_cli_reports_a_bad_trace_in_one_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "bad.jsonl", [json.dumps(HEADER), _line(1, "ADDED", make_pod("a").obj()), "{oops"])
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"error: {path}: line 3: not JSON")
    assert "Traceback" not in err


def test_the_cli_reports_a_missing_trace_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'nope.jsonl'}: no such file\n"


def test_a_kubectl_watch_stream_is_read_with_its_first_list_as_the_initial_state(tmp_path: Path) -> None:
    node = make_node("n1").obj()
    node["metadata"]["creationTimestamp"] = "2026-03-01T09:00:00Z"
    created = make_pod("a").obj()  # created 2026-01-01, listed first
    later = make_pod("b").set("metadata.creationTimestamp", "2026-03-01T10:05:00Z").obj()
    bound = make_pod("b").set("metadata.creationTimestamp", "2026-03-01T10:05:00Z").on("n1").start_time("2026-03-01T10:05:02Z").obj()
    # kubectl prints each event indented over several lines
    text = "\n".join(json.dumps({"type": t, "object": o}, indent=4) for t, o in
                     [("ADDED", node), ("ADDED", created), ("MODIFIED", bound), ("ADDED", later)])
    path = _write(tmp_path / "watch.json", [text])
    tr = read_trace(str(path))
    assert tr.form == "watch"
    assert tr.header["startTime"] == "2026-03-01T09:00:00Z"
    assert [(e["type"], e["time"]) for e in tr.events] == [
        ("ADDED", "2026-03-01T09:00:00Z"), ("ADDED", "2026-03-01T09:00:00Z"),
        ("MODIFIED", "2026-03-01T10:05:02Z"),
        # created before the MODIFIED it follows: never earlier than the event ahead of it
        ("ADDED", "2026-03-01T10:05:02Z")]
    assert tr.events[2]["line"] > tr.events[1]["line"] > 1


def test_a_one_event_per_line_watch_stream_reports_bad_lines_by_number(tmp_path: Path) -> None:
    path = _write(tmp_path / "w.json", [json.dumps({"type": "ADDED", "object": make_pod("a").obj()}),
                                        json.dumps({"type": "ERROR", "object": {"kind": "Status", "message": "too old resource version"}})])
    with pytest.raises(InputError) as e:
        read_trace(str(path))
    assert str(e.value) == f"{path}: line 2: the watch reported an error: too old resource version"


def test_a_snapshot_is_a_trace_of_one_instant(tmp_path: Path) -> None:
    doc = {"apiVersion": "v1", "kind": "List",
           "metadata": {"annotations": {"kubectl-preempt/captured-at": "2026-03-01T12:00:00Z"}},
           "items": [make_node("n1").obj(), make_pod("a").obj()]}
    path = tmp_path / "snap.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps(doc)))
    tr = read_trace(str(path))
    assert tr.form == "snapshot"
    assert tr.header["startTime"] == "2026-03-01T12:00:00Z"
    assert {e["time"] for e in tr.events} == {"2026-03-01T12:00:00Z"}
    assert [e["object"]["kind"] for e in tr.events] == ["Node", "Pod"]


def test_a_snapshot_replays_its_pending_pods(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"apiVersion": "v1", "kind": "List",
           "items": [make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
                     make_pod("low").priority(1).req(cpu="2").on("n1").obj(),
                     make_pod("high").priority(10).req(cpu="2").obj()]}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path), "-o", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(p["preemptor"], p["victims"]) for p in report["preemptions"]] == [("default/high", ["default/low"])]


@pytest.mark.parametrize("text", ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00.000000000Z", "2026-03-01T11:00:00+01:00"],
                         ids=["whole seconds", "nanoseconds", "an offset"])
def test_rfc3339_times_in_every_form_kubernetes_writes(text: str) -> None:
    assert format_rfc3339(parse_rfc3339(text)) == T0
