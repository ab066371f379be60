"""Resource arithmetic as the scheduler does it (framework.Resource, resourcehelper.PodRequests)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping, NamedTuple

from ..errors import InputError, quote
from . import memory as _memory
from .podshape import requests_key
from .quantity import parse_quantity

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"
DEFAULT_MILLI_CPU_REQUEST = 100  # schedutil.DefaultMilliCPURequest
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest

_NATIVE = {CPU, MEMORY, EPHEMERAL_STORAGE, PODS}


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    # v1helper.IsExtendedResourceName: a qualified name outside kubernetes.io, not requests.*
    if "/" not in name or is_prefixed_native_resource(name) or name.startswith("requests."):
        return False
    return True


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volume(name: str) -> bool:
    return name.startswith("attachable-volumes-")


def is_scalar_resource_name(name: str) -> bool:
    # mirrors schedutil.IsScalarResourceName
    return (is_extended_resource_name(name) or is_hugepages(name)
            or is_prefixed_native_resource(name) or is_attachable_volume(name))


class Resource:
    """framework.Resource: integer amounts in the scheduler's units."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, ephemeral_storage: int = 0,
                 allowed_pod_number: int = 0, scalar: dict[str, int] | None = None) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar = scalar if scalar is not None else {}

    @classmethod
    def from_list(cls, rl: Mapping[str, Fraction]) -> "Resource":
        r = cls()
        r.add_list(rl)
        return r

    def add_list(self, rl: Mapping[str, Fraction]) -> None:
        # mirrors Resource.Add: MilliValue for cpu, Value for everything else
        for name, q in rl.items():
            if name == CPU:
                self.milli_cpu += -((-q * 1000) // 1)
            elif name == MEMORY:
                self.memory += -((-q) // 1)
            elif name == PODS:
                self.allowed_pod_number += -((-q) // 1)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += -((-q) // 1)
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + int(-((-q) // 1))
        self.milli_cpu = int(self.milli_cpu)
        self.memory = int(self.memory)
        self.ephemeral_storage = int(self.ephemeral_storage)
        self.allowed_pod_number = int(self.allowed_pod_number)

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number,
                        dict(self.scalar))

    def add(self, other: "Resource", sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def as_dict(self) -> dict[str, int]:
        out = {}
        if self.milli_cpu:
            out[CPU] = self.milli_cpu
        if self.memory:
            out[MEMORY] = self.memory
        if self.ephemeral_storage:
            out[EPHEMERAL_STORAGE] = self.ephemeral_storage
        out.update({k: v for k, v in self.scalar.items() if v})
        return out

    def __repr__(self) -> str:
        return f"Resource({self.as_dict()})"


def parse_resource_list(rl: Mapping[str, Any] | None, field: str = "") -> dict[str, Fraction]:
    """A ResourceList; the API server refuses a negative amount in any of them (requests, limits,
    overhead, capacity, allocatable): ValidateResourceQuantityValue."""
    if not rl:
        return {}
    out = {k: parse_quantity(v, field=f"{field}.{k}" if field else k) for k, v in rl.items()}
    if min(out.values()) < 0:
        k = next(k for k, q in out.items() if q < 0)
        raise InputError(f"Invalid value: {quote(rl[k])}: must be greater than or equal to 0",
                         field=f"{field}.{k}" if field else k)
    return out


# a node's status.allocatable as a Resource, by its text: the nodes of a pool list the same amounts,
# and a snapshot of 5,000 nodes parsed them once per node (a twentieth of its load). Each caller
# gets its own copy, as from the parse.
_ALLOCATABLE_CACHE: dict[tuple[tuple[str, str], ...], Resource] = {}
_memory.MEMORY.register("model.resources allocatable", _ALLOCATABLE_CACHE)


def allocatable_resource(rl: Mapping[str, Any] | None, field: str = "") -> Resource:
    """Resource.from_list(parse_resource_list(rl, field)), a list of quantity strings parsed once
    (any other value, or an error, is parsed each time: its error names the field)."""
    key = None
    if _memory.MEMORY.on and type(rl) is dict and rl:
        # strings alone: 1, 1.0 and True are one key in a tuple but not one quantity
        if all(type(v) is str for v in rl.values()):
            key = tuple(rl.items())
            hit = _ALLOCATABLE_CACHE.get(key)  # type: ignore[arg-type]
            if hit is not None:
                return hit.clone()
    r = Resource.from_list(parse_resource_list(rl, field))
    if key is not None and len(_ALLOCATABLE_CACHE) < 10_000:
        _ALLOCATABLE_CACHE[key] = r.clone()  # type: ignore[index]
    return r


def _add(into: dict[str, Fraction], rl: Mapping[str, Fraction]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, Fraction], rl: Mapping[str, Fraction]) -> None:
    for k, v in rl.items():
        if k not in into or v > into[k]:
            into[k] = v


def _maxed(*lists: Mapping[str, Fraction] | None) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for rl in lists:
        if rl:
            _max(out, rl)
    return out


def _is_supported_pod_level(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def pod_level_requests_set(spec: Mapping[str, Any]) -> bool:
    res = spec.get("resources") or {}
    return any(_is_supported_pod_level(k) for k in (res.get("requests") or {}))


def _resize_infeasible(status: Mapping[str, Any]) -> bool:
    for c in status.get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return c.get("reason") == "Infeasible"
    return False


class PodResourcesOptions(NamedTuple):
    """How a release adds up a pod's requests: resourcehelper.PodResourcesOptions as the
    framework fills it from the feature gates (types.go calculateResource). The default is v1.34's;
    framework/versions.py gives each release's."""

    # not SkipPodLevelResources: the PodLevelResources gate (beta, on since v1.34)
    pod_level: bool = True
    # UseStatusResources (the InPlacePodVerticalScaling gate, on since v1.33), and how the release
    # reads the status: "v1.33" (determineContainerReqs: the PodResizePending condition; the max of
    # spec, status resources and allocatedResources), "v1.32" (AggregateContainerRequests: the
    # status.resize field; the max of spec and status resources), "v1.31" (PodRequests: status.resize;
    # allocatedResources), "" (off: the spec alone)
    status: str = "v1.33"
    # before v1.32 (kubernetes/kubernetes#127878) calculateResource summed the non-zero requests in
    # a ContainerFn: containers' plus the largest init container's, sidecars counted as init only
    legacy_non_zero: bool = False
    # InPlacePodLevelResourcesVerticalScalingEnabled (beta and on in v1.36): a pod's pod-level
    # requests are read with its status as the containers' are (PodRequests, determineEffectiveRequests)
    pod_level_status: bool = False


DEFAULT_RESOURCE_OPTIONS = PodResourcesOptions()


def effective_options(options: PodResourcesOptions | None, spec: Mapping[str, Any]) -> PodResourcesOptions | None:
    """`options` as they bear on this pod (None: v1.34's): pod_level_status reads only a pod with
    pod-level requests, so for the others v1.36's options add up what v1.34's do."""
    if options is None:
        return None
    if options.pod_level_status and not (spec.get("resources") or {}).get("requests"):
        # asked of every pod a NodeInfo counts: the answer per options kept (a handful of values)
        got = _WITHOUT_POD_LEVEL_STATUS.get(options, _MISSING)
        if got is _MISSING:
            plain = options._replace(pod_level_status=False)
            got = None if plain == DEFAULT_RESOURCE_OPTIONS else plain
            if _memory.MEMORY.on:
                _WITHOUT_POD_LEVEL_STATUS[options] = got
        return got  # type: ignore[return-value]
    return None if options == DEFAULT_RESOURCE_OPTIONS else options


_WITHOUT_POD_LEVEL_STATUS: dict[PodResourcesOptions, PodResourcesOptions | None] = {}
_memory.MEMORY.register("model.resources options without pod-level status", _WITHOUT_POD_LEVEL_STATUS)
_MISSING = object()


_REQUESTS_CACHE: dict[tuple, dict[str, Fraction]] = {}
_memory.MEMORY.register("model.resources requests", _REQUESTS_CACHE)


def pod_requests(spec: Mapping[str, Any], status: Mapping[str, Any],
                 non_missing: Mapping[str, Fraction] | None = None, field: str = "spec",
                 options: PodResourcesOptions | None = None) -> dict[str, Fraction]:
    """resourcehelper.PodRequests with the v1.34 defaults (or `options`): status resources (in-place
    resize) and pod-level resources honoured, overhead added. Pods of one workload read alike
    (requests_key): their requests are computed once; each caller gets its own dict."""
    if options == DEFAULT_RESOURCE_OPTIONS:
        options = None
    try:
        # the defaults as exact integer pairs: hashing a Fraction is slow
        key: tuple | None = (requests_key(spec, status), tuple(
            (k, v.numerator, v.denominator) for k, v in non_missing.items()) if non_missing else None)
        if options is not None:
            # before v1.33 the resize status is the status.resize field, which the key lacks
            key = (key, options, status.get("resize"))
    except Exception:  # a malformed spec is diagnosed by the full computation below
        key = None
    if key is not None and _memory.MEMORY.on:
        hit = _REQUESTS_CACHE.get(key)
        if hit is not None:
            return dict(hit)
    reqs = _pod_requests(spec, status, non_missing, field, options or DEFAULT_RESOURCE_OPTIONS)
    if key is not None and _memory.MEMORY.on and len(_REQUESTS_CACHE) < 200_000:
        _REQUESTS_CACHE[key] = dict(reqs)
    return reqs


def _pod_requests(spec: Mapping[str, Any], status: Mapping[str, Any],
                  non_missing: Mapping[str, Fraction] | None, field: str,
                  options: PodResourcesOptions = DEFAULT_RESOURCE_OPTIONS,
                  container_fn: Callable[[Mapping[str, Fraction], bool], None] | None = None) -> dict[str, Fraction]:
    """`container_fn(requests, is_init)`: PodResourcesOptions.ContainerFn, given each container's
    requests as they are added up (an init container's with the sidecars before it)."""
    statuses: dict[str, Mapping[str, Any]] = {}
    read = options.status
    if read:
        for cs in (status.get("containerStatuses") or ()):
            statuses[cs.get("name")] = cs
        if read == "v1.33":
            for cs in (status.get("initContainerStatuses") or ()):
                statuses[cs.get("name")] = cs
    if read == "v1.33":
        infeasible = _resize_infeasible(status) if statuses else False
    else:
        # before v1.33 the resize status was the pod's status.resize field
        infeasible = status.get("resize") == "Infeasible"

    def container_reqs(c: Mapping[str, Any], path: str, use_status: bool) -> dict[str, Fraction]:
        reqs = parse_resource_list((c.get("resources") or {}).get("requests"), path)
        if use_status:
            cs = statuses.get(c.get("name"))
            if cs is None:
                pass
            elif read == "v1.33":
                if cs.get("resources") is not None:
                    st_reqs = parse_resource_list((cs.get("resources") or {}).get("requests"))
                    alloc = parse_resource_list(cs.get("allocatedResources"))
                    # mirrors determineContainerReqs
                    reqs = _maxed(st_reqs, alloc) if infeasible else _maxed(reqs, st_reqs, alloc)
            elif read == "v1.32":
                # mirrors v1.32 AggregateContainerRequests: the status resources alone
                if cs.get("resources") is not None:
                    st_reqs = parse_resource_list((cs.get("resources") or {}).get("requests"))
                    reqs = dict(st_reqs) if infeasible else _maxed(reqs, st_reqs)
            else:
                # mirrors v1.31 PodRequests: the allocated resources
                alloc = parse_resource_list(cs.get("allocatedResources"))
                reqs = dict(alloc) if infeasible else _maxed(reqs, alloc)
        if non_missing:
            reqs = dict(reqs)
            for k, v in non_missing.items():
                if k not in reqs:
                    reqs[k] = v
        return reqs

    reqs: dict[str, Fraction] = {}
    for i, c in enumerate(spec.get("containers") or ()):
        cr = container_reqs(c, f"{field}.containers[{i}].resources.requests", bool(read))
        if container_fn is not None:
            container_fn(cr, False)
        _add(reqs, cr)
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for i, c in enumerate(spec.get("initContainers") or ()):
        sidecar = c.get("restartPolicy") == "Always"
        # only v1.33+ reads a sidecar's status (determineContainerReqs for restartable init containers)
        cr = container_reqs(c, f"{field}.initContainers[{i}].resources.requests", sidecar and read == "v1.33")
        if sidecar:
            _add(reqs, cr)
            _add(restartable, cr)
            cr = dict(restartable)
        else:
            tmp = dict(cr)
            _add(tmp, restartable)
            cr = tmp
        if container_fn is not None:
            container_fn(cr, True)
        _max(init_max, cr)
    _max(reqs, init_max)
    if options.pod_level and pod_level_requests_set(spec):
        pod_spec = parse_resource_list((spec.get("resources") or {}).get("requests"), f"{field}.resources.requests")
        effective = None
        if options.pod_level_status and read and status.get("resources") is not None:
            # mirrors PodRequests with InPlacePodLevelResourcesVerticalScaling: the largest of the
            # spec, the actuated (status.resources) and the allocated requests; without the spec
            # when the resize is infeasible (determineEffectiveRequests)
            actuated = parse_resource_list((status.get("resources") or {}).get("requests"))
            allocated = parse_resource_list(status.get("allocatedResources"))
            effective = _maxed(actuated, allocated) if _resize_infeasible(status) else \
                _maxed(pod_spec, actuated, allocated)
        for k, v in pod_spec.items():
            if _is_supported_pod_level(k):
                reqs[k] = v if effective is None else effective.get(k, Fraction(0))
    overhead = spec.get("overhead")
    if overhead:
        _add(reqs, parse_resource_list(overhead, f"{field}.overhead"))
    return reqs


class PodResource:
    """framework.PodResource: requests, and the non-zero cpu/memory scoring uses."""

    __slots__ = ("resource", "non0_cpu", "non0_mem")

    def __init__(self, resource: Resource, non0_cpu: int, non0_mem: int) -> None:
        self.resource = resource
        self.non0_cpu = non0_cpu
        self.non0_mem = non0_mem


_DEFAULT_NON_MISSING = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}


_RESOURCE_CACHE: dict[bytes, PodResource] = {}
_memory.MEMORY.register("model.resources resources", _RESOURCE_CACHE)


def calculate_resource(spec: Mapping[str, Any], status: Mapping[str, Any], field: str = "spec",
                       spec_key: bytes | None = None, options: PodResourcesOptions | None = None) -> PodResource:
    """mirrors PodInfo.CalculateResource; the result is shared between identical pods: read-only.

    `spec_key`: the spec's JSON with nodeName blanked (model/podshape.py pod_spec_key), when the caller has
    it: it holds everything PodRequests reads of the spec, so without container statuses (the
    only part of the status read) it keys the pod's requests as well as requests_key does.
    `options`: another release's (framework/versions.py); None: v1.34's."""
    if options is not None and options != DEFAULT_RESOURCE_OPTIONS:
        return _calculate_resource_with(spec, status, field, options)
    if spec_key is not None and not (status.get("containerStatuses") or status.get("initContainerStatuses")):
        key: bytes | None = spec_key
    else:
        try:
            key = requests_key(spec, status)
        except Exception:  # a malformed spec is diagnosed by the full computation below
            key = None
    if key is not None and _memory.MEMORY.on:
        hit = _RESOURCE_CACHE.get(key)
        if hit is not None:
            return hit
    res = _calculate_resource(spec, status, field)
    if key is not None and _memory.MEMORY.on and len(_RESOURCE_CACHE) < 200_000:
        _RESOURCE_CACHE[key] = res
    return res


def remembered_resource(key: bytes) -> PodResource | None:
    """What calculate_resource keeps for a pod of spec key `key` (v1.34's options, no container
    statuses), or None: nothing kept (every memory off, or no pod of that key seen yet)."""
    return _RESOURCE_CACHE.get(key) if _memory.MEMORY.on else None


def _calculate_resource(spec: Mapping[str, Any], status: Mapping[str, Any], field: str,
                        options: PodResourcesOptions | None = None) -> PodResource:
    requests = pod_requests(spec, status, field=field, options=options)
    pod_level = (options is None or options.pod_level) and pod_level_requests_set(spec)
    if not pod_level:
        non_missing: dict[str, Fraction] = dict(_DEFAULT_NON_MISSING)
    else:
        non_missing = {k: v for k, v in _DEFAULT_NON_MISSING.items() if k not in requests}
    non0 = requests
    if non_missing:
        non0 = pod_requests(spec, status, non_missing=non_missing, field=field, options=options)
    res = Resource.from_list(requests)
    cpu = non0.get(CPU, 0)
    mem = non0.get(MEMORY, 0)
    return PodResource(res, int(-((-cpu * 1000) // 1)), int(-((-mem) // 1)))


_RESOURCE_CACHE_WITH: dict[tuple, PodResource] = {}
_memory.MEMORY.register("model.resources resources of other releases", _RESOURCE_CACHE_WITH)


def _calculate_resource_with(spec: Mapping[str, Any], status: Mapping[str, Any], field: str,
                             options: PodResourcesOptions) -> PodResource:
    """calculate_resource as another release computes it, cached by what it reads."""
    try:
        key: tuple | None = (requests_key(spec, status), options, status.get("resize"))
    except Exception:  # a malformed spec is diagnosed by the full computation below
        key = None
    if key is not None and _memory.MEMORY.on:
        hit = _RESOURCE_CACHE_WITH.get(key)
        if hit is not None:
            return hit
    if options.legacy_non_zero:
        res = _legacy_calculate_resource(spec, status, field, options)
    else:
        res = _calculate_resource(spec, status, field, options)
    if key is not None and _memory.MEMORY.on and len(_RESOURCE_CACHE_WITH) < 200_000:
        _RESOURCE_CACHE_WITH[key] = res
    return res


def _non_zero(reqs: Mapping[str, Fraction]) -> tuple[int, int]:
    """mirrors schedutil.GetNonzeroRequests: cpu (milli) and memory, the defaults where unset
    (but not where set to zero)."""
    cpu = _ceil_units(reqs[CPU] * 1000) if CPU in reqs else DEFAULT_MILLI_CPU_REQUEST
    mem = _ceil_units(reqs[MEMORY]) if MEMORY in reqs else DEFAULT_MEMORY_REQUEST
    return cpu, mem


def _ceil_units(q: Fraction) -> int:
    return int(-((-q) // 1))


def _legacy_calculate_resource(spec: Mapping[str, Any], status: Mapping[str, Any], field: str,
                               options: PodResourcesOptions) -> PodResource:
    """mirrors calculateResource of v1.31 and older (framework/types.go): the requests from
    PodRequests, and the non-zero cpu and memory from its ContainerFn: the containers' summed,
    the largest init container's (a sidecar's with the sidecars before it, as PodRequests hands
    it over) if larger, then the overhead. So a sidecar counts as an init container only, not on
    top of the containers as v1.32's PodRequests with NonMissingContainerRequests counts it
    (kubernetes/kubernetes#127878)."""
    sums = [0, 0, 0, 0]  # containers' cpu, memory; init containers' largest cpu, memory

    def fn(reqs: Mapping[str, Fraction], is_init: bool) -> None:
        cpu, mem = _non_zero(reqs)
        if is_init:
            sums[2] = max(sums[2], cpu)
            sums[3] = max(sums[3], mem)
        else:
            sums[0] += cpu
            sums[1] += mem

    requests = _pod_requests(spec, status, None, field, options, fn)
    non0_cpu, non0_mem = max(sums[0], sums[2]), max(sums[1], sums[3])
    overhead = parse_resource_list(spec.get("overhead"), f"{field}.overhead") if spec.get("overhead") else {}
    if CPU in overhead:
        non0_cpu += _ceil_units(overhead[CPU] * 1000)
    if MEMORY in overhead:
        non0_mem += _ceil_units(overhead[MEMORY])
    return PodResource(Resource.from_list(requests), non0_cpu, non0_mem)
