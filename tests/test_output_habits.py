"""kubectl's output habits on every command that prints a table (issue 28, point 4): -o name,
-o jsonpath=TEMPLATE, --no-headers, -o wide; explain -l/--selector; replay -n/-A, --since/--until."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import make_node, make_pod
from tests.conftest import GOLDEN_DIR, run_cli
from tests.test_cli_explain import as_list, assert_one_line_error

SNAP = str(GOLDEN_DIR / "preempt-table" / "snapshot.json")
TRACE = str(GOLDEN_DIR / "replay-simulate-table" / "trace.jsonl")
CHECK = ["check", "--trace", str(GOLDEN_DIR / "check-table" / "trace.jsonl"),
         "--proposed", str(GOLDEN_DIR / "check-table" / "proposed.yaml"), "--max-new-victims", "0"]
SESSION = ["session", "--snapshot", str(GOLDEN_DIR / "session-table" / "cluster.yaml"),
           "--scheduler-conf", str(GOLDEN_DIR / "session-table" / "kube-batch.conf")]


def _labelled(tmp_path: Path) -> Path:
    objs = [make_node("n").alloc(cpu="4").obj()]
    for name, labels in (("web-1", {"app": "web", "tier": "canary"}), ("web-2", {"app": "web"}),
                         ("db-0", {"app": "db"}), ("bare", {})):
        pod = make_pod(name).ns("shop").req(cpu="100m")
        for k, v in labels.items():
            pod = pod.label(k, v)
        objs.append(pod.obj())
    path = tmp_path / "s.json"
    path.write_bytes(as_list(objs))
    return path


# --- explain -------------------------------------------------------------------------------------------

def test_explain_no_headers_is_one_row_a_pod() -> None:
    run = run_cli(["explain", "shop/checkout", "--snapshot", SNAP, "--no-headers"])
    assert run.code == 0 and run.out == "shop/checkout  Preempted  node-a  2\n"


def test_explain_name_is_kubectls_pod_slash_name() -> None:
    run = run_cli(["explain", "-A", "--snapshot", SNAP, "-o", "name"])
    assert run.code == 0 and run.out == "pod/checkout\n"


def test_explain_jsonpath_reads_what_json_prints() -> None:
    doc = json.loads(run_cli(["explain", "shop/checkout", "--snapshot", SNAP, "-o", "json"]).out)
    run = run_cli(["explain", "shop/checkout", "--snapshot", SNAP, "-o",
                   'jsonpath={.nominatedNode}{"\\n"}{range .victims[*]}{@}{"\\n"}{end}'])
    assert run.code == 0
    assert run.out == doc["nominatedNode"] + "\n" + "".join(v + "\n" for v in doc["victims"])


@pytest.mark.parametrize("fmt,needle", [
    ("jsonpath", "template format specified but no template given"),
    ("jsonpath={.victims", "error parsing jsonpath {.victims, unclosed action"),
    ("jsonpath={.victims[7]}", "error executing jsonpath {.victims[7]}: array index out of bounds: index 7, length 2"),
    ("names", '"names" is not one of table, wide, json, yaml, name, jsonpath=TEMPLATE'),
])
def test_explain_bad_templates_are_one_line_exit_2(fmt: str, needle: str) -> None:
    assert_one_line_error(run_cli(["explain", "shop/checkout", "--snapshot", SNAP, "-o", fmt]), needle)


@pytest.mark.parametrize("selector,pods", [
    ("app=web", ["shop/web-1", "shop/web-2"]),
    ("app=web,tier!=canary", ["shop/web-2"]),
    ("app in (db, web),!tier", ["shop/web-2", "shop/db-0"]),
    ("app notin (web)", ["shop/db-0", "shop/bare"]),
    ("!app", ["shop/bare"]),
    ("tier", ["shop/web-1"]),
])
def test_explain_selector_picks_pending_pods_by_label(tmp_path: Path, selector: str, pods: list[str]) -> None:
    snap = _labelled(tmp_path)
    run = run_cli(["explain", "-n", "shop", "-l", selector, "--snapshot", str(snap), "--no-headers"])
    assert run.code == 0, run
    assert [line.split()[0] for line in run.out.splitlines()] == pods


def test_explain_selector_without_namespace_reads_default_and_with_A_every_namespace(tmp_path: Path) -> None:
    snap = _labelled(tmp_path)
    run = run_cli(["explain", "-l", "app=web", "--snapshot", str(snap), "-o", "name"])
    assert run.code == 0 and run.out == "" and "no pending pods matching app=web in namespace default" in run.err
    run = run_cli(["explain", "-A", "--selector", "app=web", "--snapshot", str(snap), "-o", "name"])
    assert run.out == "pod/web-1\npod/web-2\n"


@pytest.mark.parametrize("args,needle", [
    (["explain", "shop/web-1", "-l", "app=web"], "a selector (-l) cannot be used when naming pods"),
    (["explain", "-n", "shop", "-l", "app==="], "--selector: cannot read"),
    (["explain", "-n", "shop", "-l", "app in ()"], "--selector: no values for app in"),
])
def test_explain_selector_misuse_is_one_line_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    snap = _labelled(tmp_path)
    assert_one_line_error(run_cli(args + ["--snapshot", str(snap)]), needle)


# --- replay --------------------------------------------------------------------------------------------

def test_replay_name_no_headers_and_jsonpath() -> None:
    assert run_cli(["replay", TRACE, "-o", "name"]).out == "pod/checkout\n"
    rows = run_cli(["replay", TRACE, "--no-headers"]).out.splitlines()
    assert len(rows) == 1 and rows[0].split()[:4] == ["10:00:05", "shop/checkout", "1000", "(serving)"]
    assert run_cli(["replay", TRACE, "-o", "jsonpath={.summary.preemptions}"]).out == "1"


def test_replay_wide_is_the_table() -> None:
    assert run_cli(["replay", TRACE, "-o", "wide"]).out == run_cli(["replay", TRACE]).out


@pytest.mark.parametrize("args,count", [
    (["-n", "shop"], 1), (["-n", "batch"], 1), (["-n", "ml"], 0), (["-A"], 1),
    (["--since", "10:00:05"], None),  # not a time nor a duration: refused below
    (["--since", "5s"], 1), (["--since", "6s"], 0), (["--until", "4s"], 0), (["--until", "5s"], 1),
    (["--since", "2026-03-01T10:00:05Z", "--until", "2026-03-01T10:00:05Z"], 1),
    (["-n", "shop", "--since", "1m"], 0),
])
def test_replay_narrows_its_timeline(args: list[str], count: int | None) -> None:
    run = run_cli(["replay", TRACE, "-o", "json", *args])
    if count is None:
        assert_one_line_error(run, "--since", "neither an RFC 3339 time")
        return
    assert run.code == 0, run
    doc = json.loads(run.out)
    assert len(doc["preemptions"]) == count
    assert doc["summary"]["preemptions"] == 1  # the summary counts the whole cluster
    if args != ["-A"]:
        assert doc["shown"]["of"] == 1


def test_replay_narrowed_table_says_so() -> None:
    out = run_cli(["replay", TRACE, "-n", "ml"]).out
    assert "No preemptions touching namespace ml (1 in all)." in out
    out = run_cli(["replay", TRACE, "-n", "batch", "--since", "5s"]).out
    assert "Preemptions touching namespace batch from 10:00:05 (1 of 1)" in out


@pytest.mark.parametrize("args,needle", [
    (["-n", "a", "-A"], "do not go together"),
    (["--since", "1m", "--until", "30s"], "--until 30s is before --since 1m"),
])
def test_replay_flag_misuse(args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli(["replay", TRACE, *args]), needle)


# --- session and check ---------------------------------------------------------------------------------

def test_session_habits() -> None:
    full = json.loads(run_cli([*SESSION, "-o", "json"]).out)
    victims = [e["task"] for e in full["evictions"]]
    assert run_cli([*SESSION, "-o", "name"]).out == "".join(f"pod/{v.split('/')[1]}\n"
                                                            for v in dict.fromkeys(victims))
    rows = run_cli([*SESSION, "--no-headers"]).out.splitlines()
    assert [r.split()[1] for r in rows] == victims
    assert run_cli([*SESSION, "-o", "wide"]).out == run_cli(SESSION).out
    assert run_cli([*SESSION, "-o", "jsonpath={.evictions[0].action}"]).out == full["evictions"][0]["action"]


def test_check_habits() -> None:
    run = run_cli([*CHECK, "-o", "name"])
    assert run.code == 1  # the verdict's exit code stands, whatever the format
    assert run.out == "pod/checkout\npod/report-1\n"
    rows = run_cli([*CHECK, "--no-headers"]).out.splitlines()
    assert [r.split()[1] for r in rows] == ["shop/checkout", "batch/report-1"]
    assert rows[0].split()[0].endswith("trace.jsonl")
    assert run_cli([*CHECK, "-o", "jsonpath={.passed}"]).out == "false"


def test_replay_markdown_says_the_timeline_was_narrowed() -> None:
    assert "## Preemptions touching namespace batch (1 of 1)" in run_cli(["replay", TRACE, "-o", "markdown",
                                                                            "-n", "batch"]).out
    assert "## Preemptions (1)" in run_cli(["replay", TRACE, "-o", "markdown"]).out
