"""kubectl preempt explain: bad input as one line and exit 2, the happy paths, and the examples of README
and docs/."""
from __future__ import annotations

import gzip
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from kubectl_preempt.render import LIST_KIND
from tests.builders import make_node, make_pdb, make_pod, make_priority_class
from tests.conftest import REPO, Run, run_cli
from tests.terminal import Tty

README = REPO / "README.md"
# the pages whose examples run: README and the manual under docs/
DOC_PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]


def cluster() -> list[dict]:
    return [
        make_priority_class("high", 1000),
        make_node("node-1").alloc(cpu="2", memory="4Gi").obj(),
        make_node("node-2").alloc(cpu="2", memory="4Gi").obj(),
        make_pdb("low", {"matchLabels": {"app": "low"}}, 1),
        make_pod("low-1").priority(1).label("app", "low").req(cpu="2").on("node-1").obj(),
        make_pod("low-2").priority(5).req(cpu="2").on("node-2").obj(),
        make_pod("urgent").priority(1000).req(cpu="1").obj(),
        make_pod("other").ns("team").priority(0).req(cpu="100m").obj(),
    ]


def as_list(objs: list[dict]) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}).encode()


@pytest.fixture
def snap(tmp_path: Path) -> Path:
    p = tmp_path / "snap.json"
    p.write_bytes(as_list(cluster()))
    return p


def assert_one_line_error(run: Run, *needles: str) -> None:
    assert run.code == 2, run
    assert run.out == "", run
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("error: "), run.err
    assert "Traceback" not in run.err
    for n in needles:
        assert n in lines[0], (n, lines[0])


# --- bad input: one line naming file and field, exit 2 -------------------------------------------

def _with_bad_node_cpu() -> bytes:
    objs = cluster()
    objs[1]["status"]["allocatable"]["cpu"] = "two"
    return as_list(objs)


def _with_bad_bound_pod_request() -> bytes:
    objs = cluster()
    objs[4]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "1Gb"
    return as_list(objs)


def _with_bad_pending_pod_request() -> bytes:
    objs = cluster()
    objs[6]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1 core"
    return as_list(objs)


def _truncated_gz() -> bytes:
    data = gzip.compress(as_list(cluster()))
    return data[: len(data) - 20]


BAD_SNAPSHOTS = [
    ("malformed JSON names line and column", b'{"kind": "List", "items": [}', ["line 1 column 28"]),
    ("malformed YAML names the line", b"kind: List\nitems:\n- kind: Node\n  metadata: {name: [a}\n", ["line 4", "malformed YAML"]),
    ("the wrong kind of document is named", b"just words\n", ["expected a List, a conformance case or Kubernetes objects"]),
    ("an item without kind names the item", as_list([{"metadata": {"name": "x"}}]), ["items[0].kind", "missing kind"]),
    ("an item that is not an object names the item", as_list([make_node("n").obj(), 7]), ["items[1]", "got a number"]),
    ("a bad quantity on a node names item, node and field", _with_bad_node_cpu(),
     ["items[1] (Node node-1).status.allocatable.cpu", '"two"']),
    ("a bad quantity in a bound pod names item, pod and field", _with_bad_bound_pod_request(),
     ["items[4] (Pod default/low-1).spec.containers[0].resources.requests.memory", '"1Gb"']),
    ("a bad quantity in the explained pod names item, pod and field", _with_bad_pending_pod_request(),
     ["items[6] (Pod default/urgent).spec.containers[0].resources.requests.cpu", '"1 core"']),
    ("a truncated gzip file says so", _truncated_gz(), ["truncated gzip data"]),
]


@pytest.mark.parametrize("data,needles", [(d, n) for _, d, n in BAD_SNAPSHOTS], ids=[i for i, _, _ in BAD_SNAPSHOTS])
def test_bad_snapshot_is_one_line_with_file_and_field_and_exit_2(tmp_path: Path, data: bytes, needles: list[str]) -> None:
    (tmp_path / "snap.json").write_bytes(data)
    run = run_cli(["explain", "default/urgent", "--snapshot", "snap.json"], cwd=tmp_path)
    assert_one_line_error(run, "snap.json: ", *needles)


