"""The scheduler's Preempted events: capture keeps those of the last hour, and explain on the
snapshot tells a victim who preempted it (the DisruptionTarget condition and the event)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from kubectl_preempt.cli.main import main
from kubectl_preempt.io import live
from tests.live.fakeapi import FakeAPIServer

from .conftest import PREEMPTOR_UID


def _captured_events(now: str) -> list[dict]:
    doc, _ = live.capture(now=datetime.fromisoformat(now.replace("Z", "+00:00")).astimezone(timezone.utc))
    return [o for o in doc["items"] if o.get("kind") == "Event"]


def test_capture_keeps_the_preempted_events_of_the_last_hour(api: FakeAPIServer, kubeconfig: Path) -> None:
    # etl-2's event is from 10:00:03, gone-1's from 09:30:00; the Killing event is never read
    assert sorted(e["metadata"]["name"] for e in _captured_events("2026-03-01T10:20:00Z")) == ["etl-2.1", "gone-1.1"]
    assert [e["metadata"]["name"] for e in _captured_events("2026-03-01T10:45:00Z")] == ["etl-2.1"]
    assert all(r.query.get("fieldSelector") == "reason=Preempted" for r in api.requests if r.resource == "events")


def test_explain_of_a_victim_in_a_snapshot_names_its_preemptor(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc, _ = live.capture(now=datetime(2026, 3, 1, 10, 20, tzinfo=timezone.utc))
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(doc))
    assert main(["explain", "batch/etl-2", "--snapshot", str(snap), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    docs = out["items"] if "items" in out else [out]
    rec = next(d for d in docs if d.get("pod") == "batch/etl-2")["preemptedBy"]
    assert rec["preemptor"] == "team-a/web-0" and rec["preemptorUID"] == PREEMPTOR_UID
    assert rec["node"] == "node-2"
    assert rec["sources"] == ["condition", "event"]
    assert main(["explain", "batch/etl-2", "--snapshot", str(snap)]) == 0
    table = capsys.readouterr().out
    assert "Preempted  by the scheduler" in table and "team-a/web-0" in table


@pytest.mark.parametrize("field, value, message", [
    ("involvedObject", "batch/etl-2", "involvedObject: must be an object"),
    ("message", ["Preempted by pod x on node y"], "message: must be a string"),
    ("apiVersion", ["v1"], "apiVersion: must be a string"),
])
def test_a_preempted_event_of_another_shape_in_a_snapshot_is_named(
        api: FakeAPIServer, kubeconfig: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        field: str, value: object, message: str) -> None:
    # explain read a snapshot's events unchecked: a string for the object raised AttributeError
    doc, _ = live.capture(now=datetime(2026, 3, 1, 10, 20, tzinfo=timezone.utc))
    i, ev = next((i, o) for i, o in enumerate(doc["items"]) if o.get("kind") == "Event")
    ev[field] = value
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(doc))
    assert main(["explain", "batch/etl-2", "--snapshot", str(snap)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {snap}: items[{i}] (Event ") and err.rstrip().endswith(message)
