"""The loopback API server with planted preemption records, and the command line against it.

Planted (times a few minutes before now): an Event through events.k8s.io/v1 on a victim still
terminating with its condition; Events through v1 of a victim whose preemptor is gone (named by
`related`) and of one no object names; an Event two hours old; a victim with only its condition,
a higher-priority pod nominated to its node; kube-batch's Evict Event on a PodGroup and its pod
being deleted; a kubelet Event; a victim in another namespace."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.builders import make_node, make_pod
from tests.live.fakeapi import FakeAPIServer
from tests.conftest import in_process_cli

from .objects import evict_event, iso, preempted_event, with_condition

NOW = time.time()


def _cluster() -> list[dict[str, Any]]:
    t = NOW - 300  # five minutes ago
    objs: list[dict[str, Any]] = [make_node(f"node-{i}").alloc(cpu="4", memory="8Gi").obj() for i in (1, 2, 3)]

    def victim(name: str, uid: str, node: str, *, cond: float | None = None, **kw: Any) -> dict[str, Any]:
        pod = make_pod(name).ns("batch").uid(uid).priority(10).priority_class("low").req(cpu="3").running(node) \
            .terminating(iso(NOW + 20)).obj()
        return with_condition(pod, cond) if cond is not None else pod

    web0 = make_pod("web-0").ns("team-a").uid("uid-web-0").priority(1000).priority_class("high") \
        .req(cpu="2").nominated("node-1").obj()
    web2 = make_pod("web-2").ns("team-a").uid("uid-web-2").priority(1000).priority_class("high") \
        .req(cpu="2").nominated("node-2").obj()
    objs += [web0, web2]
    # the scheduler's Event through events.k8s.io/v1, and the victim still terminating with its condition
    objs.append(victim("etl-1", "uid-etl-1", "node-1", cond=t))
    objs.append(preempted_event("batch/etl-1", "uid-etl-1", "uid-web-0", "node-1", t + 0.2, related="team-a/web-0",
                                group="events.k8s.io/v1"))
    # through core/v1: the victim and its preemptor are both gone; the Event's related names it
    objs.append(preempted_event("batch/gone-1", "uid-gone-1", "uid-api-7", "node-2", t + 30,
                                related="team-a/api-7"))
    # no object names this preemptor any more
    objs.append(preempted_event("batch/gone-2", "uid-gone-2", "uid-lost", "node-3", t + 40))
    # an Event two hours old: outside --since 1h
    objs.append(preempted_event("batch/old-1", "uid-old-1", "uid-api-7", "node-2", NOW - 7200))
    # a victim whose Event expired: its condition, and the pod nominated to its node
    objs.append(victim("etl-2", "uid-etl-2", "node-2", cond=t + 60))
    # kube-batch's eviction: the Evict Event on the PodGroup, the pod being deleted
    kb = make_pod("job-a-0").ns("batch").uid("uid-kb").priority(1).group("job-a").running("node-3") \
        .set("metadata.deletionTimestamp", iso(int(t) + 100 + 30)).set("metadata.deletionGracePeriodSeconds", 30).obj()
    objs += [kb, evict_event("batch/job-a", "preempt", int(t) + 100)]
    # a Killing event of the kubelet, and a Preempted Event of another namespace
    objs.append({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "k", "namespace": "batch"},
                 "involvedObject": {"kind": "Pod", "namespace": "batch", "name": "etl-1"}, "reason": "Killing",
                 "message": "Stopping container main", "eventTime": iso(t)})
    objs.append(preempted_event("team-a/side-1", "uid-side-1", "uid-web-2", "node-2", t + 50))
    return objs


@pytest.fixture
def api() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(_cluster()) as server:
        yield server


@pytest.fixture
def cli(api: FakeAPIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KUBECONFIG", str(api.kubeconfig(tmp_path / "kubeconfig", namespace="batch")))
    return in_process_cli(capsys)
