"""Issue 34, the replay's setup: a replay whose trace names no server version reads its initial
nodes' kubelet versions once, for the release it replays with (scheduler_version) and for where
that release came from (scheduler_version_source), not once for each: each reading walks the
trace's whole initial state. What the report says is unchanged."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.replay import api as replay_api
from tests.builders import make_node, make_pod

from .helpers import ev, trace


def node(name: str, kubelet: str | None) -> dict[str, Any]:
    o = make_node(name).alloc(cpu="4", memory="8Gi").obj()
    if kubelet is not None:
        o["status"]["nodeInfo"] = {"kubeletVersion": kubelet}
    return o


def a_trace(*kubelets: str | None) -> dict[str, Any]:
    nodes = [ev(0, "ADDED", node(f"n{i}", k)) for i, k in enumerate(kubelets)]
    return trace(*nodes, ev(1, "ADDED", make_pod("p").uid("uid-p").req(cpu="1").obj()), end=5)


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    count: list[int] = []
    real = replay_api.trace_kubelets

    def counted(events: Any) -> Any:
        count.append(1)
        return real(events)

    monkeypatch.setattr(replay_api, "trace_kubelets", counted)
    return count


CASES = [
    ("the newest kubelet names the release and its source", ("v1.33.2", "v1.35.1"), "v1.35", "v1.35.1"),
    ("nodes without a kubelet version leave the default", (None, None), None, None),
]


@pytest.mark.parametrize("kubelets,minor,newest", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_one_reading_of_the_kubelets_serves_the_release_and_its_source(
        readings: list[int], kubelets: tuple, minor: str | None, newest: str | None) -> None:
    report = replay_api.replay(a_trace(*kubelets))
    assert len(readings) == 1
    if newest is not None:
        assert report["schedulerVersion"].startswith(minor)
        assert report["schedulerVersionSource"] == {"from": "kubelet", "kubeletVersion": newest}
    else:
        assert report["schedulerVersionSource"] == {"from": "default"}


def test_a_malformed_kubelet_version_is_still_refused_naming_the_node(readings: list[int]) -> None:
    with pytest.raises(InputError) as err:
        replay_api.replay(a_trace("v1.34.0", "banana"))
    assert err.value.field == "Node n1: status.nodeInfo.kubeletVersion"
