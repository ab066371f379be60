"""`plan --max`: how many copies of a pod fit, counting free room first, then preemption.

kubernetes-sigs/cluster-capacity answers "how many copies fit" by scheduling copies one after
another onto a copy of the cluster, each bound where the scheduler puts it, until one does not
fit; it counts free room only (no preemption). Here the copies go through the replay's engine
(replay/simulate.py, on plan/run.py's SettlingEngine) one at a time, with preemption:

1. the snapshot runs until nothing changes (its own pending pods scheduled or given up);
2. copy 1 arrives; each next copy arrives ARRIVAL_GAP after the one before was bound (as
   cluster-capacity binds each copy before trying the next; a copy that preempts is bound once
   its victims are gone, after their grace period);
3. a copy that cannot be placed is left to the queue until nothing changes (a victim's room may
   still free up for it); if it is then still pending, the search stops there, with its message.

The count without preemption is the number of copies placed before the first copy that could not
be placed on free room (cluster-capacity's count: the same filters and scores, no preemption);
the count with preemption is the number of copies bound when the search stops.
"""
from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

import orjson

from ..errors import InputError, UsageError, quote
from ..framework.versions import KubernetesVersion
from ..model.admission import merge_label_keys
from ..model.objects import Pod
from ..framework.randomness import RandomSource
from ..replay.activity import Tee
from ..replay.report import evicts
from ..replay.runs import RunFacts
from ..replay.simulate import Listener
from ..replay.state import format_time
from ..scheduler.schedule_one import PREEMPTED, SCHEDULED
from .run import PlanSimulation, SettlingEngine, build_spec, named_release
from .workloads import Maker, admit_priority

DEFAULT_MAX_COUNT = 10_000
ARRIVAL_GAP = 0.001  # seconds between one copy's binding and the next copy's arrival
# the search's virtual time: a copy that preempts waits out its victims' grace period (30 s by
# default) before the next one comes, so a week holds 10,000 of them with a minute each (the
# queue's periodic flush is one engine event per 30 s of it)
MAX_SPAN = 7 * 24 * 3600.0
KIND = "PlanMaxReport"


@dataclass
class Copy:
    key: str
    uid: str
    arrived: float
    first: str = ""          # the outcome of its first scheduling cycle
    node: str = ""           # where it was bound
    first_message: str = ""


def template_pod(obj: Mapping[str, Any], source: str, where: str, namespace: str | None) -> tuple[dict[str, Any], str]:
    """The pod the copies are made of: a Pod manifest, or a workload's pod template (with its
    namespace and labels); and the base of the copies' names."""
    kind = obj.get("kind")
    md = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    label = f"{where} ({kind} {md.get('name') or md.get('generateName') or '?'})" if where else f"{kind} {md.get('name')}"
    ns = md.get("namespace") or namespace or "default"
    if kind == "Pod":
        tmd = dict(md)
        spec = obj.get("spec")
        if not isinstance(spec, Mapping):
            raise InputError("Pod without spec", source=source, field=f"{label}: spec")
        base = md.get("name") or (md.get("generateName") or "").rstrip("-")
    elif kind in ("Deployment", "ReplicaSet", "StatefulSet", "Job"):
        tpl = (obj.get("spec") or {}).get("template") if isinstance(obj.get("spec"), Mapping) else None
        if not isinstance(tpl, Mapping) or not isinstance(tpl.get("spec"), Mapping):
            raise InputError(f"{kind} without spec.template.spec", source=source, field=f"{label}: spec.template")
        tmd, spec = dict(tpl.get("metadata") or {}), tpl["spec"]
        base = md.get("name") or (md.get("generateName") or "").rstrip("-")
    else:
        what = f"kind {kind}" if isinstance(kind, str) and kind else "an object without kind"
        raise InputError(f"{what} cannot be copied: give a Pod or a Deployment, ReplicaSet, StatefulSet or Job",
                         source=source, field=f"{label}: kind")
    if not base:
        raise InputError(f"{kind} without metadata.name", source=source, field=f"{label}: metadata.name")
    raw = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {k: v for k, v in tmd.items() if k in ("labels", "annotations")},
           "spec": {k: v for k, v in _copy.deepcopy(dict(spec)).items() if k != "nodeName"},
           "status": {"phase": "Pending"}}
    raw["metadata"]["namespace"] = ns
    raw["_label"] = label
    raw["_field"] = "spec.priorityClassName" if kind == "Pod" else "spec.template.spec.priorityClassName"
    return raw, base


