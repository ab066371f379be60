"""Pod priority as the Priority admission plugin resolves it."""
from __future__ import annotations

from typing import Iterable

from .objects import (PREEMPT_LOWER_PRIORITY, SYSTEM_PRIORITY_CLASSES, Pod, PriorityClass)


def global_default(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    """The globalDefault class; with several, admission takes the lowest value."""
    best = None
    for pc in classes:
        if pc.global_default and (best is None or pc.value < best.value):
            best = pc
    return best


def resolve(pod: Pod, classes: dict[str, PriorityClass], *, force: bool = False) -> None:
    """Fill in priority and preemptionPolicy of a pod that admission has not seen yet.

    A pod that carries spec.priority keeps it (as in a real cluster) unless `force`.
    """
    if pod.has_priority and not force:
        return
    name = pod.priority_class_name
    if name:
        pc = classes.get(name)
        if pc is not None:
            pod.priority, pod.preemption_policy = pc.value, pc.preemption_policy
        elif name in SYSTEM_PRIORITY_CLASSES:
            pod.priority, pod.preemption_policy = SYSTEM_PRIORITY_CLASSES[name], PREEMPT_LOWER_PRIORITY
        else:
            from ..errors import InputError

            raise InputError(f"no PriorityClass with name {name} was found", source=None,
                             field=f"pod {pod.key}: spec.priorityClassName")
    else:
        pc = global_default(classes.values())
        if pc is not None:
            pod.priority, pod.preemption_policy = pc.value, pc.preemption_policy
        else:
            pod.priority = 0
    if pod.spec.get("preemptionPolicy"):
        pod.preemption_policy = pod.spec["preemptionPolicy"]
    pod.has_priority = True
