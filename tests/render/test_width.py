"""Tables that fit the terminal (issue 28, point 3; issue 36): on a terminal the descriptive columns
give way (cut with …, or left out), named on a last line, while the columns that name something
(pods, nodes, preemptors, victims) keep every character, as kubectl never cuts a NAME; lists in them
go one item a line; empty columns are not shown. -o wide, pipes and files are never cut. The goldens
tests/golden/*-80 and *-200 hold the text; these hold the rules on every scenario and on tables
built for them."""
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
def test_every_table_fits_the_terminal_but_for_the_names(monkeypatch: pytest.MonkeyPatch, name: str,
                                                         columns: int) -> None:
    """A line wider than the terminal is a table's whose names alone are wider: nothing on it was
    cut, and the prose around the tables is wrapped to fit."""
    folder = GOLDEN_DIR / name
    _as_terminal(monkeypatch, columns)
    run = run_scenario(folder)
    assert run.out, run
    too_wide = [line for line in run.out.splitlines() if len(line) > columns]
    assert not [line for line in too_wide if width.ELLIPSIS in line], too_wide


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
    assert " ".join(out.split("\n(fitted to ", 1)[1].split()) == \
        "80 columns: cut WHY, LAST REASON; -o wide or a pipe shows every character)"
    # nothing cut, nothing said
    _as_terminal(monkeypatch, 200)
    assert "fitted to" not in run_scenario(GOLDEN_DIR / "replay-simulate-table").out


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


# --- the layout's rules, on tables built for them ------------------------------------------------

def _lines(header, rows, limit, **kw) -> list[str]:
    width.set_limit(limit)
    try:
        widths, table = width.layout(header, rows, **kw)
        return ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for lines in table for cells in lines]
    finally:
        width.set_limit(None)


NODE = "ip-10-0-3-17.eu-west-1.compute.internal"
POD = "shop/checkout-3628305433-72t7n"


@pytest.mark.parametrize("header,rows,limit,expected", [
    (["POD", "NODE", "WHY"], [[POD, NODE, "needs cpu 1500m, memory 2Gi (12 Insufficient cpu)"]], 100,
     [f"POD{' ' * 29}NODE{' ' * 37}WHY", f"{POD}  {NODE}  needs cpu 1500m, memory 2G…"]),
    (["POD", "NODE", "WHY"], [[POD, NODE, "needs cpu 1500m, memory 2Gi (12 Insufficient cpu)"]], 75,
     [f"POD{' ' * 29}NODE", f"{POD}  {NODE}"]),
    (["POD", "NODE"], [[POD, NODE]], 40, [f"POD{' ' * 29}NODE", f"{POD}  {NODE}"]),
    (["TIME", "VICTIMS", "WHY"], [["09:05", ["shop/a-1", "shop/b-2"], "because"]], 30,
     ["TIME   VICTIMS   WHY", "09:05  shop/a-1  because", "       shop/b-2"]),
    (["POD", "NOMINATED", "NOTES"], [["shop/a", "-", ""], ["shop/b", "-", ""]], 80,
     ["POD", "shop/a", "shop/b"]),
    (["TIME", "VICTIMS"], [["09:05", [width.Noted("shop/etl-1", "PDB violated")]]], 40,
     ["TIME   VICTIMS", "09:05  shop/etl-1 (PDB violated)"]),
    (["TIME", "VICTIMS"], [["09:05", ["shop/a-1", width.Noted("shop/etl-1", "PDB violated")]]], 24,
     ["TIME   VICTIMS", "09:05  shop/a-1", "       shop/etl-1", "         (PDB violated)"]),
    (["TIME", "VICTIMS", "WHY"], [["09:05", [width.Noted("shop/etl-1", "PDB violated")], "because"]], 32,
     ["TIME   VICTIMS           WHY", "09:05  shop/etl-1        because", "         (PDB violated)"]),
], ids=["a descriptive column is cut, the names are whole",
        "a descriptive column that does not fit even cut is left out",
        "names wider than the terminal leave the line wider",
        "a list of names goes one a line where the line has no room for it",
        "columns with nothing in them are not shown",
        "a name's note stays beside it where the line has room",
        "a name's note goes under it where the names one a line are still wider than the terminal",
        "a note under its name leaves room for a descriptive column"])
def test_the_layout_keeps_names_whole(header, rows, limit, expected) -> None:
    assert _lines(header, rows, limit) == expected


def test_wide_puts_a_list_one_item_a_line_and_the_first_column_is_a_name() -> None:
    with width.unlimited(wide=True):
        widths, table = width.layout(["STEP", "VICTIMS"], [["1 a long descriptive first cell", ["a/x", "b/y"]]])
    assert [cells for lines in table for cells in lines] == [["STEP", "VICTIMS"],
                                                             ["1 a long descriptive first cell", "a/x"],
                                                             ["", "b/y"]]
    assert width.identifying("whatever the title says", 0)
    assert width.identifying("PREEMPTOR CLASS", 1) and not width.identifying("CLASS", 1)


def test_wide_and_a_pipe_keep_a_name_and_its_note_on_one_line() -> None:
    rows = [["09:05", [width.Noted("shop/etl-1", "PDB violated")]]]
    with width.unlimited(wide=True):
        _, table = width.layout(["TIME", "VICTIMS"], rows)
    assert [cells for lines in table for cells in lines] == [["TIME", "VICTIMS"],
                                                             ["09:05", "shop/etl-1 (PDB violated)"]]
    assert _lines(["TIME", "VICTIMS"], rows, None) == ["TIME   VICTIMS", "09:05  shop/etl-1 (PDB violated)"]


def test_no_headers_keeps_one_line_a_row_and_every_column() -> None:
    from kubectl_preempt.render.output import no_headers_rows

    assert no_headers_rows([["a", ["x/1", "y/2"], "-"], ["b", ["z/3"], "-"]]) == "a  x/1, y/2  -\nb  z/3       -\n"
