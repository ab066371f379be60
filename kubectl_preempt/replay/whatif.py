"""What-if: other PriorityClasses than the recorded ones.

Admission gives a pod its priority once, when it is created: pods created during the trace get
theirs from the proposed classes, as admission would; pods that already existed when the trace
starts keep their recorded priority, as in a real cluster, unless asked to re-resolve them.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..errors import InputError, quote
from ..model.cluster import Cluster
from ..model.objects import Pod, PriorityClass
from ..model.priority import class_priority

MAX_USER_PRIORITY = 1_000_000_000


class PriorityPolicy:
    """The classes a replay resolves priorities with: the recorded ones, with proposals on top."""

    def __init__(self, overrides: Iterable[Mapping[str, Any] | PriorityClass] | None = None,
                 *, reresolve_existing: bool = False) -> None:
        self.overrides: dict[str, PriorityClass] = {}
        for i, o in enumerate(overrides or ()):
            pc = o if isinstance(o, PriorityClass) else _priority_class(o, i)
            self.overrides[pc.name] = pc
        self.reresolve_existing = reresolve_existing

    @property
    def active(self) -> bool:
        return bool(self.overrides)

    def merged(self, recorded: Mapping[str, PriorityClass]) -> dict[str, PriorityClass]:
        out = dict(recorded)
        out.update(self.overrides)
        if any(pc.global_default for pc in self.overrides.values()):
            # a proposed default replaces the recorded one, as only one may exist
            for name, pc in list(out.items()):
                if pc.global_default and name not in self.overrides:
                    out[name] = _without_default(pc)
        return out

    def apply_initial(self, cluster: Cluster) -> dict[str, PriorityClass]:
        """Put the classes in force into the cluster a replay starts from and give the pods it
        already holds their priorities; returns the recorded classes."""
        recorded = dict(cluster.priority_classes)
        cluster.priority_classes = self.merged(recorded)
        for pod in cluster.pods.values():
            self.resolve(pod, cluster.priority_classes, existing=True)
        return recorded

    def resolve(self, pod: Pod, classes: Mapping[str, PriorityClass], *, existing: bool) -> None:
        """Give `pod` its priority and preemptionPolicy as admission would with `classes`.

        A pod keeps a recorded spec.priority when nothing asks to change it: no proposed classes,
        or an existing pod without --reresolve-existing.
        """
        force = self.active and (not existing or self.reresolve_existing)
        if pod.has_priority and not force:
            return
        name = pod.priority_class_name
        found = class_priority(name, classes)
        if found is not None:
            pod.priority, policy = found
            if policy is not None:
                pod.preemption_policy = policy
        elif not pod.has_priority:
            # admission would have refused the pod; the recorded one had no priority either
            pod.priority = 0
        if pod.spec.get("preemptionPolicy") and not (force and name and name in classes):
            pod.preemption_policy = pod.spec["preemptionPolicy"]
        pod.has_priority = True


def _without_default(pc: PriorityClass) -> PriorityClass:
    raw = dict(pc.raw)
    raw["globalDefault"] = False
    return PriorityClass(raw)


def _priority_class(raw: Mapping[str, Any], index: int) -> PriorityClass:
    where = f"priorityClasses[{index}]"
    if not isinstance(raw, Mapping) or raw.get("kind") != "PriorityClass":
        kind = raw.get("kind") if isinstance(raw, Mapping) else type(raw).__name__
        raise InputError(f"expected a PriorityClass, got {kind}", field=f"{where}.kind")
    name = (raw.get("metadata") or {}).get("name")
    if not name:
        raise InputError("PriorityClass without metadata.name", field=f"{where}.metadata.name")
    v = raw.get("value")
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"value must be an integer, got {quote(v)}", field=f"{where} ({name}).value")
    if v > MAX_USER_PRIORITY and not name.startswith("system-"):
        raise InputError(f"value {v} is above {MAX_USER_PRIORITY}, the highest a user-defined class may have",
                         field=f"{where} ({name}).value")
    policy = raw.get("preemptionPolicy")
    if policy not in (None, "PreemptLowerPriority", "Never"):
        raise InputError(f"preemptionPolicy {quote(policy)} is not PreemptLowerPriority or Never",
                         field=f"{where} ({name}).preemptionPolicy")
    return PriorityClass(raw)
