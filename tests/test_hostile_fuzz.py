"""Type confusion at every field of real-cluster traces: a wrong-typed value anywhere must end in
the library's InputError (exit 2 and one line from the CLI) or in a normal answer, never in
another exception, and in bounded time.

Every distinct field path of the traces in tests/corpus/realcluster and traces/ (list indexes folded:
spec.containers[].resources.requests.cpu) is mutated once, at its first occurrence, with values
of the wrong JSON types. The public API runs on all of them (explain on the trace's initial state
as a snapshot, replay on the trace's start); the CLI on a deterministic sample.
"""
from __future__ import annotations

import copy
import gzip
import io
import json
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, Iterator

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.errors import InputError
from kubectl_preempt.replay.api import replay
from tests.corpus import corpus_path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(corpus_path("realcluster").glob("*.jsonl.gz")) + sorted((ROOT / "traces").glob("*.jsonl.gz"))
EVENTS_AFTER_START = 25  # enough of each trace for pods to be created, scheduled and preempted
CLI_EVERY = 9


def _wrong_values(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return ["yes", 1]
    if isinstance(v, int):
        return ["12", 10**40]
    if isinstance(v, float):
        return ["x"]
    if isinstance(v, str):
        return [42, ["x"], {"a": "b"}]
    if isinstance(v, list):
        return [42, "x", {"a": "b"}, [None], [7]]
    if isinstance(v, dict):
        return ["x", [1], 3.5, {"": None}]
    return []


def _paths(v: Any, steps: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    yield steps, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, steps + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, steps + (i,))


def _shape(kind: str, steps: tuple) -> str:
    return kind + ":" + "".join("[]" if isinstance(s, int) else f".{s}" for s in steps)


def _load(path: Path) -> tuple[dict, list[dict]]:
    lines = [orjson.loads(ln) for ln in gzip.decompress(path.read_bytes()).split(b"\n") if ln.strip()]
    header, events = lines[0], lines[1:]
    start = header["startTime"]
    n0 = next((i for i, e in enumerate(events) if e["time"] != start), len(events))
    return header, events[:n0 + EVENTS_AFTER_START]


def _cases() -> list[tuple[str, int, tuple, Any]]:
    """(source, event index, steps inside the object, wrong value): each field shape once, at its
    first occurrence in any trace, with one of the wrong values for its type (taken in turn, so
    that every wrong type is tried on many fields while the suite stays fast)."""
    out = []
    seen: set[str] = set()
    turn = 0
    for src in SOURCES:
        _, events = _load(src)
        for i, ev in enumerate(events):
            o = ev["object"]
            for steps, v in _paths(o):
                if not steps or steps[0] == "kind":
                    continue
                key = _shape(o.get("kind"), steps)
                if key in seen:
                    continue
                seen.add(key)
                wrong = _wrong_values(v)
                if wrong:
                    out.append((str(src), i, steps, wrong[turn % len(wrong)]))
                    turn += 1
    return out


CASES = _cases()


def _mutated(src: str, index: int, steps: tuple, wrong: Any) -> tuple[dict, list[dict]]:
    header, events = _load(Path(src))
    events = copy.deepcopy(events)
    target = events[index]["object"]
    for s in steps[:-1]:
        target = target[s]
    target[steps[-1]] = wrong
    return header, events


def _id(case: tuple) -> str:
    src, index, steps, wrong = case
    return f"{Path(src).name.split('.')[0]}:{index}:{'.'.join(map(str, steps))}={type(wrong).__name__}"


def test_the_fuzz_covers_every_kind_and_many_fields() -> None:
    kinds = {_shape(ev["object"]["kind"], ()) for src in SOURCES for ev in _load(src)[1]}
    assert {"Pod:", "Node:", "PodDisruptionBudget:", "PriorityClass:"} <= kinds
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES[::1], ids=_id)
def test_wrong_type_through_the_api_is_input_error_or_an_answer(case: tuple) -> None:
    header, events = _mutated(*case)
    t0 = time.monotonic()
    start = header["startTime"]
    initial = [e["object"] for e in events if e["time"] == start and e["type"] != "BOOKMARK"]
    try:
        cluster_objects = initial
        pods = [o for o in initial if o.get("kind") == "Pod"]
        key = None
        for o in pods:
            md = o.get("metadata")
            if isinstance(md, dict) and isinstance(md.get("name"), str) and isinstance(md.get("namespace"), str):
                key = f"{md['namespace']}/{md['name']}"
                break
        if key is not None:
            kubectl_preempt.explain(cluster_objects, key)
    except InputError:
        pass
    try:
        replay({"header": header, "events": events})
    except InputError:
        pass
    assert time.monotonic() - t0 < 20


@pytest.mark.parametrize("case", CASES[::CLI_EVERY], ids=_id)
def test_wrong_type_through_the_cli_is_one_line_and_exit_2(case: tuple, tmp_path: Path) -> None:
    from kubectl_preempt.cli.main import main

    header, events = _mutated(*case)
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps(x) + "\n" for x in [header, *events]))
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        rc = main(["replay", str(trace), "-o", "json"])
    assert rc in (0, 2), err.getvalue()
    if rc == 2:
        lines = err.getvalue().splitlines()
        assert lines[-1].startswith(f"error: {trace}: line "), lines
        assert len([ln for ln in lines if ln.startswith("error")]) == 1
        assert "Traceback" not in err.getvalue()
