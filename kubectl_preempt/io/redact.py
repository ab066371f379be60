"""Redaction: what `capture` and `record` remove so that a snapshot or a trace can be shared.

The rule: keep every field kube-scheduler v1.34.1 reads (so verdicts on a redacted snapshot equal
those on the full one; a test holds this), drop the places a secret can hide that it never reads.
REMOVED lists them, place by place, and README's redaction table is written from it (a test
plants a secret in each place, through `capture` and `record`, and finds none in the output).
Everything else (labels, requests, images, affinity, tolerations, volumes' claim names and
in-tree disk identities, owners, conditions) is what decisions are made of, and stays.
"""
from __future__ import annotations

from typing import Any, Iterable, MutableMapping

import re

import orjson

from ..model.who_preempted import EVENT_REASON_PREEMPTED, IN_MEMORY, PREEMPTED_BY_ANY

# (where, what is removed, what stays): README's redaction table, row by row
REMOVED: tuple[tuple[str, str, str], ...] = (
    ("metadata of every object, and of every nested template (pod templates, a pod's ephemeral "
     "volume claim template, a StatefulSet's volumeClaimTemplates)",
     "every annotation but the allow-list (so `kubectl.kubernetes.io/last-applied-configuration`), "
     "`managedFields`", "name, namespace, uid, labels, owners, times, allow-listed annotations"),
    ("containers, init and ephemeral containers (pods, and the pod templates of Deployments, "
     "ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers)",
     "`env` values and `valueFrom`, `envFrom`, `command`, `args`, probes, `lifecycle` hooks",
     "name, image, resources, ports, `env` names, `restartPolicy`"),
    ("pod status", "container state messages (termination logs)", "phase, conditions, container states"),
    ("pod volumes", "CSI `volumeAttributes`, FlexVolume `options`, the `user:password@` of a `gitRepo` URL",
     "claim names, drivers, in-tree disk identities, the rest of the URL"),
    ("PersistentVolumes (and a VolumeAttachment's inline volume)",
     "CSI `volumeAttributes`, FlexVolume `options`, `mountOptions`",
     "capacity, access modes, class, claim, node affinity, volume identity"),
    ("StorageClasses", "`parameters`, `mountOptions`", "provisioner, binding mode, allowed topologies"),
    ("VolumeAttachments", "`status.attachmentMetadata`", "attacher, node, volume, attached"),
    ("ResourceClaims and DeviceClasses", "opaque device configuration `parameters`, allocated devices' `data`",
     "requests, selectors, allocation results"),
    ("Secrets and ConfigMaps (should one be passed in)", "`data`, `stringData`, `binaryData`", "metadata"),
    ("Events (only the scheduler's `Preempted` events are read: who preempted a pod)",
     "the `message` and `note` of an Event of any other reason; of a `Preempted` event, everything but "
     "`Preempted by pod <uid> on node <node>`",
     "reason, the pod it is about, the related preemptor, times, reporting component"),
)

# annotations the scheduler reads (component-helpers/storage/volume, csi-translation, DRA),
# and a few a person reading an explanation uses; every other annotation is dropped
ANNOTATION_ALLOW_LIST = frozenset({
    "volume.kubernetes.io/selected-node",
    "volume.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-class",
    "pv.kubernetes.io/bind-completed",
    "pv.kubernetes.io/bound-by-controller",
    "pv.kubernetes.io/provisioned-by",
    "pv.kubernetes.io/migrated-to",
    "storage.alpha.kubernetes.io/migrated-plugins",
    "resource.kubernetes.io/extended-resource-claim",
    "storageclass.kubernetes.io/is-default-class",
    "kubernetes.io/config.mirror",
    # kube-batch reads a pod's PodGroup, and a shadow group's minMember, from these
    "scheduling.k8s.io/group-name",
    "scheduling.k8s.io/group-min-member",
    "kubernetes.io/config.source",
    "controller.kubernetes.io/pod-deletion-cost",
})

_CONTAINER_DROP = ("envFrom", "command", "args", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_STATUS_LISTS = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
_TEMPLATED = ("ReplicaSet", "StatefulSet", "ReplicationController", "Deployment", "DaemonSet", "Job", "CronJob",
              "PodTemplate")
# a URL's user information (`https://user:password@host/...`), or scp-like `user@host:path`
_URL_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)?[^/@]*@")


def _list(value: Any) -> list:
    """`value` when it is a list, else nothing to walk: redaction walks what the server answered,
    whatever its shape (a proxy's or a broken server's), and leaves what it does not know."""
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _metadata(md: Any) -> None:
    if not isinstance(md, dict):
        return
    md.pop("managedFields", None)
    ann = md.get("annotations")
    if isinstance(ann, dict):
        kept = {k: v for k, v in ann.items() if k in ANNOTATION_ALLOW_LIST}
        if kept:
            md["annotations"] = kept
        else:
            del md["annotations"]


def _container(c: Any) -> None:
    if not isinstance(c, dict):
        return
    for key in _CONTAINER_DROP:
        c.pop(key, None)
    env = c.get("env")
    if isinstance(env, list):
        c["env"] = [{"name": e.get("name")} for e in env if isinstance(e, dict)]


def _inline_volume(v: Any) -> None:
    """A volume source: a pod's volume, or a PersistentVolume's spec (inline or not)."""
    if not isinstance(v, dict):
        return
    v.pop("mountOptions", None)  # CIFS and others take `password=...` here
    git = v.get("gitRepo")
    if isinstance(git, dict) and isinstance(git.get("repository"), str):
        git["repository"] = _URL_USERINFO.sub(r"\1", git["repository"], count=1)
    eph = v.get("ephemeral")
    if isinstance(eph, dict) and isinstance(eph.get("volumeClaimTemplate"), dict):
        _metadata(eph["volumeClaimTemplate"].get("metadata"))
    csi = v.get("csi")
    if isinstance(csi, dict):
        csi.pop("volumeAttributes", None)
    flex = v.get("flexVolume")
    if isinstance(flex, dict):
        flex.pop("options", None)


