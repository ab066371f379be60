"""Completion: cobra's `__complete` answers (what kubectl reads from kubectl_complete-preempt),
and the bash script driven as bash drives it (COMP_WORDS, COMP_CWORD), against the installed
console scripts."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from kubectl_preempt.cli import completion
from kubectl_preempt.cli.completion import (DIRECTIVE_DEFAULT, DIRECTIVE_ERROR, DIRECTIVE_FILTER_DIRS,
                                            DIRECTIVE_KEEP_ORDER, DIRECTIVE_NO_FILE_COMP)
from kubectl_preempt.cli.main import app, main
from tests.builders import make_node, make_pod

ROOT = typer.main.get_command(app)
BIN = Path(sys.executable).parent
KUBECTL = shutil.which("kubectl")
BASH = shutil.which("bash")


def formats(command: str) -> list[str]:
    """-o's values as `kubectl preempt COMMAND --help` lists them (its metavar, table|json|...):
    what completes, `word=` for a `word=VALUE` piece."""
    opt = next(p for p in ROOT.commands[command].params if "--output" in p.opts)
    out = [piece.partition("=")[0] + ("=" if "=" in piece else "") for piece in opt.metavar.split("|")]
    assert {"table", "json", "yaml"} <= set(out)
    return out


@pytest.mark.parametrize("metavar,want", [
    ("table|wide|json|yaml", ["table", "wide", "json", "yaml"]),
    ("table|name|jsonpath=TEMPLATE", ["table", "name", "jsonpath="]),
    ("new-victims|unschedulable|any-change", ["new-victims", "unschedulable", "any-change"]),
    ("GATE=true|false,...", None),
    ("FILE", None),
    (None, None),
], ids=["formats", "a format with a value", "policies", "a syntax, not values", "one word", "none"])
def test_a_metavar_that_lists_values_completes_them(metavar, want) -> None:
    assert completion._choices(metavar) == want


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    objs = [make_node("node-1").alloc(cpu="4", memory="8Gi", pods="110").obj(),
            make_pod("web-0").ns("shop").req(cpu="1").obj(),
            make_pod("web-1").ns("shop").req(cpu="1").on("node-1").obj(),
            make_pod("worker").ns("shop").req(cpu="1").obj(),
            make_pod("etl-1").ns("batch").req(cpu="1").obj(),
            make_pod("sys").req(cpu="1").on("node-1").obj(),
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "empty"}}]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return path


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No kubeconfig and no in-cluster service: the live lookups have nothing to read."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)


def complete(args: list[str]) -> tuple[list[str], int]:
    """cobra's __complete answer for `kubectl-preempt ARGS...` (the last one being completed)."""
    return completion.complete(args, ROOT)


def names(cands: list[str]) -> list[str]:
    return [c.split("\t")[0] for c in cands]


@pytest.mark.parametrize("args,want,directive", [
    ([""], ["capture", "check", "completion", "demo", "explain", "history", "plan", "record", "replay", "session",
            "version"],
     DIRECTIVE_NO_FILE_COMP),
    (["re"], ["record", "replay"], DIRECTIVE_NO_FILE_COMP),
    (["--v"], ["--version"], DIRECTIVE_NO_FILE_COMP),
    (["explain", "-o", ""], formats("explain"), DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["explain", "-o", "y"], ["yaml"], DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["explain", "--output=y"], ["--output=yaml"], DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["replay", "-o", ""], formats("replay"), DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["check", "--fail-on", "new"], ["new-victims"], DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["explain", "--kubernetes-version", ""], ["v1.30.1", "v1.30", "v1.31.1", "v1.31", "v1.32.2", "v1.32",
                                                "v1.33.0", "v1.33", "v1.34.1", "v1.34", "v1.35.6", "v1.35", "v1.36.2", "v1.36"],
     DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["replay", "--kubernetes-version=v1.36"], ["--kubernetes-version=v1.36.2", "--kubernetes-version=v1.36"],
     DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["completion", ""], ["bash", "zsh", "fish"], DIRECTIVE_NO_FILE_COMP),
    (["version", "-o", ""], ["json", "yaml"], DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER),
    (["explain", "--snapshot", ""], [], DIRECTIVE_DEFAULT),
    (["explain", "-f", ""], [], DIRECTIVE_DEFAULT),
    (["replay", ""], [], DIRECTIVE_DEFAULT),
    (["replay", "--dump-decisions", ""], [], DIRECTIVE_FILTER_DIRS),
    (["explain", "--seed", ""], [], DIRECTIVE_NO_FILE_COMP),
    (["explain", "--request-timeout", ""], [], DIRECTIVE_NO_FILE_COMP),
    (["replay", "trace.jsonl", ""], [], DIRECTIVE_NO_FILE_COMP),
    (["nosuch", ""], [], DIRECTIVE_NO_FILE_COMP),
], ids=["the subcommands", "subcommands by prefix", "the root's flags", "-o's formats", "a format by prefix",
        "--output=VALUE", "replay's own formats", "--fail-on's policies", "the imitated releases",
        "--flag=VALUE of a release", "the shells", "version's formats", "--snapshot takes a file",
        "-f takes a file", "replay's TRACE is a file", "--dump-decisions takes a folder", "a number: nothing",
        "a duration: nothing", "no second TRACE", "after an unknown command: nothing"])
