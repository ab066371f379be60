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
    assert run.code == 0 and run.out == "shop/checkout  Preempts  node-a  2\n"


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
    # the release named, so that no note on it comes before the error
    assert_one_line_error(run_cli(["explain", "shop/checkout", "--snapshot", SNAP, "--kubernetes-version", "v1.36",
                                   "-o", fmt]), needle)


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
    # labels.NewRequirement's key and value rules (apimachinery content.IsLabelKey, IsLabelValue):
    # these selected nothing, where kubectl refuses them
    (["explain", "-n", "shop", "-l", "a" * 64 + "=web"], "name part must be no more than 63 bytes"),
    (["explain", "-n", "shop", "-l", "Example.com/app=web"], 'invalid label key "Example.com/app": prefix part a '
                                                             "lowercase RFC 1123 subdomain"),
    (["explain", "-n", "shop", "-l", "app in (web,-x)"], 'invalid label value "-x": a valid label must be an empty '
                                                         "string or consist of alphanumeric characters"),
    (["explain", "-n", "shop", "-l", "app=" + "v" * 64], "must be no more than 63 bytes"),
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


# --- plan, plan --max and history (issue 25's commands adopt issue 28's habits) --------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PLAN = ["plan", "-f", str(EXAMPLES / "storefront-deployment.yaml"), "--snapshot", str(EXAMPLES / "cluster.json")]
PLAN_MAX = ["plan", "--max", "-f", str(EXAMPLES / "api-pod.yaml"), "--snapshot", str(EXAMPLES / "cluster.json")]
# the records of this snapshot were written by a v1.34 scheduler (as the history goldens say):
# naming it keeps stderr empty and the notes v1.34's
HISTORY = ["history", "-A", "--snapshot", str(GOLDEN_DIR / "history-table" / "snapshot.json"),
           "--kubernetes-version", "v1.34"]


def test_plan_name_lists_the_new_pods_as_kubectl_names_them() -> None:
    doc = json.loads(run_cli([*PLAN, "-o", "json"]).out)
    pods = [p["pod"] for p in doc["workloads"][0]["pods"]]
    assert len(pods) == 3 and all(p.startswith("shop/storefront-557bf87458-") for p in pods)
    run = run_cli([*PLAN, "-o", "name"])
    assert run.code == 0 and run.out == "".join(f"pod/{p.split('/')[1]}\n" for p in pods)


def test_plan_no_headers_is_one_row_a_new_pod_with_its_node() -> None:
    doc = json.loads(run_cli([*PLAN, "-o", "json"]).out)
    rows = [r.split() for r in run_cli([*PLAN, "--no-headers"]).out.splitlines()]
    assert [r[:3] for r in rows] == [[p["pod"], "Placed", p["node"]] for p in doc["workloads"][0]["pods"]]
    assert run_cli([*PLAN, "--no-headers", "-o", "wide"]).out == run_cli([*PLAN, "--no-headers"]).out


def test_plan_jsonpath_reads_what_json_prints() -> None:
    run = run_cli([*PLAN, "-o", 'jsonpath={range .preemptions[*]}{.node}{"\\n"}{end}'])
    assert run.code == 0 and run.out == "node-a\nnode-b\nnode-b\nnode-c\n"
    assert run_cli([*PLAN, "-o", "jsonpath={.victims.total}"]).out == "5"
    # the HTML page's activity is not in -o json, so not in a template either
    assert run_cli([*PLAN, "-o", "jsonpath={.activity}"]).out == ""
    assert_one_line_error(run_cli([*PLAN, "-o", "jsonpath={.workloads[3]}"]),
                          "error executing jsonpath {.workloads[3]}: array index out of bounds")


def test_plan_name_leaves_out_the_stateful_set_pods_never_created(tmp_path: Path) -> None:
    # OrderedReady: db-1 does not fit, so db-2 is never created (StatefulSet controller's
    # monotonic creation); the pending db-1 is listed, db-2 is not
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]}}}}
    snap, manifest = tmp_path / "s.json", tmp_path / "sts.json"
    snap.write_bytes(as_list([make_node("n-0").alloc(cpu="4", memory="8Gi").obj()]))
    manifest.write_text(json.dumps(sts))
    args = ["plan", "-f", str(manifest), "--snapshot", str(snap)]
    statuses = [p["status"] for p in json.loads(run_cli([*args, "-o", "json"]).out)["workloads"][0]["pods"]]
    assert statuses == ["Placed", "Pending", "NotCreated"]
    assert run_cli([*args, "-o", "name"]).out == "pod/db-0\npod/db-1\n"
    rows = [r.split()[:3] for r in run_cli([*args, "--no-headers"]).out.splitlines()]
    assert rows == [["shop/db-0", "Placed", "n-0"], ["shop/db-1", "Pending", "-"]]


