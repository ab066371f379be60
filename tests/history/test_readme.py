"""docs/history.md's examples and `history --help`'s run as written: the live ones against
the loopback API server (GETs only), the file ones on files made first (a capture, a recording).
The page's console blocks (the real-cluster traces) are run by test_cli_explain's test of every page."""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from kubectl_preempt.cli import history
from tests.live.fakeapi import FakeAPIServer

REPO = Path(__file__).resolve().parents[2]


def _section() -> str:
    return (REPO / "docs" / "history.md").read_text()


def _sh_commands() -> list[str]:
    return [line for body in re.findall(r"```sh\n(.*?)```", _section(), re.S) for line in body.splitlines()
            if line.startswith("kubectl preempt ")]


def _help_commands() -> list[str]:
    return [line.strip() for line in history.EPILOG.splitlines() if line.strip().startswith("kubectl preempt ")]


def test_the_section_and_the_help_have_examples() -> None:
    assert len(_sh_commands()) >= 2
    assert len(_help_commands()) >= 4
    assert len(re.findall(r"```console\n\$ kubectl preempt history", _section())) >= 2


@pytest.mark.parametrize("cmd", _sh_commands())
def test_every_live_example_of_the_section_runs(cmd: str, cli, api: FakeAPIServer) -> None:
    code, out, err = cli(*shlex.split(cmd)[2:])
    assert code == 0, err
    assert out
    assert api.methods == {"GET"}


def test_the_help_examples_run(cli, api: FakeAPIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("capture", "-o", "prod.json.gz")[0] == 0
    shutil.copy(REPO / "traces" / "demo.jsonl.gz", tmp_path / "rollout.jsonl.gz")
    for cmd in _help_commands():
        code, out, err = cli(*shlex.split(cmd)[2:])
        assert code == 0, f"{cmd}: {err}"
        assert out, cmd
    assert api.methods == {"GET"}