def _json_text(body: Mapping[str, Any]) -> bytes | None:
    """The body's JSON text when reading it back gives an equal body (plain JSON values: not,
    say, the dates or the integer keys a YAML file may hold); None otherwise."""
    try:
        text = orjson.dumps(body)
    except TypeError:
        return None
    return text if orjson.loads(text) == body else None


class _Search(Listener):
    """Creates the copies one at a time and keeps what became of each."""

    def __init__(self, template: Mapping[str, Any], base: str, max_count: int, taken: set[str]) -> None:
        self.template = template
        # each copy is a fresh object of the template's body (the engine changes what it is
        # given): remade from its JSON text, when that text gives the body back equal, at C
        # speed (plan --max makes thousands; deepcopy walked each in Python)
        self._body = {k: v for k, v in template.items() if not k.startswith("_")}
        self._text = _json_text(self._body)
        self.base = base
        self.max_count = max_count
        self.taken = taken
        self.copies: list[Copy] = []
        self.by_uid: dict[str, Copy] = {}
        self.sim: PlanSimulation | None = None
        self.last_change = 0.0
        self.next_n = 1
        self.first_arrival: float | None = None
        self.state_at_first: list[dict[str, Any]] | None = None
        self.keep_state = False
        self.victims_before: int = 0
        self.free_room_end: Copy | None = None   # the first copy that needed preemption or did not fit

    def settled(self, t: float) -> bool:
        from .run import SETTLE_AFTER

        return t - self.last_change >= SETTLE_AFTER

    # -- the copies
    def arrive(self, at: float) -> None:
        if len(self.copies) >= self.max_count:
            return
        sim = self.sim
        assert sim is not None
        host = sim.controllers.host
        host.at(at, self._create, "plan --max: next copy")

    def _create(self) -> None:
        sim = self.sim
        assert sim is not None
        now = sim.engine.now
        while True:
            name = f"{self.base}-{self.next_n}"
            self.next_n += 1
            ns = self.template["metadata"]["namespace"]
            if f"{ns}/{name}" not in self.taken:
                break
        raw = orjson.loads(self._text) if self._text is not None else _copy.deepcopy(self._body)
        uid = f"plan-max-{ns}-{name}"
        raw["metadata"].update(name=name, uid=uid, creationTimestamp=format_time(now))
        self.taken.add(f"{ns}/{name}")
        c = Copy(f"{ns}/{name}", uid, now)
        self.copies.append(c)
        self.by_uid[uid] = c
        if self.first_arrival is None:
            self.first_arrival = now
            if self.keep_state:
                self.state_at_first = sim.state.objects()
        sim.controllers.host.create_pod(raw)

    def _decided(self, c: Copy, outcome: str, t: float, message: str = "") -> None:
        if c.first:
            return
        c.first = outcome
        c.first_message = message
        if outcome != SCHEDULED and self.free_room_end is None:
            self.free_room_end = c

    # -- Listener
    def bound(self, t: float, pod: Pod, node: str) -> None:
        self.last_change = t
        c = self.by_uid.get(pod.uid)
        if c is not None:
            c.node = node
            if not c.first:
                self._decided(c, SCHEDULED, t)
            if c is self.copies[-1]:
                self.arrive(t + ARRIVAL_GAP)  # bound: the next copy comes

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        self.last_change = t
        c = self.by_uid.get(pod.uid)
        if c is not None and not c.first:
            self._decided(c, PREEMPTED, t)

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        self.last_change = t

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        self.last_change = t

    def unschedulable(self, t: float, pod: Pod, message: str, fields: Mapping[str, Any] | None = None) -> None:
        c = self.by_uid.get(pod.uid)
        if c is not None and not c.first:
            self._decided(c, "Unschedulable", t, message)


