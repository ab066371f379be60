"""Reading the live cluster: paginated lists, every kind a verdict reads, and every failure a
ClusterError (exit 3) that names the server, or the verb and resource refused."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from kubectl_preempt.errors import ClusterError, ExitCode
from kubectl_preempt.io import live
from tests.live.conftest import cluster_objects, free_port
from tests.live.fakeapi import FakeAPIServer


def _reader(chunk_size: int = live.DEFAULT_CHUNK_SIZE, timeout: str | None = None) -> live.LiveCluster:
    return live.LiveCluster(live.connect(request_timeout=timeout), chunk_size=chunk_size)


def _kinds(objects: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for o in objects:
        out[o["kind"]] = out.get(o["kind"], 0) + 1
    return out


def test_lists_page_by_page_with_limit_and_continue_and_put_kind_back(api: FakeAPIServer, kubeconfig: Path) -> None:
    pods = _reader(chunk_size=2).list(live.SPECS_BY_KIND["Pod"])
    names = [p["metadata"]["name"] for p in pods]
    # the API server's order (namespace, then name), every page joined
    assert names == ["etl-1", "etl-2", "sys", "api-1", "db-0", "web-0"]
    assert all(p["kind"] == "Pod" and p["apiVersion"] == "v1" for p in pods)
    reqs = api.requests_for("pods")
    assert [r.query.get("limit") for r in reqs] == ["2", "2", "2"]
    assert "continue" not in reqs[0].query and all(r.query.get("continue") for r in reqs[1:])
    assert api.methods == {"GET"}


def test_an_expired_continue_token_restarts_the_list_once(api: FakeAPIServer, kubeconfig: Path) -> None:
    api.expire_continue = True
    pods = _reader(chunk_size=2).list(live.SPECS_BY_KIND["Pod"])
    assert len(pods) == 6
    assert len(api.requests_for("pods")) == 1 + 1 + 3  # first page, the 410, then a fresh full list


def test_read_all_lists_every_kind_the_scheduler_reads(api: FakeAPIServer, kubeconfig: Path) -> None:
    objects, notes = _reader().read_all()
    assert _kinds(objects) == {
        "Node": 3, "Pod": 6, "PodDisruptionBudget": 1, "PriorityClass": 2, "Namespace": 3, "Service": 1,
        "ReplicaSet": 1, "StatefulSet": 1, "PersistentVolumeClaim": 1, "PersistentVolume": 1,
        "StorageClass": 1, "CSINode": 1, "CSIDriver": 1}
    assert notes == []
    listed = {r.path for r in api.requests}
    for spec in live.LIST_SPECS:
        prefix = "/api/v1" if spec.api_version == "v1" else f"/apis/{spec.api_version}"
        assert f"{prefix}/{spec.plural}" in listed, spec.kind
    assert api.methods == {"GET"}


def test_requests_ask_for_json_and_gzip(api: FakeAPIServer, kubeconfig: Path) -> None:
    _reader().list(live.SPECS_BY_KIND["Node"])
    req = api.requests_for("nodes")[0]
    assert req.headers.get("Accept") == "application/json"
    assert "gzip" in req.headers.get("Accept-Encoding", "")
    assert req.headers.get("User-Agent", "").startswith("kubectl-preempt/")


@pytest.mark.parametrize("setup, note", [
    (lambda a: a.disable_group("resource.k8s.io/v1"),
     "resource.k8s.io/v1 is not served by this cluster: resourceclaims, deviceclasses, resourceslices not read"),
    (lambda a: a.fail("csinodes", 403),
     "cannot list csinodes at the cluster scope (forbidden): none read"),
    (lambda a: a.fail("services", 403, namespace=None),
     "cannot list services at the cluster scope (forbidden): read in namespace \"team-a\" only"),
], ids=["a group the server does not serve is a note",
        "a refused optional cluster-wide kind is a note",
        "a refused namespaced kind is read in the context's namespace instead"])
def test_optional_kinds_that_cannot_be_read_become_notes(api: FakeAPIServer, kubeconfig: Path, setup, note) -> None:
    setup(api)
    objects, notes = _reader().read_all(strict=True)
    assert any(n.startswith(note) for n in notes), notes
    assert _kinds(objects)["Node"] == 3


def test_a_required_kind_the_server_does_not_serve_is_an_error(api: FakeAPIServer, kubeconfig: Path) -> None:
    api.disable_group("policy/v1")
    with pytest.raises(live.NotServed, match="does not serve policy/v1 poddisruptionbudgets"):
        _reader().read_all()


@pytest.mark.parametrize("status, message", [
    (401, "unauthorized (401) to list nodes"),
    (403, "forbidden: cannot list nodes at the cluster scope"),
    (500, "list nodes failed: 500"),
], ids=["401 names the verb, resource and context", "403 names the verb, resource and scope",
        "500 names the request and status"])
def test_refusals_and_server_errors_are_cluster_errors(api: FakeAPIServer, kubeconfig: Path, status: int,
                                                       message: str) -> None:
    api.fail("nodes", status)
    with pytest.raises(ClusterError) as e:
        _reader().read_all(strict=True)
    assert message in str(e.value)
    assert api.url in str(e.value)
    assert e.value.exit_code == ExitCode.CLUSTER


def test_wrong_credentials_stop_even_a_lenient_read(api: FakeAPIServer, tmp_path: Path, clean_env: Path) -> None:
    path = api.kubeconfig(tmp_path / "kc", token="expired")
    with pytest.raises(ClusterError, match='credentials of context "fake" were not accepted'):
        live.LiveCluster(live.connect(kubeconfig=str(path))).read_all(strict=False)


def test_a_slow_answer_past_the_request_timeout_is_a_cluster_error(api: FakeAPIServer, kubeconfig: Path) -> None:
    api.delay("nodes", 3.0)
    start = time.monotonic()
    with pytest.raises(ClusterError, match=r"did not answer list nodes within 0\.3s \(--request-timeout\)"):
        _reader(timeout="300ms").read_all()
    assert time.monotonic() - start < 2.5  # not retried: the timeout means what it says


def test_a_slow_answer_within_the_timeout_is_fine(api: FakeAPIServer, kubeconfig: Path) -> None:
    api.delay("nodes", 0.2)
    assert len(_reader(timeout="5s").list(live.SPECS_BY_KIND["Node"])) == 3


def test_an_unreachable_server_is_a_cluster_error_naming_it(clean_env: Path, tmp_path: Path) -> None:
    port = free_port()
    server = FakeAPIServer()
    path = server.kubeconfig(tmp_path / "kc", server=f"http://127.0.0.1:{port}")
    with pytest.raises(ClusterError) as e:
        live.LiveCluster(live.connect(kubeconfig=str(path))).read_all()
    assert str(e.value) == f"cannot reach the Kubernetes API server at http://127.0.0.1:{port}: connection refused"


def test_namespace_only_access_reads_what_it_may_and_says_what_it_could_not(
        api: FakeAPIServer, kubeconfig: Path) -> None:
    api.namespace_only("team-a")
    objects, notes = _reader().read_all(strict=False)
    assert {o["kind"] for o in objects} <= {"Pod", "PodDisruptionBudget", "Service", "ReplicaSet", "StatefulSet",
                                            "ReplicationController", "PersistentVolumeClaim", "CSIStorageCapacity",
                                            "ResourceClaim"}
    assert {o["metadata"]["namespace"] for o in objects} == {"team-a"}
    assert notes[0] == ("cannot list nodes at the cluster scope (forbidden): none read; "
                        "no node can be considered, so there is no verdict")
    assert ('cannot list pods at the cluster scope (forbidden): read pods in namespace "team-a" only; pods of '
            "other namespaces on the same nodes are missing, so nodes look emptier than they are") in notes
    with pytest.raises(live.Forbidden, match="cannot list nodes at the cluster scope"):
        _reader().read_all(strict=True)


def test_namespace_only_capture_suggests_the_namespace_flag(api: FakeAPIServer, kubeconfig: Path) -> None:
    api.authorize = lambda verb, resource, ns: resource in ("nodes", "priorityclasses") or ns == "team-a"
    with pytest.raises(live.Forbidden, match="with access to one namespace only, pass -n team-a"):
        _reader().read_all(strict=True)
    objects, notes = _reader().read_all("team-a", strict=True)
    assert _kinds(objects)["Pod"] == 3
    assert notes[0].startswith('namespaced objects read in namespace "team-a" only')


def test_watch_streams_events_with_kind_put_back(api: FakeAPIServer, kubeconfig: Path) -> None:
    pod = next(o for o in cluster_objects() if o["metadata"]["name"] == "web-0")
    bare = {k: v for k, v in pod.items() if k not in ("kind", "apiVersion")}
    api.script_watch("pods", [(0, "ADDED", bare), (0.05, "MODIFIED", bare), (0, "DELETED", bare)])
    events = list(_reader().watch(live.SPECS_BY_KIND["Pod"], "1000"))
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert all(e["object"]["kind"] == "Pod" for e in events)
    req = api.requests_for("pods")[-1]
    assert req.query["watch"] in ("true", "True", "1") and req.query["resourceVersion"] == "1000"
    assert api.methods == {"GET"}