def test_an_unknown_pod_is_named_with_the_file(snap: Path) -> None:
    run = run_cli(["explain", "default/ghost", "--snapshot", str(snap)])
    assert_one_line_error(run, f"{snap}: pod default/ghost not found")


def test_a_bare_name_is_looked_up_in_the_namespace_of_n(snap: Path) -> None:
    run = run_cli(["explain", "urgent", "-n", "team", "--snapshot", str(snap)])
    assert_one_line_error(run, "pod team/urgent not found")


def test_a_missing_snapshot_file_is_named(tmp_path: Path) -> None:
    run = run_cli(["explain", "a", "--snapshot", "nope.json"], cwd=tmp_path)
    assert_one_line_error(run, "nope.json: no such file")


def test_a_directory_is_not_a_snapshot(tmp_path: Path) -> None:
    run = run_cli(["explain", "a", "--snapshot", "."], cwd=tmp_path)
    assert_one_line_error(run, ".: is a directory")


@pytest.mark.parametrize("text,needles", [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", ["sched.yaml: kind: kind \"Pod\" is not KubeSchedulerConfiguration"]),
    ("kind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    filters: {}\n",
     ["sched.yaml: profiles[0].plugins.filters: unknown extension point"]),
    ("kind: [\n", ["sched.yaml: line 2", "malformed YAML"]),
], ids=["another kind", "an unknown extension point", "malformed YAML"])
def test_a_bad_scheduler_config_names_file_and_field(snap: Path, text: str, needles: list[str]) -> None:
    (snap.parent / "sched.yaml").write_text(text)
    run = run_cli(["explain", "default/urgent", "--snapshot", str(snap), "--config", "sched.yaml"], cwd=snap.parent)
    assert_one_line_error(run, *needles)


@pytest.mark.parametrize("manifest,needles", [
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {}},
     ["new.yaml: kind: kind Deployment cannot be explained: give a Pod manifest"]),
    (make_pod("new").req(cpu="1x").obj(), ["new.yaml: spec.containers[0].resources.requests.cpu", '"1x"']),
], ids=["a Deployment is refused by kind", "a bad quantity names the field"])
def test_bad_manifests_name_file_and_field(snap: Path, manifest: dict, needles: list[str]) -> None:
    (snap.parent / "new.yaml").write_text(yaml.safe_dump(manifest))
    run = run_cli(["explain", "-f", "new.yaml", "--snapshot", str(snap)], cwd=snap.parent)
    assert_one_line_error(run, *needles)


@pytest.mark.parametrize("args,needle", [
    (["explain", "default/urgent", "-n", "a", "-A"], "do not go together"),
    (["explain", "default/urgent", "--snapshot", "{snap}", "-o", "html"], '"html" is not one of table, wide, json, yaml'),
    (["explain", "default/urgent", "--snapshot", "{snap}", "--bogus"], "No such option: --bogus"),
    (["explain", "a/b/c", "--snapshot", "{snap}"], "neither namespace/name nor name"),
    (["explain", "x", "--snapshot", "{snap}", "--context", "prod"], "do not apply to --snapshot"),
    (["explain", "x", "--snapshot", "-", "-f", "-"], "cannot both read standard input"),
    (["frobnicate"], "No such command"),
], ids=["-n with -A", "an unknown output format", "an unknown option", "a malformed pod name",
        "a live-cluster flag with --snapshot", "stdin twice", "an unknown command"])
def test_usage_errors_are_one_line_and_exit_2(snap: Path, args: list[str], needle: str) -> None:
    run = run_cli([a.replace("{snap}", str(snap)) for a in args])
    assert_one_line_error(run, needle)


