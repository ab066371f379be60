"""At 80 columns, on a real pseudo-terminal, every command's table keeps its names whole: no pod,
node, preemptor or victim the command names in -o json is cut in the table, on the bundled data
(examples/ and traces/). What gives way is descriptive (a reason, a class), and the last line
says so. As kubectl: it never cuts a NAME.

Each command runs as a user runs it (the console script), its standard output a terminal of 80
columns: nothing forces the width but the terminal itself."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from typing import Any, Iterator

import orjson
import pytest

from tests.conftest import REPO

KUBECTL_PREEMPT = os.path.join(os.path.dirname(sys.executable), "kubectl-preempt")
COLUMNS = 80

RUNS_OF_SESSIONS = ["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf",
                    "examples/kube-batch.conf", "--runs", "40"]
COMMANDS = [
    ("explain every pending pod", ["explain", "-A", "--snapshot", "examples/cluster.json"]),
    ("explain one pod", ["explain", "shop/checkout", "--snapshot", "examples/cluster.json"]),
    ("replay the demo", ["replay", "traces/demo.jsonl.gz"]),
    ("replay the demo, followed", ["replay", "traces/demo.jsonl.gz", "--follow"]),
    ("replay the gpu trace", ["replay", "traces/gpu-training-vs-inference.jsonl.gz"]),
    ("replay the rollout", ["replay", "traces/priorityclass-rollout.jsonl.gz"]),
    ("replay two schedulers", ["replay", "traces/two-schedulers.jsonl.gz", "--batch-scheduler-conf",
                               "traces/kube-batch.conf"]),
    ("check a proposal", ["check", "--trace", "traces/demo.jsonl.gz", "--proposed", "traces/proposals/reject/"]),
    ("a kube-batch session", ["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf",
                              "examples/kube-batch.conf"]),
    ("kube-batch sessions over many runs", RUNS_OF_SESSIONS),
    ("plan a rollout", ["plan", "-f", "examples/storefront-deployment.yaml", "--snapshot", "examples/cluster.json"]),
    ("history of a recording", ["history", "-A", "--trace", "traces/demo.jsonl.gz"]),
]

# the fields of each command's -o json that hold names (a pod's namespace/name, a node, a job...)
NAME_FIELDS = {"pod", "preemptor", "node", "nominatedNode", "victims", "victim", "task", "job", "nodes",
               "nominatedNodes", "bestNodes", "workload", "evicts"}


def on_a_terminal(args: list[str], columns: int = COLUMNS) -> str:
    """What the command prints on a pseudo-terminal `columns` wide (stdout only; stderr apart)."""
    if not hasattr(pty, "openpty"):
        pytest.skip("no pseudo-terminals here")
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "KUBECTL_PREEMPT_TERMINAL")}
    proc = subprocess.Popen([KUBECTL_PREEMPT, *args], cwd=REPO, stdout=child, stderr=subprocess.PIPE, env=env)
    os.close(child)
    out = bytearray()
    while True:
        ready, _, _ = select.select([main], [], [], 300)
        if not ready:
            proc.kill()
            pytest.fail(f"{args} printed nothing for 300 s")
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other end closed: the command ended
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.wait(timeout=60) in (0, 1), err
    return out.decode().replace("\r\n", "\n")


def names_in(doc: Any) -> Iterator[str]:
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in NAME_FIELDS:
                for x in (v if isinstance(v, list) else [v]):
                    if isinstance(x, str) and x:
                        yield x
            yield from names_in(v)
    elif isinstance(doc, list):
        for x in doc:
            yield from names_in(x)


def as_json(args: list[str]) -> Any:
    run = subprocess.run([KUBECTL_PREEMPT, *args, "-o", "json"], cwd=REPO, capture_output=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr.decode()
    return orjson.loads(run.stdout)


@pytest.mark.parametrize("args", [a for _, a in COMMANDS], ids=[n for n, _ in COMMANDS])
def test_names_are_whole_at_80_columns_on_a_terminal(args: list[str]) -> None:
    names = set(names_in(as_json(args)))
    assert names, "the command names nothing in -o json"
    table = on_a_terminal(args)
    assert "\x1b" not in table
    # a cell cut: its text from where the cell starts (a line's start, or two spaces) to the …
    cut = re.findall(r"(?:^|\s{2})(\S+)…", table, re.M)
    wrongly = sorted({c for c in cut for n in names if n.startswith(c) and n != c})
    assert not wrongly, f"names cut at {COLUMNS} columns: {wrongly}\n{table}"
    # a name the table shows is on one line, whole
    shown = [n for n in names if n in table]
    assert shown, table
    # and what gave way is said on the last line, when something did
    if cut:
        assert "(fitted to 80 columns:" in table


def test_sessions_over_many_runs_fit_80_columns_on_a_terminal() -> None:
    # its lists of tasks one a line, its prose wrapped: no line wider than the terminal
    table = on_a_terminal(RUNS_OF_SESSIONS)
    assert "ml/train-0" in table
    assert max(len(line) for line in table.splitlines()) <= COLUMNS, table
