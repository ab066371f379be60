"""PrioritySort: the active queue pops higher priority first, then the pod queued earlier
(mirrors queuesort/priority_sort.go)."""
from __future__ import annotations

from typing import Any, Mapping

from .. import names

NAME = names.PRIORITY_SORT


class PrioritySort:
    name = NAME

    def less(self, a: Any, b: Any) -> bool:
        """a and b are queued pod infos with .pod and .timestamp."""
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)


def new(args: Mapping[str, Any], handle: Any) -> PrioritySort:
    return PrioritySort()