def test_complete_offline(args: list[str], want: list[str], directive: int, no_cluster: None) -> None:
    cands, got = complete(args)
    assert names(cands) == want
    assert got == directive


def test_flags_complete_with_their_first_sentence_and_not_twice(no_cluster: None) -> None:
    cands, directive = complete(["explain", "-o", "json", "--o"])
    assert "--output" not in names(cands)          # given once already
    cands, directive = complete(["explain", "--o"])
    assert cands == ["--output\tOutput format"]
    assert directive == DIRECTIVE_NO_FILE_COMP
    # a repeatable flag stays on offer
    assert "--filename" in names(complete(["explain", "-f", "a.yaml", "--file"])[0])
    every = names(complete(["capture", "-"])[0])
    assert {"--namespace", "-n", "--no-redact", "--context", "--help", "-h"} <= set(every)
    assert "--snapshot" not in every


def test_pods_complete_from_the_snapshot_on_the_line(snapshot: Path, no_cluster: None) -> None:
    s = str(snapshot)
    # the namespace of -n (default: default), as explain reads a bare name
    assert complete(["explain", "--snapshot", s, ""]) == (["sys"], DIRECTIVE_NO_FILE_COMP)
    assert complete(["explain", "-s", s, "-n", "shop", "w"]) == (["web-0", "web-1", "worker"],
                                                               DIRECTIVE_NO_FILE_COMP)
    assert complete(["explain", "-nshop", f"--snapshot={s}", "web"])[0] == ["web-0", "web-1"]
    # namespace/name once a slash is typed
    assert complete(["explain", "-s", s, "batch/"])[0] == ["batch/etl-1"]
    # pods already on the line are not offered again; nor any with -A (explain refuses a POD there)
    assert complete(["explain", "-s", s, "-n", "shop", "web-0", "web"])[0] == ["web-1"]
    assert complete(["explain", "-s", s, "-A", ""])[0] == []
    # namespaces from the same file
    assert complete(["explain", "-s", s, "-n", ""])[0] == ["batch", "default", "empty", "shop"]


