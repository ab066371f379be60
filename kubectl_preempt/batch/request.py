"""The kube-batch session's request (`kubectl preempt session`, and explain's pods that name
kube-batch): the snapshot read, kube-batch's configuration file read and told from other inputs,
then one session or many."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import InputError
from ..io import kinds
from ..io.snapshot import decode_documents, display_name, ignored_kinds, load_objects, read_bytes
from ..model.schema import check_object, object_label
from .cache.cache import BATCH_KINDS, check_batch_object, is_batch_kind


def batch_session(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *,
                  scheduler_name: str = "kube-batch", default_queue: str = "default", seed: int = 0,
                  conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """What one kube-batch session does to this cluster: binds, evicts, pipelined tasks, the pod
    and PodGroup conditions it writes, and why (evictions with their action, preemptor and the
    plugins' votes; jobs' gang state and order keys; queues' shares; pending tasks' node reasons).

    `scheduler_conf` is kube-batch's configuration file as text; None is kube-batch's default.
    `seed` draws kube-batch's random choices (ties between nodes, the start of each map range)."""
    from .scheduler import batch_session as run
    objects = objects if isinstance(objects, list) else list(objects)
    check_session_objects(objects)
    return run(objects, scheduler_conf, scheduler_name=scheduler_name, default_queue=default_queue, seed=seed,
               conf_source=conf_source)


def batch_session_runs(objects: Iterable[Mapping[str, Any]], scheduler_conf: str | None = None, *, runs: int,
                       scheduler_name: str = "kube-batch", default_queue: str = "default", seed: int = 0,
                       conf_source: str = "scheduler configuration") -> dict[str, Any]:
    """`runs` kube-batch sessions over `objects`, seeds `seed`..`seed + runs - 1` (each one run
    kube-batch can make): each distinct outcome with its share of the runs, and the evictions per
    job and per queue as p5/p50/p95 over the runs."""
    from .runs import session_runs
    objects = objects if isinstance(objects, list) else list(objects)
    check_session_objects(objects)
    return session_runs(objects, scheduler_conf, runs=runs, seed=seed, scheduler_name=scheduler_name,
                        default_queue=default_queue, conf_source=conf_source)


def explain_batch(objects: Iterable[Mapping[str, Any]], pods: list[str], scheduler_conf: str | None = None, *,
                  scheduler_name: str = "kube-batch", seed: int = 0,
                  conf_source: str = "scheduler configuration") -> list[dict[str, Any]]:
    """The story of each pod ("namespace/name") that kube-batch schedules, from one session over
    `objects`: what happens to it and to every task of its job, and for an evicted pod, which
    action evicted it, for whom, and which plugins made it eligible."""
    from .scheduler import batch_session as run
    from .story import explain_task
    objects = objects if isinstance(objects, list) else list(objects)
    check_session_objects(objects)
    result = run(objects, scheduler_conf, scheduler_name=scheduler_name, seed=seed, conf_source=conf_source)
    return [explain_task(result, key, scheduler_name) for key in pods]


def read_scheduler_conf(path: str | None) -> tuple[str | None, str]:
    """kube-batch's configuration file's text and its name for errors (None: kube-batch's default)."""
    if path is None:
        return None, "kube-batch's default configuration"
    name = display_name(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", source=name) from None
    kinds.wrong_kind(_batch_conf_kind(data, name), kinds.BATCH_CONFIG, name)
    return text, name


def _batch_conf_kind(data: bytes, name: str) -> str | None:
    """What a file given as kube-batch's configuration is, when it is another input (a snapshot,
    a trace, a KubeSchedulerConfiguration): kube-batch's own parser would only say `unknown action ""`.
    A file that does not parse is left to that parser's words."""
    what = kinds.first_line_kind(data)
    if what is not None:
        return what
    try:
        docs = decode_documents(data, name)
    except InputError:
        return None
    return kinds.document_kind(docs[0][1]) if docs else None


# the kinds of core Kubernetes a session reads (its cache's informers: batch/cache/cache.py build_cache)
_SESSION_KINDS = ("Node", "Pod", "PriorityClass")


def check_session_objects(objects: Sequence[Mapping[str, Any]], source: str | None = None) -> None:
    """Each object a session reads, checked before anything reads it: the nodes, pods and
    PriorityClasses as a snapshot's are checked for explain (model/schema.py), kube-batch's Queues
    and PodGroups as its informers decode them (check_batch_object). The first one of another
    shape is the error, naming the object and the field. A lean read's objects
    (io/snapshot.py load_objects) have been checked as they were decoded."""
    if getattr(objects, "checked", 0) == len(objects):
        return
    for o in objects:
        if not isinstance(o, Mapping):
            continue
        if is_batch_kind(o, "Queue") or is_batch_kind(o, "PodGroup"):
            try:
                check_batch_object(o)
            except InputError as e:
                raise e.located(source=source) from None
        elif o.get("kind") in _SESSION_KINDS:
            try:
                check_object(o)
            except InputError as e:
                # named as the session names its objects' errors: "Pod ns/name: spec..."
                raise InputError(e.detail, source=source, field=f"{object_label(o)}: {e.field}") from None


def require_batch_pods(objects: Sequence[Mapping[str, Any]], scheduler_name: str, source: str) -> None:
    """A session schedules the pods that name kube-batch (its --scheduler-name): a snapshot without
    any has nothing for it to do, and empty tables would read as "kube-batch did nothing"."""
    names: dict[str, int] = {}
    for o in objects:
        if o.get("kind") == "Pod":
            # before the objects' shapes are checked (batch_session): a spec or a name of another
            # type counts as the default's, and the session names what is wrong with it
            spec = o.get("spec")
            name = spec.get("schedulerName") if isinstance(spec, Mapping) else None
            name = name if isinstance(name, str) and name else "default-scheduler"
            names[name] = names.get(name, 0) + 1
    if scheduler_name in names:
        return
    held = ", ".join(f"{k} ({n})" for k, n in sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))
    raise InputError(f"no pod has schedulerName {scheduler_name} ("
                     + (f"the pods name {held}" if names else "no pods at all")
                     + "): give the name of the pods kube-batch schedules with --batch-scheduler-name",
                     source=source)


def session_request(snapshot: str, scheduler_conf: str | None = None, *, scheduler_name: str = "kube-batch",
                    default_queue: str = "default", seed: int = 0, runs: int = 1,
                    note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """`kubectl preempt session`: the snapshot file read, kube-batch's pods required, its
    configuration file read (None: its default), then one session (batch_session) or, `runs` > 1,
    their distribution (batch_session_runs). `note` hears the kinds the session ignores; an input
    error without a file of its own is located in the snapshot."""
    source = display_name(snapshot)
    objects = load_objects(snapshot)
    require_batch_pods(objects, scheduler_name, source)
    text, conf_name = read_scheduler_conf(scheduler_conf)
    ignored = {k: n for k, n in ignored_kinds(objects).items() if k not in BATCH_KINDS}
    if ignored and note is not None:
        note(f"{source}: ignored " + ", ".join(f"{k} ({n})" for k, n in ignored.items()))
    try:
        if runs > 1:
            return batch_session_runs(objects, text, runs=runs, scheduler_name=scheduler_name,
                                      default_queue=default_queue, seed=seed, conf_source=conf_name)
        return batch_session(objects, text, scheduler_name=scheduler_name, default_queue=default_queue, seed=seed,
                             conf_source=conf_name)
    except InputError as e:
        raise (e if e.source else e.located(source=source)) from None
