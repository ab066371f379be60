"""A server (or a proxy before it) that answers with something else than the API server would:
a list of another shape, an answer without end, objects of another shape. Each is one line naming
the server and the request (exit 3), or the object and the field (exit 2), never a traceback or
all of the memory."""
from __future__ import annotations

import pytest

from kubectl_preempt.errors import ClusterError
from kubectl_preempt.io import live
from kubectl_preempt.model import limits
from tests.live.fakeapi import FakeAPIServer


def _list_nodes_refused() -> str:
    """The ClusterError a list of the nodes ends in, as its text."""
    conn = live.connect()
    try:
        with pytest.raises(ClusterError) as e:
            live.LiveCluster(conn).list(live.SPECS_BY_KIND["Node"])
    finally:
        conn.close()
    return str(e.value)


@pytest.mark.parametrize("body, message", [
    (b"[]", "list nodes: the answer is not a list (a JSON object with items)"),
    (b'{"kind": "NodeList", "items": "x"}', "list nodes: the answer is not a list (its items or metadata are of another type)"),
    (b'{"kind": "NodeList", "metadata": "x", "items": []}', "list nodes: the answer is not a list (its items or metadata"),
    (b'{"kind": "NodeList", "items": [5]}', "list nodes: the answer's items[0] is not an object with metadata"),
    (b'{"kind": "NodeList", "items": [{"metadata": 5}]}', "list nodes: the answer's items[0] is not an object with metadata"),
], ids=["an array", "items a string", "metadata a string", "an item a number", "an item's metadata a number"])
def test_a_list_of_another_shape_is_a_cluster_error_naming_the_request(kubeconfig: object, api: FakeAPIServer,
                                                                       body: bytes, message: str) -> None:
    # each raised AttributeError or TypeError inside the list's read
    api.answer("nodes", body)
    assert _list_nodes_refused().startswith(f"{api.url}: {message}")


def test_an_answer_is_read_no_further_than_the_input_limit(kubeconfig: object, api: FakeAPIServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # a server that never ended its answer filled the memory (MemoryError after 4 GB)
    monkeypatch.setattr(limits, "_current", limits.Limits(max_input_bytes=64 << 10))
    api.answer("nodes", b'{"kind": "NodeList", "items": [' + b'{"metadata": {"name": "n"}},' * 10_000 + b"{}]}")
    assert _list_nodes_refused() == f"{api.url}: list nodes: an answer of more than 64Ki, the most this reads of one answer"


def test_history_checks_a_live_read_as_explain_does(cli, api: FakeAPIServer) -> None:
    # history read the live objects unchecked: a pod's spec of another type raised AttributeError
    api.answer("pods", b'{"kind": "PodList", "metadata": {}, "items": [{"metadata": {"name": "a", '
                       b'"namespace": "team-a", "uid": "u"}, "spec": [1]}]}')
    code, out, err = cli("history", "-A")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: context fake: items[") and err.rstrip().endswith(
        "(Pod team-a/a).spec: must be an object, got a list")


@pytest.mark.parametrize("raw, message", [
    (b"[1, 2]\n", "watch pods: the answer is not a stream of JSON watch events"),
    (b'{"type": "ADDED", "object": 5}\n', "watch pods: the answer is not a stream of JSON watch events"),
    (b"x" * (100 << 10), "watch pods: an event of more than 64Ki, the most this reads of one event"),
], ids=["an array", "an object that is a number", "a line without end"])
def test_a_watch_stream_of_another_shape_is_a_cluster_error(kubeconfig: object, api: FakeAPIServer,
                                                             monkeypatch: pytest.MonkeyPatch, raw: bytes,
                                                             message: str) -> None:
    monkeypatch.setattr(limits, "_current", limits.Limits(max_input_bytes=64 << 10))
    api.script_watch("pods", [(0, None, raw)])
    conn = live.connect()
    try:
        with pytest.raises(ClusterError) as e:
            list(live.LiveCluster(conn).watch(live.SPECS_BY_KIND["Pod"], "1000"))
    finally:
        conn.close()
    assert str(e.value) == f"{api.url}: {message}"


@pytest.mark.parametrize("body", [b"[]", b'"v1.34.1"', b'{"gitVersion": 5}', b'{"gitVersion": ["v1.34.1"]}', b"{}"])
def test_a_version_of_another_shape_names_no_release(kubeconfig: object, api: FakeAPIServer, body: bytes) -> None:
    # a snapshot named its server "5" or "['v1.34.1']"
    api.answer("version", body)
    conn = live.connect()
    try:
        assert live.LiveCluster(conn).server_version() == "unknown"
    finally:
        conn.close()
