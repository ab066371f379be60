from __future__ import annotations

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.model.cluster import Cluster
from tests.builders import make_pod, make_priority_class


def _prio(pod, *classes):
    c = Cluster.from_objects([*classes, pod.obj()])
    p = next(iter(c.pods.values()))
    return p.priority, p.preemption_policy


def test_recorded_priority_wins_over_the_class() -> None:
    assert _prio(make_pod("a").priority(5).priority_class("high"), make_priority_class("high", 1000))[0] == 5


def test_class_by_name_gives_value_and_policy() -> None:
    assert _prio(make_pod("a").priority_class("high"), make_priority_class("high", 1000, policy="Never")) == (1000, "Never")


def test_global_default_applies_without_a_class_name() -> None:
    assert _prio(make_pod("a"), make_priority_class("def", 7, global_default=True))[0] == 7


@pytest.mark.parametrize("name, value", [("system-cluster-critical", 2000000000), ("system-node-critical", 2000001000)])
def test_system_classes_exist_even_when_absent(name, value) -> None:
    assert _prio(make_pod("a").priority_class(name))[0] == value


def test_no_class_no_default_is_zero() -> None:
    assert _prio(make_pod("a"))[0] == 0


def test_an_unknown_class_is_bad_input() -> None:
    with pytest.raises(InputError, match="no PriorityClass with name missing was found"):
        _prio(make_pod("a").priority_class("missing"))
