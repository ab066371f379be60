"""plan's inputs: the manifests to create, and the cluster (a snapshot, or the live one read as
`capture` reads it) with the release that decides, resolved once."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import InputError, UsageError
from ..framework.versions import Resolved, apply_feature_gates
from ..io import live
from ..io.files import STDOUT, is_private, refuse_link
from ..io.release import captured_at as _captured_at, scheduler_version
from ..io.snapshot import display_name, ignored_note, load_config_document, load_objects
from ..replay.request import decision_case_writer, new_directory, unused_directory_removed
from ..model.workload import refuse_other_release
from ..framework.podgroupstate import workload_notes
from ..model.objects import Pod
from .api import plan
from .capacity import plan_max


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
    # a Workload or PodGroup of another release's API is refused, in the cluster or a manifest, as
    # explain and replay refuse it (the release's scheduler could never be given it)
    try:
        refuse_other_release(objects, version.name, version.minor)
    except InputError as e:
        raise e.located(source=source) from None
    for name, where, obj in manifests:
        try:
            refuse_other_release([obj], version.name, version.minor)
        except InputError as e:
            raise InputError(e.detail, source=name, field=f"{where} ({e.field})" if where else e.field) from None
    return PlanInputs(manifests, objects, source, captured_at, private, replace(resolved, version=version), cfg)


def _missing_group_notes(inputs: PlanInputs, namespace: str | None, note: Callable[[str], None] | None) -> None:
    """One note per pod group the manifests' pods name that neither the cluster nor the manifests
    hold (framework/podgroupstate.py workload_notes, as explain notes them): their pods are held
    at PreEnqueue, or their group's cycle runs without it."""
    if note is None:
        return
    version = inputs.version.version
    groups = [o for o in inputs.objects if o.get("kind") in ("PodGroup", "Workload")]
    pods = []
    for _, _, obj in inputs.manifests:
        kind = obj.get("kind")
        if kind in ("PodGroup", "Workload"):
            groups.append(obj)
            continue
        spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
        tpl = spec.get("template") if kind != "Pod" else obj
        if not isinstance(tpl, Mapping) or not isinstance(tpl.get("spec"), Mapping):
            continue
        md = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        ns = md.get("namespace") or namespace or "default"
        name = md.get("name") or md.get("generateName") or kind
        pods.append(Pod({"metadata": {"name": name, "namespace": ns}, "spec": tpl["spec"]}))
    for text in workload_notes(groups, pods, version):
        note(f"note: {text}")


@dataclass
class PlanResult:
    """What `plan` made: the report, the trace it replayed (for the HTML page), whether what is
    made from the inputs is private, the decision cases written; `page` renders the HTML page
    (set by api, which may import render)."""
    report: dict[str, Any]
    trace: dict[str, Any]
    private: bool
    written: list[str]
    page: Callable[[], str] | None = None


def plan_request(manifest_paths: Sequence[str], snapshot: str | None, scale: Iterable[str] = (), *,
                 max_copies: bool = False, max_count: int = 10_000, duration: float | None = None, runs: int = 1,
                 jobs: int | None = None, seed: int = 0, namespace: str | None = None, config: str | None = None,
                 kubernetes_version: str | None = None, feature_gates: Mapping[str, bool] | None = None,
                 context: str | None = None, kubeconfig: str | None = None, request_timeout: str | None = None,
                 dump_decisions: str | None = None, overwrite: bool = False, html: str | None = None,
                 note: Callable[[str], None] | None = None) -> PlanResult:
    """`kubectl preempt plan`: its inputs read (plan_inputs: the release resolved once, carried),
    then how many copies of the one -f pod fit (`max_copies`, plan_max) or what creating and
    scaling would do (plan); --dump-decisions' directory made ready and --html's path checked
    before the plan runs."""
    inputs = plan_inputs(manifest_paths, snapshot, context=context, kubeconfig=kubeconfig,
                         request_timeout=request_timeout, kubernetes_version=kubernetes_version,
                         config=config, note=note, feature_gates=feature_gates)
    if max_copies:
        if len(inputs.manifests) != 1:
            raise UsageError(f"--max copies one pod; the manifests hold {len(inputs.manifests)} objects",
                             field="--filename")
        report = plan_max(inputs.objects, inputs.manifests[0], config=inputs.config, seed=seed, max_count=max_count,
                          namespace=namespace, captured_at=inputs.captured_at, kubernetes_version=inputs.version,
                          source=inputs.source)
        # told once the manifests have passed their checks (bad input ends with its error alone)
        _missing_group_notes(inputs, namespace, note)
        return PlanResult(report, {}, inputs.private, [])
    on_decision = None
    written: list[str] = []
    made = new_directory(dump_decisions)
    if dump_decisions:
        on_decision, written = decision_case_writer(dump_decisions, overwrite=overwrite, private=inputs.private)
    if html and html != STDOUT:
        refuse_link(html, "--html")
    trace: dict[str, Any] = {}
    with unused_directory_removed(made, written):
        report = plan(inputs.objects, inputs.manifests, list(scale), config=inputs.config, seed=seed,
                      duration=duration, runs=runs, jobs=jobs, namespace=namespace, captured_at=inputs.captured_at,
                      kubernetes_version=inputs.version, on_decision=on_decision, source=inputs.source,
                      trace_out=trace)
    _missing_group_notes(inputs, namespace, note)
    return PlanResult(report, trace, inputs.private, written)
