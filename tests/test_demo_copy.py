"""`demo --copy-to DIR`: the bundled examples and traces written out, and nothing left half-way."""
from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_preempt.io import bundled
from tests.conftest import run_cli


def test_the_files_are_written_under_their_repository_paths(tmp_path: Path) -> None:
    run = run_cli(["demo", "--copy-to", str(tmp_path / "new" / "dir")])
    assert run.code == 0, run.err
    assert (tmp_path / "new" / "dir" / "examples" / "cluster.json").is_file()
    assert (tmp_path / "new" / "dir" / "traces" / "demo.jsonl.gz").is_file()


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_directory_name_is_refused_and_nothing_is_written(tmp_path: Path, name: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # `--copy-to "$DIR"` with DIR unset wrote into the current directory
    monkeypatch.chdir(tmp_path)
    run = run_cli(["demo", "--copy-to", name])
    assert run.code == 2 and run.err == "error: --copy-to: an empty directory name: give the directory to write into\n"
    assert list(tmp_path.iterdir()) == []


def test_a_failure_part_way_removes_what_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the disk full at the fifth file: the four before it, and the directories made for them, go
    real = bundled.write_atomic
    calls = []

    def write(path: str, data: bytes, **kw: object) -> None:
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        real(path, data, **kw)

    monkeypatch.setattr(bundled, "write_atomic", write)
    target = tmp_path / "out"
    with pytest.raises(OSError):
        bundled.copy_to(str(target))
    assert len(calls) == 5 and not target.exists()
