"""replay's request beside the run itself (replay/api.py): the trace read with the release that
replays it, the what-if PriorityClass files, and --dump-decisions' writer."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..errors import InputError, UsageError
from ..framework.podgroupstate import pods_in_groups_read_by_no_one
from ..framework.versions import KubernetesVersion, Resolved, apply_feature_gates
from ..io import bundled, live
from ..io.files import STDOUT, is_private, prepare_directory, refuse_link, write_atomic
from ..io.snapshot import load_config_document, load_objects
from ..io.trace import Trace, read_trace
from ..batch.request import read_scheduler_conf
from .api import replay
from .api import scheduler_version as _replay_scheduler_version


def bundled_trace(name: str) -> str:
    """The path of a trace bundled with every install (the repository's traces/NAME, io/bundled.py)."""
    return str(bundled.path(f"traces/{name}"))


def bundled_file(relative: str) -> str:
    """The path of a file bundled with every install, by its path in the repository
    (`examples/cluster.json`)."""
    return str(bundled.path(relative))


def read_replay_trace(path: str, *, kubernetes_version: str | None = None,
                      feature_gates: Mapping[str, bool] | None = None,
                      note: Callable[[str], None] | None = None) -> tuple[Trace, KubernetesVersion]:
    """The trace at `path` and the release that replays it: the one the trace was recorded from
    unless `kubernetes_version` says, with `feature_gates` checked against it (refused here, as
    kube-scheduler refuses them at start). `note` hears the trace's notes, then the release's when
    it is not the one the trace names."""
    tr, picked = _trace_and_release(path, kubernetes_version, feature_gates, note)
    return tr, apply_feature_gates(picked.version, feature_gates)


def _trace_and_release(path: str, kubernetes_version: str | None, feature_gates: Mapping[str, bool] | None,
                       note: Callable[[str], None] | None) -> tuple[Trace, Resolved]:
    """read_replay_trace's trace and release (gates checked, not set): the release is resolved
    here once, and carried by the request to replay()."""
    say = note if note is not None else (lambda _text: None)
    tr = read_trace(path)
    for n in tr.notes:
        say(f"note: {n}")
    picked = _replay_scheduler_version(tr, kubernetes_version)
    if picked.note:
        say(picked.note)
    apply_feature_gates(picked.version, feature_gates)  # refused here, before anything else is read
    return tr, picked


def load_priority_class_files(paths: Iterable[str]) -> list[dict]:
    """The PriorityClasses of replay's --priorityclasses files: any other kind is refused."""
    classes: list[dict] = []
    for f in paths:
        objs = load_objects(f)
        bad = [o.get("kind") for o in objs if o.get("kind") != "PriorityClass"]
        if bad:
            raise InputError(f"expected PriorityClass objects only, found {bad[0]}", source=f)
        classes.extend(objs)
    return classes


def new_directory(directory: str | None) -> str | None:
    """`directory` when it does not exist yet (a request about to make it), else None."""
    return directory if directory is not None and not os.path.isdir(directory) else None


@contextlib.contextmanager
def unused_directory_removed(made: str | None, written: list[str]) -> Iterator[None]:
    """Around a request that --dump-decisions into the directory it `made` (new_directory, before
    decision_case_writer): when the request fails (bad input found late, Ctrl-C) before writing a
    case, that directory goes again, as nothing is written half-way."""
    try:
        yield
    except BaseException:
        if made is not None and not written:
            try:
                os.rmdir(made)
            except OSError:
                pass
        raise


def decision_case_writer(directory: str, *, overwrite: bool,
                         private: bool) -> tuple[Callable[[dict[str, Any]], None], list[str]]:
    """--dump-decisions: a function writing each decision's conformance case into `directory`
    (made ready here: empty or new unless `overwrite`), and the list of the files it wrote."""
    prepare_directory(directory, overwrite=overwrite, private=private, field="--dump-decisions")
    written: list[str] = []

    def write(case: dict[str, Any]) -> None:
        path = os.path.join(directory, f"{case['name']}.json")
        write_atomic(path, live.serialize(case, path), private=private, field="--dump-decisions")
        written.append(path)

    return write, written


@dataclass
class ReplayResult:
    """What `replay` made: the report, the trace it replayed (for the HTML page), its name, whether
    what is made from it is private, and the decision cases written; `page` renders the HTML page
    of `report` as it stands when called (set by api, which may import render)."""
    report: dict[str, Any]
    trace: Trace
    source: str
    private: bool
    written: list[str]
    page: Callable[[], str] | None = None


# what the caller shows while the trace replays, set up once the trace is read (its start and its
# events known): a progress for one run, and one for --runs
Watch = Callable[[Trace], tuple[Any, Any]]


def replay_request(trace: str | None, *, bundled: str = "demo.jsonl.gz", follow: bool = False, priorityclasses: Iterable[str] = (),
                   reresolve_existing: bool = False, config: str | None = None, seed: int = 0,
                   dump_decisions: str | None = None, overwrite: bool = False, html: str | None = None,
                   kubernetes_version: str | None = None, feature_gates: Mapping[str, bool] | None = None,
                   runs: int = 1, jobs: int | None = None, ray_address: str | None = None,
                   api_latency: float | None = None, batch_scheduler_name: str = "kube-batch",
                   batch_scheduler_conf: str | None = None, schedule_period: float = 1.0,
                   stdin_taken: bool = False, watch: Watch | None = None,
                   note: Callable[[str], None] | None = None) -> ReplayResult:
    """`kubectl preempt replay`: the trace read with the release that replays it (resolved once,
    carried to replay()), then the what-if classes, the configuration and kube-batch's, the
    --dump-decisions directory and --html's path, each refused before the replay runs; `watch`
    hears the trace once read (what to show while it replays). `trace` None: the trace `bundled`
    with every install (traces/NAME). `stdin_taken`: another input reads standard input already."""
    path = trace if trace is not None else bundled_trace(bundled)
    # the trace's notes are told once the replay has read it whole: bad input ends with its one
    # error line, no note before it
    held: list[str] = []
    tr, picked = _trace_and_release(path, kubernetes_version, feature_gates, held.append)
    unread = pods_in_groups_read_by_no_one((e["object"] for e in tr.events if e.get("type") != "DELETED"
                                            and isinstance(e.get("object"), Mapping)
                                            and e["object"].get("kind") == "Pod"),
                                           apply_feature_gates(picked.version, feature_gates))
    if unread is not None:
        held.append(f"note: {tr.source}: {unread}")
    progress, run_progress = watch(tr) if watch is not None else (None, None)
    classes = load_priority_class_files(priorityclasses)
    cfg = load_config_document(config) if config else None
    if batch_scheduler_conf == "-" and stdin_taken:
        raise UsageError("--batch-scheduler-conf - and another input cannot both read standard input")
    batch_conf, batch_conf_name = read_scheduler_conf(batch_scheduler_conf)
    if overwrite and not dump_decisions:
        raise UsageError("--overwrite goes with --dump-decisions", field="--overwrite")
    # what is made from a private trace (readable by its owner only, or unredacted) is private too
    private = is_private(tr.source) or tr.header.get("redacted") is False
    on_decision = None
    written: list[str] = []
    made = new_directory(dump_decisions)
    if dump_decisions:
        on_decision, written = decision_case_writer(dump_decisions, overwrite=overwrite, private=private)
    if html and html != STDOUT:
        refuse_link(html, "--html")
    try:
        with unused_directory_removed(made, written):
            report = replay(tr, mode="follow" if follow else "simulate", config=cfg, priority_classes=classes or None,
                            reresolve_existing=reresolve_existing, seed=seed, on_decision=on_decision,
                            progress=None if runs > 1 else progress, runs=runs, jobs=jobs, ray_address=ray_address,
                            run_progress=run_progress, api_latency=api_latency, feature_gates=feature_gates,
                            kubernetes_version=kubernetes_version, resolved=picked,
                            batch_scheduler_name=batch_scheduler_name, batch_scheduler_conf=batch_conf,
                            batch_scheduler_conf_source=batch_conf_name, schedule_period=schedule_period)
    except InputError as e:
        raise e.located(source=tr.source) from None
    if note is not None:
        for text in held:
            note(text)
    return ReplayResult(report, tr, tr.source, private, written)
