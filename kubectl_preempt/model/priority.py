"""Pod priority as the Priority admission plugin resolves it."""
from __future__ import annotations

from typing import Iterable, Mapping, Protocol, TypeVar

from .objects import (PREEMPT_LOWER_PRIORITY, SYSTEM_PRIORITY_CLASSES, Pod, PriorityClass)


class _Class(Protocol):
    @property
    def global_default(self) -> bool: ...

    @property
    def value(self) -> int: ...


_C = TypeVar("_C", bound=_Class)


def global_default(classes: Iterable[_C]) -> _C | None:
    """The globalDefault class (a PriorityClass, or anything with global_default and value);
    with several, admission takes the lowest value (getDefaultPriorityClass)."""
    best = None
    for pc in classes:
        if pc.global_default and (best is None or pc.value < best.value):
            best = pc
    return best


def class_priority(name: str, classes: Mapping[str, PriorityClass]) -> tuple[int, str | None] | None:
    """The priority and preemptionPolicy admission takes for a pod whose priorityClassName is
    `name`: from that class or a system class, or ("") from the globalDefault class (0 and no
    policy without one). None when no class has that name: admission refuses the pod."""
    if name:
        pc = classes.get(name)
        if pc is not None:
            return pc.value, pc.preemption_policy
        if name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[name], PREEMPT_LOWER_PRIORITY
        return None
    pc = global_default(classes.values())
    if pc is not None:
        return pc.value, pc.preemption_policy
    return 0, None


def resolve(pod: Pod, classes: dict[str, PriorityClass], *, force: bool = False) -> None:
    """Fill in priority and preemptionPolicy of a pod that admission has not seen yet.

    A pod that carries spec.priority keeps it (as in a real cluster) unless `force`.
    """
    if pod.has_priority and not force:
        return
    found = class_priority(pod.priority_class_name, classes)
    if found is None:
        from ..errors import InputError

        raise InputError(f"no PriorityClass with name {pod.priority_class_name} was found", source=None,
                         field=f"pod {pod.key}: spec.priorityClassName")
    pod.priority, policy = found
    if policy is not None:
        pod.preemption_policy = policy
    if pod.spec.get("preemptionPolicy"):
        pod.preemption_policy = pod.spec["preemptionPolicy"]
    pod.has_priority = True