def redact_pod_spec(spec: Any) -> None:
    if not isinstance(spec, dict):
        return
    for key in _CONTAINER_LISTS:
        for c in _list(spec.get(key)):
            _container(c)
    for v in _list(spec.get("volumes")):
        _inline_volume(v)


def _pod_status(status: Any) -> None:
    if not isinstance(status, dict):
        return
    for key in _STATUS_LISTS:
        for cs in _list(status.get(key)):
            if not isinstance(cs, dict):
                continue
            for which in ("state", "lastState"):
                st = cs.get(which)
                if isinstance(st, dict):
                    for detail in st.values():
                        if isinstance(detail, dict):
                            detail.pop("message", None)


def _opaque_configs(configs: Any) -> None:
    for cfg in _list(configs):
        if isinstance(cfg, dict) and isinstance(cfg.get("opaque"), dict):
            cfg["opaque"].pop("parameters", None)


def _pod_template(tmpl: Any) -> None:
    if isinstance(tmpl, dict):
        _metadata(tmpl.get("metadata"))
        redact_pod_spec(tmpl.get("spec"))


def _template(obj: MutableMapping[str, Any]) -> None:
    """The pod template of a workload (a CronJob's inside its jobTemplate; a PodTemplate's at the top)."""
    if obj.get("kind") == "PodTemplate":
        _pod_template(obj.get("template"))
        return
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    job = spec.get("jobTemplate")
    if isinstance(job, dict):
        _metadata(job.get("metadata"))
        spec = job.get("spec")
        if not isinstance(spec, dict):
            return
    _pod_template(spec.get("template"))
    for claim in _list(spec.get("volumeClaimTemplates")):  # StatefulSet
        if isinstance(claim, dict):
            _metadata(claim.get("metadata"))


# the Event reasons the product reads: the scheduler's Preempted event ("Preempted by pod <uid>
# on node <node>", framework/preemption/preemption.go prepareCandidate), which explain and replay's
# follow mode read to attribute a victim to its preemptor (model/who_preempted.py, replay/follow.py).
# Nothing reads kube-batch's eviction events: its evictions are attributed by replaying its session.
READ_EVENT_REASONS = frozenset({EVENT_REASON_PREEMPTED})


def _event(obj: MutableMapping[str, Any]) -> None:
    """An Event's free text can carry anything (a failed image pull's URL with its token): an
    Event of a reason nobody reads loses it; a Preempted event keeps only the sentence attribution
    parses, rebuilt from its parts, so nothing appended to it survives."""
    kept: dict[str, str] = {}
    if obj.get("reason") in READ_EVENT_REASONS:
        for key in ("message", "note"):  # core/v1 `message`, events.k8s.io/v1 `note`
            text = obj.get(key)
            # a pod's or (v1.36 executor.go PreemptPod, workload-aware) a podgroup's, with the
            # suffix of a victim rejected in the scheduler's memory
            m = PREEMPTED_BY_ANY.fullmatch(text.strip()) if isinstance(text, str) else None
            if m:
                kept[key] = (f"Preempted by {m.group('type')} {m.group('uid')} on node {m.group('node')}"
                             + (IN_MEMORY if m.group("memory") else ""))
    for key in ("message", "note"):
        if key in kept:
            obj[key] = kept[key]
        else:
            obj.pop(key, None)


def keeps_event(obj: Any) -> bool:
    """Whether capture keeps this Event at all: only the reasons the product reads."""
    return isinstance(obj, dict) and obj.get("reason") in READ_EVENT_REASONS


def redact_object(obj: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Redact one decoded object in place and return it."""
    kind = obj.get("kind")
    _metadata(obj.get("metadata"))
    spec = obj.get("spec")
    if kind == "Pod":
        redact_pod_spec(spec)
        _pod_status(obj.get("status"))
    elif kind in _TEMPLATED:
        _template(obj)
    elif kind == "PersistentVolume":
        _inline_volume(spec)
    elif kind == "VolumeAttachment":
        source = (spec or {}).get("source") if isinstance(spec, dict) else None
        if isinstance(source, dict):
            _inline_volume(source.get("inlineVolumeSpec"))
        status = obj.get("status")
        if isinstance(status, dict):
            status.pop("attachmentMetadata", None)
    elif kind == "StorageClass":
        obj.pop("parameters", None)
        obj.pop("mountOptions", None)
    elif kind == "ResourceClaim":
        if isinstance(spec, dict):
            _opaque_configs(_dict(spec.get("devices")).get("config"))
        status = obj.get("status")
        if isinstance(status, dict):
            alloc = _dict(_dict(status.get("allocation")).get("devices"))
            _opaque_configs(alloc.get("config"))
            for dev in _list(status.get("devices")):
                if isinstance(dev, dict):
                    dev.pop("data", None)
    elif kind == "DeviceClass":
        if isinstance(spec, dict):
            _opaque_configs(spec.get("config"))
    elif kind == "Event":
        _event(obj)
    elif kind in ("Secret", "ConfigMap"):
        for key in ("data", "stringData", "binaryData"):
            obj.pop(key, None)
    return obj


def redact_objects(objects: Iterable[MutableMapping[str, Any]], *, in_place: bool = False) -> list:
    """Redacted objects: the same dicts when `in_place`, else deep copies (the input untouched)."""
    if in_place:
        out = objects if isinstance(objects, list) else list(objects)
        for o in out:
            redact_object(o)
        return out
    return [redact_object(orjson.loads(orjson.dumps(o))) for o in objects]
