"""Small traces for check tests: one node, a few running pods, pods created during the trace.

    preempt_trace():  n1 (4 cpu) runs batch/low-0 and batch/low-1 (class batch=100, 2 cpu each);
                      shop/web (class serving=1000, 2 cpu) is created at +5s and preempts one.
    cache_trace():    n1 (4 cpu) runs shop/cache-0 (class cache=500, 3 cpu) and batch/low-0
                      (class batch=100, 1 cpu); batch/job (class jobs=300, 3 cpu) is created at
                      +5s and can preempt nobody (low-0 alone frees too little). With jobs above
                      500 it preempts shop/cache-0 and is scheduled.
"""
from __future__ import annotations

from typing import Any

from kubectl_preempt.io.trace import format_rfc3339, parse_rfc3339
from tests.builders import make_node, make_pod, make_priority_class

T0 = "2026-03-01T10:00:00Z"
START = parse_rfc3339(T0)
END = 300.0


def at(seconds: float) -> str:
    return format_rfc3339(START + seconds)


def ev(seconds: float, typ: str, obj: dict[str, Any]) -> dict[str, Any]:
    return {"time": at(seconds), "type": typ, "object": obj}


def trace(initial: list[dict[str, Any]], later: list[tuple[float, str, dict[str, Any]]] = (),
          end: float = END) -> dict[str, Any]:
    evs = [ev(0, "ADDED", o) for o in initial]
    evs += [ev(t, typ, o) for t, typ, o in later]
    evs.append(ev(end, "BOOKMARK", {}))
    return {"header": {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": T0}, "events": evs}


def node(name: str = "n1", cpu: str = "4") -> dict[str, Any]:
    return make_node(name).alloc(cpu=cpu, memory="8Gi").obj()


def running(name: str, ns: str, cls: str, prio: int, cpu: str, on: str = "n1") -> dict[str, Any]:
    return (make_pod(name).ns(ns).uid(f"uid-{ns}-{name}").priority_class(cls).priority(prio).req(cpu=cpu).on(on)
            .set("status.phase", "Running").set("status.startTime", T0).obj())


def created(name: str, ns: str, cls: str, prio: int, cpu: str, when: float = 5) -> dict[str, Any]:
    o = make_pod(name).ns(ns).uid(f"uid-{ns}-{name}").priority_class(cls).priority(prio).req(cpu=cpu).obj()
    o["metadata"]["creationTimestamp"] = at(when)
    return o


def preempt_trace() -> dict[str, Any]:
    initial = [node(), make_priority_class("batch", 100), make_priority_class("serving", 1000),
               running("low-0", "batch", "batch", 100, "2"), running("low-1", "batch", "batch", 100, "2")]
    return trace(initial, [(5, "ADDED", created("web", "shop", "serving", 1000, "2"))])


def cache_trace() -> dict[str, Any]:
    initial = [node(), make_priority_class("batch", 100), make_priority_class("cache", 500),
               make_priority_class("jobs", 300),
               running("cache-0", "shop", "cache", 500, "3"), running("low-0", "batch", "batch", 100, "1"),
               running("old-job", "batch", "jobs", 300, "0")]
    return trace(initial, [(5, "ADDED", created("job", "batch", "jobs", 300, "3"))])


pc = make_priority_class
