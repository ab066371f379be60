"""The pods a workload's controller makes, as the controller and the API server make them.

`plan -f` takes Pods, Deployments, ReplicaSets, StatefulSets and Jobs; `plan --scale` raises (or
lowers) the replicas of a Deployment, ReplicaSet or StatefulSet already in the snapshot. What
comes out is a `Creation`: the pods to create at the snapshot's time (already admitted: priority
and preemptionPolicy resolved from their PriorityClass), the owner objects the replay's workload
controllers keep at their new scale, and the StatefulSet pods that wait for their predecessor.

Names follow the controllers:
- a pod with only generateName, a ReplicaSet's pod (generateName `<rs>-`) and a Job's pod get the
  API server's generated suffix: apiserver's SimpleNameGenerator.GenerateName, base truncated to
  58 characters + utilrand.String(5) over `bcdfghjklmnpqrstvwxz2456789`, drawn here from a seeded
  random.Random (the real one is unseeded: names differ from a real cluster's, their shape does not);
- a Deployment's ReplicaSet is `<deployment>-<pod-template-hash>` (deployment util's
  ComputeHash: FNV-32a of the template, SafeEncodeString of its decimal form). Upstream hashes
  the template as printed by spew's DeepHashObject, which we do not reproduce: the hash has
  upstream's alphabet and form but not its value;
- a StatefulSet's pods are `<name>-<ordinal>`, from 0 up (or from the current replicas on a
  scale-up); with podManagementPolicy OrderedReady (the default) each waits for the one before;
- a Job's pods carry the job-name and controller-uid labels and, for completionMode Indexed,
  the completion index (annotation and label, name `<job>-<index>-<5 chars>`);
- with the WorkloadWithJob gate (v1.36), an Indexed Job whose parallelism equals its completions
  (above 1) becomes a gang: the Job controller makes a Workload `<job>-<hash of its UID>` with one
  pod group template `<job>-pgt-0` (gang, minCount = parallelism) and its PodGroup
  `<workload>-<template>-<hash>`, and its pods name the PodGroup (job_scheduling_manager.go);
  both names are upstream's to the character (FNV-32a of what upstream hashes).
"""
from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import orjson

from ..errors import InputError, quote
from ..model.admission import merge_label_keys
from ..model.objects import Pod, PriorityClass
from ..model.priority import class_priority
from ..model.schema import (KINDS as OBJECT_SHAPES, LABEL_SELECTOR, NONNEG_INT32, OBJECT_META, POD_TEMPLATE, STR,
                            check_shape, describe, obj)
from ..model.workload import check_workload_object, is_workload_object
from ..replay.controllers import POD_TEMPLATE_HASH, controller_ref

KINDS = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "Job", "Workload", "PodGroup")
SCALE_KINDS = ("Deployment", "ReplicaSet", "StatefulSet")
# utilrand.String's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0/1/3, no confusion
RAND_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
# names.SimpleNameGenerator: maxNameLength 63, randomLength 5
MAX_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH

# labels and annotations the controllers add (apps/v1 and batch/v1 well-known names)
STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
CONTROLLER_UID_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid")
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
# the most pods one plan makes: Kubernetes supports no more than 150,000 pods in a cluster
# (kubernetes.io, "Considerations for large clusters"), and each pod a plan makes is held and
# scheduled; a count past it (replicas: 1000000000) is refused at once, not hours and gigabytes later
MAX_NEW_PODS = 150_000
# the shapes of the manifests a plan reads (apps/v1 Deployment and batch/v1 Job, as far as a plan
# reads them; the other kinds are a snapshot's, model/schema.py KINDS), checked before any is read
MANIFEST_SHAPES = {
    **{k: OBJECT_SHAPES[k] for k in ("Pod", "ReplicaSet", "StatefulSet", "Workload", "PodGroup")},
    "Deployment": obj(metadata=OBJECT_META, spec=obj(replicas=NONNEG_INT32, selector=LABEL_SELECTOR,
                                                     template=POD_TEMPLATE)),
    "Job": obj(metadata=OBJECT_META, spec=obj(parallelism=NONNEG_INT32, completions=NONNEG_INT32, completionMode=STR,
                                              selector=LABEL_SELECTOR, template=POD_TEMPLATE)),
}
DEPLOYMENT_REVISION = "deployment.kubernetes.io/revision"

# job_scheduling_manager.go: names cut to a DNS subdomain's length
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
SCHEDULING_API_VERSION = "scheduling.k8s.io/v1alpha2"

ORDERED_READY = "OrderedReady"
PARALLEL = "Parallel"


