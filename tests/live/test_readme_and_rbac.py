"""docs/live.md (the live cluster) runs as shown against the loopback API server, and
deploy/rbac.yaml grants reads on exactly what the plugin reads."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.io import live
from tests.live.fakeapi import FakeAPIServer

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "live.md"
RBAC = REPO / "deploy" / "rbac.yaml"


def _section() -> str:
    return PAGE.read_text()


def _examples() -> list[tuple[str, str | None]]:
    """(command, the output shown in the text block right after its sh block, if any)."""
    out: list[tuple[str, str | None]] = []
    blocks = re.findall(r"```(sh|text)\n(.*?)```", _section(), re.S)
    for i, (lang, body) in enumerate(blocks):
        if lang != "sh":
            continue
        shown = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else None
        cmds = [line for line in body.splitlines() if line.startswith("kubectl preempt ")]
        for j, cmd in enumerate(cmds):
            out.append((cmd, shown if j == len(cmds) - 1 else None))
    return out


def _matches(shown: str, got: str) -> bool:
    shown_lines, got_lines = shown.rstrip("\n").split("\n"), got.rstrip("\n").split("\n")
    if "..." not in shown_lines:
        return shown_lines == got_lines
    head = shown_lines[:shown_lines.index("...")]
    return got_lines[:len(head)] == head


def test_the_live_section_has_examples() -> None:
    examples = _examples()
    assert len(examples) >= 6
    assert any(shown for _, shown in examples)


@pytest.mark.parametrize("cmd, shown", _examples(), ids=[c for c, _ in _examples()])
def test_every_live_example_runs_as_shown(cmd: str, shown: str | None, api: FakeAPIServer, cli,
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = api.kubeconfig(tmp_path / "kubeconfig", context="fake", namespace="team-a", extra_contexts=["prod-eu"])
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big-job.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big-job"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}))
    argv = shlex.split(cmd)[2:]
    code, out, err = cli(*argv)
    assert code == 0, err
    if shown is not None:
        assert _matches(shown, out), out
    assert api.methods == {"GET"}


def test_rbac_grants_get_list_watch_on_exactly_what_the_plugin_reads() -> None:
    docs = list(yaml.safe_load_all(RBAC.read_text()))
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    granted: set[tuple[str, str]] = set()
    for rule in role["rules"]:
        if "nonResourceURLs" in rule:
            assert rule == {"nonResourceURLs": ["/version"], "verbs": ["get"]}
            continue
        assert sorted(rule["verbs"]) == ["get", "list", "watch"]
        granted |= {(g, r) for g in rule["apiGroups"] for r in rule["resources"]}
    wanted = {(spec.group, spec.plural) for spec in live.LIST_SPECS} | {("", "events")} \
        | {(spec.group, spec.plural) for spec in live.HISTORY_EVENT_SPECS}
    assert granted == wanted
    binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
    assert binding["roleRef"]["name"] == role["metadata"]["name"] == "kubectl-preempt-reader"
    assert "--clusterrole=kubectl-preempt-reader" in _section()


def _help_examples() -> list[str]:
    from kubectl_preempt.cli import capture, explain

    lines = [line.strip() for text in (capture.EPILOG, explain.EPILOG) for line in text.splitlines()]
    # the live examples: every capture line, and explain's without a snapshot file
    return [line.split(" | ")[0] for line in lines if line.startswith("kubectl preempt ")
            and ("capture" in line or "--snapshot" not in line or "prod.json.gz" in line)]


def test_the_help_examples_of_the_live_commands_run(api: FakeAPIServer, cli, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = api.kubeconfig(tmp_path / "kubeconfig", context="fake", namespace="team-a", extra_contexts=["prod-eu"])
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.chdir(tmp_path)
    examples = _help_examples()
    assert len(examples) >= 6
    for cmd in examples:  # in order: the capture of prod.json.gz comes before its use
        code, _, err = cli(*shlex.split(cmd)[2:])
        assert code == 0, f"{cmd}: {err}"
    assert api.methods == {"GET"}
