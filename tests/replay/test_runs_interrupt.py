"""Ctrl-C stops `replay --runs` as a terminal sends it: SIGINT to the whole foreground process group,
pressed once or several times. Within 2 s every process the command started is gone, the exit code
is 130, nothing is printed as a traceback, and a file it was to write is as it was before. `--runs`
holds no run once it is counted: ten million runs stay far under 300 MiB until interrupted; beyond
its bound, one line and exit 2.

The command runs as a user runs it (the console script, in a process group of its own, as a shell
starts a foreground job)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from kubectl_preempt.model.limits import MAX_RUNS

KUBECTL_PREEMPT = os.path.join(os.path.dirname(sys.executable), "kubectl-preempt")
STOP_WITHIN = 2.0
MEMORY_BOUND = 300 * 2**20

try:
    import ray  # noqa: F401
except ImportError:  # a checkout set up without --dev; CI's is set up with it
    ray = None


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.update(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, whatever process group or session it moved to (Ray's workers
    start sessions of their own)."""
    seen: set[int] = set()
    todo = [pid]
    while todo:
        for c in _children(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    if not os.path.exists("/proc/self/task"):
        pytest.skip("reads the process tree from /proc (Linux)")
    return subprocess.Popen([KUBECTL_PREEMPT, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def wait_for(proc: subprocess.Popen, ready: Callable[[set[int]], bool], timeout: float) -> set[int]:
    """The command's processes once `ready` says they are at work."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        procs = descendants(proc.pid)
        if ready(procs):
            return procs
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"the runs did not start within {timeout:.0f}s")


def interrupt(proc: subprocess.Popen, procs: set[int], presses: int) -> tuple[float, str]:
    """Ctrl-C `presses` times, as a terminal sends it; (seconds until every process is gone, stderr)."""
    t0 = time.monotonic()
    for _ in range(presses):
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.05)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the command did not end within 30 s of Ctrl-C")
    while any(alive(p) for p in procs) and time.monotonic() - t0 < 30:
        time.sleep(0.02)
    left = [f"{p} {cmdline(p)}" for p in procs if alive(p)]
    assert not left, f"still running after Ctrl-C: {left}"
    return time.monotonic() - t0, err.decode()


def assert_left_as_it_was(folder: Path, html: Path) -> None:
    assert html.read_text() == "the report of yesterday\n"
    assert sorted(p.name for p in folder.iterdir()) == [html.name], "a temporary file was left behind"


@pytest.mark.slow
@pytest.mark.parametrize("presses", [1, 3], ids=["Ctrl-C once", "Ctrl-C three times"])
def test_ctrl_c_stops_runs_on_local_processes_at_once(tmp_path: Path, presses: int) -> None:
    out = tmp_path / "out"
    out.mkdir()
    html = out / "report.html"
    html.write_text("the report of yesterday\n")
    proc = start(["replay", "--runs", "2000", "--jobs", "2", "--html", str(html)], tmp_path)
    procs = wait_for(proc, lambda ps: len(ps) >= 2, timeout=120)
    took, err = interrupt(proc, procs, presses)
    assert proc.returncode == 130, err
    assert took < STOP_WITHIN, f"{took:.2f}s"
    assert "Traceback" not in err and "Error" not in err, err
    assert_left_as_it_was(out, html)


@pytest.mark.slow
def test_ctrl_c_stops_runs_on_a_ray_started_for_them(tmp_path: Path) -> None:
    if ray is None:
        if os.environ.get("CI"):
            pytest.fail("Ray is missing: ./install.sh --dev installs it (the extra kubectl-preempt[ray])")
        pytest.skip("Ray is not installed here: ./install.sh --dev installs it")
    out = tmp_path / "out"
    out.mkdir()
    html = out / "report.html"
    html.write_text("the report of yesterday\n")
    proc = start(["replay", "--runs", "2000", "--ray", "local", "--html", str(html)], tmp_path)
    # at work once Ray's workers run the tasks (ray::_run_task)
    procs = wait_for(proc, lambda ps: any("_run_task" in cmdline(p) for p in ps), timeout=240)
    time.sleep(1.0)
    procs |= descendants(proc.pid)
    took, err = interrupt(proc, procs, 2)
    assert proc.returncode == 130, err
    assert took < STOP_WITHIN, f"{took:.2f}s"
    assert "Traceback" not in err, err
    assert_left_as_it_was(out, html)


@pytest.mark.slow
def test_ten_million_runs_stay_under_300_mib_until_interrupted(tmp_path: Path) -> None:
    proc = start(["replay", "--runs", "10000000", "--jobs", "2"], tmp_path)
    procs = wait_for(proc, lambda ps: len(ps) >= 2, timeout=120)
    peak = peak_all = 0
    until = time.monotonic() + 15
    while time.monotonic() < until:
        own = rss(proc.pid)
        peak = max(peak, own)
        peak_all = max(peak_all, own + sum(rss(p) for p in descendants(proc.pid)))
        time.sleep(0.1)
    took, err = interrupt(proc, procs, 1)
    assert proc.returncode == 130, err
    print(f"\n--runs 10000000: peak RSS {peak / 2**20:.0f} MiB, with the workers {peak_all / 2**20:.0f} MiB")
    assert peak < MEMORY_BOUND and peak_all < MEMORY_BOUND


@pytest.mark.parametrize("command", [
    ["replay", "--runs", str(MAX_RUNS + 1)],
    ["check", "--trace", "traces/demo.jsonl.gz", "--proposed", "traces/proposed-platform-critical.yaml",
     "--runs", str(MAX_RUNS + 1)],
    ["session", "--snapshot", "examples/batch-cluster.yaml", "--runs", str(MAX_RUNS + 1)],
], ids=["replay", "check", "session"])
def test_more_runs_than_the_bound_is_one_line_naming_runs(command: list[str]) -> None:
    from tests.conftest import REPO, run_cli

    run = run_cli(command, cwd=REPO)
    assert run.code == 2 and run.err.count("\n") == 1 and "--runs" in run.err, run.err
    assert "10000000" in run.err, run.err
