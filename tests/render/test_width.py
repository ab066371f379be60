"""Tables that fit the terminal (issue 28, point 3): on a terminal every table fits COLUMNS, cut
cells end in …, the cut columns are named on a last line; -o wide, pipes and files are never cut.
The goldens tests/golden/*-80 and *-200 hold the text; these hold the rules on every scenario."""
from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest

from kubectl_preempt.render import width
from tests.conftest import GOLDEN_DIR, run_cli, run_scenario

TERMINAL_SCENARIOS = sorted(d for d in GOLDEN_DIR.iterdir() if (d / "env").exists())
# every table command's golden, run through a pipe (the goldens without an env file)
PIPE_TABLES = ["preempt-table", "preempt-pdb", "unschedulable", "all-namespaces-gz", "explain-batch",
               "replay-simulate-table", "replay-follow-table", "check-table", "session-table", "preemption-never",
               "scheduled-table", "manifest", "stdin-case-file", "history-table"]


def _as_terminal(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    monkeypatch.setenv(width.FORCE_ENV, "1")
    monkeypatch.setenv("COLUMNS", str(columns))


def test_the_terminal_goldens_cover_every_table_command() -> None:
    commands = {shlex.split((d / "cmd").read_text())[0] for d in TERMINAL_SCENARIOS}
    assert commands == {"explain", "replay", "check", "session", "plan", "history"}
    assert {d.name.rsplit("-", 1)[1] for d in TERMINAL_SCENARIOS} == {"80", "200"}


@pytest.mark.parametrize("name", PIPE_TABLES)
@pytest.mark.parametrize("columns", [80, 60])
def test_every_table_fits_the_terminal(monkeypatch: pytest.MonkeyPatch, name: str, columns: int) -> None:
    folder = GOLDEN_DIR / name
    _as_terminal(monkeypatch, columns)
    run = run_scenario(folder)
    assert run.out, run
    too_wide = [line for line in run.out.splitlines() if len(line) > columns]
    assert not too_wide, too_wide


@pytest.mark.parametrize("name", PIPE_TABLES)
def test_a_pipe_is_never_cut(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # COLUMNS alone does not make a pipe a terminal: the pipe gets the golden text, every character
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.delenv(width.FORCE_ENV, raising=False)
    run = run_scenario(GOLDEN_DIR / name)
    expected = (GOLDEN_DIR / name / "expected.txt").read_text()
    assert expected.startswith(f"exit: {run.code}\n--- stdout\n{run.out}")
    assert width.ELLIPSIS not in run.out


def test_wide_on_a_narrow_terminal_is_the_whole_table(monkeypatch: pytest.MonkeyPatch) -> None:
    _as_terminal(monkeypatch, 80)
    run = run_scenario(GOLDEN_DIR / "preempt-wide")
    expected = (GOLDEN_DIR / "preempt-wide" / "expected.txt").read_text()
    assert expected.startswith(f"exit: 0\n--- stdout\n{run.out}")
    assert max(len(line) for line in run.out.splitlines()) > 80


def test_cut_cells_end_in_an_ellipsis_and_the_last_line_names_the_cut_columns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _as_terminal(monkeypatch, 80)
    out = run_scenario(GOLDEN_DIR / "replay-simulate-table").out
    assert "needs cpu 3, me…" in out
    assert out.splitlines()[-1] == "(cut to 80 columns: WHY, LAST REASON; -o wide or a pipe shows every character)"
    # nothing cut, nothing said
    _as_terminal(monkeypatch, 200)
    assert "cut to" not in run_scenario(GOLDEN_DIR / "replay-simulate-table").out


def test_forcing_a_pipe_wins_over_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv(width.FORCE_ENV, raising=False)
    assert width.terminal_limit(Tty()) == 100
    assert width.terminal_limit(io.StringIO()) is None
    monkeypatch.setenv(width.FORCE_ENV, "0")
    assert width.terminal_limit(Tty()) is None
    monkeypatch.setenv(width.FORCE_ENV, "1")
    assert width.terminal_limit(io.StringIO()) == 100
    monkeypatch.setenv("COLUMNS", "10")  # too narrow to fit anything legible: the floor
    assert width.terminal_limit(io.StringIO()) == width.MIN_LIMIT


def test_fit_gives_way_from_the_widest_column() -> None:
    assert width.fit([10, 50, 20], [6, 6, 6], 80) == [10, 50, 20]
    assert width.fit([10, 50, 20], [6, 6, 6], 60) == [10, 30, 20]
    assert width.fit([10, 50, 40], [6, 6, 6], 60) == [10, 25, 25]
    # floors hold even when the total cannot fit
    assert width.fit([10, 50, 40], [10, 20, 20], 30) == [10, 20, 20]


def test_python_callers_see_no_limit() -> None:
    # the api and the HTML page render without a terminal: the limit is the command line's alone
    width.set_limit(None)
    from kubectl_preempt.render.wording import columns

    assert columns(["A", "B"], [["x" * 300, "y"]]) == ["A" + " " * 301 + "B", "x" * 300 + "  y"]


def test_a_terminal_run_then_a_pipe_run_in_one_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _as_terminal(monkeypatch, 40)
    assert width.ELLIPSIS in run_scenario(GOLDEN_DIR / "preempt-table").out
    monkeypatch.delenv(width.FORCE_ENV)
    assert width.ELLIPSIS not in run_scenario(GOLDEN_DIR / "preempt-table").out
    assert run_cli(["--version"]).code == 0
