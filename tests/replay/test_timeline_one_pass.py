"""Issue 34, the replay's setup: normalize reads each event and checks its object's shape in one
pass (the kind's fast pass, model/schema.py fast_checker); only a doubt sends the whole trace
to check_objects, which names the first bad object in the trace's order, after every event's
structure, as before. The errors are the ones the two passes gave."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.model.memory import MEMORY
from kubectl_preempt.replay import timeline as timeline_module
from kubectl_preempt.replay.timeline import TraceEvent, normalize
from tests.builders import make_node, make_pod

from .helpers import START, ev, trace

N1 = make_node("n1").alloc(cpu="4", memory="8Gi").obj()


def pod(name: str, **spec: Any) -> dict[str, Any]:
    o = make_pod(name).uid(f"uid-{name}").req(cpu="1").obj()
    o["spec"].update(spec)
    return o


def test_a_trace_the_fast_pass_accepts_is_not_walked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[int] = []
    monkeypatch.setattr(timeline_module, "check_objects", lambda objects, where=None: called.append(len(objects)))
    tl = normalize(trace(ev(0, "ADDED", N1), ev(0, "ADDED", pod("a")), ev(5, "ADDED", pod("b")), end=10))
    assert [e.name for e in tl.initial + tl.events] == ["n1", "a", "b", ""]
    assert called == []


def test_with_every_memory_off_every_object_goes_to_the_careful_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[int] = []
    real = timeline_module.check_objects

    def spy(objects: list, where: Any = None) -> None:
        called.append(len(objects))
        real(objects, where)

    monkeypatch.setattr(timeline_module, "check_objects", spy)
    with MEMORY.off():
        normalize(trace(ev(0, "ADDED", N1), ev(5, "ADDED", pod("b")), end=10))
    assert called == [2]  # the node and the pod, not the bookmark


def bad_priority(name: str) -> dict[str, Any]:
    return pod(name, priority="high")


CASES: list[tuple[str, Callable[[], Any], str]] = [
    ("a bad object's shape is named by its event and object",
     lambda: trace(ev(0, "ADDED", N1), ev(5, "ADDED", bad_priority("p")), end=10),
     "events[1] (Pod default/p).spec.priority"),
    ("of two bad objects, the first in the trace's order is named",
     lambda: trace(ev(0, "ADDED", N1), ev(5, "ADDED", pod("ok")), ev(6, "ADDED", bad_priority("p")),
                   ev(7, "ADDED", bad_priority("q")), end=10),
     "events[2] (Pod default/p).spec.priority"),
    ("a bad event after a bad object is named first: the structure of every event comes before shapes",
     lambda: {"header": {"startTime": "2026-03-01T10:00:00Z"},
              "events": [ev(0, "ADDED", N1), ev(5, "ADDED", bad_priority("p")),
                         {"time": "2026-03-01T10:00:06Z", "type": "CHANGED", "object": pod("q")}]},
     "events[2].type"),
    ("an event without a time after a bad object is named first",
     lambda: {"header": {"startTime": "2026-03-01T10:00:00Z"},
              "events": [ev(0, "ADDED", bad_priority("p")), {"time": "soon", "type": "ADDED", "object": pod("q")}]},
     "events[1].time"),
    ("an object without a name after a bad object is named first",
     lambda: {"header": {"startTime": "2026-03-01T10:00:00Z"},
              "events": [ev(0, "ADDED", bad_priority("p")), ev(1, "ADDED", {"kind": "Pod", "metadata": {}})]},
     "events[1].object.metadata.name"),
    ("a bad object handed in as a TraceEvent is named by its where",
     lambda: [TraceEvent(START, "ADDED", N1, "Node", "initial"), TraceEvent(START + 5, "ADDED", bad_priority("p"), "Pod", "line 7")],
     "line 7 (Pod default/p).spec.priority"),
    ("a bad object read as a mapping that is not a dict is still named",
     lambda: trace(ev(0, "ADDED", N1), ev(5, "ADDED", _Frozen(bad_priority("p")))),
     "events[1] (Pod default/p).spec.priority"),
]


class _Frozen(dict):
    """A dict subclass: not a plain JSON object, so the fast pass leaves it to the careful checks."""


@pytest.mark.parametrize("events,field", [pytest.param(c[1], c[2], id=c[0]) for c in CASES])
def test_bad_input_is_named_as_the_two_passes_named_it(events: Callable[[], Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        normalize(events())
    assert err.value.field == field


def test_a_mapping_that_is_not_a_dict_and_is_well_formed_is_accepted() -> None:
    tl = normalize(trace(ev(0, "ADDED", N1), ev(5, "ADDED", _Frozen(pod("p"))), end=10))
    assert [e.key for e in tl.events][:1] == ["default/p"]


def test_events_out_of_order_are_sorted_stably_and_the_initial_state_is_the_start() -> None:
    tl = normalize(trace(ev(0, "ADDED", N1), ev(7, "ADDED", pod("late")), ev(3, "ADDED", pod("early")),
                         ev(3, "ADDED", pod("early2")), ev(0, "ADDED", pod("first"))))
    assert [e.name for e in tl.initial] == ["n1", "first"]
    assert [e.name for e in tl.events] == ["early", "early2", "late"]
