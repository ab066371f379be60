"""kubectl preempt check through the command line: exit codes, inputs in every shape, outputs."""
from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.io.trace import write_trace
from tests.conftest import run_cli

from .scenarios import cache_trace, pc, preempt_trace


@pytest.fixture
def work(tmp_path: Path) -> Path:
    t = preempt_trace()
    write_trace(str(tmp_path / "prod.jsonl"), t["header"], t["events"])
    c = cache_trace()
    write_trace(str(tmp_path / "cache.jsonl.gz"), c["header"], c["events"])
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "serving.yaml").write_text(yaml.safe_dump(pc("serving", 50)))
    good = tmp_path / "good"
    good.mkdir()
    # a pull request's directory: a List, a stream, and kinds that are not classes
    (good / "classes.yaml").write_text(yaml.safe_dump_all([pc("serving", 1000), {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}]))
    (good / "more.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                "items": [pc("batch", 100), pc("spare", 7)]}))
    (good / "kustomization.yaml").write_text("resources:\n- classes.yaml\n")
    return tmp_path


def test_a_change_that_breaks_nothing_passes_with_exit_0(work: Path) -> None:
    run = run_cli(["check", "--trace", "prod.jsonl", "--proposed", "good/"], cwd=work)
    assert run.code == 0, run
    assert run.out.startswith("Check      PASS\n")
    assert "note: --proposed: skipped Deployment (1), objects without kind (1): only PriorityClasses are checked" in run.err
    assert "good/classes.yaml: document 1 (line 1)" in run.out and "good/more.json: items[1]" in run.out


def test_a_change_that_strands_a_pod_fails_with_exit_1(work: Path) -> None:
    run = run_cli(["check", "-t", "prod.jsonl", "-p", "bad/serving.yaml"], cwd=work)
    assert run.code == 1, run
    assert run.out.startswith("Check      FAIL (1 violation)\n")
    assert "shop/web no longer gets a node (was scheduled on n1)" in run.out


def test_policies_come_from_flags(work: Path) -> None:
    ok = run_cli(["check", "-t", "prod.jsonl", "-p", "bad/", "--fail-on", "new-victims"], cwd=work)
    assert ok.code == 0, ok
    strict = run_cli(["check", "-t", "prod.jsonl", "-p", "bad/", "--fail-on", "any-change"], cwd=work)
    assert strict.code == 1
    (work / "jobs.yaml").write_text(yaml.safe_dump(pc("jobs", 800)))
    for flags, code in ((["--protect-namespace", "shop"], 1), (["--protect-namespace", "batch"], 0),
                        (["--max-new-victims", "1"], 0), (["--max-new-victims", "0"], 1)):
        run = run_cli(["check", "-t", "cache.jsonl.gz", "-p", "jobs.yaml", *flags], cwd=work)
        assert run.code == code, (flags, run)


def test_junit_and_json_outputs(work: Path) -> None:
    run = run_cli(["check", "-t", "prod.jsonl", "-t", "cache.jsonl.gz", "-p", "bad/", "-o", "json",
                   "--junit", "out/../results.xml"], cwd=work)
    assert run.code == 2 and "results.xml" in run.err  # the folder does not exist: one line, exit 2
    run = run_cli(["check", "-t", "prod.jsonl", "-t", "cache.jsonl.gz", "-p", "bad/", "-o", "json",
                   "--junit", "results.xml"], cwd=work)
    assert run.code == 1
    report = json.loads(run.out)
    assert [t["trace"] for t in report["traces"]] == ["prod.jsonl", "cache.jsonl.gz"]
    root = ET.parse(work / "results.xml").getroot()
    assert [s.get("name") for s in root.findall("testsuite")] == ["validation", "prod.jsonl", "cache.jsonl.gz"]
    assert root.get("failures") == "1"


def test_markdown_goes_to_a_step_summary(work: Path) -> None:
    run = run_cli(["check", "-t", "prod.jsonl", "-p", "good", "-o", "markdown"], cwd=work)
    assert run.code == 0 and run.out.startswith("## ✅ PriorityClass check: PASS")


def test_a_directory_of_traces_and_a_baseline(work: Path) -> None:
    (work / "traces").mkdir()
    for name in ("prod.jsonl", "cache.jsonl.gz"):
        (work / "traces" / name).write_bytes((work / name).read_bytes())
    (work / "traces" / "README.md").write_text("not a trace")
    base = work / "base.yaml"
    base.write_text(yaml.safe_dump_all([pc("serving", 1000), pc("batch", 100), pc("gone", 1)]))
    run = run_cli(["check", "-t", "traces", "-b", "base.yaml", "-p", "good/", "-o", "json"], cwd=work)
    assert run.code == 0, run
    report = json.loads(run.out)
    assert [t["trace"] for t in report["traces"]] == ["traces/cache.jsonl.gz", "traces/prod.jsonl"]
    assert [f["priorityClass"] for f in report["validation"]["findings"] if f["rule"] == "removed"] == ["gone"]


@pytest.mark.parametrize("args, message", [
    (["check", "-p", "good/"], "error: --trace: give at least one --trace"),
    (["check", "-t", "prod.jsonl"], "error: --proposed: give the proposed PriorityClasses with --proposed"),
    (["check", "-t", "nope.jsonl", "-p", "good/"], "error: nope.jsonl: no such file or directory"),
    (["check", "-t", "prod.jsonl", "-p", "missing/"], "error: missing/: no such file or directory"),
    (["check", "-t", "prod.jsonl", "-p", "good/", "--fail-on", "victims"],
     "error: --fail-on: \"victims\" is not one of new-victims, unschedulable, any-change"),
    (["check", "-t", "prod.jsonl", "-p", "good/", "-o", "html"], '"html" is not one of table, wide, markdown, json, yaml, name, jsonpath=TEMPLATE'),
    (["check", "-t", "prod.jsonl", "-p", "empty.yaml"], "error: --proposed: no PriorityClass in empty.yaml (only ConfigMap (1))"),
    (["check", "-t", "broken.jsonl", "-p", "good/"], "error: broken.jsonl: line 2:"),
    # a failed `kubectl get priorityclasses -o yaml > before.yaml`: no baseline, not an empty one
    (["check", "-t", "prod.jsonl", "-p", "good/", "-b", "empty.yaml"],
     "error: --baseline: no PriorityClass in empty.yaml (only ConfigMap (1))"),
    (["check", "-t", "prod.jsonl", "-p", "good/", "-b", "nothing.yaml"], "error: --baseline: no PriorityClass in nothing.yaml"),
], ids=["no trace", "no proposal", "a missing trace", "a missing proposal", "an unknown rule",
        "an unknown output format", "a proposal without classes", "a broken trace names the line",
        "a baseline without classes", "an empty baseline"])
def test_bad_input_is_one_line_and_exit_2(work: Path, args: list[str], message: str) -> None:
    (work / "empty.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap",
                                                     "metadata": {"name": "x"}}))
    (work / "broken.jsonl").write_text((work / "prod.jsonl").read_text().split("\n")[0] + "\n{not json\n")
    (work / "nothing.yaml").write_text("")
    run = run_cli(args, cwd=work)
    assert run.code == 2, run
    lines = run.err.strip().splitlines()
    # a missing input: the error, then the command's usage line (as kubectl prints it)
    missing_input = len(args) == 3
    assert message in lines[0] and len(lines) == (2 if missing_input else 1) and "Traceback" not in run.err
    if missing_input:
        assert lines[1] == "Usage: kubectl preempt check --trace TRACE --proposed PATH [OPTIONS]"


