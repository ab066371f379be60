"""record against a loopback API server: initial lists, watch events, resuming after 410 Gone,
and a clean stop (limits, a stop request, SIGTERM and Ctrl-C) that leaves a valid trace."""
from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from kubectl_preempt.io.record import record
from kubectl_preempt.io.trace import read_trace
from kubectl_preempt.replay.api import replay
from tests.builders import make_node, make_pod, make_priority_class
from tests.live.fakeapi import FakeAPIServer

ROOT = Path(__file__).resolve().parents[2]


def _bare(obj: dict[str, Any], rv: str) -> dict[str, Any]:
    o = {k: v for k, v in copy.deepcopy(obj).items() if k not in ("kind", "apiVersion")}
    o["metadata"]["resourceVersion"] = rv
    return o


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAPIServer]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)
    objects = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), make_priority_class("high", 1000),
               make_pod("old").priority(1).req(cpu="4").on("n1").obj()]
    with FakeAPIServer(objects) as server:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / "kubeconfig")))
        yield server


def test_the_lists_come_first_then_the_watch_events(api: FakeAPIServer, tmp_path: Path) -> None:
    new = make_pod("new").priority(1000).priority_class("high").req(cpu="2").obj()
    api.script_watch("pods", [(0, "ADDED", _bare(new, "2001")),
                              (0, "MODIFIED", _bare(make_pod("new").priority(1000).req(cpu="2").nominated("n1").obj(), "2002"))])
    path = tmp_path / "t.jsonl.gz"
    stats = record(str(path), max_events=2, watch_timeout=1)
    assert stats.reason == "event limit reached"
    tr = read_trace(str(path))
    assert tr.header["source"]["serverVersion"] == "v1.34.1"
    assert tr.header["redacted"] is True
    start = tr.events[0]["ts"]
    initial = [e for e in tr.events if e["ts"] == start]
    assert sorted(e["object"]["kind"] for e in initial) == ["Node", "Pod", "PriorityClass"]
    later = [(e["type"], e["object"]["metadata"]["name"]) for e in tr.events if e["type"] != "BOOKMARK"][3:]
    # a renewed watch repeats what it sent: the trace has each change once
    assert later == [("ADDED", "new"), ("MODIFIED", "new")]
    assert api.methods == {"GET"}


def test_after_410_gone_it_lists_again_and_records_the_difference(api: FakeAPIServer, tmp_path: Path) -> None:
    came = make_pod("came").priority(5).req(cpu="1").obj()

    def expire(req: Any) -> bool:
        if req.query.get("watch") not in ("1", "true", "True"):
            return False
        # while the watch was away, "old" was deleted and "came" created
        pods = api.store[("v1", "pods")]
        pods[:] = [p for p in pods if p["metadata"]["name"] != "old"]
        api.add(came)
        return True

    api.fail("pods", 410, when=expire, times=1)
    path = tmp_path / "t.jsonl"
    stats = record(str(path), max_events=2, watch_timeout=1)
    assert stats.relists == 1
    tr = read_trace(str(path))
    changes = [(e["type"], e["object"]["metadata"]["name"]) for e in tr.events[3:] if e["type"] != "BOOKMARK"]
    assert sorted(changes) == [("ADDED", "came"), ("DELETED", "old")]
    # and the trace replays: "came" is scheduled on n1 once "old" is gone
    report = replay(tr)
    assert report["summary"]["scheduled"] == 1


def test_a_stop_request_ends_the_recording_with_a_valid_trace(api: FakeAPIServer, tmp_path: Path) -> None:
    stop = threading.Event()
    path = tmp_path / "t.jsonl.gz"
    result: dict[str, Any] = {}
    t = threading.Thread(target=lambda: result.update(stats=record(str(path), stop=stop, watch_timeout=1)))
    t.start()
    time.sleep(0.8)
    stop.set()
    t.join(timeout=10)
    assert not t.is_alive()
    assert result["stats"].reason == "stopped"
    assert len(read_trace(str(path)).events) == 3


def test_duration_ends_the_recording(api: FakeAPIServer, tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    t0 = time.monotonic()
    stats = record(str(path), duration=0.6, watch_timeout=1)
    assert stats.reason == "duration reached"
    assert time.monotonic() - t0 < 5
    assert read_trace(str(path)).form == "trace"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_command_ends_cleanly_on_a_signal(api: FakeAPIServer, tmp_path: Path, sig: int) -> None:
    path = tmp_path / "t.jsonl.gz"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "kubectl_preempt.cli.main", "record", "-o", str(path)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
    deadline = time.monotonic() + 20

    def started() -> bool:
        # the initial lists are on disk: the recorder is past its set-up and watching
        try:
            return path.exists() and len(read_trace(str(path)).events) == 3
        except Exception:  # a trace still being written may not read yet
            return False

    while time.monotonic() < deadline and not started():
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "wrote " in err and "3 objects at the start" in err
    assert len(read_trace(str(path)).events) == 3


def test_a_duration_ends_the_recording_promptly_while_watches_are_blocked_in_reads(api: FakeAPIServer,
                                                                                  tmp_path: Path) -> None:
    # the server holds every watch open without a word, as a quiet real cluster does for minutes
    late = make_pod("late").ns("team-a").obj()
    late["metadata"]["resourceVersion"] = "9999"
    for plural in ("pods", "nodes", "poddisruptionbudgets", "priorityclasses", "namespaces", "services",
                   "events", "persistentvolumeclaims", "persistentvolumes", "storageclasses"):
        api.script_watch(plural, [(60, "ADDED", late)])
    stats = record(str(tmp_path / "t.jsonl"), duration=1.0)
    stopped_after = time.time() - (stats.started + 1.0)
    assert stats.reason == "duration reached"
    assert stopped_after < 2.0, f"stopped {stopped_after:.1f}s after the duration"
