"""`kubectl preempt capture`: a redacted snapshot written atomically, gzip by extension, stdout
with -o -, exit 3 with one line naming the server or the refused verb and resource."""
from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import orjson
import pytest
import yaml

from kubectl_preempt.io import live
from kubectl_preempt.io.snapshot import load_objects
from tests.live.conftest import SECRET
from tests.live.fakeapi import FakeAPIServer
from tests.terminal import Tty


def _kinds(items: list[dict]) -> set[str]:
    return {i["kind"] for i in items}


def test_capture_writes_a_gzipped_redacted_list_with_its_provenance(cli, api: FakeAPIServer, tmp_path: Path) -> None:
    path = tmp_path / "prod.json.gz"
    code, out, err = cli("capture", "-o", str(path))
    assert code == 0 and out == ""
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    doc = orjson.loads(gzip.decompress(raw))
    assert doc["apiVersion"] == "v1" and doc["kind"] == "List"
    ann = doc["metadata"]["annotations"]
    assert ann[live.ANN_CONTEXT] == "fake"
    assert ann[live.ANN_SERVER_VERSION] == "v1.34.1"
    assert ann[live.ANN_REDACTED] == "true"
    assert ann[live.ANN_CAPTURED_AT].endswith("Z")
    assert all("kind" in i and "apiVersion" in i for i in doc["items"])
    assert _kinds(doc["items"]) == {"Node", "Pod", "PodDisruptionBudget", "PriorityClass", "Namespace", "Service",
                                    "ReplicaSet", "StatefulSet", "PersistentVolumeClaim", "PersistentVolume",
                                    "StorageClass", "CSINode", "CSIDriver"}
    assert SECRET not in gzip.decompress(raw).decode()
    assert err.strip() == f"wrote {path}: 3 nodes, 6 pods, 1 PDB, 2 PriorityClasses, 11 other objects " \
                          "(redacted, server v1.34.1)"
    # the snapshot loader reads it back, and events never go into a snapshot
    assert len(load_objects(str(path))) == len(doc["items"])
    assert "Event" not in _kinds(doc["items"])
    assert api.methods == {"GET"}


def test_capture_to_stdout(cli) -> None:
    code, out, err = cli("capture", "-o", "-")
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "List" and len(doc["items"]) == 23
    assert err.startswith("wrote standard output: ")
    assert "\r" not in err  # no progress line when stderr is not a terminal