def test_help_names_the_policies_and_exit_codes() -> None:
    run = run_cli(["check", "--help"])
    assert run.code == 0
    for word in ("--fail-on", "--protect-namespace", "--max-new-victims", "--junit", "Exit codes", "Examples:"):
        assert word in run.out


def test_gzip_traces_are_read(work: Path) -> None:
    assert gzip.decompress((work / "cache.jsonl.gz").read_bytes()).startswith(b"{")


def test_a_scheduler_configuration_is_used_by_both_replays(work: Path) -> None:
    (work / "no-preemption.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}}]}))
    # without preemption, web is pending in both replays: lowering its class changes nothing
    run = run_cli(["check", "-t", "prod.jsonl", "-p", "bad/", "--config", "no-preemption.yaml", "-o", "json"],
                  cwd=work)
    assert run.code == 0, run
    assert json.loads(run.out)["traces"][0]["baseline"]["preemptions"] == 0
    (work / "broken-config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    bad = run_cli(["check", "-t", "prod.jsonl", "-p", "bad/", "--config", "broken-config.yaml"], cwd=work)
    assert bad.code == 2 and bad.err.startswith("error: broken-config.yaml")


def test_every_help_example_runs(tmp_path: Path) -> None:
    """The examples under `check --help`, with the files they name made from the small traces."""
    import shlex

    from kubectl_preempt.cli import check as check_cli

    t = preempt_trace()
    write_trace(str(tmp_path / "prod.jsonl.gz"), t["header"], t["events"])
    (tmp_path / "traces").mkdir()
    write_trace(str(tmp_path / "traces" / "prod.jsonl.gz"), t["header"], t["events"])
    for d in ("priorityclasses", "main/priorityclasses", "pc"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "classes.yaml").write_text(yaml.safe_dump_all([pc("serving", 1000), pc("batch", 100)]))
    (tmp_path / "pc.yaml").write_text(yaml.safe_dump(pc("serving", 50)))
    examples = [line.strip() for line in check_cli.EPILOG.splitlines() if line.strip().startswith("kubectl preempt")]
    assert len(examples) >= 4
    for cmd in examples:
        args = shlex.split(cmd.split(" >>")[0])[2:]
        run = run_cli(args, cwd=tmp_path)
        assert run.code in (0, 1), (cmd, run)
        assert run.out.startswith(("Check ", "## "))
    assert (tmp_path / "check.xml").exists()
