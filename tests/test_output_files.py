"""Files the plugin writes (--html, --dump-decisions, --junit, capture's snapshot): atomically, never
through a symbolic link (exit 2, one line), no more readable than the data they come from;
`--html -` writes to standard output; --dump-decisions refuses a non-empty directory unless
--overwrite."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.io import files
from tests.conftest import REPO, run_cli
from tests.test_hostile_input import one_line_error

DEMO = REPO / "traces" / "demo.jsonl.gz"
PROPOSED = REPO / "traces" / "proposed-platform-critical.yaml"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def private_demo(tmp_path: Path) -> Path:
    """The demo trace as an unredacted recording is kept: readable by its owner only."""
    p = tmp_path / "private.jsonl.gz"
    p.write_bytes(DEMO.read_bytes())
    p.chmod(0o600)
    return p


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


# --- the writer ---------------------------------------------------------------------------------

def test_a_failed_write_leaves_the_old_file_whole_and_no_temporary_file(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "page.html"
    target.write_text("old page")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(InputError, match="page.html: --html: cannot write: No space left on device"):
        files.write_atomic(str(target), "<html>new", field="--html")
    assert target.read_text() == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_a_symbolic_link_is_refused_and_what_it_points_to_is_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "page.html"
    link.symlink_to(victim)
    with pytest.raises(InputError, match="is a symbolic link"):
        files.write_atomic(str(link), "x")
    assert victim.read_text() == "precious" and link.is_symlink()


def test_private_data_makes_a_private_file_else_the_umask_decides(tmp_path: Path, umask_022: None) -> None:
    files.write_atomic(str(tmp_path / "a"), "x", private=True)
    files.write_atomic(str(tmp_path / "b"), "x")
    assert _mode(tmp_path / "a") == 0o600 and _mode(tmp_path / "b") == 0o644


# --- replay --html and --dump-decisions ---------------------------------------------------------

def test_replay_html_through_a_symlink_is_one_line_and_exit_2(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "page.html"
    link.symlink_to(victim)
    one_line_error(run_cli(["replay", str(DEMO), "--html", str(link)]), f"error: {link}: --html: is a symbolic link")
    assert victim.read_text() == "precious"


def test_replay_html_dash_writes_the_page_to_stdout_and_no_file(tmp_path: Path) -> None:
    run = run_cli(["replay", str(DEMO), "--html", "-"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert run.out.lstrip().lower().startswith("<!doctype html") and run.out.rstrip().endswith("</html>")
    assert list(tmp_path.iterdir()) == []


def test_replay_html_of_a_private_trace_is_private(tmp_path: Path, private_demo: Path, umask_022: None) -> None:
    page = tmp_path / "page.html"
    assert run_cli(["replay", str(private_demo), "--html", str(page)]).code == 0
    assert _mode(page) == 0o600
    public = tmp_path / "public.html"
    assert run_cli(["replay", str(DEMO), "--html", str(public)]).code == 0
    assert _mode(public) == 0o644


def test_dump_decisions_refuses_a_non_empty_directory_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "cases"
    assert run_cli(["replay", str(DEMO), "--dump-decisions", str(out), "-o", "json"]).code == 0
    first = sorted(p.name for p in out.iterdir())
    assert first
    (out / "stale-from-yesterday.json").write_text("{}")
    one_line_error(run_cli(["replay", str(DEMO), "--dump-decisions", str(out)]),
                   f"error: {out}: --dump-decisions: not empty", "--overwrite")
    run = run_cli(["replay", str(DEMO), "--dump-decisions", str(out), "--overwrite", "-o", "json"])
    assert run.code == 0, run.err
    assert sorted(p.name for p in out.iterdir()) == sorted(first + ["stale-from-yesterday.json"])


def test_dump_decisions_never_writes_through_a_link_in_the_directory(tmp_path: Path) -> None:
    out = tmp_path / "cases"
    assert run_cli(["replay", str(DEMO), "--dump-decisions", str(out), "-o", "json"]).code == 0
    first = sorted(out.iterdir())[0]
    victim = tmp_path / "victim"
    victim.write_text("precious")
    first.unlink()
    first.symlink_to(victim)
    one_line_error(run_cli(["replay", str(DEMO), "--dump-decisions", str(out), "--overwrite", "-o", "json"]),
                   f"error: {first}: --dump-decisions: is a symbolic link")
    assert victim.read_text() == "precious"


def test_dump_decisions_of_a_private_trace_are_private(tmp_path: Path, private_demo: Path, umask_022: None) -> None:
    out = tmp_path / "cases"
    assert run_cli(["replay", str(private_demo), "--dump-decisions", str(out), "-o", "json"]).code == 0
    assert _mode(out) == 0o700
    assert {_mode(p) for p in out.iterdir()} == {0o600}


def test_overwrite_without_dump_decisions_is_a_usage_error() -> None:
    one_line_error(run_cli(["replay", str(DEMO), "--overwrite"]), "--overwrite goes with --dump-decisions")


# --- check --html and --junit -------------------------------------------------------------------

def test_check_refuses_a_symlinked_html_before_replaying(tmp_path: Path) -> None:
    link = tmp_path / "page.html"
    link.symlink_to(tmp_path / "elsewhere.html")
    one_line_error(run_cli(["check", "--trace", str(DEMO), "--proposed", str(PROPOSED), "--html", str(link)]),
                   f"error: {link}: --html: is a symbolic link")
    assert not (tmp_path / "elsewhere.html").exists()


def test_check_html_dash_and_a_private_junit(tmp_path: Path, private_demo: Path, umask_022: None) -> None:
    junit = tmp_path / "j.xml"
    run = run_cli(["check", "--trace", str(private_demo), "--proposed", str(PROPOSED), "--html", "-",
                   "--junit", str(junit)])
    assert run.code in (0, 1), run.err
    assert run.out.lstrip().lower().startswith("<!doctype html")
    assert _mode(junit) == 0o600 and junit.read_text().startswith("<?xml")


def _read_in_background(fifo: Path) -> tuple[list[bytes], "threading.Thread"]:
    import threading

    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    return got, reader


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_or_a_device_is_written_into_not_replaced(tmp_path: Path, umask_022: None) -> None:
    # the rename that makes a file's write atomic put a file in a device's place: run as root,
    # `check --junit /dev/null` replaced /dev/null with the report (a FIFO stands in for it here)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o644)
    got, reader = _read_in_background(fifo)
    files.write_atomic(str(fifo), "<testsuites/>")
    reader.join(10)
    assert got == [b"<testsuites/>"]
    assert stat.S_ISFIFO(fifo.stat().st_mode) and _mode(fifo) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["fifo"]  # no temporary file left beside it


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_an_unredacted_recording_into_a_pipe_leaves_its_mode(tmp_path: Path, umask_022: None) -> None:
    # `record --no-redact -o /dev/null`, run as root, made /dev/null readable and writable by
    # root alone; a file it writes is its owner's alone, whether it existed or not
    from kubectl_preempt.io.trace import TraceWriter

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o644)
    got, reader = _read_in_background(fifo)
    w = TraceWriter(str(fifo), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"}, private=True)
    w.close()
    reader.join(10)
    assert got and got[0].startswith(b'{"apiVersion"') and _mode(fifo) == 0o644
    existing = tmp_path / "trace.jsonl"
    existing.write_text("")
    assert _mode(existing) == 0o644
    TraceWriter(str(existing), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"}, private=True).close()
    assert _mode(existing) == 0o600
    TraceWriter(str(tmp_path / "new.jsonl.gz"), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"},
                private=True).close()
    assert _mode(tmp_path / "new.jsonl.gz") == 0o600


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="a device that is always full")
def test_a_full_device_is_one_error_naming_it(tmp_path: Path) -> None:
    from kubectl_preempt.io.trace import TraceWriter

    header = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"}
    with pytest.raises(InputError, match=r"^/dev/full: cannot write: No space left on device$"):
        TraceWriter("/dev/full", header)
    with pytest.raises(InputError, match=r"^/dev/full: cannot write: No space left on device$"):
        files.write_atomic("/dev/full", "<html/>")


def test_standard_output_that_cannot_be_written_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # `capture -o - > /dev/full`, `record -o -` with stdout closed: one error, not a traceback
    import io
    import sys

    from kubectl_preempt.io.trace import TraceWriter

    class Full(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(Full())))
    with pytest.raises(InputError, match=r"^standard output: cannot write: No space left on device$"):
        files.write_atomic("-", "x" * 100_000)
    with pytest.raises(InputError, match=r"^standard output: cannot write: No space left on device$"):
        TraceWriter("-", {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "pad": "x" * 100_000})
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(InputError, match=r"^standard output: is closed"):
        files.write_atomic("-", "x")
    with pytest.raises(InputError, match=r"^standard output: is closed"):
        TraceWriter("-", {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"})


def test_a_recording_is_never_written_through_a_symbolic_link(tmp_path: Path) -> None:
    # record opened its output as `>` does, following a link planted there: every other file the
    # plugin writes refuses one
    from kubectl_preempt.io.trace import TraceWriter

    target = tmp_path / "elsewhere"
    target.write_text("kept")
    link = tmp_path / "trace.jsonl"
    link.symlink_to(target)
    with pytest.raises(InputError, match=f"^{link}: is a symbolic link: refused"):
        TraceWriter(str(link), {"apiVersion": "kubectl-preempt/v1", "kind": "Trace"})
    assert target.read_text() == "kept"