def test_a_snapshot_that_cannot_be_read_completes_nothing_and_says_nothing(
        tmp_path: Path, no_cluster: None, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert complete(["explain", "-s", str(bad), ""]) == ([], DIRECTIVE_NO_FILE_COMP)
    assert complete(["explain", "-s", str(tmp_path / "missing.json"), ""]) == ([], DIRECTIVE_NO_FILE_COMP)
    assert complete(["explain", "-s", "-", ""]) == ([], DIRECTIVE_NO_FILE_COMP)   # stdin is the shell's
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_without_a_cluster_pods_complete_to_nothing_quietly(no_cluster: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert complete(["explain", ""]) == ([], DIRECTIVE_NO_FILE_COMP)
    assert capsys.readouterr() == ("", "")


def test_contexts_complete_from_the_kubeconfig(tmp_path: Path, no_cluster: None) -> None:
    cfg = tmp_path / "kubeconfig"
    cfg.write_text("apiVersion: v1\nkind: Config\ncontexts:\n- name: prod-eu\n  context: {cluster: a, user: a}\n"
                   "- name: staging\n  context: {cluster: a, user: a}\n")
    assert complete(["explain", "--kubeconfig", str(cfg), "--context", ""])[0] == ["prod-eu", "staging"]
    assert complete(["explain", "--kubeconfig", str(cfg), "--context", "st"])[0] == ["staging"]


def test_complete_command_prints_cobras_protocol(capsys: pytest.CaptureFixture[str], no_cluster: None) -> None:
    assert main(["__complete", "explain", "-o", "w"]) == 0
    out, err = capsys.readouterr()
    assert out == f"wide\n:{DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER}\n"
    assert main(["__complete", "ver"]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "version\tPrint the version of kubectl-preempt, the kube-scheduler releases it im…", ":4"]


def test_a_failing_completion_answers_the_error_directive(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    def boom(args, root):
        raise RuntimeError("bug")
    monkeypatch.setattr(completion, "complete", boom)
    assert main(["__complete", "explain", ""]) == 0
    assert capsys.readouterr() == (f":{DIRECTIVE_ERROR}\n", "")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_each_shells_script(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert "__complete" in out and "kubectl-preempt" in out


def test_completion_of_an_unknown_shell_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "powershell"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == 'error: unknown shell "powershell": give one of bash, zsh, fish\n'


# --- as the shells run it ------------------------------------------------------------------------

def _env(tmp_path: Path) -> dict[str, str]:
    # the console scripts installed beside this interpreter, first on PATH; no cluster
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    env.update({"PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]), "HOME": str(tmp_path)})
    return env


def _bash(script: str, tmp_path: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BASH, "--norc", "--noprofile", "-c", script], env=_env(tmp_path), cwd=cwd or tmp_path,
                          capture_output=True, text=True, timeout=120)


def _drive(words: list[str]) -> str:
    """bash's part of a TAB: COMP_WORDS as bash splits the line (at = too), the cursor in the last."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    return (f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; "
            "COMP_POINT=${#COMP_LINE}; _kubectl_preempt; printf '%s\\n' \"${COMPREPLY[@]}\"")


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_script_registers_and_completes_through_the_installed_command(tmp_path: Path, snapshot: Path) -> None:
    assert (BIN / "kubectl-preempt").exists(), "the console script is missing: ./install.sh installs it"
    (tmp_path / "trace.jsonl").write_text("")
    (tmp_path / "traces").mkdir()
    source = "source <(kubectl-preempt completion bash); "
    registered = _bash(source + "complete -p kubectl-preempt", tmp_path)
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.strip() == "complete -o default -F _kubectl_preempt kubectl-preempt"

    cases = [
        (["kubectl-preempt", "ex"], ["explain"]),
        (["kubectl-preempt", "explain", "-o", ""], formats("explain")),
        # `--output=ya` reaches bash's function as three words; the reply replaces only the last
        (["kubectl-preempt", "explain", "--output", "=", "ya"], ["yaml"]),
        (["kubectl-preempt", "explain", "--output", "="], ["=" + f for f in formats("explain")]),
        (["kubectl-preempt", "explain", "--snapshot", str(snapshot), "-n", "shop", "w"], ["web-0", "web-1", "worker"]),
        (["kubectl-preempt", "replay", "tr"], ["trace.jsonl", "traces"]),
        (["kubectl-preempt", "replay", "--dump-decisions", "tr"], ["traces"]),
        (["kubectl-preempt", "explain", "--seed", ""], []),
    ]
    script = source + "; echo ---; ".join(_drive(words) for words, _ in cases)
    run = _bash(script, tmp_path)
    assert run.returncode == 0, run.stderr
    got = [sorted(filter(None, block.strip("\n").split("\n"))) for block in run.stdout.split("---\n")]
    assert got == [sorted(want) for _, want in cases]


ZSH_STUBS = (
    # zsh -f has no completion system: compdef, _describe and _files print what they were given
    'compdef() { print -r -- "compdef $*"; }; '
    '_describe() { local a; while [[ $1 == -* ]]; do shift 2; done; a=$2; shift 2; print -rl -- "${(@P)a}"; }; '
    '_files() { print -r -- "_files${1:+ }$*"; }; '
)


def _shell_and_script(tmp_path: Path, shell: str, file_name: str) -> tuple[str, Path]:
    """The shell's path and our completion script for it, written as `file_name` (the test skips
    where the shell is not installed)."""
    found = shutil.which(shell)
    if found is None:
        pytest.skip(f"{shell} is not installed on this machine")
    script = tmp_path / file_name
    script.write_text(completion.SCRIPTS[shell])
    return found, script


def test_zsh_script_registers_and_completes(tmp_path: Path) -> None:
    zsh, script = _shell_and_script(tmp_path, "zsh", "_kubectl-preempt")
    cases = [(["kubectl-preempt", "explain", "-o", ""], formats("explain")),
             (["kubectl-preempt", "ex"], ["explain:Explain what kube-scheduler decides for each POD"]),
             (["kubectl-preempt", "replay", ""], ["_files"]),
             (["kubectl-preempt", "replay", "--dump-decisions", ""], ["_files -/"]),
             (["kubectl-preempt", "explain", "--seed", ""], [])]
    drive = "; echo ---; ".join(
        "words=(" + " ".join(f"'{w}'" for w in words) + f"); CURRENT={len(words)}; _kubectl_preempt"
        for words, _ in cases)
    run = subprocess.run([zsh, "-f", "-c", ZSH_STUBS + f"source {script}; echo ---; " + drive],
                         env=_env(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    blocks = [list(filter(None, b.strip("\n").split("\n"))) for b in run.stdout.split("---\n")]
    assert blocks[0] == ["compdef _kubectl_preempt kubectl-preempt"], run.stderr
    assert blocks[1:] == [want for _, want in cases]


def test_fish_script_completes(tmp_path: Path) -> None:
    fish, script = _shell_and_script(tmp_path, "fish", "kubectl-preempt.fish")
    (tmp_path / "trace.jsonl").write_text("")
    cases = [("kubectl-preempt ex", ["explain\tExplain what kube-scheduler decides for each POD"]),
             ("kubectl-preempt explain -o ", formats("explain")),
             ("kubectl-preempt explain --output=y", ["--output=yaml"]),
             ("kubectl-preempt replay tr", ["trace.jsonl"]),
             ("kubectl-preempt explain --seed ", [])]
    drive = "; echo ---; ".join(f"complete -C '{line}'" for line, _ in cases)
    run = subprocess.run([fish, "--no-config", "-c", f"source {script}; " + drive], env=_env(tmp_path),
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    blocks = [sorted(filter(None, b.strip("\n").split("\n"))) for b in run.stdout.split("---\n")]
    assert blocks == [sorted(want) for _, want in cases]


def test_kubectl_complete_preempt_is_installed_and_answers(tmp_path: Path, snapshot: Path) -> None:
    exe = BIN / "kubectl_complete-preempt"
    assert exe.exists(), "kubectl_complete-preempt is missing: ./install.sh installs it"
    run = subprocess.run([str(exe), "explain", "-s", str(snapshot), "-n", "shop", "web-"], env=_env(tmp_path),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0
    assert run.stdout == f"web-0\nweb-1\n:{DIRECTIVE_NO_FILE_COMP}\n"


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_completes_the_plugin_through_kubectl_complete_preempt(tmp_path: Path, snapshot: Path) -> None:
    """kubectl 1.26+ runs kubectl_complete-preempt from PATH for `kubectl preempt <TAB>`."""
    version = subprocess.run([KUBECTL, "version", "--client", "-o", "json"], capture_output=True, text=True,
                             timeout=60)
    minor = int("".join(c for c in json.loads(version.stdout)["clientVersion"]["minor"] if c.isdigit()))
    if minor < 26:
        pytest.skip(f"kubectl 1.{minor} does not complete plugins (1.26+ does)")
    env = _env(tmp_path)
    env["PATH"] = os.pathsep.join([str(BIN), str(Path(KUBECTL).parent)])
    run = subprocess.run([KUBECTL, "__complete", "preempt", "explain", "-s", str(snapshot), "-n", "shop", "wor"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["worker", f":{DIRECTIVE_NO_FILE_COMP}"]
