"""Shared test setup, and the golden-file collector for tests/golden/<scenario>/.

A scenario folder holds its inputs, a `cmd` file with the arguments of one kubectl-preempt run
(relative paths are taken from the folder) and `expected.txt`: the exit code, stdout and stderr.
`pytest --update-golden` rewrites expected.txt after a deliberate change; review the diff.
`tests/golden/make_scenarios.py` writes the inputs from tests/builders.py.
"""
from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REPO = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*/expected.txt from the current output")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


class Run:
    """What one kubectl-preempt invocation did."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:
        return f"Run(code={self.code}, out={self.out[:200]!r}, err={self.err!r})"


def assert_one_error(run: Run, *parts: str) -> None:
    """Bad input's contract: exit 2, one line on stderr holding each of `parts`, no traceback."""
    assert run.code == 2, run.err
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.err, run.err
    for p in parts:
        assert p in lines[0], lines[0]


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(args: list[str], *, cwd: Path | None = None, stdin: bytes = b"") -> Run:
    """kubectl-preempt in this process, through the console script's own entry point."""
    from kubectl_preempt.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    old_stdin = sys.stdin
    sys.stdin = fake_stdin
    try:
        with _cwd(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        sys.stdin = old_stdin
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    return run_cli


# --- golden files --------------------------------------------------------------------------------

def format_golden(run: Run) -> str:
    text = f"exit: {run.code}\n--- stdout\n{run.out}"
    if not text.endswith("\n"):
        text += "\n"
    text += f"--- stderr\n{run.err}"
    if not text.endswith("\n"):
        text += "\n"
    return text


def run_scenario(folder: Path) -> Run:
    args = shlex.split((folder / "cmd").read_text())
    stdin_file = folder / "stdin"
    stdin = stdin_file.read_bytes() if stdin_file.exists() else b""
    # an `env` file (KEY=VALUE lines) sets variables for the run: KUBECTL_PREEMPT_TERMINAL=1 and
    # COLUMNS=80 make standard output a terminal that wide (render/width.py)
    env_file = folder / "env"
    env = dict(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line) \
        if env_file.exists() else {}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return run_cli(args, cwd=folder, stdin=stdin)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class GoldenItem(pytest.Item):
    def __init__(self, *, folder: Path, **kwargs) -> None:
        super().__init__(**kwargs)
        self.folder = folder

    def runtest(self) -> None:
        got = format_golden(run_scenario(self.folder))
        expected_file = self.folder / "expected.txt"
        if self.config.getoption("--update-golden"):
            expected_file.write_text(got)
            return
        if not expected_file.exists():
            raise GoldenMismatch(f"{expected_file} is missing: run pytest --update-golden", got, "")
        expected = expected_file.read_text()
        if got != expected:
            raise GoldenMismatch(f"output of {self.folder.name} differs from expected.txt", got, expected)

    def repr_failure(self, excinfo, style=None):  # noqa: ANN001
        if isinstance(excinfo.value, GoldenMismatch):
            import difflib

            e = excinfo.value
            diff = "".join(difflib.unified_diff(e.expected.splitlines(True), e.got.splitlines(True),
                                                "expected.txt", "got"))
            return f"{e.args[0]}\n{diff}\n(pytest --update-golden rewrites it after a deliberate change)"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):  # noqa: ANN201
        return self.folder, None, f"golden: {self.folder.name}"


class GoldenMismatch(AssertionError):
    def __init__(self, message: str, got: str, expected: str) -> None:
        super().__init__(message)
        self.got, self.expected = got, expected


class GoldenFile(pytest.File):
    def collect(self):  # noqa: ANN201
        folder = self.path.parent
        yield GoldenItem.from_parent(self, name=folder.name, folder=folder)


def pytest_collect_file(parent: pytest.Collector, file_path: Path):  # noqa: ANN201
    if file_path.name == "cmd" and file_path.parent.parent == GOLDEN_DIR:
        return GoldenFile.from_parent(parent, path=file_path)
    return None


# The suite runs thousands of replays and explanations in one process whose heap (corpus, traces,
# goldens) only grows; most call the layers below api.py, which apply no garbage-collector policy
# of their own (model/bulk.py: the API layer applies it, once). Run the whole session under the
# same policy the API layer gives a long request, so each full collection does not walk the
# session's heap again; tests/model/test_gc_policy.py saves and restores the collector itself.
def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("KP_TEST_DEFAULT_GC") != "1":
        import gc
        from kubectl_preempt.model.bulk import YOUNG_THRESHOLD
        gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def in_process_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """The command line run in this process, for the fixtures that set its environment first:
    each call returns (exit code, stdout, stderr)."""
    from kubectl_preempt.cli.main import main

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