@dataclass
class Creation:
    """What one workload (a manifest's object or a --scale target) adds to the cluster."""

    workload: str                          # "namespace/name" as replay's workload_of names it
    kind: str
    source: str                            # where it came from, for messages ("file items[2]", "--scale")
    pods: list[dict[str, Any]] = field(default_factory=list)       # created at the snapshot's time
    ordered: list[dict[str, Any]] = field(default_factory=list)    # StatefulSet OrderedReady: one after another
    owners: list[dict[str, Any]] = field(default_factory=list)     # owner objects to add or replace
    scale_down: list[dict[str, Any]] = field(default_factory=list)  # owners whose replicas fall: applied just after
    replicas: int = 0                      # how many pods the workload asks for (new ones)

    @property
    def all_pods(self) -> list[dict[str, Any]]:
        return self.pods + self.ordered


# ------------------------------------------------------------------------------- names
def rand_string(rng: random.Random, n: int = RANDOM_LENGTH) -> str:
    """utilrand.String(n): n characters of RAND_ALPHABET, drawn from `rng`."""
    return "".join(rng.choice(RAND_ALPHABET) for _ in range(n))


def generate_name(base: str, rng: random.Random) -> str:
    """mirrors names.SimpleNameGenerator.GenerateName: the base cut to 58 characters, then 5 random."""
    if len(base) > MAX_GENERATED_NAME_LENGTH:
        base = base[:MAX_GENERATED_NAME_LENGTH]
    return base + rand_string(rng)


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


# rand.SafeEncodeString's alphabet: utilrand's alphanums
_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def safe_encode_string(s: str) -> str:
    """mirrors rand.SafeEncodeString: each byte mapped into the alphabet by its value modulo 27."""
    return "".join(_SAFE[b % len(_SAFE)] for b in s.encode())


def pod_template_hash(template: Mapping[str, Any], collision_count: int = 0) -> str:
    """The shape of controller.ComputeHash: FNV-32a of the template (ours: its canonical JSON, not
    spew's print), the collision count appended when non-zero, then SafeEncodeString of the decimal."""
    data = orjson.dumps(template, option=orjson.OPT_SORT_KEYS)
    if collision_count:
        data += str(collision_count).encode()
    return safe_encode_string(str(_fnv32a(data)))


def workload_name_for_job(job_name: str, job_uid: str) -> str:
    """job_scheduling_manager.go computeWorkloadName: `<job name>-<hash>`, the hash FNV-32a of
    DeepHashObject(job.UID) (spew prints a types.UID as `(types.UID)<uid>`), SafeEncodeString of
    its decimal; the name cut so the whole fits a DNS subdomain."""
    h = safe_encode_string(str(_fnv32a(f"(types.UID){job_uid}".encode())))
    return f"{job_name[:DNS1123_SUBDOMAIN_MAX_LENGTH - len(h) - 1]}-{h}"


def pod_group_name_for_workload(workload: str, template: str) -> str:
    """job_scheduling_manager.go computePodGroupName: `<workload>-<template>-<hash>`, the hash
    FNV-32a of both names; each part cut to its fair share of a DNS subdomain when too long."""
    h = safe_encode_string(str(_fnv32a(workload.encode() + template.encode())))
    room = DNS1123_SUBDOMAIN_MAX_LENGTH - len(h) - 2
    wl, tpl = workload, template
    if len(wl) + len(tpl) > room:
        half = room // 2
        if len(wl) <= half:
            tpl = tpl[:room - len(wl)]
        elif len(tpl) <= half:
            wl = wl[:room - len(tpl)]
        else:
            wl, tpl = wl[:room - half], tpl[:half]
    return f"{wl}-{tpl}-{h}"


def is_gang_scheduling_candidate(parallelism: int | None, completions: int | None, indexed: bool,
                                 has_scheduling_group: bool) -> bool:
    """job/util IsGangSchedulingCandidate: parallelism above 1, Indexed, completions equal to it,
    and a template that names no scheduling group of its own."""
    return (parallelism is not None and parallelism > 1 and indexed and completions == parallelism
            and not has_scheduling_group)


