"""The engine: a heap of (time, priority, sequence, event), as SimPy's."""
from __future__ import annotations

import pytest

from kubectl_preempt.replay.engine import (INFINITY, PRIORITY_INTERNAL, PRIORITY_SCHEDULE, PRIORITY_TRACE,
                                           EmptySchedule, Engine)


def test_events_run_in_time_then_priority_then_scheduling_order() -> None:
    eng = Engine(0.0)
    seen: list[str] = []
    eng.schedule(2.0, lambda: seen.append("t2"), priority=PRIORITY_TRACE)
    eng.schedule(1.0, lambda: seen.append("t1-schedule"), priority=PRIORITY_SCHEDULE)
    eng.schedule(1.0, lambda: seen.append("t1-trace-a"), priority=PRIORITY_TRACE)
    eng.schedule(1.0, lambda: seen.append("t1-internal"), priority=PRIORITY_INTERNAL)
    eng.schedule(1.0, lambda: seen.append("t1-trace-b"), priority=PRIORITY_TRACE)
    eng.run()
    assert seen == ["t1-trace-a", "t1-trace-b", "t1-internal", "t1-schedule", "t2"]
    assert eng.now == 2.0


def test_run_until_stops_at_the_limit_and_leaves_later_events() -> None:
    eng = Engine(10.0)
    seen: list[float] = []
    for t in (11.0, 12.0, 15.0):
        eng.schedule(t, lambda t=t: seen.append(t))
    eng.run(until=12.0)
    assert seen == [11.0, 12.0]
    assert eng.now == 12.0
    assert eng.peek() == 15.0


def test_an_event_scheduled_in_the_past_runs_now() -> None:
    eng = Engine(5.0)
    seen: list[float] = []
    eng.schedule(1.0, lambda: seen.append(eng.now))
    eng.step()
    assert seen == [5.0]


def test_cancelled_events_are_skipped_and_peek_ignores_them() -> None:
    eng = Engine(0.0)
    seen: list[str] = []
    a = eng.schedule(1.0, lambda: seen.append("a"))
    eng.schedule(2.0, lambda: seen.append("b"))
    a.cancel()
    assert eng.peek() == 2.0
    eng.run()
    assert seen == ["b"]
    assert eng.peek() == INFINITY


def test_step_on_an_empty_engine_raises() -> None:
    with pytest.raises(EmptySchedule):
        Engine().step()


def test_events_scheduled_by_events_at_the_same_instant_run_after_them() -> None:
    eng = Engine(0.0)
    seen: list[str] = []

    def first() -> None:
        seen.append("first")
        eng.schedule(eng.now, lambda: seen.append("chained"), priority=PRIORITY_TRACE)

    eng.schedule(0.0, first, priority=PRIORITY_TRACE)
    eng.schedule(0.0, lambda: seen.append("second"), priority=PRIORITY_TRACE)
    eng.run()
    assert seen == ["first", "second", "chained"]
