"""explain's read of a snapshot (load_objects(..., lean=True)): a large JSON List decoded and checked
in one pass by the typed decoders of model/schema.py, keeping only the fields the schema's tables
name. It must give every reader what the careful read gives it (the same fields, the same values,
the same explanations) and refuse every file the careful read refuses, with the same line.

Every document here counts as large (LARGE_JSON is set to 0), so the typed read takes it."""
from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.errors import InputError
from kubectl_preempt.io import beside, snapshot
from kubectl_preempt.io.snapshot import load_objects
from kubectl_preempt.model import schema
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.memory import MEMORY
from tests.builders import make_node, make_pod, make_priority_class
from tests.corpus import case_files, load_json, trace_of, truth_files
from tests.test_hostile_fuzz import CASES as FUZZ_CASES, _id as fuzz_id, _mutated

CONFORMANCE = case_files("cases", "cases-real")
TRACES = [trace_of(t) for folder in ("", "v2", "v136") for t in truth_files(folder)]


@pytest.fixture(autouse=True)
def _every_document_is_large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "LARGE_JSON", 0)


def _write(tmp_path: Path, objs: list[Any], name: str = "s.json", **list_fields: Any) -> str:
    p = tmp_path / name
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", **list_fields, "items": objs}, separators=(",", ":")))
    return str(p)


def _restricted(value: Any, checker: Any) -> Any:
    """`value` with only the fields `checker`'s tables name, as the typed read keeps it."""
    if isinstance(checker, schema._Memo):
        return _restricted(value, checker.inner)
    if value is None:
        return None
    if isinstance(checker, schema._Obj):
        return {k: _restricted(v, checker.table[k]) for k, v in value.items() if k in checker.table}
    if isinstance(checker, schema._List):
        return [_restricted(x, checker.item) for x in value]
    if isinstance(checker, schema._Map):
        return {k: _restricted(v, checker.value) for k, v in value.items()}
    return value


def _as_lean(obj: dict) -> dict:
    table = schema.KINDS.get(obj["kind"])
    if table is None:
        return obj
    return {k: (v if k in ("apiVersion", "kind") else _restricted(v, table.table[k]))
            for k, v in obj.items() if k in ("apiVersion", "kind") or k in table.table}


def _final_objects(trace: Path) -> list[dict]:
    """The objects a trace leaves at its end: each event applied in turn."""
    lines = [orjson.loads(ln) for ln in gzip.decompress(trace.read_bytes()).splitlines() if ln.strip()]
    state: dict[tuple, dict] = {}
    for e in lines[1:]:
        o = e.get("object")
        if not isinstance(o, dict) or e.get("type") not in ("ADDED", "MODIFIED", "DELETED"):
            continue
        md = o.get("metadata") or {}
        key = (o.get("kind"), md.get("namespace"), md.get("name"))
        if e["type"] == "DELETED":
            state.pop(key, None)
        else:
            state[key] = o
    return list(state.values())


def _all_objects(trace: Path) -> list[dict]:
    """Every object a trace records, each version once (a List may hold any of them)."""
    lines = [orjson.loads(ln) for ln in gzip.decompress(trace.read_bytes()).splitlines() if ln.strip()]
    out, seen = [], set()
    for e in lines[1:]:
        o = e.get("object")
        if isinstance(o, dict) and o.get("kind") and (o.get("metadata") or {}).get("name"):
            key = (o["kind"], json.dumps(o.get("metadata"), sort_keys=True))
            if key not in seen:
                seen.add(key)
                out.append(o)
    return out


