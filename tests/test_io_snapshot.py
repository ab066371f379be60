"""Snapshot files in every form, and every kind of bad input as one line naming file and field."""
from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest
import yaml

from kubectl_preempt.errors import InputError
from kubectl_preempt.framework.config import SchedulerConfig
from kubectl_preempt.io.snapshot import (ignored_kinds, ignored_note, load_config, load_config_document, load_manifests,
                                         load_objects)
from tests.corpus import case_files, read_bytes
from tests.builders import make_node, make_pdb, make_pod, make_priority_class, with_value


def _objects() -> list[dict]:
    return [
        make_node("node-1").alloc(cpu="4", memory="8Gi").zone("a").obj(),
        make_node("node-2").alloc(cpu="4", memory="8Gi").taint("dedicated", "gpu").obj(),
        make_priority_class("high", 1000),
        make_pdb("web", {"matchLabels": {"app": "web"}}, 1),
        make_pod("web-1").label("app", "web").req(cpu="1", memory="1Gi").on("node-1").obj(),
        make_pod("incoming").ns("shop").priority(1000).req(cpu="3").obj(),
    ]


def _as_list(objs: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objs}


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


FORMS = {
    "a List as JSON, as kubectl get -o json writes it": lambda o: json.dumps(_as_list(o), indent=2).encode(),
    "a List as YAML": lambda o: yaml.safe_dump(_as_list(o)).encode(),
    "a multi-document YAML stream": lambda o: yaml.safe_dump_all(o, explicit_start=True).encode(),
    "a YAML stream with empty documents and comments": lambda o: (
        "# captured by hand\n---\n---\n" + yaml.safe_dump_all(o, explicit_start=True) + "---\n").encode(),
    "a conformance case file": lambda o: json.dumps(
        {"name": "0000-x", "pod": "shop/incoming", "objects": o, "expect": {"outcome": "Scheduled"}}).encode(),
    "concatenated JSON objects, one per line": lambda o: b"\n".join(json.dumps(x).encode() for x in o),
    "a JSON array of objects": lambda o: json.dumps(o).encode(),
    "a List in a YAML stream beside single objects": lambda o: yaml.safe_dump_all(
        [_as_list(o[:3])] + o[3:], explicit_start=True).encode(),
}


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzipped"])
@pytest.mark.parametrize("form", list(FORMS), ids=list(FORMS))
def test_every_snapshot_form_reads_back_the_same_objects(tmp_path: Path, form: str, gzipped: bool) -> None:
    objs = _objects()
    data = FORMS[form](objs)
    if gzipped:
        data = gzip.compress(data)
    # no extension on purpose: gzip is detected by its magic number
    path = _write(tmp_path, "snapshot", data)
    assert load_objects(path) == objs


def test_a_single_object_is_a_snapshot_of_one(tmp_path: Path) -> None:
    node = make_node("n1").obj()
    assert load_objects(_write(tmp_path, "n.yaml", yaml.safe_dump(node).encode())) == [node]
    assert load_objects(_write(tmp_path, "n.json", json.dumps(node).encode())) == [node]


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzipped"])
def test_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch, gzipped: bool) -> None:
    objs = _objects()
    data = json.dumps(_as_list(objs)).encode()
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(data) if gzipped else data))
    assert load_objects("-") == objs


def test_typed_lists_from_the_api_give_their_items_a_kind(tmp_path: Path) -> None:
    pod = make_pod("a").obj()
    del pod["kind"]
    path = _write(tmp_path, "pods.json", json.dumps({"kind": "PodList", "apiVersion": "v1", "items": [pod]}).encode())
    assert [o["kind"] for o in load_objects(path)] == ["Pod"]


