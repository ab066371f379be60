"""explain -l/--selector against the live cluster, as kubectl get pods -l reads it (issue 28, point 4)."""
from __future__ import annotations


def test_explain_selector_on_the_live_cluster_reads_the_contexts_namespace(cli) -> None:
    # kubectl get pods -l: the context's namespace (team-a here) unless -n or -A says otherwise
    code, out, err = cli("explain", "-l", "app=api", "-o", "name")
    assert code == 0, err
    assert out == "pod/api-1\n"
    code, out, err = cli("explain", "-A", "-l", "app in (api,web)", "--no-headers")
    assert code == 0, err
    assert sorted(line.split()[0] for line in out.splitlines()) == ["team-a/api-1", "team-a/web-0"]
