"""capture and record name their file with --output-file; -o/--output, which every other command
reads as a format, keeps naming the file for the scripts written for it (issue 28, point 4)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_preempt.io.trace import read_trace


@pytest.mark.parametrize("flag", ["--output-file", "-o", "--output"])
def test_capture_writes_where_either_flag_says(cli, tmp_path: Path, flag: str) -> None:
    path = tmp_path / "snap.json"
    code, out, err = cli("capture", flag, str(path))
    assert code == 0, err
    assert json.loads(path.read_text())["kind"] == "List"


def test_both_flags_naming_different_files_is_one_line_exit_2(cli, tmp_path: Path) -> None:
    code, out, err = cli("capture", "--output-file", str(tmp_path / "a.json"), "-o", str(tmp_path / "b.json"))
    assert code == 2
    assert err.count("\n") == 1 and "--output-file" in err
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("flag", ["--output-file", "-o"])
def test_record_writes_where_either_flag_says(cli, tmp_path: Path, flag: str) -> None:
    path = tmp_path / "t.jsonl"
    code, out, err = cli("record", flag, str(path), "--duration", "1s")
    assert code == 0, err
    assert read_trace(str(path)).header["kind"] == "Trace"


def test_record_without_a_file_names_the_flag(cli) -> None:
    code, out, err = cli("record", "--duration", "1s")
    assert code == 2
    # a missing input: the error, then record's usage line
    assert "--output-file" in err and err.splitlines()[1:] == ["Usage: kubectl preempt record --output-file TRACE [OPTIONS]"]


def test_help_says_the_difference(cli) -> None:
    for command in ("capture", "record"):
        code, out, err = cli(command, "--help")
        assert code == 0
        text = " ".join(out.split())
        assert "--output-file" in text and "kept for compatibility" in text

