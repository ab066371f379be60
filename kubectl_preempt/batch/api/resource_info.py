"""api.Resource of kube-batch (pkg/scheduler/api/resource_info.go): milli-CPU, memory bytes and
scalar resources as float64, with the 10m / 10Mi / 10-milli tolerances its comparisons use."""
from __future__ import annotations

from typing import Any, Mapping

from ...model.memory import MEMORY
from ...model.quantity import milli_value, value
from ...model.resources import is_scalar_resource_name

# minimal quantities: amounts below them count as zero, and comparisons tolerate this much
MIN_MILLI_CPU = 10.0
MIN_MILLI_SCALAR = 10.0
MIN_MEMORY = 10.0 * 1024 * 1024


# resource lists repeat (every task of a job asks the same): each distinct one is parsed once
_FROM_LIST: dict[tuple, "Resource"] = {}
MEMORY.register("batch.api resource lists", _FROM_LIST)


class InsufficientResource(RuntimeError):
    """Resource.Sub on a resource smaller than what is taken away: kube-batch panics here."""


class Resource:
    __slots__ = ("milli_cpu", "memory", "scalar", "max_task_num")

    def __init__(self, milli_cpu: float = 0.0, memory: float = 0.0,
                 scalar: dict[str, float] | None = None, max_task_num: int = 0) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.scalar = scalar
        self.max_task_num = max_task_num

    @classmethod
    def from_list(cls, rl: Mapping[str, Any] | None, field: str = "") -> "Resource":
        """mirrors NewResource: cpu in milli, memory in bytes, pods as the task limit, scalar
        resources in milli; other names (ephemeral-storage) are not counted."""
        r = cls()
        if not rl:
            return r
        try:
            key = tuple(rl.items()) if MEMORY.on else None
            got = _FROM_LIST.get(key) if key is not None else None
        except TypeError:
            key, got = None, None
        if got is not None:
            return got.clone()
        for name, q in rl.items():
            f = f"{field}.{name}" if field else name
            if name == "cpu":
                r.milli_cpu += float(milli_value(q, field=f))
            elif name == "memory":
                r.memory += float(value(q, field=f))
            elif name == "pods":
                r.max_task_num += int(value(q, field=f))
            elif is_scalar_resource_name(name):
                r.add_scalar(name, float(milli_value(q, field=f)))
        if key is not None and len(_FROM_LIST) < 10_000:
            _FROM_LIST[key] = r.clone()
        return r

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, dict(self.scalar) if self.scalar is not None else None,
                        self.max_task_num)

    def is_empty(self) -> bool:
        if not (self.milli_cpu < MIN_MILLI_CPU and self.memory < MIN_MEMORY):
            return False
        for q in (self.scalar or {}).values():
            if q >= MIN_MILLI_SCALAR:
                return False
        return True

    def add(self, rr: "Resource") -> "Resource":
        self.milli_cpu += rr.milli_cpu
        self.memory += rr.memory
        for name, q in (rr.scalar or {}).items():
            if self.scalar is None:
                self.scalar = {}
            self.scalar[name] = self.scalar.get(name, 0.0) + q
        return self

    def sub(self, rr: "Resource") -> "Resource":
        if not rr.less_equal(self):
            raise InsufficientResource(f"Resource is not sufficient to do operation: <{self}> sub <{rr}>")
        self.milli_cpu -= rr.milli_cpu
        self.memory -= rr.memory
        for name, q in (rr.scalar or {}).items():
            if self.scalar is None:
                return self
            self.scalar[name] = self.scalar.get(name, 0.0) - q
        return self

    def set_max_resource(self, rr: "Resource") -> None:
        if rr.milli_cpu > self.milli_cpu:
            self.milli_cpu = rr.milli_cpu
        if rr.memory > self.memory:
            self.memory = rr.memory
        for name, q in (rr.scalar or {}).items():
            if self.scalar is None:
                # upstream copies every scalar of rr and stops there
                self.scalar = dict(rr.scalar or {})
                return
            if q > self.scalar.get(name, 0.0):
                self.scalar[name] = q

    def fit_delta(self, rr: "Resource") -> "Resource":
        """mirrors FitDelta: what is left after taking rr plus the minimal quantity of each."""
        if rr.milli_cpu > 0:
            self.milli_cpu -= rr.milli_cpu + MIN_MILLI_CPU
        if rr.memory > 0:
            self.memory -= rr.memory + MIN_MEMORY
        for name, q in (rr.scalar or {}).items():
            if self.scalar is None:
                self.scalar = {}
            if q > 0:
                self.scalar[name] = self.scalar.get(name, 0.0) - (q + MIN_MILLI_SCALAR)
        return self

    def multi(self, ratio: float) -> "Resource":
        self.milli_cpu *= ratio
        self.memory *= ratio
        if self.scalar is not None:
            for name in self.scalar:
                self.scalar[name] *= ratio
        return self

    def less(self, rr: "Resource") -> bool:
        """mirrors Resource.Less: strictly less in cpu, memory and every scalar."""
        if not self.milli_cpu < rr.milli_cpu:
            return False
        if not self.memory < rr.memory:
            return False
        if self.scalar is None:
            if rr.scalar is not None:
                for q in rr.scalar.values():
                    if q <= MIN_MILLI_SCALAR:
                        return False
            return True
        if rr.scalar is None:
            return False
        for name, q in self.scalar.items():
            if not q < rr.scalar.get(name, 0.0):
                return False
        return True

    def less_equal(self, rr: "Resource") -> bool:
        """mirrors Resource.LessEqual: less, or equal within the minimal quantity."""
        def le(l: float, r: float, diff: float) -> bool:
            return l < r or abs(l - r) < diff
        if not le(self.milli_cpu, rr.milli_cpu, MIN_MILLI_CPU):
            return False
        if not le(self.memory, rr.memory, MIN_MEMORY):
            return False
        if self.scalar is None:
            return True
        for name, q in self.scalar.items():
            if q <= MIN_MILLI_SCALAR:
                continue
            if rr.scalar is None:
                return False
            if not le(q, rr.scalar.get(name, 0.0), MIN_MILLI_SCALAR):
                return False
        return True

    def diff(self, rr: "Resource") -> tuple["Resource", "Resource"]:
        inc, dec = Resource(), Resource()
        if self.milli_cpu > rr.milli_cpu:
            inc.milli_cpu += self.milli_cpu - rr.milli_cpu
        else:
            dec.milli_cpu += rr.milli_cpu - self.milli_cpu
        if self.memory > rr.memory:
            inc.memory += self.memory - rr.memory
        else:
            dec.memory += rr.memory - self.memory
        for name, q in (self.scalar or {}).items():
            rq = (rr.scalar or {}).get(name, 0.0)
            if q > rq:
                inc.scalar = inc.scalar or {}
                inc.scalar[name] = inc.scalar.get(name, 0.0) + q - rq
            else:
                dec.scalar = dec.scalar or {}
                dec.scalar[name] = dec.scalar.get(name, 0.0) + rq - q
        return inc, dec

    def get(self, name: str) -> float:
        if name == "cpu":
            return self.milli_cpu
        if name == "memory":
            return self.memory
        return (self.scalar or {}).get(name, 0.0)

    def resource_names(self) -> list[str]:
        return ["cpu", "memory", *(self.scalar or {})]

    def add_scalar(self, name: str, q: float) -> None:
        if self.scalar is None:
            self.scalar = {}
        self.scalar[name] = self.scalar.get(name, 0.0) + q

    def as_dict(self) -> dict[str, float]:
        """Plain numbers for the why of a session: cpu in cores, memory in bytes."""
        out = {"cpu": self.milli_cpu / 1000, "memory": self.memory}
        for name, q in (self.scalar or {}).items():
            out[name] = q / 1000
        return out

    def __str__(self) -> str:
        s = f"cpu {self.milli_cpu:.2f}, memory {self.memory:.2f}"
        for name, q in (self.scalar or {}).items():
            s += f", {name} {q:.2f}"
        return s

    __repr__ = __str__


def empty_resource() -> Resource:
    return Resource()


def share(l: float, r: float) -> float:
    """mirrors helpers.Share: l/r, with 0/0 = 0 and x/0 = 1."""
    if r == 0:
        return 0.0 if l == 0 else 1.0
    return l / r


def min_resource(l: Resource, r: Resource) -> Resource:
    """mirrors helpers.Min"""
    res = Resource(min(l.milli_cpu, r.milli_cpu), min(l.memory, r.memory))
    if l.scalar is None or r.scalar is None:
        return res
    res.scalar = {name: min(q, r.scalar.get(name, 0.0)) for name, q in l.scalar.items()}
    return res