def test_real_stderr_of_the_installed_entry_point_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "snap.json").write_text('{"kind": "List", "items": [\n  {"kind": "Node",\n')
    proc = subprocess.run([sys.executable, "-m", "kubectl_preempt.cli.main", "explain", "default/x",
                           "--snapshot", "snap.json"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error: snap.json: line 3 column 1: ")
    assert "Traceback" not in proc.stderr


# --- happy paths -------------------------------------------------------------------------------

def test_json_output_is_the_explanation_document(snap: Path) -> None:
    run = run_cli(["explain", "default/urgent", "--snapshot", str(snap), "-o", "json"])
    assert run.code == 0, run
    doc = orjson.loads(run.out)
    assert doc["pod"] == "default/urgent"
    assert doc["outcome"] == "Preempted"
    # low-1 (priority 1) is the cheaper victim, but its PDB allows the disruption either way
    assert doc["nominatedNode"] == "node-1"
    assert doc["victims"] == ["default/low-1"]


def test_yaml_output_reads_back_as_the_json_document(snap: Path) -> None:
    as_json = orjson.loads(run_cli(["explain", "default/urgent", "--snapshot", str(snap), "-o", "json"]).out)
    as_yaml = yaml.safe_load(run_cli(["explain", "default/urgent", "--snapshot", str(snap), "-o", "yaml"]).out)
    assert as_yaml == as_json


def test_several_pods_make_an_explanation_list(snap: Path) -> None:
    run = run_cli(["explain", "-A", "--snapshot", str(snap), "-o", "json"])
    assert run.code == 0, run
    doc = orjson.loads(run.out)
    assert doc["kind"] == LIST_KIND
    assert [d["pod"] for d in doc["items"]] == ["default/urgent", "team/other"]


def test_n_without_pods_explains_the_pending_pods_of_that_namespace(snap: Path) -> None:
    run = run_cli(["explain", "-n", "team", "--snapshot", str(snap), "-o", "json"])
    assert orjson.loads(run.out)["pod"] == "team/other"


def test_a_namespace_without_pending_pods_says_so_on_stderr(snap: Path) -> None:
    run = run_cli(["explain", "-n", "empty", "--snapshot", str(snap), "-o", "json"])
    assert run.code == 0
    assert run.err == f"{snap}: no pending pods in namespace empty\n"
    assert orjson.loads(run.out) == {"apiVersion": "kubectl-preempt/v1", "kind": LIST_KIND, "items": []}


def test_a_bound_pod_is_explained_as_if_pending_and_says_so(snap: Path) -> None:
    run = run_cli(["explain", "default/low-2", "--snapshot", str(snap), "-o", "json"])
    assert run.code == 0, run
    assert "default/low-2 is bound to node-2: explained as if it were pending again" in run.err
    assert orjson.loads(run.out)["pod"] == "default/low-2"


def test_a_manifest_is_explained_as_if_created_now(snap: Path) -> None:
    pod = make_pod("newcomer").priority_class("high").req(cpu="1").obj()
    pod.pop("status")
    (snap.parent / "new.yaml").write_text(yaml.safe_dump(pod))
    run = run_cli(["explain", "-f", "new.yaml", "--snapshot", str(snap), "-o", "json"], cwd=snap.parent)
    assert run.code == 0, run
    doc = orjson.loads(run.out)
    assert doc["pod"] == "default/newcomer"
    assert doc["priority"] == 1000  # resolved from its PriorityClass, as admission would
    assert doc["outcome"] == "Preempted"


def test_stdin_snapshot_gives_the_same_answer_as_the_file(snap: Path) -> None:
    from_file = run_cli(["explain", "default/urgent", "--snapshot", str(snap)])
    from_stdin = run_cli(["explain", "default/urgent", "--snapshot", "-"], stdin=gzip.compress(snap.read_bytes()))
    assert from_stdin.code == 0, from_stdin
    assert from_stdin.out == from_file.out


def test_ignored_kinds_are_counted_on_stderr(tmp_path: Path) -> None:
    objs = cluster() + [{"kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(2)]
    (tmp_path / "s.json").write_bytes(as_list(objs))
    run = run_cli(["explain", "default/urgent", "--snapshot", "s.json"], cwd=tmp_path)
    assert run.code == 0, run
    assert run.err == ("s.json: ignored 2 objects of kind ConfigMap (2)\n"
                       "note: s.json names no Kubernetes release: deciding as kube-scheduler v1.36.2, the newest "
                       "imitated release (--kubernetes-version picks another)\n")


def test_the_table_answers_at_a_glance(snap: Path) -> None:
    run = run_cli(["explain", "default/urgent", "--snapshot", str(snap)])
    assert run.code == 0, run
    lines = run.out.splitlines()
    assert lines[0].startswith("Pod        default/urgent   priority 1000")
    assert lines[1] == "Outcome    PREEMPTS on node-1, evicting 1 pod"
    assert any(line.startswith("  default/low-1 ") for line in lines)
    assert "Scheduler message" in lines


def test_help_shows_examples_and_version_names_kubernetes() -> None:
    run = run_cli(["explain", "--help"])
    assert run.code == 0
    assert "Examples:" in run.out and "kubectl preempt explain" in run.out
    version = run_cli(["--version"])
    assert version.code == 0 and "v1.34.1" in version.out


# --- README and docs/: every example runs and prints what the page shows ------------------------

_BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def readme_examples(text: str) -> list[tuple[str, str]]:
    """(command, shown output) for each `$ kubectl preempt ...` line in a page's console blocks."""
    out: list[tuple[str, str]] = []
    for block in _BLOCK.findall(text):
        cmd, shown = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, "\n".join(shown)))
                cmd, shown = line[2:], []
            else:
                shown.append(line)
        if cmd is not None:
            out.append((cmd, "\n".join(shown)))
    return out


def run_readme_command(cmd: str, last_code: int) -> Run:
    if cmd == "echo $?":
        return Run(0, f"{last_code}\n", "")
    argv = shlex.split(cmd)
    assert argv[:2] == ["kubectl", "preempt"], f"example is not a kubectl preempt command: {cmd}"
    argv = argv[2:]
    stdin = b""
    if "<" in argv:
        i = argv.index("<")
        stdin = (REPO / argv[i + 1]).read_bytes()
        argv = argv[:i] + argv[i + 2:]
    return run_cli(argv, cwd=REPO, stdin=stdin)


def _matches(shown: str, got: str) -> bool:
    """The shown output equals the real one; a line "..." stands for any run of lines."""
    shown_lines, got_lines = shown.rstrip("\n").split("\n"), got.rstrip("\n").split("\n")
    if "..." not in shown_lines:
        return shown_lines == got_lines
    i = shown_lines.index("...")
    head, tail = shown_lines[:i], shown_lines[i + 1:]
    return got_lines[:len(head)] == head and (not tail or got_lines[-len(tail):] == tail)


def test_the_pages_have_console_examples_and_readme_shows_the_explain_table() -> None:
    assert len(DOC_PAGES) > 10, DOC_PAGES
    # the 32 examples of the one-page README the manual came from, and the README's two: the
    # explain table, then a gang's explanation
    assert sum(len(readme_examples(page.read_text())) for page in DOC_PAGES) >= 34
    [(cmd, shown), (gang_cmd, gang)] = readme_examples(README.read_text())
    assert cmd.startswith("kubectl preempt explain ") and "--snapshot examples/" in cmd
    assert "..." not in shown.split("\n") and "Victims on " in shown and "Scheduler message" in shown
    assert gang_cmd.startswith("kubectl preempt explain podgroup/") and "--snapshot examples/" in gang_cmd
    assert "..." not in gang.split("\n") and "Victims, by unit" in gang and "Members" in gang


@pytest.mark.parametrize("page", DOC_PAGES, ids=[p.relative_to(REPO).as_posix() for p in DOC_PAGES])
def test_every_example_prints_what_its_page_shows(page: Path, update_golden: bool) -> None:
    text = page.read_text()
    examples = readme_examples(text)
    last = 0
    failures = []
    updated = text
    for cmd, shown in examples:
        run = run_readme_command(cmd, last)
        last = run.code
        got = run.err + run.out  # as a terminal shows them: notes come before the output
        if not _matches(shown, got):
            failures.append(f"$ {cmd}\n--- {page.name} shows:\n{shown}\n--- it prints:\n{got}")
            if update_golden and "..." not in shown.split("\n"):
                updated = updated.replace(f"$ {cmd}\n{shown}", f"$ {cmd}\n{got.rstrip()}", 1)
    if update_golden and updated != text:
        page.write_text(updated)
        return
    assert not failures, "\n\n".join(failures)


def test_the_python_examples_of_the_pages_run(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    blocks = [(page, code) for page in DOC_PAGES for code in re.findall(r"```python\n(.*?)```", page.read_text(), re.S)]
    assert [page.name for page, _ in blocks] == ["explain.md", "session.md"]
    monkeypatch.chdir(REPO)
    for page, code in blocks:
        exec(compile(code, str(page.relative_to(REPO)), "exec"), {})
    assert capsys.readouterr().out == (
        "Preempted node-a ['batch/etl-1', 'batch/etl-2']\n"
        "['ml/train-0', 'ml/train-2', 'ml/train-3'] {'shop/api-0': 'node-a', 'shop/sweep-0': 'node-b'} 1.0\n")


def test_many_pods_on_a_terminal_get_a_progress_bar_on_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_preempt.cli import explain as explain_cli
    from kubectl_preempt.explain import request as explain_request

    pods = [make_pod(f"p{i}").req(cpu="1m").obj() for i in range(explain_cli.PROGRESS_MIN_PODS)]
    (tmp_path / "s.json").write_bytes(as_list([make_node("n").obj()] + pods))
    seen: list[int] = []

    def fake_explain_pods(objects, keys, config=None, *, seed=0, extra_pods=(), progress=None,  # noqa: ANN001
                          kubernetes_version=None):
        for k in keys:
            seen.append(1)
            progress(1)
        return [{"pod": k, "outcome": "Scheduled", "node": "n", "bestNodes": ["n"], "feasibleNodes": ["n"]}
                for k in keys]

    # explain's door (explain/door.py) explains through explain/request.py's explain_pods
    monkeypatch.setattr(explain_request, "explain_pods", fake_explain_pods)
    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    from kubectl_preempt.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["explain", "-A", "--snapshot", "s.json", "-o", "json"]) == 0
    assert len(seen) == explain_cli.PROGRESS_MIN_PODS
    assert "explaining" in tty.text


def test_a_pipe_gets_no_progress_bar(snap: Path) -> None:
    run = run_cli(["explain", "-A", "--snapshot", str(snap), "-o", "json", "--kubernetes-version", "v1.36"])
    assert run.err == ""  # the release named: no note either


def test_a_name_with_all_namespaces_is_refused_as_kubectl_refuses_it(tmp_path: Path) -> None:
    # kubectl get pods NAME -A: "a resource cannot be retrieved by name across all namespaces"
    (tmp_path / "s.json").write_bytes(as_list(cluster()))
    for arg in ("other", "team/other", "pod/other"):
        run = run_cli(["explain", arg, "-A", "--snapshot", "s.json"], cwd=tmp_path)
        assert_one_line_error(run, "a resource cannot be retrieved by name across all namespaces")
    found = run_cli(["explain", "other", "-n", "team", "--snapshot", "s.json", "-o", "json"], cwd=tmp_path)
    assert orjson.loads(found.out)["pod"] == "team/other"
