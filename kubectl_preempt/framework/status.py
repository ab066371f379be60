"""Status and Code, as in kube-scheduler's framework (fwk.Status)."""
from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """In upstream order; the names are what users see in events and our JSON."""

    Success = 0
    Error = 1
    # the pod does not fit here, but preemption may help
    Unschedulable = 2
    # preemption cannot help on this node
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


class Status:
    __slots__ = ("code", "reasons", "plugin", "error")

    def __init__(self, code: Code = Code.Success, *reasons: str, plugin: str = "", error: str | None = None) -> None:
        self.code = code
        self.reasons = list(reasons)
        self.plugin = plugin
        self.error = error

    @classmethod
    def as_error(cls, err: str | Exception, plugin: str = "") -> "Status":
        return cls(Code.Error, str(err), plugin=plugin, error=str(err))

    def with_plugin(self, plugin: str) -> "Status":
        self.plugin = plugin
        return self

    def is_success(self) -> bool:
        return self.code == Code.Success

    def is_skip(self) -> bool:
        return self.code == Code.Skip

    def is_rejected(self) -> bool:
        return self.code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def to_dict(self) -> dict:
        return {"code": self.code.name, "plugin": self.plugin, "reasons": list(self.reasons)}

    def __repr__(self) -> str:
        return f"Status({self.code.name}, {self.reasons!r}, plugin={self.plugin!r})"


SUCCESS = Status()  # shared; never mutate
