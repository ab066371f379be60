"""The FitError a replay reports travels twice: upstream's message, byte for byte, and the same
content as data (reasons with node counts) that render formats. The two must say the same."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from kubectl_preempt.api import replay
from kubectl_preempt.io.trace import read_trace

TRACES = Path(__file__).resolve().parents[2] / "traces"


def _histogram(reasons: list[Mapping[str, Any]]) -> str:
    return ", ".join(f"{r['nodes']} {r['reason']}" for r in reasons)


def _agrees(message: str, fields: Mapping[str, Any]) -> None:
    head = message.split(": ", 1)[1]  # after "0/N nodes are available"
    filters = fields.get("preFilterMessage") or _histogram(fields["reasons"])
    assert head.startswith(filters + "."), (message, fields)
    if fields.get("preemptionReasons"):
        assert message.endswith(f"preemption: {message.split('preemption: ', 1)[1].split(': ', 1)[0]}: "
                                f"{_histogram(fields['preemptionReasons'])}."), (message, fields)
    if fields.get("preemptionMessage"):
        assert message.endswith("preemption: " + fields["preemptionMessage"]), (message, fields)


def test_the_reasons_beside_a_fit_error_say_what_its_message_says() -> None:
    seen = 0
    for name in ("demo.jsonl.gz", "gpu-training-vs-inference.jsonl.gz", "priorityclass-rollout.jsonl.gz"):
        report = replay(read_trace(str(TRACES / name)))
        for p in report["preemptions"]:
            why = p.get("why") or {}
            if "reasons" in why:
                _agrees(why["message"], why)
                seen += 1
        for n in report["summary"].get("neverScheduled") or []:
            if "reasons" in n:
                _agrees(n["lastMessage"], n)
                seen += 1
    assert seen > 10