def test_capture_as_yaml_by_extension(cli, tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    assert cli("capture", "-o", str(path))[0] == 0
    doc = yaml.safe_load(path.read_text())
    assert doc["kind"] == "List" and doc["items"][0]["kind"] == "Node"


def test_no_redact_keeps_everything_in_a_file_only_its_owner_reads(cli, tmp_path: Path) -> None:
    path = tmp_path / "full.json"
    code, _, err = cli("capture", "--no-redact", "-o", str(path))
    assert code == 0 and "(unredacted," in err
    text = path.read_text()
    assert SECRET in text
    assert json.loads(text)["metadata"]["annotations"][live.ANN_REDACTED] == "false"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_without_o_it_writes_a_timestamped_file_here(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("capture")
    assert code == 0
    files = list(tmp_path.glob("snapshot-fake-*.json.gz"))
    assert len(files) == 1 and f"wrote {files[0].name}:" in err


def test_a_failed_capture_leaves_the_old_file_untouched(cli, api: FakeAPIServer, tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text("old")
    api.fail("pods", 500)
    code, out, err = cli("capture", "-o", str(path))
    assert code == 3
    assert err.startswith(f"error: {api.url}: list pods failed: 500")
    assert path.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["home", "kubeconfig", "snap.json"]  # no temporary file left


def test_an_unwritable_destination_is_bad_input_naming_it(cli, tmp_path: Path) -> None:
    code, _, err = cli("capture", "-o", str(tmp_path / "no-such-dir" / "snap.json"))
    assert code == 2
    assert err.startswith(f"error: {tmp_path / 'no-such-dir' / 'snap.json'}: cannot write")


def test_one_namespace(cli, tmp_path: Path) -> None:
    path = tmp_path / "batch.json"
    code, _, err = cli("capture", "-n", "batch", "-o", str(path))
    assert code == 0
    doc = json.loads(path.read_text())
    pods = [i for i in doc["items"] if i["kind"] == "Pod"]
    assert {p["metadata"]["namespace"] for p in pods} == {"batch"}
    assert doc["metadata"]["annotations"][live.ANN_NAMESPACE] == "batch"
    assert 'note: namespaced objects read in namespace "batch" only' in err


def test_optional_kinds_that_cannot_be_read_are_noted_in_the_file_and_on_stderr(cli, api: FakeAPIServer,
                                                                                tmp_path: Path) -> None:
    api.disable_group("resource.k8s.io/v1")
    api.fail("csinodes", 403)
    path = tmp_path / "snap.json"
    code, _, err = cli("capture", "-o", str(path))
    assert code == 0
    assert "note: cannot list csinodes at the cluster scope (forbidden): none read" in err
    assert "note: resource.k8s.io/v1 is not served by this cluster: resourceclaims, deviceclasses, resourceslices not read" in err
    notes = json.loads(path.read_text())["metadata"]["annotations"][live.ANN_NOTES]
    assert "cannot list csinodes" in notes


@pytest.mark.parametrize("setup, args, message", [
    (lambda a: a.fail("nodes", 403), (),
     "error: {url}: forbidden: cannot list nodes at the cluster scope"),
    (lambda a: a.fail("poddisruptionbudgets", 401), (),
     'error: {url}: unauthorized (401) to list poddisruptionbudgets: the credentials of context "fake" were '
     "not accepted"),
    (lambda a: a.namespace_only("team-a"), (),
     "error: {url}: forbidden: cannot list nodes at the cluster scope"),
    (lambda a: a.delay("pods", 3.0), ("--request-timeout", "200ms"),
     "error: {url}: the API server did not answer list pods within 0.2s (--request-timeout)"),
], ids=["a refused required kind names the verb and resource", "rejected credentials name the context",
        "namespace-only access cannot capture nodes", "a timeout names the request and the limit"])
def test_cluster_failures_exit_3_with_one_line(cli, api: FakeAPIServer, tmp_path: Path, setup, args,
                                               message: str) -> None:
    setup(api)
    code, out, err = cli("capture", "-o", str(tmp_path / "s.json"), *args)
    assert code == 3 and out == ""
    assert err.startswith(message.format(url=api.url))
    assert err.count("\n") == 1
    assert not (tmp_path / "s.json").exists()


def test_an_unreachable_server_exits_3_naming_it(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.live.conftest import free_port

    port = free_port()
    kc = FakeAPIServer().kubeconfig(tmp_path / "down", server=f"https://127.0.0.1:{port}")
    code, _, err = cli("capture", "--kubeconfig", str(kc), "-o", "-")
    assert code == 3
    assert err == f"error: cannot reach the Kubernetes API server at https://127.0.0.1:{port}: connection refused\n"


def test_namespace_flags_do_not_go_together(cli) -> None:
    code, _, err = cli("capture", "-n", "a", "-A")
    assert code == 2 and "do not go together" in err


def test_help_runs(cli) -> None:
    code, out, _ = cli("capture", "--help")
    assert code == 0 and "--no-redact" in out and "--request-timeout" in out


def test_progress_is_shown_on_a_terminal_and_cleared(kubeconfig: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from kubectl_preempt.cli.main import main

    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["capture", "-o", str(tmp_path / "s.json"), "--chunk-size", "2"]) == 0
    assert "\rlisting pods: 2 of 6" in tty.text and "\rlisting pods: 6" in tty.text
    last_progress = tty.text.rindex("\rlisting")
    cleared = tty.text.index("\r", last_progress + 1)
    assert tty.text[cleared:].lstrip("\r ").startswith("wrote ")


def test_a_hidden_version_endpoint_is_recorded_as_unknown(cli, api: FakeAPIServer) -> None:
    api.fail("version", 404)
    code, out, err = cli("capture", "-o", "-")
    assert code == 0
    assert json.loads(out)["metadata"]["annotations"][live.ANN_SERVER_VERSION] == "unknown"


def test_capture_reads_kube_batch_and_volcano_queues_and_podgroups_when_served(cli, api: FakeAPIServer,
                                                                               tmp_path: Path) -> None:
    api.add({"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "Queue", "metadata": {"name": "research"},
             "spec": {"weight": 2}})
    api.add({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "train", "namespace": "team-a"}, "spec": {"minMember": 2, "queue": "research"}})
    path = tmp_path / "s.json"
    code, _, err = cli("capture", "-o", str(path))
    assert code == 0
    items = orjson.loads(path.read_bytes())["items"]
    batch = {(i["apiVersion"], i["kind"], i["metadata"]["name"]) for i in items if i["kind"] in ("Queue", "PodGroup")}
    assert batch == {("scheduling.incubator.k8s.io/v1alpha1", "Queue", "research"),
                     ("scheduling.volcano.sh/v1beta1", "PodGroup", "train")}
    assert next(i for i in items if i["kind"] == "PodGroup")["spec"] == {"minMember": 2, "queue": "research"}


def test_a_cluster_without_kube_batch_is_captured_without_a_word_about_it(cli, api: FakeAPIServer,
                                                                          tmp_path: Path) -> None:
    api.disabled_groups.update({"scheduling.incubator.k8s.io/v1alpha1", "scheduling.volcano.sh/v1beta1"})
    code, _, err = cli("capture", "-o", str(tmp_path / "s.json"))
    assert code == 0 and "queues" not in err and "podgroups" not in err


def test_redaction_keeps_the_pod_group_a_kube_batch_pod_names(cli, api: FakeAPIServer, tmp_path: Path) -> None:
    api.add({"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "train-0", "namespace": "team-a",
                          "annotations": {"scheduling.k8s.io/group-name": "train", "secret/token": SECRET}},
             "spec": {"schedulerName": "kube-batch", "containers": [{"name": "c", "image": "x"}]},
             "status": {"phase": "Pending"}})
    path = tmp_path / "s.json"
    assert cli("capture", "-o", str(path))[0] == 0
    pod = next(i for i in orjson.loads(path.read_bytes())["items"] if i["metadata"]["name"] == "train-0")
    assert pod["metadata"]["annotations"] == {"scheduling.k8s.io/group-name": "train"}


def test_capture_refuses_to_write_through_a_symbolic_link(cli, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "snap.json.gz"
    link.symlink_to(victim)
    code, out, err = cli("capture", "-o", str(link))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"error: {link}: is a symbolic link" in err
    assert victim.read_text() == "precious"
