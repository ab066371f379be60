"""Credentials resolved as kubectl resolves them: --kubeconfig, $KUBECONFIG (several files merged,
the first to set a name wins), ~/.kube/config, and the pod's service account when none exists."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.errors import ClusterError, ExitCode, InputError
from kubectl_preempt.io import live
from tests.live.fakeapi import FakeAPIServer


def _list_nodes(conn: live.Connection) -> list[str]:
    try:
        return [n["metadata"]["name"] for n in live.LiveCluster(conn).list(live.SPECS_BY_KIND["Node"])]
    finally:
        conn.close()


def test_kubeconfig_env_with_several_files_merges_them_and_the_first_current_context_wins(
        api: FakeAPIServer, clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = api.kubeconfig(tmp_path / "first", context="prod", namespace="team-a")
    # the second file names its own current context, pointing at a server that does not exist
    second = tmp_path / "second"
    second.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "elsewhere",
        "clusters": [{"name": "other", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "other", "user": {"token": "nope"}}],
        "contexts": [{"name": "elsewhere", "context": {"cluster": "other", "user": "other", "namespace": "x"}}],
    }))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(first), str(tmp_path / "missing"), str(second)]))
    conn = live.connect()
    assert (conn.context, conn.namespace, conn.server) == ("prod", "team-a", api.url)
    assert _list_nodes(conn) == ["node-1", "node-2", "node-3"]
    # a context defined only in the second file is reachable with --context
    other = live.connect(context="elsewhere")
    assert (other.context, other.namespace, other.server) == ("elsewhere", "x", "http://127.0.0.1:9")


def test_the_kubeconfig_flag_wins_over_the_environment(api: FakeAPIServer, clean_env: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "does-not-exist"))
    path = api.kubeconfig(tmp_path / "explicit", context="flag")
    conn = live.connect(kubeconfig=str(path))
    assert conn.context == "flag" and conn.namespace == "default"
    assert _list_nodes(conn)


def test_without_kubeconfig_env_the_home_config_is_read(api: FakeAPIServer, clean_env: Path) -> None:
    (clean_env / ".kube").mkdir()
    api.kubeconfig(clean_env / ".kube" / "config", context="home")
    conn = live.connect()
    assert conn.context == "home"
    assert _list_nodes(conn)


@pytest.mark.parametrize("kwargs, message", [
    ({"context": "nope"}, 'context "nope" not found'),
    ({"kubeconfig": "/nonexistent/kubeconfig"}, "/nonexistent/kubeconfig: --kubeconfig: no such file"),
], ids=["an unknown context is bad input naming it and the file",
        "a kubeconfig flag naming no file is bad input naming the file"])
def test_kubeconfig_mistakes_are_input_errors(kubeconfig: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(InputError) as e:
        live.connect(**kwargs)
    assert message in str(e.value)
    assert e.value.exit_code == ExitCode.BAD_INPUT


def test_a_kubeconfig_that_is_not_yaml_names_the_file(clean_env: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad"
    bad.write_text("clusters: [\n")
    monkeypatch.setenv("KUBECONFIG", str(bad))
    with pytest.raises(InputError, match=str(bad)):
        live.connect()


_KUBECONFIG = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
               "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
               "users": [{"name": "u", "user": {"token": "t"}}],
               "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}


# what client-go's strict decoding refuses (clientcmd/api/v1 types.go); each raised TypeError or
# AttributeError inside the kubernetes client, with a traceback, before the shape was checked
@pytest.mark.parametrize("change, message", [
    ({"users": True}, "users: not a valid kubeconfig: must be a list, got a boolean (true)"),
    ({"contexts": True}, "contexts: not a valid kubeconfig: must be a list, got a boolean (true)"),
    ({"current-context": ["a"]}, "current-context: not a valid kubeconfig: must be a string, got a list"),
    ({"contexts": [{"name": "c", "context": ""}]},
     "contexts[0].context: not a valid kubeconfig: must be an object, got an empty string"),
    ({"clusters": [{"name": "k", "cluster": {"server": []}}]},
     "clusters[0].cluster.server: not a valid kubeconfig: must be a string, got a list"),
    ({"users": [{"name": "u", "user": 10**20}]},
     "users[0].user: not a valid kubeconfig: must be an object, got a number (100000000000000000000)"),
])
def test_a_kubeconfig_of_another_shape_is_bad_input_naming_the_field(clean_env: Path, tmp_path: Path, change: dict,
                                                                     message: str) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({**_KUBECONFIG, **change}))
    with pytest.raises(InputError) as e:
        live.connect(kubeconfig=str(path))
    assert str(e.value) == f"{path}: {message}"
    assert e.value.exit_code == ExitCode.BAD_INPUT


def test_a_kubeconfig_without_end_is_read_no_further_than_the_input_limit(clean_env: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # `--kubeconfig /dev/zero` read until the machine ran out of memory
    from kubectl_preempt.model import limits

    monkeypatch.setattr(limits, "_current", limits.Limits(max_input_bytes=1 << 20))
    with pytest.raises(InputError) as e:
        live.connect(kubeconfig="/dev/zero")
    assert str(e.value) == "/dev/zero: holds more than 1Mi, the most this reads (--max-input-size raises it)"


@pytest.mark.parametrize("section, field", [("users", "tokenFile"), ("users", "client-key"),
                                            ("clusters", "certificate-authority")])
def test_a_credential_file_without_end_is_refused_naming_the_field(clean_env: Path, tmp_path: Path,
                                                                   section: str, field: str) -> None:
    # `tokenFile: /dev/zero`: the client reads the file whole, until the machine ran out of memory
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
           "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
           "users": [{"name": "other", "user": {"token": "t"}}, {"name": "u", "user": {"token": "t"}}],
           "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}
    entry = doc[section][-1]
    entry[section[:-1]][field] = "/dev/zero"
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(InputError) as e:
        live.connect(kubeconfig=str(path))
    index = len(doc[section]) - 1
    assert str(e.value) == (f'{path}: {section}[{index}].{section[:-1]}.{field}: "/dev/zero" is not a regular file '
                            "(the client would read it without end)")


def test_a_credential_file_is_found_beside_its_kubeconfig(clean_env: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # relative to the kubeconfig's directory, as client-go resolves it: a file there of more than
    # the input limit is refused, one elsewhere is not looked at
    from kubectl_preempt.model import limits

    (tmp_path / "token").write_text("x" * 2048)
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
           "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
           "users": [{"name": "u", "user": {"tokenFile": "token"}}],
           "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(limits, "_current", limits.Limits(max_input_bytes=1024))
    with pytest.raises(InputError, match=r"users\[0\]\.user\.tokenFile: \"token\" holds more than 1Ki"):
        live.connect(kubeconfig=str(path))
    monkeypatch.setattr(limits, "_current", limits.DEFAULT)
    assert live.connect(kubeconfig=str(path)).server == "https://127.0.0.1:1"


def test_no_kubeconfig_and_not_in_a_cluster_is_a_cluster_error(clean_env: Path) -> None:
    with pytest.raises(ClusterError, match="no kubeconfig found") as e:
        live.connect()
    assert e.value.exit_code == ExitCode.CLUSTER


def test_a_kubeconfig_variable_naming_no_file_says_so(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as client-go reads it, empty entries name no file (and ~/.kube/config is not read instead)
    monkeypatch.setenv("KUBECONFIG", os.pathsep * 3)
    with pytest.raises(ClusterError) as e:
        live.connect()
    assert str(e.value).startswith(f'no kubeconfig found ($KUBECONFIG="{os.pathsep * 3}" names no file) and not')


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is needed to make the test's TLS certificate")
def test_in_cluster_uses_the_service_account_token_ca_and_namespace(
        clean_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.live.conftest import cluster_objects

    cert, key = tmp_path / "ca.crt", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    sa = tmp_path / "serviceaccount"
    sa.mkdir()
    shutil.copy(cert, sa / "ca.crt")
    (sa / "token").write_text("sa-token")
    (sa / "namespace").write_text("batch\n")
    monkeypatch.setattr(live, "SERVICE_ACCOUNT_DIR", str(sa))
    with FakeAPIServer(cluster_objects(), token="sa-token", tls=(str(cert), str(key))) as server:
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(server.port))
        conn = live.connect()
        assert conn.in_cluster and conn.context is None and conn.namespace == "batch"
        assert conn.server == server.url
        assert _list_nodes(conn) == ["node-1", "node-2", "node-3"]
        assert server.methods == {"GET"}


@pytest.mark.parametrize("value, seconds", [
    (None, None), ("", None), ("0", None), ("5", 5.0), ("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5),
    ("2h", 7200.0), (1.5, 1.5),
], ids=["unset means no timeout", "empty means no timeout", "zero means no timeout, as kubectl",
        "a bare number is seconds", "seconds", "minutes and seconds", "milliseconds", "hours",
        "a float from the API"])
def test_request_timeout_reads_kubectl_durations(value: object, seconds: float | None) -> None:
    assert live.parse_request_timeout(value) == seconds  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["soon", "5x", "-1s", "1m-2s"],
                         ids=["a word", "an unknown unit", "a negative duration", "a malformed duration"])
def test_a_bad_request_timeout_is_bad_input_naming_the_flag(value: str) -> None:
    with pytest.raises(InputError, match="--request-timeout"):
        live.parse_request_timeout(value)


def test_a_request_timeout_longer_than_go_reads_is_refused_as_kubectl_refuses_it() -> None:
    # time.ParseDuration's int64 of nanoseconds; a longer socket timeout overflowed the platform's
    # time_t inside the client, with a traceback
    with pytest.raises(InputError) as e:
        live.parse_request_timeout("99999999999999h")
    assert str(e.value) == ('--request-timeout: "99999999999999h" is longer than the longest duration Go reads '
                            "(2562047h47m16.854775807s)")
    assert live.parse_request_timeout("2562047h") == 2562047 * 3600.0


def test_a_failing_credential_plugin_is_named_in_the_401(api: FakeAPIServer, clean_env: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    plugin = tmp_path / "get-token"
    plugin.write_text("#!/bin/sh\necho 'token expired, run: login --sso' >&2\nexit 1\n")
    plugin.chmod(0o755)
    path = tmp_path / "kc"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "sso",
        "clusters": [{"name": "c", "cluster": {"server": api.url}}],
        "users": [{"name": "u", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                  "command": str(plugin), "interactiveMode": "Never"}}}],
        "contexts": [{"name": "sso", "context": {"cluster": "c", "user": "u"}}],
    }))
    conn = live.connect(kubeconfig=str(path))
    with pytest.raises(ClusterError) as e:
        live.LiveCluster(conn).read_all()
    assert str(e.value) == (f'{api.url}: unauthorized (401) to list nodes: the credential plugin of context "sso" '
                            "failed: exec: process returned 1. token expired, run: login --sso")
    assert capsys.readouterr().err == ""  # said once, in the error, not also logged to stderr