# ------------------------------------------------------------------------------- admission
def admit_priority(raw: dict[str, Any], classes: Mapping[str, PriorityClass], *, source: str | None, obj: str,
                   field_path: str) -> None:
    """Fill spec.priority and spec.preemptionPolicy as the Priority admission plugin does
    (plugin/pkg/admission/priority: the named class, a system class, else the globalDefault class,
    else 0; preemptionPolicy from the class unless the pod sets it). A name no class has: the API
    server refuses the pod, so the plan cannot be made (exit 2 naming the field)."""
    spec = raw.setdefault("spec", {})
    if isinstance(spec.get("priority"), int) and not isinstance(spec.get("priority"), bool):
        # a manifest that carries its priority (one taken from `kubectl get -o yaml`) keeps it, as
        # explain -f keeps it (model/admission.py)
        return
    name = spec.get("priorityClassName") or ""
    if not isinstance(name, str):
        raise InputError(f"must be a string, got {quote(name)}", source=source, field=f"{obj}: {field_path}")
    found = class_priority(name, classes)
    if found is None:
        known = ", ".join(sorted(classes)) or "none in the snapshot"
        raise InputError(f"no PriorityClass named {quote(name)} (known: {known})", source=source,
                         field=f"{obj}: {field_path}")
    value, policy = found
    spec["priority"] = value
    if not spec.get("preemptionPolicy"):
        spec["preemptionPolicy"] = policy or "PreemptLowerPriority"