def test_yaml_keeps_timestamps_and_yes_no_words_as_strings(tmp_path: Path) -> None:
    text = ("kind: Node\nmetadata:\n  name: n1\n  creationTimestamp: 2026-01-01T00:00:00Z\n"
            "  labels: {feature: on, gpu: no, ready: true}\n")
    [node] = load_objects(_write(tmp_path, "n.yaml", text.encode()))
    assert node["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert node["metadata"]["labels"] == {"feature": "on", "gpu": "no", "ready": True}


@pytest.mark.parametrize("content", [b'{"kind": "List", "apiVersion": "v1", "items": []}', b"kind: List\nitems:\n",
                                     b"", b"\n---\n"], ids=["json-list", "yaml-list", "empty", "empty-yaml"])
def test_an_empty_snapshot_is_an_error_not_an_empty_cluster(tmp_path: Path, content: bytes) -> None:
    # a failed `kubectl get ... > snapshot.json` must not read as a cluster with nothing in it
    path = _write(tmp_path, "e.json", content)
    with pytest.raises(InputError, match="no Kubernetes objects in the file") as err:
        load_objects(path)
    assert str(err.value).startswith(f"{path}: ")


def test_ignored_kinds_are_counted_most_first() -> None:
    objs = _objects() + [{"kind": "ConfigMap", "metadata": {"name": "a"}},
                         {"kind": "Secret", "metadata": {"name": "s"}},
                         {"kind": "ConfigMap", "metadata": {"name": "b"}}]
    assert ignored_kinds(objs) == {"ConfigMap": 2, "Secret": 1}
    assert ignored_note(objs) == "ignored 3 objects of kinds ConfigMap (2), Secret (1)"
    assert ignored_note(_objects()) is None


# --- bad input --------------------------------------------------------------------------------

def _truncated_gz() -> bytes:
    data = gzip.compress(json.dumps(_as_list(_objects())).encode())
    return data[: len(data) // 2]


BAD = [
    ("malformed JSON names the line and column",
     b'{"kind": "List", "items": [\n  {"kind": "Pod",, }]}', "line 2 column 18: unexpected character"),
    ("malformed YAML names the line",
     b"kind: Pod\nmetadata:\n  name: [a\n", "line 4 column 1: malformed YAML"),
    ("bad YAML indentation names the line",
     b"kind: Node\nmetadata:\n  name: a\n bad: 1\n", "line 4"),
    ("a truncated .gz says so", _truncated_gz(), "truncated gzip data"),
    ("corrupt gzip data says so", b"\x1f\x8b\x08\x00garbagegarbage", "corrupt gzip data"),
    ("an item that is not an object names its index",
     json.dumps(_as_list([make_node("n").obj(), "oops"])).encode(), "items[1]: expected a Kubernetes object"),
    ("an item without kind names the field",
     json.dumps(_as_list([{"metadata": {"name": "x"}}])).encode(), "items[0].kind: missing kind"),
    ("an object without a name names the field",
     json.dumps(_as_list([{"kind": "Pod", "metadata": {}}])).encode(), "items[0].metadata.name: Pod without metadata.name"),
    ("a YAML document without kind names the document and its line",
     b"kind: Node\nmetadata: {name: a}\n---\nmetadata: {name: b}\n", "document 2 (line 4).kind: missing kind"),
    ("a top-level string is the wrong kind of document",
     b'"just a string"', "expected a List, a conformance case or Kubernetes objects, got a string"),
    ("a top-level number is the wrong kind of document", b"42\n", "got a number (42)"),
    ("a List whose items is not a list names items",
     b'{"kind": "List", "items": {"a": 1}}', "items: expected a list, got an object"),
    ("a case whose objects is not a list names objects",
     b'{"pod": "a/b", "objects": 3}', "objects: expected a list"),
    ("a trace is not a snapshot", b'{"apiVersion": "kubectl-preempt/v1", "kind": "Trace"}\n{"type": "ADDED"}',
     "is a trace, not a snapshot: replay TRACE and --trace read traces"),
    ("text that is not UTF-8 says where", b"kind: Node\nname: \xff\xfe\n", "not UTF-8"),
]


@pytest.mark.parametrize("data,expected", [(d, e) for _, d, e in BAD], ids=[i for i, _, _ in BAD])
def test_bad_snapshot_input_is_one_line_naming_the_file(tmp_path: Path, data: bytes, expected: str) -> None:
    path = _write(tmp_path, "bad-input", data)
    with pytest.raises(InputError) as e:
        load_objects(path)
    msg = str(e.value)
    assert msg.startswith(path + ": ")
    assert expected in msg
    assert "\n" not in msg


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = str(tmp_path / "nope.json")
    with pytest.raises(InputError, match=r"nope\.json: no such file$"):
        load_objects(path)


def test_a_directory_is_not_a_snapshot(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_objects(str(tmp_path))


def test_bad_standard_input_is_named_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b'{"kind": '))
    with pytest.raises(InputError, match=r"^<stdin>: line 1 column \d+"):
        load_objects("-")


# --- configuration ----------------------------------------------------------------------------

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 50, minCandidateNodesAbsolute: 2}
- schedulerName: batch
  plugins:
    score:
      disabled: [{name: ImageLocality}]
