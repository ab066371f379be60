"""docs/check.md's GitHub Actions workflow and pre-commit hook for `check`: they parse, and the command
each runs works, with the bundled traces and proposals standing in for a repository's own."""
from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, run_cli

PAGE = REPO / "docs" / "check.md"

# what a user's repository holds -> what this one holds instead
STAND_INS = {"traces/": "traces/", "priorityclasses/": "traces/proposals/accept/"}


def yaml_blocks() -> list[dict[str, Any]]:
    blocks = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(), re.S)
    return [yaml.safe_load(b) for b in blocks if "kubectl-preempt check" in b]


def workflow() -> dict[str, Any]:
    [wf] = [b for b in yaml_blocks() if "jobs" in b]
    return wf


def pre_commit() -> dict[str, Any]:
    [pc] = [b for b in yaml_blocks() if "repos" in b]
    return pc


def check_args(command: str, proposals: str) -> list[str]:
    """The arguments of the `kubectl-preempt check` in a shell command, up to its redirections,
    with this repository's traces and proposals in place of the user's."""
    words = shlex.split(command.replace("\\\n", " "))
    start = words.index("kubectl-preempt")
    args = []
    for w in words[start + 1:]:
        if w in (">", ">>", "||", "&&", "|") or w.startswith(">"):
            break
        args.append(proposals if w == "priorityclasses/" else STAND_INS.get(w, w))
    return args


def test_the_workflow_runs_on_pull_requests_that_touch_the_classes() -> None:
    wf = workflow()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "priorityclasses/**" in on["pull_request"]["paths"]
    assert wf["permissions"]["pull-requests"] == "write"
    steps = wf["jobs"]["check"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    assert any("pip install" in r for r in runs)
    assert any("GITHUB_STEP_SUMMARY" in r and "exit $status" in r for r in runs)
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)


@pytest.mark.parametrize("proposals, code", [("traces/proposals/accept/", 0), ("traces/proposals/reject/", 1)],
                         ids=["the accepted change passes the job", "the rejected change fails the job"])
def test_the_workflows_check_step_works(tmp_path: Path, proposals: str, code: int) -> None:
    [script] = [s["run"] for s in workflow()["jobs"]["check"]["steps"] if "kubectl-preempt check" in s.get("run", "")]
    args = check_args(script, proposals)
    assert "--junit" in args and args[args.index("-o") + 1] == "markdown"
    junit = tmp_path / "priorityclass-check.xml"
    args[args.index("--junit") + 1] = str(junit)
    run = run_cli(args, cwd=REPO)
    assert run.code == code, run
    assert run.out.startswith("## ")
    assert ET.parse(junit).getroot().tag == "testsuites"


def test_the_pre_commit_hook_is_local_and_runs_once_per_commit() -> None:
    [repo] = pre_commit()["repos"]
    [hook] = repo["hooks"]
    assert repo["repo"] == "local" and hook["language"] == "system" and hook["pass_filenames"] is False
    assert re.search(hook["files"], "priorityclasses/batch.yaml")
    assert not re.search(hook["files"], "deploy/app.yaml")


@pytest.mark.parametrize("proposals, code", [("traces/proposals/accept/", 0), ("traces/proposals/reject/", 1)],
                         ids=["the accepted change commits", "the rejected change stops the commit"])
def test_the_pre_commit_hooks_command_works(proposals: str, code: int) -> None:
    [hook] = pre_commit()["repos"][0]["hooks"]
    run = run_cli(check_args(hook["entry"], proposals), cwd=REPO)
    assert run.code == code, run