def plan_max(objects: Sequence[Mapping[str, Any]], manifest: tuple[str, str, Mapping[str, Any]], *,
             config: Any = None, seed: int = 0, max_count: int = DEFAULT_MAX_COUNT, namespace: str | None = None,
             captured_at: str | None = None, kubernetes_version: Any = None, server_version: str | None = None,
             source: str = "", keep_state: bool = False,
             on_decision: Callable[[dict[str, Any]], None] | None = None,
             feature_gates: str | Mapping[str, bool] | None = None) -> dict[str, Any]:
    """How many copies of `manifest`'s pod (a Pod, or a workload's template) fit, one after
    another: without preemption, then with it; the victims the extra copies cost; where it stops
    and why. `keep_state`: also return the cluster's objects when the first copy arrived
    (`stateAtFirstCopy`), for a check against cluster-capacity's count."""
    from .api import _config, plan_version, snapshot_time
    from ..model.cluster import Cluster

    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise UsageError(f"must be 1 or more, got {quote(max_count)}", field="--max-count")
    objects = list(objects)
    resolved = plan_version(kubernetes_version, server_version, feature_gates, objects)
    version = resolved.version
    cfg, cfg_raw = _config(config, version)
    start = snapshot_time(objects, captured_at)
    file, where, obj = manifest
    template, base = template_pod(obj, file, where, namespace)
    classes = Cluster.from_objects([o for o in objects if o.get("kind") == "PriorityClass"]).priority_classes
    admit_priority(template, classes, source=file, obj=template["_label"], field_path=template["_field"])
    merge_label_keys(template)  # as the pod strategy does on create
    try:
        Pod(template).resource  # noqa: B018 - bad quantities fail here, naming the manifest
    except InputError as e:
        raise e.located(source=file, field_prefix=template["_label"]) from None
    maker = Maker(objects, classes, start, seed=seed, namespace=namespace)
    spec = build_spec(objects, start, [], cfg, cfg_raw, seed=seed, duration=MAX_SPAN, source=source)
    search = _Search(template, base, max_count, maker.taken)
    search.keep_state = keep_state
    search.last_change = start
    facts = RunFacts()
    sim = PlanSimulation(spec.timeline, cfg, random_source=RandomSource.for_replay(seed), on_decision=on_decision, listener=Tee(facts, search))
    sim.config_raw = cfg_raw
    search.sim = sim
    engine = sim.engine
    assert isinstance(engine, SettlingEngine)
    engine.settled = search.settled
    sim.run()                                   # the snapshot settles first
    search.victims_before = len(facts.victims)
    end = spec.timeline.end
    if engine.stopped:
        engine.stopped = False
        search.last_change = engine.now
        search.arrive(engine.now)
        engine.run(until=end)
    stop = engine.now if not engine.stopped else search.last_change
    sim.timeline = replace(sim.timeline, end=max(stop, start))
    spec.version_from = resolved.source
    return _report(search, sim, facts, spec, cfg.version, max_count, engine.stopped, source)


def _gate_message(sim: PlanSimulation, uid: str) -> str:
    """What the PreEnqueue plugin that holds the pod says (its status message), or ""."""
    pod = sim.state.pods_by_uid.get(uid)
    fwk = sim.state.scheduler.framework_for(pod) if pod is not None else None
    if fwk is None:
        return ""
    for pl in fwk.points["preEnqueue"]:
        s = pl.pre_enqueue(pod)
        if not s.is_success():
            return s.message()
    return ""


