"""Issue 35: the scheduler knows nothing of traces. A trace's events (replay/timeline.py
TraceEvent: .time, .type, .kind, .obj) are read by the replay, once (replay/calibration.py); no
module of scheduler/ imports the replay, names its trace types, or reads an event's object."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SCHEDULER = Path(__file__).resolve().parents[2] / "kubectl_preempt" / "scheduler"
# what reading a trace event takes: its types, and its object (TraceEvent.obj, a name nothing
# else in the package uses for a field)
TRACE_NAMES = {"TraceEvent", "Timeline", "normalize"}
TRACE_FIELDS = {"obj"}


def trace_reads(source: str) -> list[str]:
    """Where this module's source reads trace events (line: what), empty when it does not."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if "replay" in mod.split(".") or "timeline" in mod.split("."):
                found.append(f"{node.lineno}: imports {mod}")
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name in TRACE_NAMES]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if ".replay" in a.name]
        elif isinstance(node, ast.Name) and node.id in TRACE_NAMES:
            found.append(f"{node.lineno}: names {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in TRACE_FIELDS:
            found.append(f"{node.lineno}: reads .{node.attr}")
    return found


@pytest.mark.parametrize("path", sorted(SCHEDULER.rglob("*.py")), ids=lambda p: str(p.relative_to(SCHEDULER)))
def test_no_module_of_the_scheduler_reads_trace_events(path: Path) -> None:
    assert trace_reads(path.read_text()) == []


@pytest.mark.parametrize("source, reads", [
    pytest.param("def f(events):\n    for ev in events:\n        ev.obj.get('spec')\n", True,
                 id="a loop over events reading each one's object is a trace read"),
    pytest.param("from ...replay.timeline import TraceEvent\n", True, id="importing the trace's event type is one"),
    pytest.param("def f(pod):\n    return pod.spec.get('nodeName')\n", False, id="reading a pod is not"),
])
def test_the_check_tells_a_trace_read_from_scheduler_code(source: str, reads: bool) -> None:
    assert bool(trace_reads(source)) is reads
