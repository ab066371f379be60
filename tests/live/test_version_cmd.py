"""kubectl preempt version: the plugin's versions, and the API server's /version with the release
explain imitates for it, as `kubectl version` shows client and server."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.version import __version__
from tests.live.fakeapi import VERSION_INFO, FakeAPIServer


def test_version_shows_client_releases_and_server(cli, api: FakeAPIServer) -> None:
    code, out, err = cli("version")
    assert (code, err) == (0, "")
    assert out == (f"Client Version: {__version__}\n"
                   "Kube-scheduler Versions: v1.30.1, v1.31.1, v1.32.2, v1.33.0, v1.34.1 (default), v1.35.6, v1.36.2\n"
                   "Server Version: v1.34.1\n"
                   "Imitated Kube-scheduler Version: v1.34.1\n")
    assert api.methods == {"GET"}


def test_a_server_of_a_minor_not_imitated_names_the_nearest_and_why(cli, api: FakeAPIServer) -> None:
    api.version_info["gitVersion"] = "v1.29.4"
    code, out, err = cli("version")
    assert code == 0, err
    assert out.splitlines()[-2:] == ["Server Version: v1.29.4",
                                     "Imitated Kube-scheduler Version: v1.30.1 "
                                     "(the nearest imitated release to 1.29)"]


def test_a_1_35_server_is_imitated_as_v1_35_6(cli, api: FakeAPIServer) -> None:
    api.version_info["gitVersion"] = "v1.35.2"
    code, out, err = cli("version")
    assert code == 0, err
    assert out.splitlines()[-2:] == ["Server Version: v1.35.2", "Imitated Kube-scheduler Version: v1.35.6"]


@pytest.mark.parametrize("fmt,load", [("json", json.loads), ("yaml", yaml.safe_load)])
def test_version_as_data_carries_the_servers_whole_answer(cli, api: FakeAPIServer, fmt: str, load) -> None:
    api.version_info["gitVersion"] = "v1.37.0"
    code, out, err = cli("version", "-o", fmt)
    assert code == 0, err
    doc = load(out)
    assert doc["clientVersion"]["gitVersion"] == __version__
    assert doc["kubeSchedulerVersions"] == ["v1.30.1", "v1.31.1", "v1.32.2", "v1.33.0", "v1.34.1", "v1.35.6", "v1.36.2"]
    assert doc["defaultKubeSchedulerVersion"] == "v1.34.1"
    assert doc["serverVersion"] == {**VERSION_INFO, "gitVersion": "v1.37.0"}
    assert doc["imitatedKubeSchedulerVersion"] == "v1.36.2"
    assert doc["imitatedKubeSchedulerNote"] == ("the API server names server version v1.37.0: imitating "
                                                "kube-scheduler v1.36.2, the nearest imitated release to 1.37")


def test_client_only_reads_no_cluster(cli, api: FakeAPIServer) -> None:
    code, out, err = cli("version", "--client", "-o", "json")
    assert (code, err) == (0, "")
    assert "serverVersion" not in json.loads(out)
    assert api.methods == set()


def test_an_unreachable_server_prints_the_client_part_then_exits_3(cli, api: FakeAPIServer) -> None:
    api.stop()
    code, out, err = cli("version")
    assert code == 3
    assert out == f"Client Version: {__version__}\nKube-scheduler Versions: v1.30.1, v1.31.1, v1.32.2, v1.33.0, v1.34.1 (default), v1.35.6, v1.36.2\n"
    assert err.startswith("error: cannot reach the Kubernetes API server at ") and err.count("\n") == 1


def test_a_refused_version_is_exit_3_naming_the_request(cli, api: FakeAPIServer) -> None:
    api.fail("version", 403)
    code, out, err = cli("version")
    assert code == 3
    assert "version" in err and err.count("\n") == 1


def test_without_any_kubeconfig_exit_3_after_the_client_part(clean_env: Path, capsys) -> None:
    from kubectl_preempt.cli.main import main

    assert main(["version"]) == 3
    out, err = capsys.readouterr()
    assert out.startswith(f"Client Version: {__version__}\n")
    assert err.startswith("error: no kubeconfig found")


def test_client_with_cluster_flags_is_a_usage_error(clean_env: Path, capsys) -> None:
    from kubectl_preempt.cli.main import main

    assert main(["version", "--client", "--context", "prod"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--client" in err