def _report(search: _Search, sim: PlanSimulation, facts: RunFacts, spec: Any, version: KubernetesVersion, max_count: int,
            settled: bool, source: str) -> dict[str, Any]:
    copies = search.copies
    placed = [c for c in copies if sim.state.pods_by_uid.get(c.uid) is not None
              and sim.state.pods_by_uid[c.uid].node_name]
    for c in copies:
        if not c.first and c not in placed:
            # never tried: held at PreEnqueue (GangScheduling: its pod group is missing, or
            # short of pods), as upstream's queue holds it; it fits nowhere, for the gate's reason
            search._decided(c, "Unschedulable", sim.engine.now, _gate_message(sim, c.uid))
    free = search.free_room_end
    without = (copies.index(free) if free is not None else len(copies))
    victims = facts.victims[search.victims_before:]
    by_class: dict[str, int] = {}
    by_ns: dict[str, int] = {}
    for key, cls, ns, _ in victims:
        by_class[cls or "(none)"] = by_class.get(cls or "(none)", 0) + 1
        by_ns[ns] = by_ns.get(ns, 0) + 1
    last = copies[-1] if copies else None
    stopped: dict[str, Any]
    if last is not None and last not in placed:
        info = sim.state.pods_by_uid.get(last.uid)
        msg = sim.last_failure.get(last.uid, last.first_message)
        stopped = {"reason": "Unschedulable", "pod": last.key, "message": msg,
                   **sim.last_failure_fields.get(last.uid, {})}
        if info is not None and info.nominated_node_name:
            stopped["nominatedNode"] = info.nominated_node_name
    elif len(copies) >= max_count:
        stopped = {"reason": "MaxCount", "message": f"reached --max-count {max_count}"}
    else:
        stopped = {"reason": "Time", "message": "the search's virtual time ran out"}
    free_stop: dict[str, Any] = {}
    if free is not None:
        msg = free.first_message
        if not msg:
            rec = next((p for p in sim.preemptions if p["preemptor"] == free.key), None)
            msg = (rec or {}).get("why", {}).get("message", "")
        free_stop = {"pod": free.key, "outcome": free.first, "message": msg}

    def ranked(d: Mapping[str, int], key: str) -> list[dict[str, Any]]:
        return [{key: k, "victims": n} for k, n in sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))]

    copy_keys = {c.key for c in copies}
    preemptions = [p for p in sim.preemptions if p["preemptor"] in copy_keys]
    out: dict[str, Any] = {
        "apiVersion": "kubectl-preempt/v1",
        "kind": KIND,
        **named_release(version, spec.version_from),
        "snapshot": {"source": source, "time": format_time(spec.timeline.start)},
        "template": {"pod": f"{search.template['metadata']['namespace']}/{search.base}-N",
                     "priority": search.template["spec"].get("priority"),
                     "priorityClassName": search.template["spec"].get("priorityClassName") or "",
                     "preemptionPolicy": search.template["spec"].get("preemptionPolicy")},
        "withoutPreemption": {"count": without, "stoppedAt": free_stop or None},
        "withPreemption": {"count": len(placed), "stoppedAt": stopped},
        "extraCopies": len(placed) - without,
        "victims": {"total": len(victims), "byPriorityClass": ranked(by_class, "priorityClass"),
                    "byNamespace": ranked(by_ns, "namespace"), "pods": [v[0] for v in victims]},
        # decisions that evict someone; a copy nominated where earlier victims are already
        # terminating evicts no one new (replay counts it as a re-nomination)
        "preemptions": sum(1 for p in preemptions if any(evicts(d) for d in p["victimDetails"])),
        "renominations": sum(1 for p in preemptions if not any(evicts(d) for d in p["victimDetails"])),
        "copiesTried": len(copies),
        "firstCopyAt": format_time(search.first_arrival) if search.first_arrival is not None else None,
        "end": format_time(sim.timeline.end),
        "decisions": sim.decisions,
        "copies": [{"pod": c.key, "arrived": format_time(c.arrived),
                    "arrivedSeconds": round(c.arrived - spec.timeline.start, 6), "firstOutcome": c.first or None,
                    "node": (sim.state.pods_by_uid[c.uid].node_name if c.uid in sim.state.pods_by_uid else c.node)
                    or None} for c in copies],
    }
    if search.state_at_first is not None:
        out["stateAtFirstCopy"] = search.state_at_first
    out["settled"] = settled
    return out
