"""Completion against the live cluster: pods and namespaces by GET, with a short timeout, and
nothing at all (no output, no delay beyond the timeout) when the cluster cannot answer."""
from __future__ import annotations

import time

from kubectl_preempt.cli import completion
from kubectl_preempt.cli.completion import DIRECTIVE_NO_FILE_COMP
from tests.test_completion import complete
from tests.live.fakeapi import FakeAPIServer


def test_pods_of_the_contexts_namespace(kubeconfig, api: FakeAPIServer) -> None:
    # the context's namespace is team-a, as explain reads a bare name
    assert complete(["explain", ""]) == (["api-1", "db-0", "web-0"], DIRECTIVE_NO_FILE_COMP)
    assert complete(["explain", "-n", "batch", "etl"])[0] == ["etl-1", "etl-2"]
    assert complete(["explain", "batch/e"])[0] == ["batch/etl-1", "batch/etl-2"]
    assert complete(["explain", "-n", ""])[0] == ["batch", "default", "team-a"]
    assert api.methods == {"GET"}


def test_a_refusing_server_completes_nothing_quietly(kubeconfig, api: FakeAPIServer, capsys) -> None:
    api.fail("pods", 403)
    assert complete(["explain", ""]) == ([], DIRECTIVE_NO_FILE_COMP)
    assert capsys.readouterr() == ("", "")


def test_a_slow_server_is_given_up_on_after_the_timeout(kubeconfig, api: FakeAPIServer, monkeypatch, capsys) -> None:
    monkeypatch.setattr(completion, "LIVE_TOTAL_TIMEOUT", 1.0)
    api.delay("pods", 10)
    started = time.monotonic()
    assert complete(["explain", ""]) == ([], DIRECTIVE_NO_FILE_COMP)
    assert time.monotonic() - started < 5
    assert capsys.readouterr() == ("", "")
