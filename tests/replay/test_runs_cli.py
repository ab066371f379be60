"""replay and check with --runs from the command line: the distribution in every format, the same
JSON whatever --jobs, usage errors as one line and exit 2."""
from __future__ import annotations

import json

from tests.conftest import REPO, run_cli

ROLLOUT = str(REPO / "traces" / "priorityclass-rollout.jsonl.gz")
PROPOSED = str(REPO / "traces" / "proposed-platform-critical.yaml")


def test_replay_runs_in_json_table_and_markdown() -> None:
    one = run_cli(["replay", ROLLOUT, "--runs", "3", "--jobs", "1", "-o", "json"])
    two = run_cli(["replay", ROLLOUT, "--runs", "3", "--jobs", "2", "-o", "json"])
    assert one.code == 0 and one.out == two.out
    report = json.loads(one.out)
    assert report["distribution"]["runs"] == 3 and report["run"]["of"] == 3
    table = run_cli(["replay", ROLLOUT, "--runs", "3", "--jobs", "1"])
    assert table.code == 0
    assert "OVER 3 RUNS" in table.out and "VICTIMS BY WORKLOAD" in table.out
    assert f"Run {report['run']['run']} (median preemptions)" in table.out
    md = run_cli(["replay", ROLLOUT, "--runs", "3", "--jobs", "1", "-o", "markdown"])
    assert "## Distribution over 3 runs" in md.out


def test_runs_with_follow_or_dump_decisions_is_a_usage_error(tmp_path) -> None:
    for extra in (["--follow"], ["--dump-decisions", str(tmp_path)]):
        r = run_cli(["replay", ROLLOUT, "--runs", "2", *extra])
        assert r.code == 2 and r.out == "" and r.err.count("\n") == 1
    r = run_cli(["replay", ROLLOUT, "--runs", "0"])
    assert r.code == 2


def test_check_runs_reports_paired_distributions_and_keeps_the_exit_codes() -> None:
    r = run_cli(["check", "-t", ROLLOUT, "-p", PROPOSED, "--runs", "3", "--jobs", "1", "-o", "json"])
    assert r.code == 1  # the proposal strands pods in every pair
    report = json.loads(r.out)
    [t] = report["traces"]
    assert t["distribution"]["runs"] == 3
    assert set(t["distribution"]) >= {"newVictims", "victimsDifference", "changeProbability", "baseline", "proposed"}
    [rule] = [x for x in report["rules"] if x["rule"] == "unschedulable"]
    assert not rule["passed"] and "per paired run" in rule["summary"]
    ok = run_cli(["check", "-t", ROLLOUT, "-p", PROPOSED, "--runs", "3", "--jobs", "1", "--max-new-victims", "5"])
    assert ok.code == 0 and "over 3 paired runs" in ok.out


def test_no_more_processes_than_cores_whatever_jobs_asks(monkeypatch) -> None:
    # `-j 100000` forked a process per run, each with its own copy of the replay, until the
    # machine ran out of memory; more processes than cores only share the cores
    from kubectl_preempt.replay import runs, workers

    asked: list[int] = []

    def fan(task, spec, n, jobs, window):
        asked.append(jobs)
        return (b"{}" for _ in range(n))

    monkeypatch.setattr(runs, "usable_cores", lambda: 3)
    monkeypatch.setattr(workers, "run_locally", fan)
    assert len(list(runs.fan_out(None, None, 7, jobs=100_000))) == 7
    assert len(list(runs.fan_out(None, None, 7, jobs=2))) == 7
    assert len(list(runs.fan_out(None, None, 7))) == 7
    assert asked == [3, 2, 3]
