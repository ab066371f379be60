"""A small structured-parameters allocator for the DynamicResources Filter.

Upstream's allocator (k8s.io/dynamic-resource-allocation/structured) evaluates CEL selectors
of DeviceClasses and requests against the devices of the node's ResourceSlices. This one
understands a subset of CEL, the one device selectors are written in nearly always:

    device.driver == "gpu.example.com"
    device.attributes["gpu.example.com"].model == "a100"      (string, int or bool)
    device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
    ... && ... , ... || ... , !(...), (...), true, false

Anything else raises Unsupported, which the plugin reports as an error rather than guess.
Requests: ExactCount (with count) and All; firstAvailable subrequests in order; adminAccess
requests may use allocated devices. Device taints (DRADeviceTaints) must be tolerated by the
request. As upstream's isSelectable with the gates off, a device with binding conditions
(DRADeviceBindingConditions) or one that consumes counters (DRAPartitionableDevices) is never
selected. Not supported (Unsupported): constraints (matchAttribute), counters with
DRAPartitionableDevices on, devices allowing several allocations with DRAConsumableCapacity on.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Iterator, Mapping

from ...errors import quote
from ...model.memory import MEMORY
from ...model.quantity import parse_quantity
from ..helper.nodeaffinity import NodeSelector

MAX_SEARCH_STEPS = 200_000


class Unsupported(Exception):
    """The claim uses something this allocator does not evaluate."""


class AllocationError(Exception):
    """Upstream's allocator would fail with an error (e.g. a CEL runtime error)."""


class TimedOut(Exception):
    """The search took too long (upstream: DRASchedulerFilterTimeout)."""


# ------------------------------------------------------------------ CEL subset
_TOKEN = re.compile(r"""\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<num>-?\d+)
  | (?P<op>&&|\|\||==|!=|>=|<=|>|<|!|\(|\)|\[|\]|\.|,)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
)""", re.X)


def _tokens(expr: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise Unsupported(f"cannot parse CEL expression {quote(expr)}")
        pos = m.end()
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
    return out


class _Parser:
    def __init__(self, expr: str) -> None:
        self.expr = expr
        self.toks = _tokens(expr)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        t = self.peek()
        if t is None or (value is not None and t[1] != value) or (kind is not None and t[0] != kind):
            raise Unsupported(f"unsupported CEL expression {quote(self.expr)}")
        self.i += 1
        return t[1]

    def parse(self) -> Any:
        node = self.or_()
        if self.peek() is not None:
            raise Unsupported(f"unsupported CEL expression {quote(self.expr)}")
        return node

    def or_(self) -> Any:
        node = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            node = ("or", node, self.and_())
        return node

    def and_(self) -> Any:
        node = self.unary()
        while self.peek() == ("op", "&&"):
            self.take()
            node = ("and", node, self.unary())
        return node

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return ("not", self.unary())
        left = self.operand()
        t = self.peek()
        if t is not None and t[0] == "op" and t[1] in ("==", "!=", ">=", "<=", ">", "<"):
            self.take()
            return ("cmp", t[1], left, self.operand())
        return left

    def operand(self) -> Any:
        t = self.peek()
        if t is None:
            raise Unsupported(f"unsupported CEL expression {quote(self.expr)}")
        if t == ("op", "("):
            self.take()
            node = self.or_()
            self.take(")")
            return self.methods(node)
        if t[0] == "str":
            self.take()
            return ("lit", bytes(t[1][1:-1], "utf-8").decode("unicode_escape"))
        if t[0] == "num":
            self.take()
            return ("lit", int(t[1]))
        if t[0] == "id":
            name = self.take()
            if name in ("true", "false"):
                return ("lit", name == "true")
            if name == "quantity":
                self.take("(")
                s = self.take(kind="str")
                self.take(")")
                return self.methods(("lit", parse_quantity(s[1:-1])))
            if name == "device":
                return self.methods(self.device())
        raise Unsupported(f"unsupported CEL expression {quote(self.expr)}")

    def device(self) -> Any:
        self.take(".")
        field = self.take(kind="id")
        if field == "driver":
            return ("driver",)
        if field in ("attributes", "capacity"):
            self.take("[")
            domain = self.take(kind="str")[1:-1]
            self.take("]")
            if self.peek() == ("op", "["):
                self.take()
                name = self.take(kind="str")[1:-1]
                self.take("]")
            else:
                self.take(".")
                name = self.take(kind="id")
            return (field, domain, name)
        raise Unsupported(f"unsupported CEL expression {quote(self.expr)}")

    def methods(self, node: Any) -> Any:
        while self.peek() == ("op", "."):
            self.take()
            method = self.take(kind="id")
            if method not in ("compareTo", "isGreaterThan", "isLessThan"):
                raise Unsupported(f"unsupported CEL method {quote(method)} in {quote(self.expr)}")
            self.take("(")
            arg = self.operand()
            self.take(")")
            node = (method, node, arg)
        return node


# CEL expression -> its parse: the devices of a claim are all matched by its class's selectors
_compiled: dict[str, Any] = {}
MEMORY.register("plugins.dynamicresources CEL expressions", _compiled)


def compile_cel(expr: str) -> Any:
    if not MEMORY.on:
        return _Parser(expr).parse()
    node = _compiled.get(expr)
    if node is None:
        node = _compiled[expr] = _Parser(expr).parse()
    return node


class Device:
    __slots__ = ("driver", "pool", "name", "attributes", "capacity", "taints", "binding_conditions",
                 "consumes_counters", "multiple_allocations")

    def __init__(self, driver: str, pool: str, raw: Mapping[str, Any]) -> None:
        basic = raw.get("basic") or raw  # v1beta1 nests the fields under "basic"
        self.driver = driver
        self.pool = pool
        self.name = raw.get("name") or ""
        self.taints: list[Mapping[str, Any]] = [t for t in basic.get("taints") or () if isinstance(t, Mapping)]
        self.binding_conditions = bool(basic.get("bindingConditions"))
        self.consumes_counters = bool(basic.get("consumesCounters"))
        self.multiple_allocations = bool(basic.get("allowMultipleAllocations"))
        self.attributes: dict[tuple[str, str], Any] = {}
        for k, v in (basic.get("attributes") or {}).items():
            domain, _, name = k.rpartition("/")
            v = v or {}
            for typ in ("string", "int", "bool", "version"):
                if typ in v:
                    self.attributes[(domain or driver, name)] = (typ, v[typ])
                    break
        self.capacity: dict[tuple[str, str], Fraction] = {}
        for k, v in (basic.get("capacity") or {}).items():
            domain, _, name = k.rpartition("/")
            q = (v or {}).get("value")
            if q is not None:
                self.capacity[(domain or driver, name)] = parse_quantity(q, field=f"ResourceSlice device {self.name} capacity")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.name)


