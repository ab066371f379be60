"""The release is resolved once per request and travels with it (issue 35): each command picks the
kube-scheduler release (framework/versions.py resolve_kubernetes_version) once, then hands the
Resolved on; nothing below resolves it again. Counted by wrapping resolve_kubernetes_version
wherever the package bound it, then running each command through the CLI."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_preempt.errors import ExitCode
from kubectl_preempt.framework import versions
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[1]
CLUSTER = str(REPO / "examples" / "cluster.json")  # names its release: v1.34.1
POD = str(REPO / "examples" / "api-pod.yaml")
PROPOSED = str(REPO / "traces" / "proposed-platform-critical.yaml")
TRACE = str(REPO / "traces" / "priorityclass-rollout.jsonl.gz")  # recorded: its header names the server
BATCH_TRACE = str(REPO / "traces" / "two-schedulers.jsonl.gz")
BATCH_CONF = str(REPO / "traces" / "kube-batch.conf")

CASES = {
    "explain of a pod in a snapshot": ["explain", "shop/checkout", "--snapshot", CLUSTER],
    "explain of every pending pod with a release named": ["explain", "-A", "--snapshot", CLUSTER, "-o", "json",
                                                         "--kubernetes-version", "v1.35"],
    "replay of a snapshot, a trace of one instant": ["replay", CLUSTER, "-o", "json"],
    "replay with a release and feature gates named": ["replay", CLUSTER, "-o", "json", "--kubernetes-version",
                                                     "v1.33", "--feature-gates", "SchedulerAsyncPreemption=false"],
    "replay of a recorded trace": ["replay", TRACE, "-o", "json"],
    "replay of a recorded trace in follow mode": ["replay", TRACE, "--follow", "-o", "json"],
    "replay of three runs": ["replay", TRACE, "--runs", "3", "--jobs", "1", "-o", "json"],
    "replay with kube-batch beside kube-scheduler": ["replay", BATCH_TRACE, "--batch-scheduler-conf", BATCH_CONF,
                                                     "-o", "json"],
    "check of one trace": ["check", "-t", CLUSTER, "-p", PROPOSED, "-o", "json"],
    "check of a recorded trace over two paired runs": ["check", "-t", TRACE, "-p", PROPOSED, "--runs", "2",
                                                       "--jobs", "1", "-o", "json"],
    "plan of a pod created into a snapshot": ["plan", "-f", POD, "--snapshot", CLUSTER, "-o", "json"],
    "plan --max of copies of a pod": ["plan", "--max", "-f", POD, "--snapshot", CLUSTER, "-o", "json",
                                      "--max-count", "5"],
    "history of a snapshot": ["history", "--snapshot", CLUSTER, "-A", "-o", "json"],
}


@pytest.fixture
def resolutions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The arguments of every resolve_kubernetes_version call, wherever the package calls it from."""
    original = versions.resolve_kubernetes_version
    calls: list[Any] = []

    def counted(requested: Any, *args: Any, **kwargs: Any) -> versions.Resolved:
        calls.append(requested)
        return original(requested, *args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("kubectl_preempt") and getattr(module, "resolve_kubernetes_version", None) is original:
            monkeypatch.setattr(module, "resolve_kubernetes_version", counted)
    return calls


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_a_command_resolves_the_release_once(args: list[str], resolutions: list[Any]) -> None:
    run = run_cli(args)
    # check's proposal may fail its policy (exit 1): the report is made all the same
    assert run.code == 0 or (args[0] == "check" and run.code == ExitCode.POLICY_VIOLATION), run.err
    assert len(resolutions) == 1, resolutions


def test_the_count_sees_a_second_resolution(resolutions: list[Any]) -> None:
    # the test above can fail: a release resolved again below the request is counted
    from kubectl_preempt import api

    api.explain(api.load_objects(CLUSTER), "shop/checkout")
    api.scheduler_version(api.load_objects(CLUSTER))
    assert len(resolutions) == 2
