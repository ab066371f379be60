"""Workload-aware scheduling's objects (scheduling.k8s.io): the PodGroup a pod belongs to, and the
Workload that templates it, as each release's API types define them.

- v1.36 (`scheduling.k8s.io/v1alpha2`, staging/src/k8s.io/api/scheduling/v1alpha2/types.go): a
  Workload is a template (`spec.podGroupTemplates`), a PodGroup the runtime object
  (`spec.schedulingPolicy`, `spec.disruptionMode`, `spec.priority`); a pod names its PodGroup in
  `spec.schedulingGroup.podGroupName` (core/v1 PodSchedulingGroup).
- v1.35 (`scheduling.k8s.io/v1alpha1`): a Workload holds its pod groups (`spec.podGroups`, each
  with a `policy`); a pod names its Workload and pod group in `spec.workloadRef` (core/v1
  WorkloadReference: name, podGroup, podGroupReplicaKey).

Each release's scheduler reads only its own API version: the other is an object it would never be
given (`api_refusal`). What is read here is checked as the API server's validation checks it (the
schedulingPolicy union, gang.minCount >= 1, the disruptionMode enum): a PodGroup that breaks it is
an InputError naming the field.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..errors import InputError, quote

API_GROUP = "scheduling.k8s.io"
V1ALPHA1 = "scheduling.k8s.io/v1alpha1"  # v1.35's Workload, pod groups inside
V1ALPHA2 = "scheduling.k8s.io/v1alpha2"  # v1.36's Workload and PodGroup
KINDS = ("PodGroup", "Workload")

POLICY_BASIC = "basic"
POLICY_GANG = "gang"
POLICIES = (POLICY_BASIC, POLICY_GANG)
# spec.disruptionMode (v1alpha2 DisruptionMode): a PodGroup's pods are preempted one by one, or
# the whole group together (workload-aware preemption, KEP-5710)
DISRUPTION_MODE_POD = "Pod"
DISRUPTION_MODE_POD_GROUP = "PodGroup"
DISRUPTION_MODES = (DISRUPTION_MODE_POD, DISRUPTION_MODE_POD_GROUP)
# status.conditions[].type the scheduler writes (schedulingapi.PodGroupScheduled), its reasons
POD_GROUP_SCHEDULED = "PodGroupScheduled"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
REASON_SCHEDULED = "Scheduled"


def is_workload_object(obj: Mapping[str, Any]) -> bool:
    """A Workload or PodGroup of scheduling.k8s.io (kube-batch's PodGroups are of another group:
    scheduling.incubator.k8s.io and scheduling.sigs.dev)."""
    if obj.get("kind") not in KINDS:
        return False
    api = obj.get("apiVersion")
    return isinstance(api, str) and api.split("/", 1)[0] == API_GROUP


def served_version(minor: int) -> str | None:
    """The scheduling.k8s.io version a release's scheduler reads Workloads (and PodGroups) in:
    v1alpha2 from v1.36, v1alpha1 in v1.35, none before."""
    if minor >= 36:
        return V1ALPHA2
    if minor == 35:
        return V1ALPHA1
    return None


def api_refusal(obj: Mapping[str, Any], release: str, minor: int) -> str | None:
    """Why a release's scheduler could never be given this Workload or PodGroup (its API version
    is another release's), else None. Releases before v1.35 have no Workload API at all: their
    scheduler never reads these kinds, and they are ignored as any kind it does not read."""
    if not is_workload_object(obj):
        return None
    served = served_version(minor)
    if served is None:
        return None
    api = obj.get("apiVersion")
    kind = obj.get("kind")
    if api == served:
        if kind == "PodGroup" and served == V1ALPHA1:
            return f"{kind} is not a {V1ALPHA1} kind: kube-scheduler {release} reads pod groups inside Workloads"
        return None
    return (f"{api} {kind} is not read by kube-scheduler {release}, whose workload API is {served}"
            + (" (a PodGroup object and spec.schedulingGroup are v1.36's)" if served == V1ALPHA1 else
               " (v1.35's Workload with pod groups inside was replaced by Workload templates and PodGroups)"))


def _field(raw: Mapping[str, Any], *path: str) -> Any:
    v: Any = raw
    for p in path:
        if not isinstance(v, Mapping):
            return None
        v = v.get(p)
    return v


def _policy(policy: Any, where: str) -> int | None:
    """The gang's minCount of a PodGroupSchedulingPolicy (v1alpha2) or PodGroupPolicy (v1alpha1),
    None for basic; InputError for anything else (the API's union: exactly one of basic, gang)."""
    if not isinstance(policy, Mapping):
        raise InputError("must set exactly one of basic, gang", field=where)
    unknown = sorted(k for k in policy if k not in POLICIES)
    if unknown:
        raise InputError(f"unknown scheduling policy {quote(unknown[0])}: must set exactly one of basic, gang",
                         field=f"{where}.{unknown[0]}")
    given = [k for k in POLICIES if policy.get(k) is not None]
    if len(given) != 1:
        raise InputError("must set exactly one of basic, gang" + (f", got {' and '.join(given)}" if given else ""),
                         field=where)
    if given[0] == POLICY_BASIC:
        return None
    gang = policy[POLICY_GANG]
    if not isinstance(gang, Mapping):
        raise InputError("must be an object", field=f"{where}.gang")
    n = gang.get("minCount")
    if isinstance(n, bool) or not isinstance(n, int):
        raise InputError("required: an integer of at least 1", field=f"{where}.gang.minCount")
    if n < 1:
        raise InputError(f"must be greater than or equal to 1, got {n}", field=f"{where}.gang.minCount")
    return n


def _disruption_mode(mode: Any, where: str) -> str:
    if mode is None:
        return DISRUPTION_MODE_POD
    if mode not in DISRUPTION_MODES:
        raise InputError(f"unsupported value {quote(mode)}: supported values: \"Pod\", \"PodGroup\"", field=where)
    return mode


class PodGroup:
    """A pod group as the scheduler reads it: a v1alpha2 PodGroup object (v1.36), or one pod group
    of a v1alpha1 Workload (v1.35, `PodGroup.of_workload`)."""

    __slots__ = ("raw", "namespace", "name", "key", "uid", "min_count", "disruption_mode", "priority",
                 "has_priority", "priority_class_name", "workload", "template", "topology_constraints",
                 "conditions", "creation_timestamp", "api_version")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        self.raw = raw
        self.api_version: str = raw.get("apiVersion") or V1ALPHA2
        self.namespace: str = md.get("namespace") or "default"
        self.name: str = md.get("name") or ""
        self.key = f"{self.namespace}/{self.name}"
        self.uid: str = md.get("uid") or self.key
        self.creation_timestamp = md.get("creationTimestamp")
        self.min_count = _policy(spec.get("schedulingPolicy"), "spec.schedulingPolicy")
        self.disruption_mode = _disruption_mode(spec.get("disruptionMode"), "spec.disruptionMode")
        prio = spec.get("priority")
        self.has_priority = isinstance(prio, int) and not isinstance(prio, bool)
        # util.PodGroupPriority: a nil priority (created with no class and no global default, or
        # before WorkloadAwarePreemption resolved it) is the static default, 0
        self.priority: int = prio if self.has_priority else 0
        self.priority_class_name: str = spec.get("priorityClassName") or ""
        ref = _field(spec, "podGroupTemplateRef", "workload") or {}
        self.workload: str = ref.get("workloadName") or "" if isinstance(ref, Mapping) else ""
        self.template: str = ref.get("podGroupTemplateName") or "" if isinstance(ref, Mapping) else ""
        topo = _field(spec, "schedulingConstraints", "topology")
        self.topology_constraints = len(topo) if isinstance(topo, list) else 0
        conds = _field(raw, "status", "conditions")
        self.conditions: list[Mapping[str, Any]] = [c for c in conds if isinstance(c, Mapping)] \
            if isinstance(conds, list) else []

    @classmethod
    def of_workload(cls, workload: Mapping[str, Any], index: int, replica_key: str = "") -> "PodGroup":
        """The pod group `spec.podGroups[index]` of a v1alpha1 Workload (v1.35), per replica key."""
        md = workload.get("metadata") or {}
        group = (_field(workload, "spec", "podGroups") or [])[index]
        wl_name = md.get("name") or ""
        name = f"{wl_name}/{group.get('name') or ''}" + (f"/{replica_key}" if replica_key else "")
        raw = {"apiVersion": V1ALPHA1, "kind": "PodGroup",
               "metadata": {"namespace": md.get("namespace") or "default", "name": name,
                            "uid": f"{md.get('uid') or wl_name}/{group.get('name') or ''}/{replica_key}",
                            "creationTimestamp": md.get("creationTimestamp")},
               "spec": {"schedulingPolicy": group.get("policy")}}
        pg = cls(raw)
        pg.workload, pg.template = wl_name, group.get("name") or ""
        return pg

    @property
    def gang(self) -> bool:
        return self.min_count is not None

    @property
    def policy(self) -> str:
        return POLICY_GANG if self.min_count is not None else POLICY_BASIC

    def condition(self, ctype: str = POD_GROUP_SCHEDULED) -> Mapping[str, Any] | None:
        for c in self.conditions:
            if c.get("type") == ctype:
                return c
        return None

    def __repr__(self) -> str:
        return f"PodGroup({self.key}, {self.policy}{'' if self.min_count is None else f' {self.min_count}'})"


def check_workload_object(obj: Mapping[str, Any]) -> None:
    """The validation the API server gives a Workload or PodGroup of scheduling.k8s.io, as far as
    the scheduler reads it: InputError naming the field (relative to the object)."""
    if not is_workload_object(obj):
        return
    kind = obj.get("kind")
    api = obj.get("apiVersion")
    spec = obj.get("spec") or {}
    if kind == "PodGroup":
        PodGroup(obj)
        return
    if api == V1ALPHA1:
        groups = spec.get("podGroups")
        if not isinstance(groups, list) or not groups:
            raise InputError("required: at least one pod group", field="spec.podGroups")
        for i, g in enumerate(groups):
            if not isinstance(g, Mapping) or not g.get("name"):
                raise InputError("required", field=f"spec.podGroups[{i}].name")
            _policy(g.get("policy"), f"spec.podGroups[{i}].policy")
        return
    templates = spec.get("podGroupTemplates")
    if not isinstance(templates, list) or not templates:
        raise InputError("required: at least one pod group template", field="spec.podGroupTemplates")
    for i, t in enumerate(templates):
        where = f"spec.podGroupTemplates[{i}]"
        if not isinstance(t, Mapping) or not t.get("name"):
            raise InputError("required", field=f"{where}.name")
        _policy(t.get("schedulingPolicy"), f"{where}.schedulingPolicy")
        _disruption_mode(t.get("disruptionMode"), f"{where}.disruptionMode")


def scheduling_group(pod_spec: Mapping[str, Any]) -> str:
    """The PodGroup a v1.36 pod names (spec.schedulingGroup.podGroupName), "" for none."""
    sg = pod_spec.get("schedulingGroup")
    if sg is None:
        return ""  # most pods: no typing.Mapping check (an ABC's) asked of each
    if type(sg) is not dict and not isinstance(sg, Mapping):
        return ""
    name = sg.get("podGroupName")
    return name if type(name) is str else ""


def workload_ref(pod_spec: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(workload, podGroup, podGroupReplicaKey) a v1.35 pod names in spec.workloadRef, or None."""
    ref = pod_spec.get("workloadRef")
    if not isinstance(ref, Mapping) or not ref.get("name"):
        return None
    return str(ref.get("name")), str(ref.get("podGroup") or ""), str(ref.get("podGroupReplicaKey") or "")


def group_name_of(pod_spec: Mapping[str, Any], minor: int) -> str:
    """The name of the pod group a pod belongs to, as the release's types read it ("" for none):
    v1.36's PodGroup name, or v1.35's "workload/podGroup[/replicaKey]" (the key PodGroup.of_workload
    gives the pod group it names)."""
    if minor >= 36:
        return scheduling_group(pod_spec)
    if minor == 35:
        ref = workload_ref(pod_spec)
        if ref is None:
            return ""
        return f"{ref[0]}/{ref[1]}" + (f"/{ref[2]}" if ref[2] else "")
    return ""


def pod_groups_of(objects: Iterable[Mapping[str, Any]], minor: int) -> dict[str, PodGroup]:
    """The pod groups a release's scheduler reads among `objects`, by namespace/name: v1.36's
    PodGroup objects, v1.35's pod groups of Workloads (one per pod group; a replica key makes
    more, as `pods` name them: see `group_name_of`)."""
    out: dict[str, PodGroup] = {}
    served = served_version(minor)
    if served is None:
        return out
    for o in objects:
        if not is_workload_object(o) or o.get("apiVersion") != served:
            continue
        if served == V1ALPHA2:
            if o.get("kind") == "PodGroup":
                pg = PodGroup(o)
                out[pg.key] = pg
        elif o.get("kind") == "Workload":
            for i, _g in enumerate(_field(o, "spec", "podGroups") or []):
                pg = PodGroup.of_workload(o, i)
                out[pg.key] = pg
    return out


__all__ = ["PodGroup", "API_GROUP", "V1ALPHA1", "V1ALPHA2", "DISRUPTION_MODE_POD", "DISRUPTION_MODE_POD_GROUP",
           "POD_GROUP_SCHEDULED", "api_refusal", "check_workload_object", "go_duration", "group_name_of",
           "is_workload_object", "pod_groups_of", "scheduling_group", "served_version", "workload_ref"]


def go_duration(seconds: float) -> str:
    """A duration as Go's time.Duration prints it (%v): "5m0s", "1m30.5s", "45s", "1h0m0s" (a gang's
    Permit timeout, as the framework's rejection of a waiting pod names it)."""
    ms = round(seconds * 1000)
    if ms == 0:
        return "0s"
    sign, ms = ("-", -ms) if ms < 0 else ("", ms)
    if ms < 1000:
        return f"{sign}{ms}ms"
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    sec = f"{rest // 1000}" + (f".{rest % 1000:03d}".rstrip("0") if rest % 1000 else "")
    return sign + (f"{h}h{m}m" if h else f"{m}m" if m else "") + f"{sec}s"


def refuse_other_release(objects: Iterable[Mapping[str, Any]], release: str, minor: int) -> None:
    """InputError naming the release and the kind for the first Workload or PodGroup a release's
    scheduler could never be given (api_refusal); the field is the object's label."""
    for o in objects:
        why = api_refusal(o, release, minor)
        if why is not None:
            md = o.get("metadata") or {}
            raise InputError(why, field=f"{o.get('kind')} {md.get('namespace') or 'default'}/{md.get('name')}")


def pods_of_missing_groups(pods: Iterable[Any], groups: Iterable[str], minor: int) -> dict[str, list[str]]:
    """namespace/name of each pod group pods name that `groups` (namespace/name) lacks, with the
    pending pods that name it, in order."""
    have = set(groups)
    out: dict[str, list[str]] = {}
    for p in pods:
        if getattr(p, "node_name", ""):
            continue
        name = group_name_of(p.spec, minor)
        if name and f"{p.namespace}/{name}" not in have:
            out.setdefault(f"{p.namespace}/{name}", []).append(p.key)
    return out


def v1_35_missing_workload_notes(objects: Iterable[Mapping[str, Any]], pods: Iterable[Any], gang: bool) -> list[str]:
    """One note per v1.35 pod group that pending pods name (spec.workloadRef) and that is not there:
    its Workload is missing, or the Workload has no pod group of that name. With GangScheduling its
    PreEnqueue holds them (gangscheduling.go of v1.35.6, its two messages); without it nothing in
    v1.35's scheduler reads the reference and they are scheduled as any pod."""
    workloads = {f"{(o.get('metadata') or {}).get('namespace') or 'default'}/{(o.get('metadata') or {}).get('name')}": o
                 for o in objects if is_workload_object(o) and o.get("apiVersion") == V1ALPHA1
                 and o.get("kind") == "Workload"}
    missing: dict[tuple[str, str, str], list[str]] = {}
    for p in pods:
        if getattr(p, "node_name", ""):
            continue
        ref = workload_ref(p.spec)
        if ref is None:
            continue
        wl = workloads.get(f"{p.namespace}/{ref[0]}")
        groups = [g.get("name") for g in (_field(wl, "spec", "podGroups") or []) if isinstance(g, Mapping)] \
            if wl is not None else []
        if wl is None or ref[1] not in groups:
            missing.setdefault((p.namespace, ref[0], ref[1] if wl is not None else ""), []).append(p.key)
    out = []
    for (ns, wl_name, group), keys in missing.items():
        more = f" and {len(keys) - 1} more" if len(keys) > 1 else ""
        what = (f"pod group {quote(group)} of Workload {ns}/{wl_name}, which has none of that name" if group else
                f"Workload {ns}/{wl_name}, which is not there")
        if not gang:
            held = "without GangScheduling nothing reads it: they are scheduled as any pod"
        elif group:
            held = f"GangScheduling holds them at PreEnqueue (pod group {quote(group)} doesn't exist for a workload " \
                   f"{quote(wl_name)})"
        else:
            held = f"GangScheduling holds them at PreEnqueue (waiting for pods's workload {quote(wl_name)} to appear " \
                   "in scheduling queue)"
        out.append(f"{keys[0]}{more} name {what}: {held}")
    return out