def _unread_fields() -> list[dict]:
    """Objects holding what a live cluster's do and no reader reads: managed fields, probes, env
    from secrets, volume mounts, security contexts, status details."""
    pod = make_pod("web-1").label("app", "web").req(cpu="1", memory="1Gi").on("node-1").obj()
    pod["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                                         "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                                         "fieldsV1": {"f:spec": {"f:containers": {}}}}]
    c = pod["spec"]["containers"][0]
    c["env"] = [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]
    c["livenessProbe"] = {"httpGet": {"path": "/", "port": 8080}, "periodSeconds": 10}
    c["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    c["securityContext"] = {"runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}}
    pod["spec"]["dnsPolicy"] = "ClusterFirst"
    pod["status"] = {"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}],
                     "containerStatuses": [{"name": "main", "ready": True, "restartCount": 0, "image": "x",
                                            "imageID": "sha256:3f1e523e9a", "containerID": "containerd://1e999",
                                            "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
    node = make_node("node-1").alloc(cpu="4", memory="8Gi").obj()
    node["status"]["addresses"] = [{"type": "InternalIP", "address": "10.0.0.1"}]
    node["status"]["declaredFeatures"] = ["a", "b"]
    node["status"]["daemonEndpoints"] = {"kubeletEndpoint": {"Port": 10250}}
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "default"},
             "involvedObject": {"kind": "Pod", "name": "web-1", "uid": "u"}, "reason": "Preempted", "count": 3}
    return [node, pod, event, make_priority_class("high", 1000)]


OBJECT_SETS = {"objects with fields no reader reads": _unread_fields()}
OBJECT_SETS.update({f"every object of real-cluster trace {t.name}": _all_objects(t) for t in TRACES})
OBJECT_SETS["the objects of every conformance case"] = [o for p in CONFORMANCE for o in load_json(p)["objects"]]


@pytest.mark.parametrize("name", list(OBJECT_SETS))
def test_the_lean_read_keeps_every_field_the_tables_name_and_no_other(tmp_path: Path, name: str) -> None:
    objs = OBJECT_SETS[name]
    path = _write(tmp_path, objs)
    lean = load_objects(path, lean=True)
    assert lean.checked == len(objs)  # the typed read took the file
    assert lean == [_as_lean(o) for o in objs]
    assert load_objects(path) == objs


def test_objects_of_kinds_the_scheduler_does_not_read_are_kept_whole(tmp_path: Path) -> None:
    objs = _unread_fields()
    lean = load_objects(_write(tmp_path, objs), lean=True)
    assert lean[2] == objs[2]
    assert "managedFields" in lean[1]["metadata"] and "fieldsV1" not in lean[1]["metadata"]["managedFields"][0]
    assert "livenessProbe" not in lean[1]["spec"]["containers"][0]
    assert lean[0]["status"]["declaredFeatures"] == ["a", "b"]  # read, not checked: kept


def test_the_server_version_a_capture_names_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path, _unread_fields(),
                  metadata={"annotations": {snapshot.ANN_SERVER_VERSION: "v1.33.2"}})
    assert load_objects(path, lean=True).server_version == "v1.33.2"


# --- the same explanations ----------------------------------------------------------------------------

def _documents(objs: Any, pods: list[str], config: Any = None) -> list[dict]:
    return kubectl_preempt.explain_pods(objs, pods, config)


@pytest.mark.parametrize("case_file", CONFORMANCE, ids=[p.name.split(".")[0] for p in CONFORMANCE])
def test_a_conformance_case_read_lean_is_explained_as_read_whole(tmp_path: Path, case_file: Path) -> None:
    case = load_json(case_file)
    path = _write(tmp_path, case["objects"])
    lean = load_objects(path, lean=True)
    assert lean.checked == len(case["objects"])
    whole = load_objects(path)
    assert _documents(lean, [case["pod"]], case.get("config")) == _documents(whole, [case["pod"]], case.get("config"))


