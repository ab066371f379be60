"""PrioritySort: higher priority first, then the earlier queued."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins import queuesort
from tests.builders import make_pod

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _q(name: str, priority: int, seconds: int) -> SimpleNamespace:
    return SimpleNamespace(pod=Pod(make_pod(name).priority(priority).obj()), timestamp=T0 + timedelta(seconds=seconds))


@pytest.mark.parametrize("a,b,less", [
    (_q("a", 10, 5), _q("b", 1, 0), True),
    (_q("a", 1, 0), _q("b", 10, 5), False),
    (_q("a", 5, 0), _q("b", 5, 1), True),
    (_q("a", 5, 1), _q("b", 5, 0), False),
    (_q("a", 5, 0), _q("b", 5, 0), False),
], ids=["higher priority first, even if queued later", "lower priority after",
        "equal priority: earlier first", "equal priority: later after", "a tie is not less"])
def test_less(a: SimpleNamespace, b: SimpleNamespace, less: bool) -> None:
    assert queuesort.new({}, None).less(a, b) is less
