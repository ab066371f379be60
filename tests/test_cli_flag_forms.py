"""kubectl's habits, to the letter: every form pflag reads a flag in (`-o json`, `-o=json`,
`-ojson`, `--output=json`, `--output json`; the same for -n, -l, -f), errors that name the flag
the user typed, a file of the wrong kind refused for each flag that takes one (one line naming the
file and what it is), a command missing its input answered with one error line and its one-line
usage (exit 2), not the whole help."""
from __future__ import annotations

import pytest

from kubectl_preempt.cli.flags import normalize_argv
from tests.conftest import REPO, run_cli

SNAP = "examples/cluster.json"
MANIFEST = "examples/api-pod.yaml"


def forms(short: str, long: str, value: str) -> list[list[str]]:
    """The five ways to give a flag its value, as pflag reads them."""
    return [[short, value], [f"{short}={value}"], [f"{short}{value}"], [f"{long}={value}"], [long, value]]


FORM_IDS = ["-X VALUE", "-X=VALUE", "-XVALUE", "--long=VALUE", "--long VALUE"]


def run(args: list[str]):
    return run_cli(args, cwd=REPO)


@pytest.mark.parametrize("flag", forms("-o", "--output", "json"), ids=FORM_IDS)
def test_output_takes_every_form(flag: list[str]) -> None:
    got = run(["explain", "shop/checkout", "--snapshot", SNAP, *flag])
    assert got.code == 0, got.err
    assert got.out == run(["explain", "shop/checkout", "--snapshot", SNAP, "-o", "json"]).out
    assert got.out.startswith("{")


@pytest.mark.parametrize("flag", forms("-n", "--namespace", "shop"), ids=FORM_IDS)
def test_namespace_takes_every_form(flag: list[str]) -> None:
    got = run(["explain", "checkout", "--snapshot", SNAP, *flag, "-o", "name"])
    assert (got.code, got.out) == (0, "pod/checkout\n"), got.err


@pytest.mark.parametrize("flag", forms("-l", "--selector", "app=checkout"), ids=FORM_IDS)
def test_selector_takes_every_form_with_its_equals_sign(flag: list[str]) -> None:
    """`-l=app=checkout` is the selector app=checkout: pflag drops the first `=` only."""
    got = run(["explain", "--snapshot", SNAP, "-n", "shop", *flag, "-o", "name"])
    want = run(["explain", "--snapshot", SNAP, "-n", "shop", "-l", "app=checkout", "-o", "name"])
    assert got.code == want.code == 0, got.err
    assert got.out == want.out


@pytest.mark.parametrize("flag", forms("-f", "--filename", MANIFEST), ids=FORM_IDS)
def test_filename_takes_every_form(flag: list[str]) -> None:
    got = run(["explain", *flag, "--snapshot", SNAP, "-o", "name"])
    assert (got.code, got.out) == (0, "pod/api\n"), got.err


@pytest.mark.parametrize("args,expected", [
    (["explain", "-A", "-o=json"], ["explain", "-A", "-o", "json"]),
    (["explain", "-Ao=json"], ["explain", "-Ao", "json"]),
    (["explain", "-o="], ["explain", "-o", ""]),
    (["explain", "-l=a=b,c!=d"], ["explain", "-l", "a=b,c!=d"]),
    (["explain", "--selector", "-o=json"], ["explain", "--selector", "-o=json"]),
    (["explain", "--", "-o=json"], ["explain", "--", "-o=json"]),
    (["record", "--duration", "-1m", "-o=x"], ["record", "--duration", "-1m", "-o", "x"]),
    (["replay", "-A=1"], ["replay", "-A=1"]),
    (["nosuch", "-o=json"], ["nosuch", "-o=json"]),
], ids=["a value after =", "after a bundled boolean letter", "an empty value", "only the first = goes",
        "the value of another flag is left alone", "after -- nothing is a flag",
        "a value that looks like a flag is a value", "a boolean letter takes no value", "an unknown command"])
def test_normalize_argv_splits_only_pflags_equals_form(args: list[str], expected: list[str]) -> None:
    import typer

    from kubectl_preempt.cli.main import app

    assert normalize_argv(typer.main.get_command(app), args) == expected


@pytest.mark.parametrize("args,flag", [
    (["record", "--duration", "-1m", "--output-file", "x.jsonl"], "--duration"),
    (["record", "--duration=soon", "--output-file", "x.jsonl"], "--duration"),
    (["explain", "-A", "--snapshot", SNAP, "-o=xml"], "'-o'"),
    (["explain", "-A", "--snapshot", SNAP, "--output=xml"], "'--output'"),
    (["replay", "--runs", "0"], "'--runs'"),
], ids=["record --duration -1m", "record --duration=soon", "-o=xml", "--output=xml", "--runs 0"])
def test_an_error_names_the_flag_the_user_typed(args: list[str], flag: str) -> None:
    got = run(args)
    assert got.code == 2 and got.err.count("\n") == 1, got.err
    assert flag in got.err, got.err
    assert "--request-timeout" not in got.err


KSC = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"


