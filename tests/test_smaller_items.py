"""Issue 12's smaller items: `replay -o yaml`, kubectl-style help, the check page naming the rules
that failed, check's markdown quoting of class names."""
from __future__ import annotations

import json
import re

import pytest
import yaml

from kubectl_preempt.check.page import page_verdict
from kubectl_preempt.cli.main import app
from tests.conftest import REPO, run_cli

DEMO = str(REPO / "traces" / "demo.jsonl.gz")
COMMANDS = ["demo", "explain", "capture", "record", "replay", "check", "session", "history", "plan", "completion",
            "version"]


def test_replay_yaml_is_the_json_report_key_for_key() -> None:
    as_json = run_cli(["replay", DEMO, "-o", "json"])
    as_yaml = run_cli(["replay", DEMO, "-o", "yaml"])
    assert as_json.code == as_yaml.code == 0, as_yaml.err
    assert yaml.safe_load(as_yaml.out) == json.loads(as_json.out)
    assert not as_yaml.out.lstrip().startswith("{")  # block style, not JSON


@pytest.mark.parametrize("command", COMMANDS)
def test_help_reads_as_kubectl_s_with_examples_and_no_python_types(command: str) -> None:
    run = run_cli([command, "--help"])
    assert run.code == 0
    assert run.out.startswith(f"Usage: kubectl preempt {command} ")
    assert "kubectl-preempt " not in run.out
    assert not re.search(r"<(list|str|int|float|bool|path)\b[^>]*>", run.out), run.out
    assert "Examples:" in run.out and f"kubectl preempt {command}" in run.out.split("Examples:")[1]


def test_the_commands_tested_are_every_command() -> None:
    assert sorted(c.name or c.callback.__name__ for c in app.registered_commands) == sorted(COMMANDS)


def test_a_usage_error_names_the_command_as_a_user_types_it() -> None:
    run = run_cli(["explain", "--bogus"])
    assert run.code == 2
    assert run.err.strip() == "error: kubectl preempt explain: No such option: --bogus " \
                              "(see kubectl preempt explain --help)"


def test_the_check_page_names_the_rules_that_failed() -> None:
    report = {"passed": False, "rules": [
        {"rule": "validation", "passed": True},
        {"rule": "new-victims", "trace": "prod.jsonl", "passed": False},
        {"rule": "protected-namespaces", "trace": "prod.jsonl", "passed": False},
        {"rule": "new-victims", "trace": "other.jsonl", "passed": True}]}
    assert page_verdict(report) == "fails rules new-victims (prod.jsonl), protected-namespaces (prod.jsonl)"
    assert page_verdict({"passed": True, "rules": []}) == "passes"


def test_the_check_html_of_a_failing_change_says_which_rule() -> None:
    run = run_cli(["check", "--trace", "traces/", "--proposed", "traces/proposals/reject/", "--protect-namespace",
                   "shop", "--fail-on", "new-victims", "--html", "-"], cwd=REPO)
    assert run.code == 1, run.err
    assert re.search(r"PriorityClass change fails rules? [a-z-]+", run.out), run.out[:2000]
    assert "validation" in re.search(r"PriorityClass change fails[^<\"]*", run.out).group(0)


def test_check_markdown_quotes_a_hostile_class_name_as_code(tmp_path) -> None:
    evil = "evil-<img src=x onerror=alert(1)>-**bold**"
    proposed = tmp_path / "p.yaml"
    proposed.write_text(yaml.safe_dump({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                        "metadata": {"name": evil}, "value": 100}))
    run = run_cli(["check", "--trace", DEMO, "--proposed", str(proposed), "-o", "markdown"])
    assert run.code in (0, 1), run.err
    assert evil in run.out  # named, in code spans, and
    outside_code = re.sub(r"(`+) .*? \1|`[^`]*`", "", run.out)
    assert "<img" not in outside_code and "**bold**" not in outside_code and "](" not in outside_code
    assert "&lt;img" in outside_code  # the violation names it, escaped