"""


def test_a_scheduler_configuration_file_is_parsed_with_defaults(tmp_path: Path) -> None:
    cfg = load_config(_write(tmp_path, "sched.yaml", CONFIG.encode()))
    assert isinstance(cfg, SchedulerConfig)
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler", "batch"]
    assert cfg.profiles[0].plugin_args["DefaultPreemption"]["minCandidateNodesAbsolute"] == 2


@pytest.mark.parametrize("text,expected", [
    ("kind: Pod\nmetadata: {name: a}\n", "kind: kind \"Pod\" is not KubeSchedulerConfiguration"),
    (CONFIG.replace("scheduler.config.k8s.io/v1", "scheduler.config.k8s.io/v1beta3"), "apiVersion"),
    (CONFIG + "---\n" + CONFIG, "expected one KubeSchedulerConfiguration, found 2 documents"),
    ("", "empty file"),
    ("- a\n- b\n", "expected a KubeSchedulerConfiguration object, got a list"),
    (CONFIG.replace("score:", "scoring:"), "profiles[1].plugins.scoring: unknown extension point"),
], ids=["another kind", "another apiVersion", "two documents", "an empty file", "a list",
        "an unknown extension point names the profile"])
def test_bad_scheduler_configuration_names_file_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, "sched.yaml", text.encode())
    for load in (load_config, load_config_document):
        with pytest.raises(InputError) as e:
            load(path)
        assert str(e.value).startswith(path + ": ")
        assert expected in str(e.value)


def test_the_configuration_document_is_the_object_as_written_after_an_empty_document(tmp_path: Path) -> None:
    raw = load_config_document(_write(tmp_path, "sched.yaml", ("---\n---\n" + CONFIG).encode()))
    assert raw["profiles"][1]["schedulerName"] == "batch"
    assert "podInitialBackoffSeconds" not in raw  # no defaults filled in


# --- manifests (-f) ---------------------------------------------------------------------------

def test_a_pod_manifest_is_explained_as_if_created_now(tmp_path: Path) -> None:
    pod = make_pod("new").req(cpu="1").on("node-1").nominated("node-1").obj()
    del pod["metadata"]["namespace"]
    [got] = load_manifests(_write(tmp_path, "pod.yaml", yaml.safe_dump(pod).encode()), namespace="shop")
    assert got["metadata"]["namespace"] == "shop"
    assert "nodeName" not in got["spec"]
    assert got["status"] == {"phase": "Pending"}


def test_a_manifest_without_namespace_defaults_to_default(tmp_path: Path) -> None:
    pod = make_pod("new").obj()
    del pod["metadata"]["namespace"]
    [got] = load_manifests(_write(tmp_path, "pod.json", json.dumps(pod).encode()))
    assert got["metadata"]["namespace"] == "default"


def test_generate_name_gives_the_manifest_a_name(tmp_path: Path) -> None:
    pod = make_pod("x").obj()
    pod["metadata"] = {"generateName": "job-"}
    [got] = load_manifests(_write(tmp_path, "pod.json", json.dumps(pod).encode()))
    assert got["metadata"]["name"] == "job-new"


@pytest.mark.parametrize("obj,expected", [
    ({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}},
     "kind: kind Deployment cannot be explained: give a Pod manifest"),
    ({"metadata": {"name": "d"}}, "kind: an object without kind cannot be explained"),
    (make_pod("p").req(cpu="lots").obj(), "spec.containers[0].resources.requests.cpu: quantities must match"),
    ({"kind": "Pod", "metadata": {"name": "p"}}, "spec: Pod without spec"),
], ids=["a Deployment is named by its kind", "an object without kind", "a bad quantity names the field",
        "a pod without spec"])
def test_bad_manifests_name_file_and_field(tmp_path: Path, obj: dict, expected: str) -> None:
    path = _write(tmp_path, "m.yaml", yaml.safe_dump(obj).encode())
    with pytest.raises(InputError) as e:
        load_manifests(path)
    assert str(e.value).startswith(path + ": ")
    assert expected in str(e.value)
    assert "\n" not in str(e.value)


# each of these raised a Python exception with a traceback before the manifest's shape was checked
# as a snapshot's pods are (model/schema.py), found by mutating examples/api-pod.yaml
@pytest.mark.parametrize("path, value, expected", [
    (("spec", "containers", 0), 1, "spec.containers[0]: must be an object, got a number (1)"),
    (("spec", "containers", 0), [1], "spec.containers[0]: must be an object, got a list"),
    (("spec", "containers"), "abc", 'spec.containers: must be a list, got a string ("abc")'),
    (("metadata", "namespace"), [1], "metadata.namespace: must be a string, got a list"),
    (("spec", "containers", 0, "name"), [1], "spec.containers[0].name: must be a string, got a list"),
])
def test_a_manifest_of_another_shape_names_the_field_in_one_line(tmp_path: Path, path: tuple, value: object,
                                                                 expected: str) -> None:
    p = _write(tmp_path, "m.yaml", yaml.safe_dump(with_value(make_pod("p").req(cpu="1").obj(), path, value)).encode())
    with pytest.raises(InputError) as e:
        load_manifests(p)
    assert str(e.value) == f"{p}: {expected}"


def test_a_manifest_file_with_no_pod_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no Pod in the file"):
        load_manifests(_write(tmp_path, "m.yaml", b"---\n"))


# --- large JSON documents: msgspec, with orjson's objects and orjson's errors ----------------------

JSON_ALIKE = {
    "a List of every kind the scheduler reads": json.dumps(_as_list(_objects())).encode(),
    "numbers at the edges of 64 bits, floats and escapes":
        b'{"kind": "List", "items": [], "n": [18446744073709551615, -9223372036854775808, 1e308, 1E2, -0.0, 0.1],'
        b' "s": "\\u00e9\\ud83d\\ude00\\u0000"}',
    "an integer beyond 64 bits, which orjson makes a float":
        b'{"kind": "List", "items": [], "n": 123456789012345678901234567890}',
    "nineteen digits in a string, which sends the document to orjson": b'{"kind": "List", "items": [], '
                                                                      b'"s": "1234567890123456789"}',
    "several documents one after another": b'{"kind": "Node", "metadata": {"name": "a"}}\n'
                                           b'{"kind": "Node", "metadata": {"name": "b"}}',
}
JSON_ALIKE["a byte order mark (read as YAML)"] = b'\xef\xbb\xbf{"kind": "List", "items": []}'
JSON_ALIKE["a conformance case"] = read_bytes(case_files("cases")[0])

JSON_REFUSED = {
    "malformed JSON": b'{"kind": "List", "items": [\n  {"kind": "Pod",, }]}',
    "a lone surrogate": b'{"kind": "List", "items": [], "s": "\\ud800"}',
    "bytes that are not UTF-8": b'{"kind": "List", "items": [], "s": "\xff"}',
    "a number out of range": b'{"kind": "List", "items": [], "n": 1e400}',
    "nesting deeper than orjson reads": b'{"kind": "List", "items": [' + b"[" * 1100 + b"]" * 1100 + b"]}",
}


def _read(data: bytes, large: int, monkeypatch: pytest.MonkeyPatch) -> object:
    import kubectl_preempt.io.snapshot as snapshot
    monkeypatch.setattr(snapshot, "LARGE_JSON", large)
    try:
        return snapshot.decode_documents(data, "doc")
    except InputError as e:
        return str(e)


@pytest.mark.parametrize("case", list(JSON_ALIKE) + list(JSON_REFUSED))
def test_a_large_json_document_reads_as_orjson_reads_it(tmp_path: Path, case: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Documents past LARGE_JSON are decoded by msgspec: the same objects and the same error lines
    as orjson's (here every document counts as large, then none)."""
    data = JSON_ALIKE.get(case, JSON_REFUSED.get(case))
    large = _read(data, 0, monkeypatch)
    small = _read(data, 1 << 62, monkeypatch)
    assert repr(large) == repr(small)
    assert isinstance(large, str) is (case in JSON_REFUSED)
