"""QueueInfo (pkg/scheduler/api/queue_info.go)."""
from __future__ import annotations


class QueueInfo:
    __slots__ = ("uid", "name", "weight", "creation_timestamp", "raw")

    def __init__(self, name: str, weight: int, creation_timestamp: str = "", raw: dict | None = None) -> None:
        self.uid = name
        self.name = name
        self.weight = weight
        self.creation_timestamp = creation_timestamp
        self.raw = raw

    def clone(self) -> "QueueInfo":
        return QueueInfo(self.name, self.weight, self.creation_timestamp, self.raw)

    def __repr__(self) -> str:
        return f"Queue({self.name} weight={self.weight})"