# ------------------------------------------------------------------------------- one object
class Maker:
    """Makes pods for workloads against one snapshot, with one seeded source of names."""

    def __init__(self, objects: Sequence[Mapping[str, Any]], classes: Mapping[str, PriorityClass], start: float,
                 seed: int = 0, namespace: str | None = None, workload_with_job: bool = False) -> None:
        from ..replay.state import format_time

        self.objects = objects
        self.classes = classes
        self.start = start
        self.stamp = format_time(start)
        self.rng = random.Random(f"kubectl-preempt plan names {seed}")
        self.namespace = namespace
        # the controller manager's WorkloadWithJob gate: Indexed Jobs become gangs
        self.workload_with_job = workload_with_job
        self.taken: set[str] = {f"{(o.get('metadata') or {}).get('namespace') or 'default'}/"
                                f"{(o.get('metadata') or {}).get('name')}" for o in objects if o.get("kind") == "Pod"}
        self.uids = 0
        self.made = 0  # the pods made so far, at most MAX_NEW_PODS

    # -- helpers
    def _uid(self, kind: str, ns: str, name: str) -> str:
        self.uids += 1
        return f"plan-{kind.lower()}-{ns}-{name}-{self.uids}"

    def _unique(self, ns: str, base: str) -> str:
        while True:
            name = generate_name(base, self.rng)
            if f"{ns}/{name}" not in self.taken:
                return name

    def _pod(self, template: Mapping[str, Any], ns: str, name: str, owner: Mapping[str, Any] | None,
             labels: Mapping[str, str] = (), annotations: Mapping[str, str] = (), *, source: str | None, obj: str,
             field_path: str, generate: str | None = None) -> dict[str, Any]:
        self.made += 1
        if self.made > MAX_NEW_PODS:
            raise InputError(f"the plan's workloads make more than the {MAX_NEW_PODS:,} pods a plan makes (as many as "
                             "Kubernetes supports in a cluster)", source=source, field=obj)
        tmd = template.get("metadata") or {}
        md: dict[str, Any] = {"name": name, "namespace": ns, "uid": self._uid("Pod", ns, name),
                              "creationTimestamp": self.stamp}
        if generate is not None:
            md["generateName"] = generate
        lab = {**(tmd.get("labels") or {}), **dict(labels)}
        if lab:
            md["labels"] = lab
        ann = {**(tmd.get("annotations") or {}), **dict(annotations)}
        if ann:
            md["annotations"] = ann
        if owner is not None:
            md["ownerReferences"] = [dict(owner)]
        spec = copy.deepcopy(dict(template.get("spec") or {}))
        spec.pop("nodeName", None)
        raw = {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": {"phase": "Pending"}}
        admit_priority(raw, self.classes, source=source, obj=obj, field_path=field_path)
        # the pod strategy merges matchLabelKeys / mismatchLabelKeys into affinity selectors on create
        merge_label_keys(raw)
        try:
            Pod(raw).resource  # noqa: B018 - a bad quantity fails here, naming the manifest
        except InputError as e:
            # the pod's field, under the workload's spec.template when it came from one
            outer = field_path[: -len("spec.priorityClassName")].rstrip(".")
            inner = e.field or "spec"
            raise InputError(e.detail, source=source, field=f"{obj}: {outer + '.' if outer else ''}{inner}") from None
        self.taken.add(f"{ns}/{name}")
        return raw

    @staticmethod
    def _ref(kind: str, api_version: str, name: str, uid: str) -> dict[str, Any]:
        return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": True,
                "blockOwnerDeletion": True}

    # -- manifests
    def from_manifest(self, obj: Mapping[str, Any], source: str, where: str) -> Creation:
        kind = obj.get("kind")
        md = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        name = md.get("name") or ""
        label = f"{where} ({kind} {name or md.get('generateName') or '?'})" if where else f"{kind} {name}"
        if kind not in KINDS:
            what = f"kind {kind}" if isinstance(kind, str) and kind else "an object without kind"
            raise InputError(f"{what} cannot be planned: give {', '.join(KINDS[:-1])} or {KINDS[-1]}",
                             source=source, field=f"{label}: kind")
        shape = MANIFEST_SHAPES.get(kind)
        if shape is not None:
            # its shape first, as a snapshot's objects are checked: a field of the wrong type is
            # named, not tripped over below
            try:
                check_shape(shape, obj)
            except InputError as e:
                raise InputError(e.detail, source=source, field=f"{label}: {e.field}") from None
        ns = md.get("namespace") or self.namespace or "default"
        if not name and not (kind in ("Pod", "Job") and md.get("generateName")):
            raise InputError(f"{kind} without metadata.name", source=source, field=f"{label}: metadata.name")
        if kind == "Pod":
            return self._pod_manifest(obj, ns, source, label)
        if kind in ("Workload", "PodGroup"):
            return self._workload_object(obj, ns, source, label)
        spec = obj.get("spec")
        if not isinstance(spec, Mapping):
            raise InputError(f"{kind} without spec", source=source, field=f"{label}: spec")
        template = spec.get("template")
        if not isinstance(template, Mapping) or not isinstance(template.get("spec"), Mapping):
            raise InputError(f"{kind} without spec.template.spec", source=source, field=f"{label}: spec.template")
        replicas = self._count(spec, "parallelism" if kind == "Job" else "replicas", source, label)
        if kind == "Deployment":
            return self._deployment(obj, ns, name, template, replicas, source, label)
        existing = self._find(kind, ns, name) if kind in ("ReplicaSet", "StatefulSet") else None
        if existing is not None:
            # applying a manifest of a controller the cluster has is an update: its controller
            # counts the pods it has (FilterActivePods) and makes only the missing ones, from the
            # manifest's template
            updated = self._owner_object(obj, ns, kind, replicas)
            updated["metadata"]["uid"] = (existing.get("metadata") or {}).get("uid") or updated["metadata"]["uid"]
            if kind == "ReplicaSet":
                c = self._scale_replica_set(updated, replicas, label, f"{ns}/{name}", kind, source)
            else:
                c = self._scale_stateful_set(updated, replicas, label, source)
            c.source = label
            return c
        if kind == "ReplicaSet":
            rs = self._owner_object(obj, ns, "ReplicaSet", replicas)
            return self._replica_set_pods(rs, template, 0, replicas, source, label, f"{ns}/{name}")
        if kind == "StatefulSet":
            sts = self._owner_object(obj, ns, "StatefulSet", replicas)
            return self._stateful_set_pods(sts, template, 0, replicas, source, label)
        return self._job(obj, ns, name, template, spec, replicas, source, label)

    def _workload_object(self, obj: Mapping[str, Any], ns: str, source: str, label: str) -> Creation:
        """A scheduling.k8s.io Workload or PodGroup (v1.36's workload-aware scheduling): created with
        the pods beside it, which name it; no pods of its own. A PodGroup's priority is its class's,
        as the Priority admission plugin resolves it (admitPodGroup); its shape is checked
        (from_manifest)."""
        api_version = obj.get("apiVersion")
        if not isinstance(api_version, str):
            raise InputError(f"must be a string, got {describe(api_version)}", source=source,
                             field=f"{label}: apiVersion")
        if not is_workload_object(obj):
            raise InputError(f"{api_version} {obj.get('kind')} cannot be planned: a Workload or PodGroup of "
                             "scheduling.k8s.io", source=source, field=f"{label}: apiVersion")
        # copied as far as it is changed (a deep copy of a deeply nested field it never reads
        # would only risk Python's recursion limit)
        raw = dict(obj)
        md = raw["metadata"] = dict(raw.get("metadata") or {})
        md["namespace"] = ns
        md.setdefault("uid", f"plan-{raw['kind'].lower()}-{ns}-{md.get('name')}")
        try:
            check_workload_object(raw)
        except InputError as e:
            raise InputError(e.detail, source=source, field=f"{label}: {e.field}") from None
        spec = raw["spec"] = dict(raw.get("spec") or {})
        if raw["kind"] == "PodGroup" and spec.get("priority") is None:
            found = class_priority(spec.get("priorityClassName") or "", self.classes)
            if found is None:
                raise InputError(f"no PriorityClass with name {spec.get('priorityClassName')} was found", source=source,
                                 field=f"{label}: spec.priorityClassName")
            spec["priority"] = found[0]
        return Creation(f"{ns}/{md.get('name')}", raw["kind"], label, owners=[raw])

    def _count(self, spec: Mapping[str, Any], key: str, source: str, label: str) -> int:
        # its type and sign were checked with the manifest's shape (from_manifest)
        v = spec.get(key)
        if v is None:
            v = 1
        if v > MAX_NEW_PODS:
            raise InputError(f"{v:,} pods are more than the {MAX_NEW_PODS:,} a plan makes (as many as Kubernetes "
                             "supports in a cluster)", source=source, field=f"{label}: spec.{key}")
        return v

    def _pod_manifest(self, obj: Mapping[str, Any], ns: str, source: str, label: str) -> Creation:
        md = obj.get("metadata") or {}
        name = md.get("name")
        if not name:
            name = self._unique(ns, md["generateName"])
        elif f"{ns}/{name}" in self.taken:
            raise InputError(f"pod {ns}/{name} exists already in the snapshot (the API server refuses it)",
                             source=source, field=f"{label}: metadata.name")
        owner = controller_ref(md)
        raw = self._pod({"metadata": md, "spec": obj.get("spec") or {}}, ns, name, owner, source=source,
                        obj=label, field_path="spec.priorityClassName", generate=md.get("generateName"))
        from ..replay.controllers import replica_set_index, workload_of

        wl = workload_of(raw["metadata"], replica_set_index(o for o in self.objects if o.get("kind") == "ReplicaSet"))
        return Creation(wl, "Pod", label, pods=[raw], replicas=1)

    def _owner_object(self, obj: Mapping[str, Any], ns: str, kind: str, replicas: int) -> dict[str, Any]:
        out = copy.deepcopy(dict(obj))
        md = out.setdefault("metadata", {})
        md["namespace"] = ns
        md.setdefault("uid", self._uid(kind, ns, md.get("name") or ""))
        md.setdefault("creationTimestamp", self.stamp)
        out.setdefault("spec", {})["replicas"] = replicas
        return out

    def _deployment(self, obj: Mapping[str, Any], ns: str, name: str, template: Mapping[str, Any], replicas: int,
                    source: str, label: str) -> Creation:
        # mirrors the Deployment controller's getNewReplicaSet: `<deployment>-<hash>`, the
        # pod-template-hash label on the template and in the selector
        dep_uid = (obj.get("metadata") or {}).get("uid") or self._uid("Deployment", ns, name)
        h = pod_template_hash(template)
        tpl = copy.deepcopy(dict(template))
        tmd = tpl.setdefault("metadata", {})
        tmd["labels"] = {**(tmd.get("labels") or {}), POD_TEMPLATE_HASH: h}
        spec = obj.get("spec") or {}
        sel = copy.deepcopy(dict(spec.get("selector") or {}))
        sel["matchLabels"] = {**(sel.get("matchLabels") or {}), POD_TEMPLATE_HASH: h}
        rs_name = f"{name}-{h}"
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": rs_name, "namespace": ns, "uid": self._uid("ReplicaSet", ns, rs_name),
                           "creationTimestamp": self.stamp,
                           "labels": dict(tmd["labels"]),
                           "annotations": {DEPLOYMENT_REVISION: "1"},
                           "ownerReferences": [self._ref("Deployment", "apps/v1", name, dep_uid)]},
              "spec": {"replicas": replicas, "selector": sel, "template": tpl}}
        return self._replica_set_pods(rs, tpl, 0, replicas, source, label, f"{ns}/{name}", kind="Deployment")

    def _replica_set_pods(self, rs: dict[str, Any], template: Mapping[str, Any], have: int, want: int,
                          source: str | None,
                          label: str, workload: str, kind: str = "ReplicaSet") -> Creation:
        md = rs["metadata"]
        ref = self._ref("ReplicaSet", "apps/v1", md["name"], md["uid"])
        c = Creation(workload, kind, label, owners=[rs], replicas=max(0, want - have))
        # mirrors ReplicaSetController.manageReplicas: pods from the template, generateName `<rs>-`
        for _ in range(want - have):
            base = f"{md['name']}-"
            c.pods.append(self._pod(template, md["namespace"], self._unique(md["namespace"], base), ref,
                                    source=source, obj=label, field_path="spec.template.spec.priorityClassName",
                                    generate=base))
        return c

    def _stateful_set_pods(self, sts: dict[str, Any], template: Mapping[str, Any], have: int, want: int,
                           source: str | None, label: str) -> Creation:
        md = sts["metadata"]
        ns, name = md["namespace"], md["name"]
        ref = self._ref("StatefulSet", "apps/v1", name, md["uid"])
        policy = (sts.get("spec") or {}).get("podManagementPolicy") or ORDERED_READY
        c = Creation(f"{ns}/{name}", "StatefulSet", label, owners=[sts])
        for ordinal in range(have, want):
            # mirrors newVersionedStatefulSetPod / initIdentity: name, pod-name and pod-index labels
            pod_name = f"{name}-{ordinal}"
            if f"{ns}/{pod_name}" in self.taken:
                continue  # that ordinal exists: the controller keeps it
            raw = self._pod(template, ns, pod_name, ref,
                            {STATEFULSET_POD_NAME: pod_name, POD_INDEX_LABEL: str(ordinal)},
                            source=source, obj=label, field_path="spec.template.spec.priorityClassName")
            # OrderedReady: ordinal n+1 only once n runs (monotonic creation); Parallel: all at once
            if policy == PARALLEL:
                c.pods.append(raw)
            else:
                c.ordered.append(raw)
        c.replicas = len(c.pods) + len(c.ordered)
        return c

    def _job(self, obj: Mapping[str, Any], ns: str, name: str, template: Mapping[str, Any], spec: Mapping[str, Any],
             parallelism: int, source: str, label: str) -> Creation:
        md = obj.get("metadata") or {}
        if not name:
            name = self._unique(ns, md["generateName"])
        uid = md.get("uid") or self._uid("Job", ns, name)
        completions = spec.get("completions")  # a whole number, 0 or more (MANIFEST_SHAPES)
        # mirrors the Job controller's manageJob: active pods = min(parallelism, completions left)
        n = parallelism if completions is None else min(parallelism, completions)
        mode = spec.get("completionMode") or "NonIndexed"
        if mode not in ("NonIndexed", "Indexed"):
            raise InputError(f"must be NonIndexed or Indexed, got {quote(mode)}", source=source,
                             field=f"{label}: spec.completionMode")
        ref = self._ref("Job", "batch/v1", name, uid)
        labels = {**{k: uid for k in CONTROLLER_UID_LABELS}, **{k: name for k in JOB_NAME_LABELS}}
        c = Creation(f"{ns}/{name}", "Job", label, replicas=n)
        t_spec = template.get("spec") or {}
        # shouldManageWorkloadForJob reads the spec as given: parallelism and completions unset are
        # nil there (the defaulted 1 would not qualify either)
        if self.workload_with_job and is_gang_scheduling_candidate(
                spec.get("parallelism"), completions, mode == "Indexed", t_spec.get("schedulingGroup") is not None):
            workload, pod_group = self._job_workload(ns, name, uid, parallelism, source, label)
            c.owners += [workload, pod_group]
            pg_name = pod_group["metadata"]["name"]
            # job_controller.go manageJob: the pod template names the PodGroup, and the pods get a
            # non-controller owner reference to it beside the Job's
            template = {**template, "spec": {**t_spec, "schedulingGroup": {"podGroupName": pg_name}}}
            pg_ref = {"apiVersion": SCHEDULING_API_VERSION, "kind": "PodGroup", "name": pg_name,
                      "uid": pod_group["metadata"]["uid"]}
        else:
            pg_ref = None
        for i in range(n):
            extra_labels = dict(labels)
            ann: dict[str, str] = {}
            if mode == "Indexed":
                # mirrors podGenerateNameWithIndex and addCompletionIndexEnvVariables' neighbours:
                # the index as annotation and (PodIndexLabel) label, generateName `<job>-<index>-`
                base = f"{name}-{i}-"
                ann[JOB_COMPLETION_INDEX] = str(i)
                extra_labels[JOB_COMPLETION_INDEX] = str(i)
            else:
                base = f"{name}-"
            pod = self._pod(template, ns, self._unique(ns, base), ref, extra_labels, ann, source=source,
                            obj=label, field_path="spec.template.spec.priorityClassName", generate=base)
            if pg_ref is not None:
                pod["metadata"]["ownerReferences"].append(dict(pg_ref))
            c.pods.append(pod)
        return c

    def _job_workload(self, ns: str, job: str, job_uid: str, parallelism: int, source: str, label: str
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
        """job_scheduling_manager.go createWorkloadForJob and createPodGroupForWorkload: a Workload
        with one gang template of minCount parallelism, and its PodGroup; no priority class is
        named, so admission gives the PodGroup the global default's priority, else 0."""
        owner = self._ref("Job", "batch/v1", job, job_uid)
        wl_name = workload_name_for_job(job, job_uid)
        template = f"{job}-pgt-0"
        policy = {"gang": {"minCount": parallelism}}
        wl_uid = self._uid("Workload", ns, wl_name)
        workload = {"apiVersion": SCHEDULING_API_VERSION, "kind": "Workload",
                    "metadata": {"name": wl_name, "namespace": ns, "uid": wl_uid, "creationTimestamp": self.stamp,
                                 "ownerReferences": [dict(owner)]},
                    "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": job},
                             "podGroupTemplates": [{"name": template, "schedulingPolicy": copy.deepcopy(policy)}]}}
        pg_name = pod_group_name_for_workload(wl_name, template)
        pod_group = {"apiVersion": SCHEDULING_API_VERSION, "kind": "PodGroup",
                     "metadata": {"name": pg_name, "namespace": ns, "uid": self._uid("PodGroup", ns, pg_name),
                                  "creationTimestamp": self.stamp,
                                  "ownerReferences": [dict(owner), {"apiVersion": SCHEDULING_API_VERSION,
                                                                    "kind": "Workload", "name": wl_name, "uid": wl_uid}]},
                     "spec": {"podGroupTemplateRef": {"workload": {"workloadName": wl_name,
                                                                    "podGroupTemplateName": template}},
                              "schedulingPolicy": copy.deepcopy(policy)}}
        found = class_priority("", self.classes)
        pod_group["spec"]["priority"] = found[0] if found is not None else 0
        return workload, pod_group

    # -- --scale
    def scale(self, target: str) -> Creation:
        """`NS/KIND/NAME=N`: the workload in the snapshot at N replicas."""
        m = re.fullmatch(r"([^/=]+)/([^/=]+)/([^/=]+)=(\d+)", target.strip())
        if m is None:
            raise InputError(f"expected NAMESPACE/KIND/NAME=REPLICAS, got {quote(target)}", field="--scale")
        ns, kind_arg, name, n = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if n > MAX_NEW_PODS:
            raise InputError(f"{n:,} replicas are more than the {MAX_NEW_PODS:,} pods a plan makes (as many as "
                             "Kubernetes supports in a cluster)", field=f"--scale {target}: REPLICAS")
        kind = {k.lower(): k for k in SCALE_KINDS} | {"deploy": "Deployment", "deployments": "Deployment",
                                                     "rs": "ReplicaSet", "replicasets": "ReplicaSet",
                                                     "sts": "StatefulSet", "statefulsets": "StatefulSet"}
        kind = kind.get(kind_arg.lower())
        label = f"--scale {target}"
        if kind is None:
            raise InputError(f"kind {quote(kind_arg)} cannot be scaled: give Deployment, ReplicaSet or StatefulSet",
                             field=f"{label}: KIND")
        if kind == "Deployment":
            rs = self._deployment_replica_set(ns, name, label)
            return self._scale_replica_set(rs, n, label, f"{ns}/{name}", "Deployment")
        found = self._find(kind, ns, name)
        if found is None:
            raise InputError(self._not_found(kind, ns, name), field=f"{label}: NAME")
        if kind == "ReplicaSet":
            from ..replay.controllers import replica_set_index, workload_of

            wl = workload_of({"namespace": ns, "ownerReferences": [self._ref("ReplicaSet", "apps/v1", name, "")]},
                             replica_set_index([found]))
            return self._scale_replica_set(found, n, label, wl, "ReplicaSet")
        return self._scale_stateful_set(found, n, label)

    def _find(self, kind: str, ns: str, name: str) -> Mapping[str, Any] | None:
        for o in self.objects:
            md = o.get("metadata") or {}
            if o.get("kind") == kind and md.get("name") == name and (md.get("namespace") or "default") == ns:
                return o
        return None

    def _not_found(self, kind: str, ns: str, name: str) -> str:
        have = sorted((o.get("metadata") or {}).get("name") or "" for o in self.objects
                      if o.get("kind") == kind and ((o.get("metadata") or {}).get("namespace") or "default") == ns)
        hint = f"{kind}s in {ns}: {', '.join(have[:8])}{' ...' if len(have) > 8 else ''}" if have else \
            f"no {kind} in namespace {ns}"
        return f"{kind} {ns}/{name} is not in the snapshot ({hint})"

    def _deployment_replica_set(self, ns: str, name: str, label: str) -> Mapping[str, Any]:
        # the Deployment's current ReplicaSet: the one it controls with the highest revision
        # (deployment util's FindNewReplicaSet picks the one matching the template; a snapshot
        # without the Deployment has only the revision to go by)
        owned = []
        deployments: set[str] = set()
        for o in self.objects:
            md = o.get("metadata") or {}
            if o.get("kind") != "ReplicaSet" or (md.get("namespace") or "default") != ns:
                continue
            ref = controller_ref(md)
            if ref is None or ref.get("kind") != "Deployment":
                continue
            deployments.add(ref.get("name") or "")
            if ref.get("name") == name:
                rev = (md.get("annotations") or {}).get(DEPLOYMENT_REVISION) or "0"
                owned.append((int(rev) if str(rev).isdigit() else 0, md.get("creationTimestamp") or "", o))
        if not owned:
            known = sorted(deployments)
            hint = (f"Deployments in {ns}: {', '.join(known[:8])}{' ...' if len(known) > 8 else ''}" if known
                    else f"no Deployment's ReplicaSet in namespace {ns}")
            raise InputError(f"Deployment {ns}/{name} is not in the snapshot (no ReplicaSet of it; {hint})",
                             field=f"{label}: NAME")
        owned.sort(key=lambda t: (t[0], t[1]))
        return owned[-1][2]

    def _active(self, kind: str, ns: str, name: str) -> list[Mapping[str, Any]]:
        out = []
        for o in self.objects:
            if o.get("kind") != "Pod":
                continue
            md = o.get("metadata") or {}
            ref = controller_ref(md)
            if ref is None or ref.get("kind") != kind or ref.get("name") != name or \
                    (md.get("namespace") or "default") != ns:
                continue
            # mirrors controller.FilterActivePods
            if md.get("deletionTimestamp") or (o.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            out.append(o)
        return out

    def _template(self, owner: Mapping[str, Any], label: str) -> Mapping[str, Any]:
        tpl = (owner.get("spec") or {}).get("template")
        if not isinstance(tpl, Mapping) or not isinstance(tpl.get("spec"), Mapping):
            raise InputError("the snapshot's object has no spec.template.spec to make pods from", field=f"{label}: NAME")
        return tpl

    def _scale_replica_set(self, rs: Mapping[str, Any], n: int, label: str, workload: str, kind: str,
                           source: str | None = None) -> Creation:
        md = rs.get("metadata") or {}
        ns, name = md.get("namespace") or "default", md.get("name") or ""
        have = len(self._active("ReplicaSet", ns, name))
        new = copy.deepcopy(dict(rs))
        new["spec"] = {**(new.get("spec") or {}), "replicas": n}
        new.setdefault("metadata", {}).setdefault("uid", self._uid("ReplicaSet", ns, name))
        if n < have:
            # the replay's ReplicaSet controller removes the extra pods (replay/controllers.py's
            # ranking of getPodsToDelete) once it sees the new spec.replicas
            return Creation(workload, kind, label, scale_down=[new])
        return self._replica_set_pods(new, self._template(rs, label), have, n, source, label, workload, kind=kind)

    def _scale_stateful_set(self, sts: Mapping[str, Any], n: int, label: str, source: str | None = None) -> Creation:
        md = sts.get("metadata") or {}
        ns, name = md.get("namespace") or "default", md.get("name") or ""
        have = len(self._active("StatefulSet", ns, name))
        new = copy.deepcopy(dict(sts))
        new["spec"] = {**(new.get("spec") or {}), "replicas": n}
        new.setdefault("metadata", {}).setdefault("uid", self._uid("StatefulSet", ns, name))
        if n < have:
            return Creation(f"{ns}/{name}", "StatefulSet", label, scale_down=[new])
        # every ordinal below n that has no pod is created, lowest first (a missing one too)
        return self._stateful_set_pods(new, self._template(sts, label), 0, n, source, label)


def owner_key_of(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    md = obj.get("metadata") or {}
    return (obj.get("kind") or "", md.get("namespace") or "default", md.get("name") or "")


def merge_owners(objects: Iterable[Mapping[str, Any]], owners: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The snapshot's objects with `owners` added, or in place of the same kind, namespace and name."""
    new = {owner_key_of(o): o for o in owners}
    out: list[Mapping[str, Any]] = []
    for o in objects:
        k = owner_key_of(o)
        if k in new:
            out.append(new.pop(k))
        else:
            out.append(o)
    out.extend(new.values())
    return out