@pytest.mark.parametrize("args,file,what", [
    (["explain", "-A", "--snapshot", SNAP, "--config", "{f}"], "examples/kube-batch.conf", "is a kube-batch configuration (actions and tiers)"),
    (["explain", "-A", "--snapshot", SNAP, "--config", "{f}"], SNAP, "is a snapshot"),
    (["explain", "-A", "--snapshot", SNAP, "--config", "{f}"], "traces/demo.jsonl.gz", "is a trace"),
    (["replay", "traces/demo.jsonl.gz", "--config", "{f}"], "examples/kube-batch.conf", "is a kube-batch configuration (actions and tiers)"),
    (["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf", "{f}"], SNAP, "is a snapshot"),
    (["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf", "{f}"], "{ksc}",
     "is a KubeSchedulerConfiguration"),
    (["session", "--snapshot", "examples/batch-cluster.yaml", "--scheduler-conf", "{f}"], "traces/demo.jsonl.gz",
     "is a trace"),
    (["replay", "traces/two-schedulers.jsonl.gz", "--batch-scheduler-conf", "{f}"], SNAP, "is a snapshot"),
    (["explain", "-A", "--snapshot", "{f}"], "traces/demo.jsonl.gz", "is a trace"),
    (["explain", "-A", "--snapshot", "{f}"], "{ksc}", "is a KubeSchedulerConfiguration"),
    (["session", "--snapshot", "{f}"], "examples/kube-batch.conf", "is a kube-batch configuration (actions and tiers)"),
    (["history", "-A", "--snapshot", "{f}"], "traces/demo.jsonl.gz", "is a trace"),
    (["plan", "-f", MANIFEST, "--snapshot", "{f}"], "traces/demo.jsonl.gz", "is a trace"),
    (["check", "--trace", "{f}", "--proposed", "traces/proposed-platform-critical.yaml"], "{ksc}",
     "is a KubeSchedulerConfiguration"),
    (["check", "--trace", "{f}", "--proposed", "traces/proposed-platform-critical.yaml"], "examples/kube-batch.conf",
     "is a kube-batch configuration (actions and tiers)"),
    (["replay", "{f}"], "{ksc}", "is a KubeSchedulerConfiguration"),
], ids=["--config: kube-batch's configuration", "--config: a snapshot", "--config: a trace",
        "replay --config: kube-batch's configuration", "--scheduler-conf: a snapshot",
        "--scheduler-conf: a KubeSchedulerConfiguration", "--scheduler-conf: a trace",
        "--batch-scheduler-conf: a snapshot", "--snapshot: a trace", "--snapshot: a KubeSchedulerConfiguration",
        "session --snapshot: kube-batch's configuration", "history --snapshot: a trace", "plan --snapshot: a trace",
        "--trace: a KubeSchedulerConfiguration", "--trace: kube-batch's configuration",
        "replay TRACE: a KubeSchedulerConfiguration"])
def test_a_file_of_the_wrong_kind_is_one_line_naming_it_and_what_it_is(tmp_path, args: list[str], file: str,
                                                                         what: str) -> None:
    if file == "{ksc}":
        (tmp_path / "scheduler.yaml").write_text(KSC)
        file = str(tmp_path / "scheduler.yaml")
    got = run([a.replace("{f}", file) for a in args])
    assert got.code == 2, got
    assert got.err.count("\n") == 1 and "Traceback" not in got.err, got.err
    assert got.err.startswith(f"error: {file}: {what}, not "), got.err
    assert got.out == ""


@pytest.mark.parametrize("args,usage", [
    (["explain"], "Usage: kubectl preempt explain [-n NS | -A | -f FILE] [--snapshot FILE] [OPTIONS] [POD]..."),
    (["check"], "Usage: kubectl preempt check --trace TRACE --proposed PATH [OPTIONS]"),
    (["check", "--trace", "traces/demo.jsonl.gz"], "Usage: kubectl preempt check --trace TRACE --proposed PATH [OPTIONS]"),
    (["session"], "Usage: kubectl preempt session --snapshot FILE [OPTIONS]"),
    (["plan"], "Usage: kubectl preempt plan (-f MANIFEST | --scale NS/KIND/NAME=N) [OPTIONS]"),
    (["record"], "Usage: kubectl preempt record --output-file TRACE [OPTIONS]"),
    (["completion"], "Usage: kubectl preempt completion [OPTIONS] {bash|zsh|fish}"),
], ids=["explain", "check", "check without --proposed", "session", "plan", "record", "completion"])
def test_a_command_missing_its_input_prints_one_error_and_its_usage(args: list[str], usage: str) -> None:
    got = run(args)
    assert got.code == 2 and got.out == "", got
    lines = got.err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and lines[1] == usage, got.err


def test_history_without_input_reads_the_live_cluster_as_kubectl_get_does(tmp_path, monkeypatch) -> None:
    """Not a missing input: like `kubectl get`, history reads the current context's cluster."""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    got = run(["history"])
    assert got.code == 3 and "kubeconfig" in got.err and "Usage" not in got.err, got.err


def test_explain_all_says_a_preemptor_preempts() -> None:
    got = run(["explain", "-A", "--snapshot", SNAP])
    assert got.code == 0
    rows = {line.split()[0]: line.split()[1] for line in got.out.splitlines()[1:4]}
    assert rows["shop/checkout"] == "Preempts"
    assert "Preempted" not in got.out.split("\n(")[0]
