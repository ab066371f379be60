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


# The codes as module constants, as upstream's framework package declares them (fwk.Success,
# fwk.Unschedulable, ...): in CPython 3.11 reading a member off the IntEnum class costs six times a
# plain class attribute (EnumType's __getattr__ keeps the lookup off the interpreter's fast path),
# and filters, scores and dry runs compare a code per node and plugin
Success = Code.Success
Error = Code.Error
Unschedulable = Code.Unschedulable
UnschedulableAndUnresolvable = Code.UnschedulableAndUnresolvable
Wait = Code.Wait
Skip = Code.Skip
Pending = Code.Pending
# the codes IsRejected answers true for (a set: `in` a tuple of members compares each in turn)
_REJECTED = frozenset((Unschedulable, UnschedulableAndUnresolvable, Pending))
_NAMES = {c: c.name for c in Code}

_set = object.__setattr__
_SUCCESS: "Status | None" = None
_SKIP: "Status | None" = None


class Status:
    """Immutable, as a plugin's answer is shared: caches hand the same object to many nodes and
    cycles. `with_plugin` returns a copy naming the plugin."""

    __slots__ = ("code", "_reasons", "plugin", "error")
    code: Code
    _reasons: tuple[str, ...]
    plugin: str
    error: str | None

    def __new__(cls, code: Code = Success, *reasons: str, plugin: str = "", error: str | None = None) -> "Status":
        # a plain success is the most frequent answer (every PreFilter extension, every fitting
        # node): being immutable, one object serves them all
        if not reasons and not plugin and error is None:
            if code is Success and _SUCCESS is not None:
                return _SUCCESS
            if code is Skip and _SKIP is not None:
                return _SKIP  # every PreFilter/PreScore with nothing to do, every cycle
        self = object.__new__(cls)
        _set(self, "code", code)
        _set(self, "_reasons", reasons)
        _set(self, "plugin", plugin)
        _set(self, "error", error)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Status is immutable: {name} cannot be set")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Status is immutable: {name} cannot be deleted")

    def __reduce__(self) -> tuple:
        # copy and pickle (runs in other processes) rebuild through the constructor
        return (_rebuild, (self.code, self._reasons, self.plugin, self.error))

    @classmethod
    def as_error(cls, err: str | Exception, plugin: str = "") -> "Status":
        return cls(Error, str(err), plugin=plugin, error=str(err))

    @property
    def reasons(self) -> list[str]:
        """The reasons, as a new list: changing it changes no Status."""
        return list(self._reasons)

    def with_plugin(self, plugin: str) -> "Status":
        if plugin == self.plugin:
            return self
        # the copy made directly: one naming a plugin is never the shared success or skip, so the
        # constructor's tests have nothing to find (a dry run names the plugin of every refusal)
        copy = object.__new__(Status)
        _set(copy, "code", self.code)
        _set(copy, "_reasons", self._reasons)
        _set(copy, "plugin", plugin)
        _set(copy, "error", self.error)
        return copy

    def is_success(self) -> bool:
        return self.code == Success

    def is_skip(self) -> bool:
        return self.code == Skip

    def is_rejected(self) -> bool:
        return self.code in _REJECTED

    def message(self) -> str:
        return ", ".join(self._reasons)

    def to_dict(self) -> dict:
        return {"code": _NAMES[self.code], "plugin": self.plugin, "reasons": list(self._reasons)}

    def __repr__(self) -> str:
        return f"Status({self.code.name}, {self.reasons!r}, plugin={self.plugin!r})"


def refusal(code: Code, reasons: tuple[str, ...], plugin: str) -> Status:
    """Status(code, *reasons, plugin=plugin) for a rejection code, made directly: no argument
    packing nor the constructor's tests for the shared success (a filter refusing every node of
    a cluster of full nodes makes one per node: bench_explain's NodeResourcesFit, 5,000)."""
    st = _new(Status)
    _set(st, "code", code)
    _set(st, "_reasons", reasons)
    _set(st, "plugin", plugin)
    _set(st, "error", None)
    return st


_new = object.__new__


def _rebuild(code: Code, reasons: tuple[str, ...], plugin: str, error: str | None) -> Status:
    return Status(code, *reasons, plugin=plugin, error=error)


_SUCCESS = Status()
_SKIP = Status(Skip)
# the plain success, for hot paths that would otherwise call Status() per node and plugin
SUCCESS = _SUCCESS
