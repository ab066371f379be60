"""replay's request beside the run itself (replay/api.py): the trace read with the release that
replays it, the what-if PriorityClass files, and --dump-decisions' writer."""
from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Mapping

from ..errors import InputError
from ..framework.versions import KubernetesVersion, apply_feature_gates
from ..io import bundled, live
from ..io.files import prepare_directory, write_atomic
from ..io.snapshot import load_objects
from ..io.trace import Trace, read_trace
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
    say = note if note is not None else (lambda _text: None)
    tr = read_trace(path)
    for n in tr.notes:
        say(f"note: {n}")
    picked = _replay_scheduler_version(tr, kubernetes_version)
    if picked.note:
        say(picked.note)
    return tr, apply_feature_gates(picked.version, feature_gates)


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