def test_plan_max_habits_list_the_copies() -> None:
    doc = json.loads(run_cli([*PLAN_MAX, "-o", "json"]).out)
    copies = [c["pod"] for c in doc["copies"]]
    assert copies[0] == "shop/api-1" and len(copies) == doc["copiesTried"] == 9
    assert run_cli([*PLAN_MAX, "-o", "name"]).out == "".join(f"pod/{c.split('/')[1]}\n" for c in copies)
    rows = [r.split() for r in run_cli([*PLAN_MAX, "--no-headers"]).out.splitlines()]
    assert [r[0] for r in rows] == copies
    assert rows[-1][2:] == ["Unschedulable", "-"]  # the copy where it stops: never placed
    assert run_cli([*PLAN_MAX, "-o", "jsonpath={.withoutPreemption.count} {.withPreemption.count}"]).out == "1 8"


@pytest.mark.parametrize("args", [PLAN, PLAN_MAX, HISTORY], ids=["plan", "plan-max", "history"])
@pytest.mark.parametrize("columns", [80, 60])
def test_plan_and_history_tables_fit_the_terminal(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                  columns: int) -> None:
    monkeypatch.setenv("KUBECTL_PREEMPT_TERMINAL", "1")
    monkeypatch.setenv("COLUMNS", str(columns))
    out = run_cli(args).out
    # wider than the terminal only where the names alone are: nothing cut on such a line
    assert out and all(len(line) <= columns or "…" not in line for line in out.splitlines()), out
    # -o wide and --no-headers are never cut, on a terminal as in a pipe
    wide = run_cli([*args, "-o", "wide"]).out
    assert "…" not in wide and max(len(line) for line in wide.splitlines()) > columns
    assert "…" not in run_cli([*args, "--no-headers"]).out


@pytest.mark.parametrize("args", [PLAN, PLAN_MAX, HISTORY], ids=["plan", "plan-max", "history"])
def test_plan_and_history_in_a_pipe_are_never_cut(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.setenv("KUBECTL_PREEMPT_TERMINAL", "0")
    monkeypatch.setenv("COLUMNS", "40")
    out = run_cli(args).out
    assert "…" not in out and "cut to" not in out
    assert max(len(line) for line in out.splitlines()) > 80


def test_history_on_a_narrow_terminal_drops_the_one_date_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECTL_PREEMPT_TERMINAL", "1")
    monkeypatch.setenv("COLUMNS", "80")
    lines = run_cli(HISTORY).out.splitlines()
    assert [line.split()[0] for line in lines[1:5]] == ["10:12:04.500", "10:20:41", "10:29:20.218", "10:29:50"]
    assert "TIME (the date, 2026-03-01, UTC)" in " ".join(lines[5:])
    # wide enough for the whole table: nothing dropped, nothing said
    monkeypatch.setenv("COLUMNS", "400")
    out = run_cli(HISTORY).out
    assert "2026-03-01T10:12:04.500Z" in out and "cut to" not in out


def test_history_habits_list_the_victims() -> None:
    doc = json.loads(run_cli([*HISTORY, "-o", "json"]).out)
    victims = [r["victim"] for r in doc["items"]]
    assert victims == ["batch/report-weekly-5f7c9d8b4-zzq8l", "batch/cache-warmer-0",
                       "batch/etl-nightly-29015400-kq7vd", "batch/ledger-0"]
    assert run_cli([*HISTORY, "-o", "name"]).out == "".join(f"pod/{v.split('/')[1]}\n" for v in victims)
    rows = [r.split() for r in run_cli([*HISTORY, "--no-headers"]).out.splitlines()]
    assert [r[1] for r in rows] == victims and rows[0][0] == "2026-03-01T10:12:04.500Z"
    run = run_cli([*HISTORY, "-o", 'jsonpath={range .items[?(@.found=="both")]}{.preemptor}{"\\n"}{end}'])
    assert run.code == 0 and run.out == "shop/checkout-7d9f8c6b5-x2k4q\n"
    assert run.err == ""  # a snapshot read by history is not "replayed"


def test_history_name_with_nothing_found_says_so_on_stderr() -> None:
    run = run_cli([*HISTORY[:1], "-n", "ml", *HISTORY[2:], "-o", "name"])
    assert run.code == 0 and run.out == ""
    assert 'No preemptions found in namespace "ml"' in run.err
