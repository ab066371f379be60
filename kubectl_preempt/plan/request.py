"""plan's inputs: the manifests to create, and the cluster (a snapshot, or the live one read as
`capture` reads it) with the release that decides, resolved once."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from ..errors import InputError, UsageError
from ..framework.versions import Resolved, apply_feature_gates
from ..io import live
from ..io.files import is_private
from ..io.release import captured_at as _captured_at, scheduler_version
from ..io.snapshot import display_name, ignored_note, load_config_document, load_objects


def _plan_manifests(paths: Sequence[str]) -> list[tuple[str, str, Any]]:
    out = []
    for path in paths:
        name = display_name(path)
        objs = load_objects(path)
        for i, obj in enumerate(objs):
            out.append((name, f"items[{i}]" if len(objs) > 1 else "", obj))
    return out


@dataclass
class PlanInputs:
    """What `plan` plans against: the manifests to create (file, item, object), the cluster's
    objects and where they came from (and when captured), whether what is made from them is private,
    the release that decides and the scheduler configuration."""
    manifests: list[tuple[str, str, Any]]
    objects: list[dict]
    source: str
    captured_at: str | None
    private: bool
    version: Resolved           # the release picked, with the gates set, and where it came from
    config: Any


def plan_inputs(manifest_paths: Sequence[str], snapshot: str | None, *, context: str | None = None,
                kubeconfig: str | None = None, request_timeout: str | None = None,
                kubernetes_version: str | None = None, config: str | None = None,
                note: Callable[[str], None] | None = None,
                feature_gates: Mapping[str, bool] | None = None) -> PlanInputs:
    """Read what `plan` needs: the manifests, then the snapshot, or without one the live cluster
    (read as `capture` reads it, lists only, unredacted: names are what is planned). `note` hears,
    in order, the live read's notes, the kinds ignored, and the release picked when it is not the
    one the data names."""
    say = note if note is not None else (lambda _text: None)
    manifests = _plan_manifests(manifest_paths)
    if snapshot is None:
        doc, notes = live.capture(kubeconfig, context, None, request_timeout, redact=False)
        for n in notes:
            say(f"note: {n}")
        objects = doc["items"]
        ann = doc["metadata"]["annotations"]
        source, captured_at = f"context {ann.get(live.ANN_CONTEXT)}", ann.get(live.ANN_CAPTURED_AT)
        private = True
    else:
        source = display_name(snapshot)
        objects = load_objects(snapshot)
        captured_at = _captured_at(snapshot)
        private = is_private(snapshot)
    ignored = ignored_note([o for o in objects if o.get("kind") not in ("Event", "Deployment", "Job")])
    if ignored:
        say(f"{source}: {ignored}")
    # the release the data names: a captured List's server-version annotation, or the live server's;
    # else its nodes' newest kubelet, else the newest imitated (with a note)
    try:
        resolved = scheduler_version(objects if snapshot is not None else doc, kubernetes_version)
    except UsageError:
        raise
    except InputError as e:
        raise e.located(source=source) from None
    if resolved.note:
        say(resolved.note)
    cfg = load_config_document(config) if config else None
    # --feature-gates are checked against the release picked, and carried by it
    version = apply_feature_gates(resolved.version, feature_gates)
    return PlanInputs(manifests, objects, source, captured_at, private, replace(resolved, version=version), cfg)