@pytest.mark.parametrize("trace", TRACES, ids=[f"{t.parent.name}/{t.name}" for t in TRACES])
def test_the_end_of_a_real_cluster_trace_read_lean_explains_every_pod_as_read_whole(tmp_path: Path, trace: Path) -> None:
    objs = _final_objects(trace)
    path = _write(tmp_path, objs)
    lean, whole = load_objects(path, lean=True), load_objects(path)
    assert lean.checked == len(objs)
    pods = [f"{o['metadata'].get('namespace') or 'default'}/{o['metadata']['name']}" for o in objs
            if o["kind"] == "Pod" and (o.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    assert pods
    assert _documents(lean, pods) == _documents(whole, pods)


# --- the pods of a workload share the repeating parts of their specs ---------------------------------

_ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}


def _web(name: str, node: str, cpu: str = "1") -> dict:
    return (make_pod(name).label("app", "web").req(cpu=cpu, memory="1Gi").on(node).affinity(copy.deepcopy(_ANTI))
            .toleration("dedicated", "gpu", "NoSchedule").obj())


# (pod a, pod b, the spec fields they share as one object; the fields they hold apart)
SHARED = {
    "two pods of one template on two nodes": (
        _web("a", "node-1"), _web("b", "node-2"), ["containers", "affinity", "tolerations"], []),
    "two pods whose requests differ": (
        _web("a", "node-1"), _web("b", "node-1", cpu="2"), ["affinity", "tolerations"], ["containers"]),
    "a pod without affinity beside one with": (
        make_pod("a").req(cpu="1").obj(), _web("b", "node-1"), [], ["containers"]),
}


@pytest.mark.parametrize("name", list(SHARED))
def test_pods_whose_spec_parts_read_alike_share_them_and_read_as_the_careful_read(tmp_path: Path, name: str) -> None:
    a, b, shared, apart = SHARED[name]
    objs = [make_node("node-1").alloc(cpu="8").obj(), make_node("node-2").alloc(cpu="8").obj(), a, b]
    lean = load_objects(_write(tmp_path, objs), lean=True)
    assert lean.checked == len(objs)
    assert lean == [_as_lean(o) for o in objs]
    sa, sb = lean[2]["spec"], lean[3]["spec"]
    for field in shared:
        assert sa[field] is sb[field], field
    for field in apart:
        assert sa.get(field) is not sb.get(field), field
    # each pod its own spec, metadata and status: those differ from pod to pod
    assert sa is not sb and lean[2]["metadata"] is not lean[3]["metadata"]


def test_past_the_most_texts_a_reader_keeps_a_new_part_is_read_and_not_shared(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "SHARED_TEXTS", 1)
    objs = [make_node("node-1").alloc(cpu="8").obj(), _web("a", "node-1"), _web("b", "node-1", cpu="2"),
            _web("c", "node-1", cpu="2"), _web("d", "node-1")]
    lean = load_objects(_write(tmp_path, objs), lean=True)
    assert lean == [_as_lean(o) for o in objs]
    containers = [o["spec"]["containers"] for o in lean[1:]]
    # the first text is kept and shared; the second, one too many, is read for each pod
    assert containers[0] is containers[3] and containers[1] is not containers[2]


# --- the same cluster ----------------------------------------------------------------------------------

def _finished(obj: dict, phase: str = "Succeeded") -> dict:
    obj["status"] = {"phase": phase}
    return obj


def _listing(*extra: dict) -> list[dict]:
    """Two nodes, a class and three pods, then `extra`."""
    return [make_node("node-1").alloc(cpu="4").obj(), make_priority_class("high", 1000),
            make_pod("a").req(cpu="1").on("node-1").obj(), make_pod("b").req(cpu="2").on("node-2").obj(),
            make_node("node-2").alloc(cpu="4").obj(), make_pod("c").req(cpu="500m").obj(), *extra]


# each a List whose pods the lean read adds at once (Cluster._add_viewed_pods) or, where that could
# change what is said, one by one in file order as the careful read does; with the error it makes
# (None: a cluster)
CLUSTERS: dict[str, tuple[list[dict], str | None]] = {
    "pods listed once each, among nodes": (_listing(), None),
    "a finished pod among them": (_listing(_finished(make_pod("d").req(cpu="1").on("node-1").obj())), None),
    "a failed pod among them": (_listing(_finished(make_pod("d").req(cpu="1").obj(), "Failed")), None),
    "a pod of the same name in another namespace": (
        _listing(make_pod("a").req(cpu="1").obj() | {"metadata": {"name": "a", "namespace": "other"}}), None),
    "the same pod twice": (_listing(make_pod("a").req(cpu="3").on("node-2").obj()),
                           "items[6] (Pod default/a): listed twice: items[2] is the same Pod"),
    "the same pod twice, the first finished": (
        [_finished(make_pod("a").req(cpu="1").obj()), *_listing()],
        "items[3] (Pod default/a): listed twice: items[0] is the same Pod"),
    "the same pod twice, the second finished": (
        _listing(_finished(make_pod("b").req(cpu="1").obj())),
        "items[6] (Pod default/b): listed twice: items[3] is the same Pod"),
    "the same finished pod twice": (
        _listing(_finished(make_pod("d").obj()), _finished(make_pod("d").obj())),
        "items[7] (Pod default/d): listed twice: items[6] is the same Pod"),
    "a pod whose requests do not compute, then a pod of its name": (
        _listing(make_pod("d").req(cpu="1").obj(), make_pod("e").req(cpu="1.5.0").obj(),
                 make_pod("d").req(cpu="1").obj()),
        "items[7] (Pod default/e).spec.containers[0].resources.requests.cpu"),
    "the same node twice after the pods": (
        _listing(make_node("node-1").alloc(cpu="8").obj()),
        "items[6] (Node node-1): listed twice: items[0] is the same Node"),
    "a node whose allocatable does not compute after the pods": (
        _listing(make_node("node-3").alloc(cpu="4x").obj()), "items[6] (Node node-3).status.allocatable.cpu"),
    "the same pod twice after a node that is wrong": (
        _listing(make_node("node-3").alloc(cpu="4x").obj(), make_pod("a").req(cpu="1").obj()),
        "items[6] (Node node-3).status.allocatable.cpu"),
}


def _cluster_of(path: str, lean: bool) -> Any:
    """Everything a reader sees of the cluster built from `path`: the error line, or its pods (in
    their order, each with its view's fields), nodes, counts and notes."""
    try:
        c = Cluster.from_objects(load_objects(path, lean=lean))
    except InputError as e:
        return str(e)
    return ([(k, p.uid, p.node_name, p.priority, p.phase, p.resource.resource.milli_cpu) for k, p in c.pods.items()],
            list(c.nodes), c.finished_pods, c.version, c.notes, sorted(c.priority_classes))


@pytest.mark.parametrize("name", list(CLUSTERS))
def test_a_cluster_read_lean_is_the_cluster_read_whole(tmp_path: Path, name: str) -> None:
    objs, error = CLUSTERS[name]
    path = _write(tmp_path, objs)
    assert load_objects(path, lean=True).checked == len(objs)
    lean = _cluster_of(path, True)
    assert lean == _cluster_of(path, False)
    if error is None:
        assert not isinstance(lean, str) and lean[0]
    else:
        assert isinstance(lean, str) and error in lean, lean


# each a List, with whether the lean read hands the cluster its pods keyed by namespace/name (it
# does unless two share one)
KEYED: dict[str, tuple[list[dict], bool]] = {
    "pods listed once each, among nodes": (_listing(), True),
    "a finished pod among them": (_listing(_finished(make_pod("d").req(cpu="1").on("node-1").obj())), True),
    "the same pod twice": (_listing(make_pod("a").req(cpu="3").on("node-2").obj()), False),
    "the same finished pod twice": (
        _listing(_finished(make_pod("d").obj()), _finished(make_pod("d").obj())), False),
}


@pytest.mark.parametrize("name", list(KEYED))
def test_the_lean_read_keys_its_pods_as_it_reads_them_and_the_cluster_holds_those_views(
        tmp_path: Path, name: str) -> None:
    objs, keyed = KEYED[name]
    objects = load_objects(_write(tmp_path, objs), lean=True)
    views = [p for p in objects.pods if p is not None]
    if not keyed:
        assert objects.pods_by_key is None
        return
    assert list(objects.pods_by_key.items()) == [(p.key, p) for p in views]
    cluster = Cluster.from_objects(objects)
    live = [p for p in views if p.phase not in ("Succeeded", "Failed")]
    assert list(cluster.pods) == [p.key for p in live]
    assert all(cluster.pods[p.key] is p for p in live)
    assert cluster.finished_pods == len(views) - len(live)


# --- the same refusals ---------------------------------------------------------------------------------

def _outcome(path: str, lean: bool) -> Any:
    """What reading `path` and building its cluster gives: the error line, or the cluster's pods."""
    try:
        cluster = Cluster.from_objects(load_objects(path, lean=lean))
    except InputError as e:
        return str(e)
    return sorted((k, p.priority, p.node_name, p.resource.resource.milli_cpu) for k, p in cluster.pods.items())


@pytest.mark.parametrize("case", FUZZ_CASES, ids=fuzz_id)
def test_a_wrong_type_anywhere_is_refused_as_the_careful_read_refuses_it(tmp_path: Path, case: tuple) -> None:
    header, events = _mutated(*case)
    start = header["startTime"]
    objs = [e["object"] for e in events if e["time"] == start and e["type"] != "BOOKMARK"]
    path = _write(tmp_path, objs)
    assert _outcome(path, True) == _outcome(path, False)


def _pods_with(field: str, text: str | bytes) -> bytes:
    """A List of two nodes and a pod whose spec holds `field` as `text`, verbatim."""
    raw = text if isinstance(text, bytes) else text.encode()
    objs = [make_node("node-1").alloc(cpu="4").obj(), make_node("node-2").alloc(cpu="4").obj(),
            make_pod("web").req(cpu="1").on("node-1").obj()]
    data = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": objs})
    return data.replace(b'"spec":{"containers"', b'"spec":{"' + field.encode() + b'":' + raw + b',"containers"')


# documents whose every value has the right type, yet which orjson refuses, or reads otherwise than
# msgspec, in a field no table names or in one kept unchecked
TEXTS = {
    "a number no double holds in a field no reader reads": _pods_with("dnsConfig", '{"ndots": 1e400}'),
    "a negative one": _pods_with("dnsConfig", '{"ndots": -1.5E+999}'),
    "a 400-digit integer in a field no reader reads": _pods_with("dnsConfig", "1" + "0" * 400),
    "an integer beyond 64 bits in a field kept unchecked": _pods_with("hostUsers", "1" + "0" * 25),
    "bytes that are not UTF-8 in a field no reader reads": _pods_with("dnsPolicy", b'"caf\xe9"'),
    "a lone surrogate in a field no reader reads": _pods_with("dnsPolicy", '"\\ud800"'),
    "an invalid escape in a field no reader reads": _pods_with("dnsPolicy", '"\\q"'),
    "a control character in a field no reader reads": _pods_with("dnsPolicy", '"a\tb"'),
    "nesting deeper than orjson reads in a field no reader reads": _pods_with("dnsConfig", "[" * 1100 + "]" * 1100),
    "a field no reader reads twice": _pods_with("dnsPolicy", '"a","dnsPolicy":"b"'),
    "the priority twice, the second bad": _pods_with("priority", '1,"priority":"x"'),
}


@pytest.fixture(params=["here", "beside"])
def plain_asked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether the document is plain text asked in this process, or in a forked child on the other
    core (io/beside.py) while this one decodes: the read is the same either way."""
    monkeypatch.setattr(beside, "can_fork", lambda: request.param == "beside")


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_document_orjson_reads_otherwise_is_read_as_the_careful_read_reads_it(
        tmp_path: Path, name: str, plain_asked: None) -> None:
    p = _written(tmp_path, TEXTS[name])
    assert _outcome(p, True) == _outcome(p, False)


def _written(tmp_path: Path, text: bytes) -> str:
    p = tmp_path / "s.json"
    p.write_bytes(text)
    return str(p)


HARMLESS = {
    "UIDs and digests of hex digits": _pods_with("dnsPolicy", '"3f1e523e-0e10-4e92-a7c1-1e999"'),
    "numbers with small exponents and fractions": _pods_with("dnsConfig", '[1e5, 2.5E-3, 1.0e+10, -0.5]'),
    "a number of an exponent of three digits after a minus: too small, never too large": _pods_with(
        "dnsConfig", '[1e-400, -2.5E-999]'),
    "a long number inside a string": _pods_with("dnsPolicy", '"1234567890123456789012345"'),
    "text that is not ASCII": _pods_with("dnsPolicy", '"café \\ud83d\\ude00"'),
}


@pytest.mark.parametrize("name", list(HARMLESS))
def test_what_msgspec_and_orjson_read_alike_takes_the_typed_read(tmp_path: Path, name: str, plain_asked: None) -> None:
    p = _written(tmp_path, HARMLESS[name])
    assert load_objects(p, lean=True).checked == 3
    assert _outcome(p, True) == _outcome(p, False)


# numbers among strings, each beside a '"' where the look at numbers may cut the document
NUMBERS_BESIDE_QUOTES = {
    "a long integer after a string": b'{"a":"x","b":12345678901234567890123,"c":"y"}',
    "a long integer in an array of strings": b'["x",12345678901234567890123,"y"]',
    "a long exponent after a string": b'{"a":"x","b":-1.5e+400,"c":"y"}',
    "a long exponent without a sign": b'{"a":"x","b":25E400}',
    "long digits inside strings": b'{"a":"12345678901234567890123","b":"1e400","c":"9"}',
    "digits either side of a quote": b'{"a":"1234567890","b":"1234567890123"}',
    "a small number after an escaped quote": b'{"a":"\\"","b":1e-400,"c":[1,2.5e10]}',
}


@pytest.mark.parametrize("text", [*NUMBERS_BESIDE_QUOTES.values(), *TEXTS.values(), *HARMLESS.values()],
                         ids=[*NUMBERS_BESIDE_QUOTES, *TEXTS, *HARMLESS])
@pytest.mark.parametrize("piece", [1, 5, 40])
def test_the_numbers_of_a_document_looked_at_a_piece_at_a_time_are_judged_as_in_one_piece(
        monkeypatch: pytest.MonkeyPatch, text: bytes, piece: int) -> None:
    whole = snapshot._plain_text(text)
    monkeypatch.setattr(snapshot, "_PIECE", piece)
    assert snapshot._plain_text(text) == whole


def test_with_every_memory_off_the_careful_read_alone_reads(tmp_path: Path) -> None:
    path = _write(tmp_path, _unread_fields())
    with MEMORY.off():
        objs = load_objects(path, lean=True)
    assert objs.checked == 0 and objs == _unread_fields()


@pytest.mark.parametrize("shape", ["a typed list (PodList)", "a conformance case", "a JSON array", "YAML"])
def test_other_shapes_are_read_whole(tmp_path: Path, shape: str) -> None:
    objs = _unread_fields()
    p = tmp_path / "s"
    if shape == "a typed list (PodList)":
        pods = [copy.deepcopy(o) for o in objs if o["kind"] == "Pod"]
        for o in pods:
            del o["kind"]
        p.write_text(json.dumps({"apiVersion": "v1", "kind": "PodList", "items": pods}))
    elif shape == "a conformance case":
        p.write_text(json.dumps({"objects": objs}))
    elif shape == "a JSON array":
        p.write_text(json.dumps(objs))
    else:
        p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}, indent=2).replace("{", "{ ", 1)
                     .join(["# yaml\n", ""]))
    got = load_objects(str(p), lean=True)
    assert got.checked == 0
    assert len(got) == len(objs if shape != "a typed list (PodList)" else [o for o in objs if o["kind"] == "Pod"])


# --- through the command line ------------------------------------------------------------------------

@pytest.mark.parametrize("trace", TRACES[:1] + TRACES[-2:], ids=lambda t: t.name)
@pytest.mark.parametrize("output", ["wide", "json"])
def test_explain_prints_from_a_snapshot_read_lean_what_it_prints_from_one_read_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trace: Path, output: str) -> None:
    from tests.conftest import run_cli

    objs = _final_objects(trace)
    path = _write(tmp_path, objs)
    # every pod, bound ones explained as if pending again
    pods = [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in objs
            if o["kind"] == "Pod" and (o.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    lean = run_cli(["explain", *pods, "--snapshot", path, "-o", output])
    monkeypatch.setattr(snapshot, "LARGE_JSON", 1 << 62)  # none is large: the careful read alone
    whole = run_cli(["explain", *pods, "--snapshot", path, "-o", output])
    assert (lean.code, lean.out, lean.err) == (whole.code, whole.out, whole.err)
    assert lean.code == 0 and lean.out


def _pod_level_list(tmp_path: Path, with_pod_level: bool) -> str:
    big = make_pod("big").container(cpu="1").on("n1")
    if with_pod_level:
        big = big.set("spec.resources", {"requests": {"cpu": "3"}})
    objs = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(), big.obj(), make_pod("p").req(cpu="2").obj()]
    return _write(tmp_path, objs)


@pytest.mark.parametrize("with_pod_level", [True, False])
def test_a_lean_read_says_whether_a_pod_sets_pod_level_resources(tmp_path: Path, with_pod_level: bool,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # the read looks at each spec as it decodes it (io/snapshot.py _typed_list), so that the
    # scheduler's question (Cluster.has_pod_level_resources) needs no second pass over the pods
    cluster = Cluster.from_objects(load_objects(_pod_level_list(tmp_path, with_pod_level), lean=True))
    from kubectl_preempt.model import cluster as cluster_module
    walked = []
    real_spec = cluster_module._SPEC
    monkeypatch.setattr(cluster_module, "_SPEC", lambda pod: walked.append(pod) or real_spec(pod))
    assert cluster.has_pod_level_resources() is with_pod_level
    assert walked == []
    # a change of the set of pods asks the pods again: the read's answer was for its own pods
    big = cluster.pods["default/big"]
    del cluster.pods["default/big"]
    cluster.pod_set_version += 1
    assert cluster.has_pod_level_resources() is False
    cluster.pods["default/big"] = big
    cluster.pod_set_version += 1
    assert cluster.has_pod_level_resources() is with_pod_level
    assert walked

