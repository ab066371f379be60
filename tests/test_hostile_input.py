"""Hostile and broken input, each as issue 12 reproduced it: one line on stderr naming the file,
the object and the field, exit 2, no traceback, in bounded time and memory."""
from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import kubectl_preempt
from kubectl_preempt.errors import InputError
from tests.builders import make_node, make_pdb, make_pod, make_priority_class
from tests.conftest import REPO, Run, run_cli

DEMO = str(REPO / "traces" / "demo.jsonl.gz")


def _cluster() -> list[dict]:
    return [make_priority_class("high", 1000), make_node("node-a").alloc(cpu="4").obj(),
            make_node("node-b").alloc(cpu="4").obj(),
            make_pod("low-1").on("node-a").req(cpu="2").priority(10).obj(),
            make_pod("web").req(cpu="3").priority_class("high").obj(),
            make_pdb("pdb", selector={"matchLabels": {"app": "x"}}, allowed=0)]


def _write(tmp_path: Path, objs: list[dict], name: str = "s.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


def one_line_error(run: Run, *needles: str) -> str:
    assert run.code == 2, (run.code, run.out, run.err)
    errors = [ln for ln in run.err.splitlines() if not ln.startswith("note:")]
    assert len(errors) == 1, run.err
    assert errors[0].startswith("error: ") and "Traceback" not in run.err
    for n in needles:
        assert n in errors[0], errors[0]
    return errors[0]


# --- wrong types and values, as the issue found them -----------------------------------------------

def _mutate(objs: list[dict], kind: str, name: str, path: str, value: object) -> list[dict]:
    objs = copy.deepcopy(objs)
    o = next(o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name)
    *steps, last = path.split(".")
    for s in steps:
        o = o.setdefault(s, {})
    o[last] = value
    return objs


@pytest.mark.parametrize("kind,name,path,value,field", [
    ("Pod", "low-1", "spec.containers", "notalist", "(Pod default/low-1).spec.containers: must be a list"),
    ("Node", "node-a", "metadata.labels", "x", "(Node node-a).metadata.labels: must be an object"),
    ("Node", "node-b", "spec.taints", 42, "(Node node-b).spec.taints: must be a list, got a number (42)"),
    ("PodDisruptionBudget", "pdb", "status.disruptionsAllowed", "x", "status.disruptionsAllowed: must be an integer"),
    ("PodDisruptionBudget", "pdb", "status.disruptedPods", 42, "status.disruptedPods: must be an object"),
    ("Pod", "web", "spec.priorityClassName", 42, "(Pod default/web).spec.priorityClassName: must be a string"),
    ("Pod", "low-1", "spec.priority", 2**31, "spec.priority: must be between -2147483648 and 2147483647"),
    ("Pod", "low-1", "spec.containers", [{"name": "c", "resources": {"requests": {"cpu": "-1"}}}],
     "spec.containers[0].resources.requests.cpu: Invalid value: \"-1\": must be greater than or equal to 0"),
    ("Node", "node-a", "status.allocatable", {"cpu": "-4"},
     "(Node node-a).status.allocatable.cpu: Invalid value: \"-4\": must be greater than or equal to 0"),
    ("Pod", "low-1", "spec.containers", [{"name": "c", "resources": {"requests": {"cpu": "1e999999999"}}}],
     "requests.cpu: quantity \"1e999999999\" is out of range"),
])
def test_a_wrong_field_names_file_object_and_field(tmp_path: Path, kind: str, name: str, path: str,
                                                   value: object, field: str) -> None:
    objs = _mutate(_cluster(), kind, name, path, value)
    snap = _write(tmp_path, objs)
    line = one_line_error(run_cli(["explain", "default/web", "--snapshot", snap]), f"error: {snap}: items[", field)
    # the API path raises the same InputError
    with pytest.raises(InputError) as err:
        kubectl_preempt.explain(objs, "default/web")
    assert field in str(err.value)
    assert line.endswith(str(err.value).split(": ", 0)[0][-20:])


def test_the_same_pod_twice_is_refused_naming_both(tmp_path: Path) -> None:
    objs = _cluster()
    twin = copy.deepcopy(objs[3])
    twin["spec"]["nodeName"] = "node-b"
    snap = _write(tmp_path, objs + [twin])
    one_line_error(run_cli(["explain", "default/web", "--snapshot", snap]),
                   "items[6] (Pod default/low-1)", "listed twice: items[3] is the same Pod")


@pytest.mark.parametrize("finished", ["first", "second", "both"])
def test_the_same_pod_twice_is_refused_when_either_has_finished(finished: str) -> None:
    # finished pods are not kept among the cluster's pods, yet a name is still listed once
    objs = _cluster()
    twin = copy.deepcopy(objs[3])
    for i, o in ((3, objs[3]), (len(objs), twin)):
        if finished == "both" or (finished == "first") == (i == 3):
            o["status"] = {"phase": "Succeeded"}
    with pytest.raises(InputError) as err:
        kubectl_preempt.explain(objs + [twin], "default/web")
    assert f"items[{len(objs)}] (Pod default/low-1)" in str(err.value)
    assert "listed twice: items[3] is the same Pod" in str(err.value)


def test_a_pod_on_a_node_not_in_the_snapshot_is_noted(tmp_path: Path) -> None:
    objs = _cluster() + [make_pod("lost").on("node-z").req(cpu="1").obj()]
    run = run_cli(["explain", "default/web", "--snapshot", _write(tmp_path, objs)])
    assert run.code == 0, run.err
    assert "note: " in run.err and "default/lost bound to node node-z, which is not in the snapshot" in run.err


@pytest.mark.parametrize("content", [b"", b"\n", b'{"apiVersion": "v1", "kind": "List", "items": []}'],
                         ids=["empty", "blank", "empty-list"])
def test_an_empty_snapshot_is_an_error(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "empty.json"
    p.write_bytes(content)
    one_line_error(run_cli(["explain", "-A", "--snapshot", str(p)]), "no Kubernetes objects in the file")
    one_line_error(run_cli(["explain", "-A", "--snapshot", "-"], stdin=content), "<stdin>: no Kubernetes objects")


def test_a_5001_digit_integer_in_a_replay_is_an_input_error(tmp_path: Path) -> None:
    # pretty-printed watch events go through the standard library's decoder, which has a digit limit
    event = {"type": "ADDED", "object": make_node("n1").obj()}
    text = json.dumps(event, indent=1).replace('"n1"', '"n1", "generation": ' + "7" * 5001, 1)
    p = tmp_path / "watch.json"
    p.write_text(text)
    one_line_error(run_cli(["replay", str(p)]), f"{p}: ", "more than 4300 digits")


# --- limits ------------------------------------------------------------------------------------------

DEEP = {
    "flow": "a: " + "[" * 30000 + "]" * 30000 + "\n",
    "block-sequences": "- " * 30000 + "x\n",
    "block-mappings": "".join(" " * i + "a:\n" for i in range(600)) + " " * 600 + "b: 1\n",
}


@pytest.mark.parametrize("form", sorted(DEEP))
@pytest.mark.parametrize("flag", ["--snapshot", "-f", "--config", "--priorityclasses", "check-p", "trace"])
def test_yaml_nested_30000_deep_is_refused_in_every_reader(tmp_path: Path, form: str, flag: str) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text(DEEP[form])
    snap = _write(tmp_path, _cluster())
    args = {"--snapshot": ["explain", "-A", "--snapshot", str(deep)],
            "-f": ["explain", "-f", str(deep), "--snapshot", snap],
            "--config": ["explain", "-A", "--snapshot", snap, "--config", str(deep)],
            "--priorityclasses": ["replay", DEMO, "--priorityclasses", str(deep)],
            "check-p": ["check", "--trace", DEMO, "--proposed", str(deep)],
            "trace": ["replay", str(deep)]}[flag]
    # in a child process: a crash of the YAML parser would take the test runner with it
    proc = subprocess.run([sys.executable, "-m", "kubectl_preempt.cli.main", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    one_line_error(Run(proc.returncode, proc.stdout, proc.stderr), str(deep), "nested more than 512 levels deep")


def test_deep_json_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "deep.json"
    p.write_text("[" * 30000 + "]" * 30000)
    one_line_error(run_cli(["explain", "-A", "--snapshot", str(p)]), str(p), "depth limit exceeded")


def test_yaml_aliases_that_expand_to_billions_are_refused(tmp_path: Path) -> None:
    p = tmp_path / "laughs.yaml"
    p.write_text("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                 + "".join(f"c{i}: [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" for i in range(1100)))
    one_line_error(run_cli(["explain", "-A", "--snapshot", str(p)]), "more than 10000 YAML aliases")


def _bomb(path: Path, size: int) -> None:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(c.compress(b'{"kind": "List", "items": ['))
        block = b" " * (1 << 20)
        for _ in range(size >> 20):
            f.write(c.compress(block))
        f.write(c.compress(b"]}") + c.flush())


def test_a_gzip_bomb_stops_at_the_input_limit_with_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    _bomb(bomb, 64 << 20)  # 64 MiB inflated from about 64 KiB
    # VmHWM, not ru_maxrss: the latter carries over the test runner's own peak through fork
    code = (f"import sys; from kubectl_preempt.cli.main import main; "
            f"rc = main(['explain', '-A', '--snapshot', {str(bomb)!r}, '--max-input-size', '8Mi']); "
            f"hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0].split()[1]; "
            f"print(hwm, file=sys.stderr); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    *lines, peak_kib = proc.stderr.splitlines()
    one_line_error(Run(proc.returncode, proc.stdout, "\n".join(lines)), "inflates to more than 8Mi",
                   "--max-input-size")
    assert int(peak_kib) < 200 * 1024  # never the 64 MiB, let alone the gigabytes, on top of the interpreter


def test_the_input_limit_is_raised_by_its_flag(tmp_path: Path) -> None:
    snap = _write(tmp_path, _cluster())
    one_line_error(run_cli(["explain", "-A", "--snapshot", snap, "--max-input-size", "1K"]),
                   "holds more than 1K, the most this reads")
    assert run_cli(["explain", "-A", "--snapshot", snap, "--max-input-size", "1Mi"]).code == 0


@pytest.mark.parametrize("size", ["100T", "99999999999999999999"])
def test_a_limit_past_what_the_machine_holds_reads_the_file_as_it_is(tmp_path: Path, size: str) -> None:
    # a read of `limit + 1` bytes asked the allocator for all of them at once: 100T was a
    # MemoryError, and a limit past 2**63 an OverflowError, both with a traceback
    snap = _write(tmp_path, _cluster())
    assert run_cli(["explain", "-A", "--snapshot", snap, "--max-input-size", size]).code == 0
    piped = run_cli(["explain", "-A", "--snapshot", "-", "--max-input-size", size], stdin=Path(snap).read_bytes())
    assert piped.code == 0, piped.err


def test_a_pipe_is_held_to_the_limit_a_chunk_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_preempt.io import snapshot

    monkeypatch.setattr(snapshot, "_CHUNK", 7)  # many chunks, the last one cut by the limit
    data = Path(_write(tmp_path, _cluster())).read_bytes()
    one_line_error(run_cli(["explain", "-A", "--snapshot", "-", "--max-input-size", str(len(data) - 1)], stdin=data),
                   f"<stdin>: holds more than {len(data) - 1}, the most this reads")
    assert run_cli(["explain", "-A", "--snapshot", "-", "--max-input-size", str(len(data))], stdin=data).code == 0


def _trace_with_late_event(tmp_path: Path, year: str) -> Path:
    lines = gzip.decompress(Path(DEMO).read_bytes()).decode().splitlines()
    lines[-1] = lines[-1].replace('"time":"2026-', f'"time":"{year}-', 1)
    p = tmp_path / "late.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("command", ["replay", "check"])
def test_an_event_in_the_year_9999_is_refused_at_once(tmp_path: Path, command: str) -> None:
    late = _trace_with_late_event(tmp_path, "9999")
    args = ["replay", str(late)] if command == "replay" else \
        ["check", "--trace", str(late), "--proposed", str(REPO / "traces" / "proposals" / "accept")]
    one_line_error(run_cli(args), f"{late}: line ", "years after the trace's start, more than 31d",
                   "--max-trace-span")


def test_trace_span_and_event_count_limits_have_their_flags(tmp_path: Path) -> None:
    one_line_error(run_cli(["replay", DEMO, "--max-trace-events", "10"]), "297 events, more than 10")
    one_line_error(run_cli(["replay", DEMO, "--max-trace-span", "10m"]), "more than 10m (--max-trace-span")
    assert run_cli(["replay", DEMO, "--max-trace-span", "1h", "--max-trace-events", "300", "-o", "json"]).code == 0
    one_line_error(run_cli(["replay", DEMO, "--max-trace-span", "ten"]), "--max-trace-span: \"ten\" is not a duration")


def test_the_limits_are_stated_in_help() -> None:
    for command in ("replay", "check"):
        text = run_cli([command, "--help"]).out
        for flag in ("--max-input-size", "--max-trace-span", "--max-trace-events"):
            assert flag in text
    assert "--max-input-size" in run_cli(["explain", "--help"]).out


def test_a_pipe_closed_early_ends_quietly_with_0() -> None:
    # `kubectl preempt replay | head -1`: the reader leaves after one line
    proc = subprocess.run(f"{sys.executable} -m kubectl_preempt.cli.main replay -o json | head -c 10",
                          shell=True, capture_output=True, text=True, cwd=REPO, timeout=120,
                          executable="/bin/bash")
    assert proc.stdout.startswith("{") and len(proc.stdout) == 10
    code = subprocess.run(f"set -o pipefail; {sys.executable} -m kubectl_preempt.cli.main replay -o json | head -c 10 "
                          ">/dev/null", shell=True, executable="/bin/bash", cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert code.returncode == 0, code.stderr
    assert "Traceback" not in code.stderr and "Broken pipe" not in code.stderr


def test_control_characters_the_input_holds_are_escaped_in_the_error_line(tmp_path: Path) -> None:
    # a kind holding a NUL and a terminal's escape sequence (ESC [31m: red): the one error line
    # shows them as Go's %q escapes them, and writes no control character to the terminal
    objs = _cluster()
    objs[0] = {**objs[0], "kind": "No\x00de\x1b[31m", "metadata": {}}
    run = run_cli(["explain", "default/web", "--snapshot", _write(tmp_path, objs)])
    line = one_line_error(run, "No\\x00de\\x1b[31m without metadata.name")
    assert line.isprintable()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="a device that is always full")
@pytest.mark.parametrize("args", [
    ["explain", "--snapshot", str(REPO / "examples" / "cluster.json"), "batch/etl-3"],
    ["replay", DEMO, "-o", "json"],
    ["replay", DEMO, "--follow"],
    ["demo"],
    ["explain", "--help"],
], ids=["explain", "replay", "replay --follow", "demo", "help"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(args: list[str]) -> None:
    # `> /dev/full` (a full disk): a traceback, then Python's own complaint at exit
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "kubectl_preempt.cli.main", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == "error: standard output: cannot write: No space left on device"
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_a_closed_stdout_is_one_line_and_exit_2() -> None:
    # `>&-`: Python starts without sys.stdout, and the first write raised AttributeError
    proc = subprocess.run(f"{sys.executable} -m kubectl_preempt.cli.main replay -o json >&-", shell=True,
                          executable="/bin/bash", capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == "error: standard output: is closed: the output has nowhere to go"
