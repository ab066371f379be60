"""Typed views over Kubernetes objects as the scheduler reads them.

Each view keeps the decoded dict (`raw`) and lifts out, once, the fields every cycle reads.
Nothing is deep-copied: views are cheap to build for 150,000 pods.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from .rfc3339 import parse_datetime, parse_nanos
from .resources import PodResource, PodResourcesOptions, allocatable_resource, calculate_resource, effective_options

SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
SYSTEM_PRIORITY_CLASSES = {SYSTEM_CLUSTER_CRITICAL: SYSTEM_CRITICAL_PRIORITY,
                           SYSTEM_NODE_CRITICAL: SYSTEM_CRITICAL_PRIORITY + 1000}
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"

def parse_time(value: Any) -> datetime | None:
    return parse_datetime(value)


def metadata_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """An object's metadata as read from its manifest: {} where it has none."""
    return obj.get("metadata") or {}


class _View:
    """The decoded object and its three parts, as every typed view keeps them."""

    __slots__ = ()

    def _parts(self, raw: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.raw = raw
        self.metadata = md
        self.spec = spec
        self.status = status
        self.name: str = md.get("name") or ""
        return md, spec, status


class Pod(_View):
    """A pod and what the scheduler derives from it (framework.PodInfo)."""

    # slotted: a snapshot holds 150,000 pods (a dict per pod would cost more than the pod's fields)
    __slots__ = ("raw", "metadata", "spec", "status", "name", "namespace", "key", "uid", "labels", "node_name",
                 "nominated_node_name", "priority", "has_priority", "priority_class_name", "preemption_policy",
                 "scheduler_name", "deletion_timestamp", "phase", "_resource", "_resource_with", "info",
                 "__weakref__")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        # _parts, inline: a snapshot makes 150,000 pods
        self.raw = raw
        md = self.metadata = raw.get("metadata") or {}
        spec = self.spec = raw.get("spec") or {}
        status = self.status = raw.get("status") or {}
        name = self.name = md.get("name") or ""
        namespace = self.namespace = md.get("namespace") or "default"
        key = self.key = f"{namespace}/{name}"
        self.uid: str = md.get("uid") or key
        self.labels: Mapping[str, str] = md.get("labels") or {}
        self.node_name: str = spec.get("nodeName") or ""
        self.nominated_node_name: str = status.get("nominatedNodeName") or ""
        prio = spec.get("priority")
        has_priority = type(prio) is int  # decoded JSON or YAML: a bool is not a priority
        self.priority: int = prio if has_priority else 0
        self.has_priority = has_priority
        self.priority_class_name: str = spec.get("priorityClassName") or ""
        self.preemption_policy: str = spec.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
        self.scheduler_name: str = spec.get("schedulerName") or "default-scheduler"
        self.deletion_timestamp = md.get("deletionTimestamp")
        self.phase = status.get("phase")
        self._resource: PodResource | None = None
        # the framework's PodInfo of this object (framework/podinfo.py), made on first use: what
        # the scheduler derives from the pod lives there, typed, and goes with this object
        self.info: Any = None

    # --- derived, computed on first use -------------------------------------------------
    @property
    def resource(self) -> PodResource:
        r = self._resource
        if r is None:
            r = self._resource = calculate_resource(self.spec, self.status)
        return r

    def resource_for(self, options: PodResourcesOptions | None) -> PodResource:
        """The pod's requests as a release whose PodResourcesOptions differ from v1.34's adds them
        up (None: v1.34's, `resource`); identical pods share the result: read-only."""
        options = effective_options(options, self.spec)
        if options is None:
            return self.resource
        # kept with the pod as `resource` is (set only for pods another release counts)
        kept = getattr(self, "_resource_with", None)
        if kept is not None and kept[0] == options:
            return kept[1]
        r = calculate_resource(self.spec, self.status, options=options)
        self._resource_with = (options, r)
        return r

    @property
    def terminating(self) -> bool:
        return bool(self.deletion_timestamp)

    @property
    def affinity(self) -> Mapping[str, Any]:
        return self.spec.get("affinity") or {}

    @property
    def tolerations(self) -> list:
        return self.spec.get("tolerations") or []

    @property
    def start_time(self) -> datetime | None:
        return parse_time(self.status.get("startTime"))

    @property
    def start_nanos(self) -> int | None:
        """status.startTime in nanoseconds since the epoch, as Go's time.Time compares it."""
        return parse_nanos(self.status.get("startTime"))

    @property
    def creation_time(self) -> datetime | None:
        return parse_time(self.metadata.get("creationTimestamp"))

    def __repr__(self) -> str:
        return f"Pod({self.key})"


class Node(_View):
    """A node as the scheduler reads it."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        md, spec, status = self._parts(raw)
        self.uid: str = md.get("uid") or self.name
        self.labels: Mapping[str, str] = md.get("labels") or {}
        self.taints: list = spec.get("taints") or []
        self.unschedulable: bool = bool(spec.get("unschedulable"))
        self.images: list = status.get("images") or []
        self.allocatable = allocatable_resource(status.get("allocatable"), "status.allocatable")
        # status.declaredFeatures (NodeDeclaredFeatures); names that are not strings cannot be required
        df = status.get("declaredFeatures")
        self.declared_features: frozenset[str] = (
            frozenset(f for f in df if isinstance(f, str)) if isinstance(df, list) and df else frozenset())

    def __repr__(self) -> str:
        return f"Node({self.name})"


class PodDisruptionBudget:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        from .selectors import LabelSelector

        md = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.raw = raw
        self.name: str = md.get("name") or ""
        self.namespace: str = md.get("namespace") or "default"
        self.key = f"{self.namespace}/{self.name}"
        sel = spec.get("selector")
        # a PDB with a nil selector matches nothing; an empty one matches every pod (policy/v1)
        self.selector = LabelSelector(sel) if sel is not None else None
        self.disruptions_allowed: int = int(status.get("disruptionsAllowed") or 0)
        self.disrupted_pods: Mapping[str, Any] = status.get("disruptedPods") or {}


class PriorityClass:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        md = raw.get("metadata") or {}
        self.raw = raw
        self.name: str = md.get("name") or ""
        v = raw.get("value")
        self.value: int = v if isinstance(v, int) and not isinstance(v, bool) else 0
        self.global_default: bool = bool(raw.get("globalDefault"))
        self.preemption_policy: str = raw.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
        self.creation_time = parse_time(md.get("creationTimestamp"))