def _eval(node: Any, dev: Device, expr: str) -> Any:
    op = node[0]
    if op == "lit":
        return node[1]
    if op == "driver":
        return dev.driver
    if op == "attributes":
        v = dev.attributes.get((node[1], node[2]))
        if v is None:
            raise AllocationError(f"CEL runtime error: no such key: {node[2]}")
        if v[0] == "version":
            raise Unsupported(f"version attributes are not supported in {quote(expr)}")
        return v[1]
    if op == "capacity":
        v = dev.capacity.get((node[1], node[2]))
        if v is None:
            raise AllocationError(f"CEL runtime error: no such key: {node[2]}")
        return v
    if op in ("compareTo", "isGreaterThan", "isLessThan"):
        a, b = _eval(node[1], dev, expr), _eval(node[2], dev, expr)
        if not isinstance(a, Fraction) or not isinstance(b, Fraction):
            raise Unsupported(f"unsupported CEL expression {quote(expr)}")
        c = (a > b) - (a < b)
        return c if op == "compareTo" else (c > 0 if op == "isGreaterThan" else c < 0)
    if op == "not":
        return not _bool(_eval(node[1], dev, expr), expr)
    if op == "and":
        return _bool(_eval(node[1], dev, expr), expr) and _bool(_eval(node[2], dev, expr), expr)
    if op == "or":
        return _bool(_eval(node[1], dev, expr), expr) or _bool(_eval(node[2], dev, expr), expr)
    if op == "cmp":
        a, b = _eval(node[2], dev, expr), _eval(node[3], dev, expr)
        if type(a) is not type(b) and not (isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction))
                                           and not isinstance(a, bool) and not isinstance(b, bool)):
            raise AllocationError(f"CEL runtime error: no such overload: {expr}")
        o = node[1]
        if o == "==":
            return a == b
        if o == "!=":
            return a != b
        if isinstance(a, bool):
            raise AllocationError(f"CEL runtime error: no such overload: {expr}")
        return {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[o]
    raise Unsupported(f"unsupported CEL expression {quote(expr)}")


def _bool(v: Any, expr: str) -> bool:
    if not isinstance(v, bool):
        raise AllocationError(f"CEL runtime error: expression {quote(expr)} does not evaluate to a bool")
    return v


def selectors_match(selectors: list[Mapping[str, Any]] | None, dev: Device) -> bool:
    for sel in selectors or ():
        cel = (sel or {}).get("cel")
        if cel is None:
            raise Unsupported("a device selector without a CEL expression")
        expr = cel.get("expression") or ""
        if not _bool(_eval(compile_cel(expr), dev, expr), expr):
            return False
    return True


# ------------------------------------------------------------------ allocation
def tolerates_taint(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """mirrors resourceclaim.ToleratesTaint: the effect and key when given, then Exists or Equal."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Exists":
        return True
    return op == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def all_taints_tolerated(dev: Device, tolerations: list[Mapping[str, Any]]) -> bool:
    """mirrors allTaintsTolerated: every taint of the device tolerated by one of the request's."""
    return all(any(tolerates_taint(t, taint) for t in tolerations) for taint in dev.taints)


class AllocatorFeatures:
    """The allocator's features (structured.Features) as the release's gates set them."""

    def __init__(self, version: Any = None) -> None:
        f = getattr(version, "features", None)
        self.device_taints = bool(getattr(f, "enable_dra_device_taints", False))
        self.partitionable_devices = bool(getattr(f, "enable_dra_partitionable_devices", False))
        self.binding_conditions = bool(getattr(f, "enable_dra_device_binding_conditions", False))
        self.consumable_capacity = bool(getattr(f, "enable_dra_consumable_capacity", False))


class Allocator:
    """Devices of the cluster's ResourceSlices, the devices already allocated, the classes."""

    def __init__(self, slices: list[Mapping[str, Any]], classes: Mapping[str, Mapping[str, Any]],
                 allocated: set[tuple[str, str, str]], features: AllocatorFeatures | None = None) -> None:
        self.classes = classes
        self.allocated = allocated
        self.features = features or AllocatorFeatures()
        self._selectors: dict[int, NodeSelector] = {}  # id(slice) -> its nodeSelector, compiled
        # keep only the newest generation of each pool, as the allocator does
        newest: dict[tuple[str, str], int] = {}
        for s in slices:
            sp = s.get("spec") or {}
            pool = sp.get("pool") or {}
            key = (sp.get("driver") or "", pool.get("name") or "")
            newest[key] = max(newest.get(key, 0), int(pool.get("generation") or 0))
        self.slices = []
        for s in slices:
            sp = s.get("spec") or {}
            pool = sp.get("pool") or {}
            key = (sp.get("driver") or "", pool.get("name") or "")
            if int(pool.get("generation") or 0) == newest[key]:
                self.slices.append(s)

    def _node_selector(self, slice_: Mapping[str, Any], raw: Mapping[str, Any]) -> NodeSelector:
        # compiled once per slice: devices_for runs for every node
        sel = self._selectors.get(id(slice_))
        if sel is None:
            sel = self._selectors[id(slice_)] = NodeSelector(raw)
        return sel

    def devices_for(self, node: Any) -> list[Device]:
        out = []
        for s in self.slices:
            sp = s.get("spec") or {}
            if sp.get("perDeviceNodeSelection"):
                raise Unsupported("ResourceSlices with perDeviceNodeSelection (partitionable devices)")
            if sp.get("nodeName"):
                if sp["nodeName"] != node.name:
                    continue
            elif sp.get("allNodes"):
                pass
            elif sp.get("nodeSelector") is not None:
                if not self._node_selector(s, sp["nodeSelector"]).matches(node):
                    continue
            else:
                continue
            driver = sp.get("driver") or ""
            pool = (sp.get("pool") or {}).get("name") or ""
            for d in sp.get("devices") or ():
                out.append(Device(driver, pool, d))
        return out

    def _alternatives(self, claim: Mapping[str, Any], request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        exactly = request.get("exactly")
        if exactly is not None:
            return [exactly]
        if request.get("firstAvailable"):
            return list(request["firstAvailable"])
        if request.get("deviceClassName"):
            return [request]  # v1beta1 shape
        raise Unsupported("a request with neither exactly nor firstAvailable")

    last_choice: list[int] | None = None
    # the devices each claim got in the last allocate() that succeeded, as AllocationResult's
    # device results ({"request", "driver", "pool", "device"}), claim by claim
    last_results: list[list[dict[str, str]]] | None = None

    def allocate(self, node: Any, claims: list[Mapping[str, Any]]) -> bool:
        """Whether every claim can be allocated on the node together."""
        devices = self.devices_for(node)
        # the requests to satisfy, each a list of alternatives: (selectors, mode, count, admin, tolerations)
        requests: list[list[tuple[list, str, int, bool]]] = []
        # each request's claim and the names its results take (a firstAvailable one: "request/sub")
        names: list[tuple[int, list[str]]] = []
        for ci, claim in enumerate(claims):
            cs = (claim.get("spec") or {}).get("devices") or {}
            if cs.get("constraints"):
                raise Unsupported("device constraints (matchAttribute)")
            for req in cs.get("requests") or ():
                rname = req.get("name") or ""
                subs = req.get("firstAvailable") if req.get("exactly") is None else None
                names.append((ci, [f"{rname}/{sub.get('name') or ''}" for sub in subs] if subs else [rname]))
                alts = []
                for alt in self._alternatives(claim, req):
                    cls = self.classes.get(alt.get("deviceClassName") or "") or {}
                    sels = list((cls.get("spec") or {}).get("selectors") or ()) + list(alt.get("selectors") or ())
                    mode = alt.get("allocationMode") or "ExactCount"
                    count = int(alt.get("count") or 1)
                    alts.append((sels, mode, count, bool(alt.get("adminAccess")), list(alt.get("tolerations") or ())))
                requests.append(alts)
        # the candidates of each alternative, evaluated once
        cands: list[list[list[Device]]] = []
        for alts in requests:
            per = []
            for sels, mode, _count, admin, tolerations in alts:
                # an All request needs every matching device, allocated ones included
                per.append([d for d in devices
                            if (admin or mode == "All" or d.key not in self.allocated) and self._selectable(d, tolerations)
                            and selectors_match(sels, d)])
            cands.append(per)
        steps = [0]
        chosen = [0] * len(requests)
        picks: list[list[Device]] = [[] for _ in requests]
        ok = self._search(requests, cands, 0, set(), steps, chosen, picks)
        # which alternative (firstAvailable subrequest) each request got, claim by claim and
        # request by request: what DynamicResources' Score reads (v1.35+)
        self.last_choice = chosen if ok else None
        self.last_results = None
        if ok:
            results: list[list[dict[str, str]]] = [[] for _ in claims]
            for i, (ci, request_names) in enumerate(names):
                name = request_names[chosen[i]] if chosen[i] < len(request_names) else request_names[0]
                results[ci] += [{"request": name, "driver": d.driver, "pool": d.pool, "device": d.name}
                                for d in picks[i]]
            self.last_results = results
        return ok

    def _selectable(self, dev: Device, tolerations: list[Mapping[str, Any]]) -> bool:
        """mirrors isSelectable's checks of the device itself, gate by gate."""
        f = self.features
        if dev.binding_conditions and not f.binding_conditions:
            return False  # "Devices with binding conditions are not supported, feature is off."
        if dev.consumes_counters:
            if not f.partitionable_devices:
                return False  # consumes counters, but the partitionable devices feature is not enabled
            raise Unsupported("devices that consume counters (DRAPartitionableDevices)")
        if dev.multiple_allocations and f.consumable_capacity:
            raise Unsupported("devices that allow multiple allocations (DRAConsumableCapacity)")
        # the taints are checked only with DRADeviceTaints
        return not (f.device_taints and dev.taints and not all_taints_tolerated(dev, tolerations))

    def _search(self, requests: list, cands: list, i: int, used: set, steps: list[int], chosen: list[int],
                picks: list[list[Device]]) -> bool:
        if i == len(requests):
            return True
        for alt, ((sels, mode, count, admin, _tolerations), devs) in enumerate(zip(requests[i], cands[i])):
            chosen[i] = alt
            free = [d for d in devs if d.key not in used]
            if mode == "All":
                if not devs or len(free) != len(devs) or (
                        not admin and any(d.key in self.allocated for d in devs)):
                    continue
                picks[i] = list(devs)
                if self._search(requests, cands, i + 1, used | {d.key for d in devs}, steps, chosen, picks):
                    return True
                continue
            for picked in _combinations(free, count, steps):
                picks[i] = picked
                if self._search(requests, cands, i + 1, used | {d.key for d in picked}, steps, chosen, picks):
                    return True
        return False


def _combinations(devs: list[Device], k: int, steps: list[int]) -> Iterator[list[Device]]:
    if k <= 0:
        yield []
        return
    if len(devs) < k:
        return
    idx = list(range(k))
    while True:
        steps[0] += 1
        if steps[0] > MAX_SEARCH_STEPS:
            raise TimedOut()
        yield [devs[j] for j in idx]
        for j in reversed(range(k)):
            if idx[j] != j + len(devs) - k:
                break
        else:
            return
        idx[j] += 1
        for m in range(j + 1, k):
            idx[m] = idx[m - 1] + 1
