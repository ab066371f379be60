"""explain's reads of what the cluster recorded: the live cluster with the preemption records of
the named pods, and who preempted a pod (model/who_preempted.py) in a snapshot's objects."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import ClusterError, InputError
from ..model.schema import object_label
from ..io import live


def who_preempted(objects: Iterable[Mapping[str, Any]], pod: str, *,
                  events: Iterable[Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """Who preempted `pod` ("namespace/name"), from what the cluster recorded: its DisruptionTarget
    condition and the scheduler's Preempted events (taken from `objects` unless given). None when
    nothing says the scheduler preempted it. See model/who_preempted.py for the record's fields."""
    from ..model.who_preempted import EVENT_REASON_PREEMPTED, check_event, events_about, pod_key, preemption_record

    objects = list(objects)
    if events is None:
        # a snapshot's Preempted events, read here alone: each of the API's shape (a live read's
        # are the API server's own), as history checks them (history/build.py check_input)
        for i, o in enumerate(objects):
            if o.get("kind") == "Event" and o.get("reason") == EVENT_REASON_PREEMPTED:
                try:
                    check_event(o)
                except InputError as e:
                    raise e.located(field_prefix=f"items[{i}] ({object_label(o)})") from None
    found = next((o for o in objects if o.get("kind") == "Pod" and pod_key(o) == pod), None)
    mine = events_about(pod, objects if events is None else events)
    return preemption_record(found, mine, objects)


def pod_arg_key(arg: str, namespace: str | None) -> str | None:
    """namespace/name of a POD argument (kubectl's pod/ and pods/ prefixes dropped; a bare name in
    `namespace`), or None when it names no pod that way."""
    for prefix in ("pod/", "pods/"):
        if arg.startswith(prefix):
            arg = arg[len(prefix):]
    if arg.count("/") == 1 and not arg.startswith("/") and not arg.endswith("/"):
        return arg
    if "/" not in arg and namespace:
        return f"{namespace}/{arg}"
    return None


@dataclass
class LiveExplainRead:
    """What `explain` reads of the live cluster: its objects, where from, the namespace (-n, else
    the context's when pods are named), the POD arguments left to explain, the preemption records
    of the named pods (key -> record), those whose record is the whole answer (gone: False, still on
    their node: True), the refusal to read nodes if any, and the server's version when asked."""
    objects: list[dict]
    source: str
    namespace: str | None
    pods: list[str]
    records: dict[str, dict[str, Any]]
    record_only: dict[str, bool]
    nodes_refused: ClusterError | None
    server_version: str | None = None


def live_explain_read(context: str | None, kubeconfig: str | None, request_timeout: str | None,
                      namespace: str | None, all_namespaces: bool, pods: Sequence[str], manifests: Sequence[str], *,
                      server_version: bool = False, current_namespace: bool = False,
                      progress: Callable[[str], None] | None = None, progress_done: Callable[[], None] | None = None,
                      note: Callable[[str], None] | None = None) -> LiveExplainRead:
    """Read the cluster and the preemption records of the named pods, then close the connection.
    With `server_version`, also the server's version (which kube-scheduler release to imitate).
    `progress` hears the lists' reading, `progress_done` once they are read; `note` hears what could
    not be read (refusals, kinds not served), unless the nodes could not be read and no record is
    shown: without nodes there is no verdict, the refusal alone is the answer."""
    say = note if note is not None else (lambda _text: None)
    with live.open_session(kubeconfig, context, request_timeout, progress=progress) as session:
        # named pods, manifests and a label selector (`-l`, as kubectl's) default to the context's namespace
        if namespace is None and not all_namespaces and (pods or manifests or current_namespace):
            namespace = session.namespace
        keys = {arg: pod_arg_key(arg, None if all_namespaces else namespace) for arg in pods}
        # with access to one namespace only, the pods asked about say which one to read
        named = {k.partition("/")[0] for k in keys.values() if k}
        fallback = next(iter(named)) if len(named) == 1 else namespace
        try:
            objects, notes = session.fetch(fallback)
        finally:
            if progress_done is not None:
                progress_done()
        heard = [f"note: {n}" for n in notes]
        by_key = {live.pod_key(o): o for o in objects if o.get("kind") == "Pod"}
        records: dict[str, dict[str, Any]] = {}
        for key in dict.fromkeys(k for k in keys.values() if k):
            record, record_notes = session.who_preempted(key)
            heard.extend(f"note: {key}: {n}" for n in record_notes)
            if record is not None:
                records[key] = record
        record_only: dict[str, bool] = {}
        for k in records:
            pod = by_key.get(k)
            if pod is None or (pod.get("spec") or {}).get("nodeName") or \
                    (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                record_only[k] = pod is not None
        kept = [arg for arg, k in keys.items() if k not in record_only]
        nodes_refused = session.nodes_refused()
        if nodes_refused is None or records:
            for n in heard:
                say(n)
        source = f"context {session.conn.context}" if session.conn.context else "in-cluster"
        out = LiveExplainRead(objects, source, namespace, kept, records, record_only, nodes_refused)
        if server_version:
            out.server_version = session.cluster.server_version()
    return out
