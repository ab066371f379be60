"""The shape of every kind the scheduler reads, checked as the API server's decoding and
validation would check it, before any typed view or plugin looks inside.

One table per kind (the fields kube-scheduler v1.34.1 and its plugins read, plus the object
metadata every reader uses): a field of the wrong type, an integer outside int32 where the API
type is int32, or a negative quantity where the API server requires one >= 0 is an InputError
naming the field (e.g. `spec.containers[0].resources.requests.cpu`). Fields the scheduler never
reads are not checked: the API server would have decoded them, and nothing here depends on them.
A null value is an absent field, as in the API's JSON.

The tables compile to nested closures; the common path (every value of the right type) makes no
path strings and allocates nothing, since this runs on every object of a 150,000-pod snapshot.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

import operator
from functools import partial
from itertools import chain
from operator import methodcaller

import orjson

from ..errors import InputError, quote

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1



class _Bad(Exception):
    """A wrong value; each enclosing level adds its step to `path` on the way out."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str] = []


def describe(v: Any) -> str:
    """A value as an error names it: its JSON type, and the value when short."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"a boolean ({'true' if v else 'false'})"
    if isinstance(v, int):
        text = str(v) if abs(v) < 10**30 else f"{len(str(abs(v)))} digits"
        return f"a number ({text})"
    if isinstance(v, float):
        return f"a number ({v!r})"
    if isinstance(v, str):
        return f"a string ({quote(v[:40] + ('...' if len(v) > 40 else ''))})" if v else "an empty string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, Mapping):
        return "an object"
    return type(v).__name__


def _want(what: str, v: Any) -> _Bad:
    return _Bad(f"must be {what}, got {describe(v)}")


# --- the checkers -----------------------------------------------------------------------------------
#
# Each has `check(v)`, which raises _Bad naming the step that is wrong, and `all_ok(values)`,
# which answers for a whole column at once (the same field of every object of a kind) with
# C-level map/chain/set operations: a snapshot of 150,000 pods is validated field by field, not
# object by object, and only a column with something wrong is walked object by object.

_NONE = type(None)
_get = operator.itemgetter


def _present(values: list) -> list:
    """The values that are there: a null field is an absent one."""
    return [*filter(partial(operator.is_not, None), values)]


def _types(values: list) -> set[type]:
    ts = set(map(type, values))
    ts.discard(_NONE)
    return ts


class _Leaf:
    """A scalar field: the Python types its JSON may decode to, and an integer range if any."""

    def __init__(self, types: tuple[type, ...], what: str, lo: int | None = None, hi: int | None = None) -> None:
        self.types = frozenset(types)
        self.what = what
        self.lo, self.hi = lo, hi

    def check(self, v: Any) -> None:
        if type(v) not in self.types:
            raise _want(self.what, v)
        if self.lo is not None and type(v) is int and not (self.lo <= v <= self.hi):  # type: ignore[operator]
            raise _Bad(f"must be between {self.lo} and {self.hi}, inclusive, got {describe(v)}")

    def all_ok(self, values: list) -> bool:
        ts = _types(values)
        if not ts <= self.types:
            return False
        if self.lo is not None and int in ts:
            nums = [x for x in values if type(x) is int]
            return self.lo <= min(nums) and max(nums) <= self.hi  # type: ignore[operator]
        return True


STR = _Leaf((str,), "a string")
BOOL = _Leaf((bool,), "a boolean")
INT32 = _Leaf((int,), "an integer", INT32_MIN, INT32_MAX)
INT64 = _Leaf((int,), "an integer", INT64_MIN, INT64_MAX)
NONNEG_INT32 = _Leaf((int,), "an integer", 0, INT32_MAX)
NONNEG_INT64 = _Leaf((int,), "an integer", 0, INT64_MAX)
TIME = _Leaf((str,), "an RFC 3339 time string")
# a Quantity decodes from a string or a JSON number; its syntax and sign are checked where it is
# parsed (model.resources), which caches identical strings
QUANTITY = _Leaf((str, int, float), "a quantity (a string such as \"500m\" or a number)")
INT_OR_STRING = _Leaf((str, int), "an integer or a string such as \"50%\"", INT32_MIN, INT32_MAX)


class _Any:
    def check(self, v: Any) -> None:
        return None

    def all_ok(self, values: list) -> bool:
        return True


class _Obj:
    """An object with these fields (others are not read and not checked)."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.names = frozenset(fields)
        self.table = fields
        # the string fields are tested all at once, in C: join refuses anything but a string
        self.strings = tuple(k for k, c in fields.items() if c is STR or c is TIME)
        self.blanks = ("",) * len(self.strings)
        self.others = self.names.difference(self.strings)

    def _fields(self, v: Mapping[str, Any], names: Any) -> None:
        for k in names:
            x = v[k]
            if x is None:
                continue
            try:
                self.table[k].check(x)
            except _Bad as e:
                e.path.append(f".{k}")
                raise

    def check(self, v: Any) -> None:
        if type(v) is not dict:
            if not isinstance(v, Mapping):
                raise _want("an object", v)
            self._fields(v, self.names.intersection(v.keys()))
            return
        if self.strings:
            try:
                "".join(map(v.get, self.strings, self.blanks))
            except TypeError:
                self._fields(v, self.names.intersection(self.strings).intersection(v.keys()))
        others = self.others.intersection(v.keys())
        if others:
            self._fields(v, others)

    def all_ok(self, values: list) -> bool:
        if not _types(values) <= {dict}:
            return False
        dicts = [*filter(None, values)]
        if not dicts:
            return True
        for k in self.names.intersection(chain.from_iterable(map(dict.keys, dicts))):
            if not self.table[k].all_ok([*map(methodcaller("get", k), dicts)]):
                return False
        return True


class _Memo:
    """A subtree that repeats across a workload's pods (containers, affinity, volumes): a value
    whose JSON was already found good is not walked again. Equal JSON means an equal verdict
    (orjson keeps 1, 1.0, "1" and true apart)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.good: set[bytes] = set()

    def check(self, v: Any) -> None:
        try:
            key = orjson.dumps(v)
        except TypeError:  # keys that are not strings, integers beyond 64 bits: the walk says where
            key = None
        if key is not None and key in self.good:
            return
        self.inner.check(v)
        if key is not None and len(self.good) < 100_000:
            self.good.add(key)

    def all_ok(self, values: list) -> bool:
        try:
            uniq = dict(zip(map(orjson.dumps, values), values))
        except TypeError:
            return self.inner.all_ok(values)
        fresh = [v for k, v in uniq.items() if k not in self.good]
        if not self.inner.all_ok(fresh):
            return False
        if len(self.good) < 100_000:
            self.good.update(uniq)
        return True


class _List:
    def __init__(self, item: Any) -> None:
        self.item = item

    def check(self, v: Any) -> None:
        if type(v) is not list:
            raise _want("a list", v)
        for i, x in enumerate(v):
            try:
                if x is None:
                    raise _Bad("must not be null")
                self.item.check(x)
            except _Bad as e:
                e.path.append(f"[{i}]")
                raise

    def all_ok(self, values: list) -> bool:
        if not _types(values) <= {list}:
            return False
        flat = [*chain.from_iterable(filter(None, values))]
        if _NONE in set(map(type, flat)):
            return False
        return self.item.all_ok(flat)


class _Map:
    """An object whose keys are names (map[string]T); values never null."""

    def __init__(self, value: Any, what: str = "an object (a map of names to values)") -> None:
        self.value = value
        self.what = what

    def check(self, v: Any) -> None:
        if type(v) is not dict:
            raise _want(self.what, v)
        for k, x in v.items():
            try:
                if type(k) is not str:
                    raise _Bad(f"keys must be strings, got {describe(k)}")
                if x is None:
                    raise _Bad("must not be null")
                self.value.check(x)
            except _Bad as e:
                e.path.append(f".{k}")
                raise

    def all_ok(self, values: list) -> bool:
        if not _types(values) <= {dict}:
            return False
        dicts = [*filter(None, values)]
        if not set(map(type, chain.from_iterable(dicts))) <= {str}:
            return False
        flat = [*chain.from_iterable(map(dict.values, dicts))]
        if _NONE in set(map(type, flat)):
            return False
        return self.value.all_ok(flat)


def obj(**fields: Any) -> _Obj:
    return _Obj(fields)


def list_of(item: Any) -> _List:
    return _List(item)


def map_of(value: Any) -> _Map:
    return _Map(value)


def memo(check: Any) -> _Memo:
    return _Memo(check)


_STR_ITEM = _Leaf((str,), "a string")
_strings = _List(_STR_ITEM)
_string_map = _Map(_STR_ITEM, "an object (a map of strings to strings)")
_int_or_string = INT_OR_STRING
_any = _Any()


STRINGS = _strings
STRING_MAP = _string_map
RESOURCE_LIST = map_of(QUANTITY)

# --- the API's types, as far as the scheduler reads them ---------------------------------------

OWNER_REFERENCE = obj(apiVersion=STR, kind=STR, name=STR, uid=STR, controller=BOOL)
OBJECT_META = obj(
    name=STR, generateName=STR, namespace=STR, uid=STR, resourceVersion=STR, generation=INT64,
    labels=STRING_MAP, annotations=STRING_MAP, creationTimestamp=TIME, deletionTimestamp=TIME,
    deletionGracePeriodSeconds=INT64, ownerReferences=list_of(OWNER_REFERENCE), finalizers=STRINGS,
    managedFields=list_of(obj(manager=STR, operation=STR, time=TIME)),
)
LABEL_SELECTOR = obj(
    matchLabels=STRING_MAP,
    matchExpressions=list_of(obj(key=STR, operator=STR, values=STRINGS)),
)
NODE_SELECTOR_REQUIREMENT = obj(key=STR, operator=STR, values=STRINGS)
NODE_SELECTOR_TERM = obj(matchExpressions=list_of(NODE_SELECTOR_REQUIREMENT),
                         matchFields=list_of(NODE_SELECTOR_REQUIREMENT))
NODE_SELECTOR = obj(nodeSelectorTerms=list_of(NODE_SELECTOR_TERM))
NODE_AFFINITY = obj(
    requiredDuringSchedulingIgnoredDuringExecution=NODE_SELECTOR,
    preferredDuringSchedulingIgnoredDuringExecution=list_of(obj(weight=INT32, preference=NODE_SELECTOR_TERM)),
)
POD_AFFINITY_TERM = obj(labelSelector=LABEL_SELECTOR, namespaces=STRINGS, topologyKey=STR,
                        namespaceSelector=LABEL_SELECTOR, matchLabelKeys=STRINGS, mismatchLabelKeys=STRINGS)
POD_AFFINITY = obj(
    requiredDuringSchedulingIgnoredDuringExecution=list_of(POD_AFFINITY_TERM),
    preferredDuringSchedulingIgnoredDuringExecution=list_of(obj(weight=INT32, podAffinityTerm=POD_AFFINITY_TERM)),
)
AFFINITY = obj(nodeAffinity=NODE_AFFINITY, podAffinity=POD_AFFINITY, podAntiAffinity=POD_AFFINITY)
TOLERATION = obj(key=STR, operator=STR, value=STR, effect=STR, tolerationSeconds=INT64)
TOPOLOGY_SPREAD_CONSTRAINT = obj(
    maxSkew=INT32, topologyKey=STR, whenUnsatisfiable=STR, labelSelector=LABEL_SELECTOR, minDomains=INT32,
    nodeAffinityPolicy=STR, nodeTaintsPolicy=STR, matchLabelKeys=STRINGS,
)
RESOURCE_REQUIREMENTS = obj(requests=RESOURCE_LIST, limits=RESOURCE_LIST,
                            claims=list_of(obj(name=STR, request=STR)))
CONTAINER_PORT = obj(name=STR, containerPort=INT32, hostPort=INT32, protocol=STR, hostIP=STR)
CONTAINER = obj(
    name=STR, image=STR, resources=RESOURCE_REQUIREMENTS, ports=list_of(CONTAINER_PORT), restartPolicy=STR,
    env=list_of(obj(name=STR, value=STR)), command=STRINGS, args=STRINGS, imagePullPolicy=STR,
)
PVC_SPEC = obj(
    accessModes=STRINGS, storageClassName=STR, volumeName=STR, volumeMode=STR, selector=LABEL_SELECTOR,
    resources=RESOURCE_REQUIREMENTS, volumeAttributesClassName=STR,
    dataSource=obj(kind=STR, name=STR, apiGroup=STR),
)
_READONLY_DISK = dict(readOnly=BOOL, fsType=STR, partition=INT32)
VOLUME_SOURCES = dict(
    persistentVolumeClaim=obj(claimName=STR, readOnly=BOOL),
    ephemeral=obj(volumeClaimTemplate=obj(metadata=OBJECT_META, spec=PVC_SPEC)),
    gcePersistentDisk=obj(pdName=STR, **_READONLY_DISK),
    awsElasticBlockStore=obj(volumeID=STR, **_READONLY_DISK),
    azureDisk=obj(diskName=STR, diskURI=STR, readOnly=BOOL, kind=STR),
    cinder=obj(volumeID=STR, readOnly=BOOL),
    rbd=obj(monitors=STRINGS, pool=STR, image=STR, readOnly=BOOL),
    iscsi=obj(targetPortal=STR, iqn=STR, lun=INT32, readOnly=BOOL, portals=STRINGS),
    csi=obj(driver=STR, readOnly=BOOL, volumeAttributes=STRING_MAP, volumeHandle=STR),
    hostPath=obj(path=STR, type=STR),
    emptyDir=obj(medium=STR, sizeLimit=QUANTITY),
    gitRepo=obj(repository=STR, revision=STR, directory=STR),
    configMap=obj(name=STR), secret=obj(secretName=STR),
)
VOLUME = obj(name=STR, **VOLUME_SOURCES)
POD_SPEC = obj(
    nodeName=STR, priority=INT32, priorityClassName=STR, preemptionPolicy=STR, schedulerName=STR,
    containers=memo(list_of(CONTAINER)), initContainers=memo(list_of(CONTAINER)),
    ephemeralContainers=memo(list_of(CONTAINER)),
    overhead=RESOURCE_LIST, resources=RESOURCE_REQUIREMENTS, affinity=memo(AFFINITY),
    tolerations=memo(list_of(TOLERATION)), topologySpreadConstraints=memo(list_of(TOPOLOGY_SPREAD_CONSTRAINT)),
    nodeSelector=STRING_MAP, volumes=memo(list_of(VOLUME)), schedulingGates=list_of(obj(name=STR)),
    resourceClaims=list_of(obj(name=STR, resourceClaimName=STR, resourceClaimTemplateName=STR)),
    terminationGracePeriodSeconds=INT64, activeDeadlineSeconds=INT64, hostNetwork=BOOL, restartPolicy=STR,
    serviceAccountName=STR, hostname=STR, subdomain=STR,
)
CONTAINER_STATE = obj(startedAt=TIME, finishedAt=TIME, reason=STR, message=STR, exitCode=INT32)
CONTAINER_STATUS = obj(
    name=STR, ready=BOOL, restartCount=INT32, allocatedResources=RESOURCE_LIST,
    resources=RESOURCE_REQUIREMENTS, state=map_of(CONTAINER_STATE), lastState=map_of(CONTAINER_STATE),
)
CONDITION = obj(type=STR, status=STR, reason=STR, message=STR, lastTransitionTime=TIME,
                lastProbeTime=TIME, lastHeartbeatTime=TIME)
POD_STATUS = obj(
    phase=STR, nominatedNodeName=STR, startTime=TIME, conditions=list_of(CONDITION), hostIP=STR, podIP=STR,
    containerStatuses=list_of(CONTAINER_STATUS), initContainerStatuses=list_of(CONTAINER_STATUS),
    ephemeralContainerStatuses=list_of(CONTAINER_STATUS), resize=STR, qosClass=STR,
    resourceClaimStatuses=list_of(obj(name=STR, resourceClaimName=STR)),
)
POD_TEMPLATE = obj(metadata=OBJECT_META, spec=POD_SPEC)
PVC = obj(metadata=OBJECT_META, spec=PVC_SPEC,
          status=obj(phase=STR, accessModes=STRINGS, capacity=RESOURCE_LIST, allocatedResources=RESOURCE_LIST))
TAINT = obj(key=STR, value=STR, effect=STR, timeAdded=TIME)
DEVICE_SELECTOR = obj(cel=obj(expression=STR))
DEVICE_REQUEST_DETAIL = dict(deviceClassName=STR, selectors=list_of(DEVICE_SELECTOR), allocationMode=STR,
                             count=INT64, adminAccess=BOOL, tolerations=list_of(TOLERATION))
DEVICE_CONFIG = obj(requests=STRINGS, opaque=obj(driver=STR))
DEVICE_ATTRIBUTE = obj(int=INT64, bool=BOOL, string=STR, version=STR)

# kind -> the checker of the whole object
KINDS: dict[str, Checker] = {
    "Pod": obj(metadata=OBJECT_META, spec=POD_SPEC, status=POD_STATUS),
    "Node": obj(
        metadata=OBJECT_META,
        spec=obj(taints=list_of(TAINT), unschedulable=BOOL, podCIDR=STR, providerID=STR),
        status=obj(allocatable=RESOURCE_LIST, capacity=RESOURCE_LIST, conditions=list_of(CONDITION),
                   images=list_of(obj(names=STRINGS, sizeBytes=NONNEG_INT64)),
                   nodeInfo=obj(kubeletVersion=STR, operatingSystem=STR, architecture=STR),
                   volumesAttached=list_of(obj(name=STR, devicePath=STR)), volumesInUse=STRINGS),
    ),
    "PodDisruptionBudget": obj(
        metadata=OBJECT_META,
        spec=obj(selector=LABEL_SELECTOR, minAvailable=_int_or_string, maxUnavailable=_int_or_string,
                 unhealthyPodEvictionPolicy=STR),
        status=obj(disruptionsAllowed=NONNEG_INT32, currentHealthy=NONNEG_INT32, desiredHealthy=NONNEG_INT32,
                   expectedPods=NONNEG_INT32, observedGeneration=INT64, disruptedPods=map_of(TIME),
                   conditions=list_of(CONDITION)),
    ),
    "PriorityClass": obj(metadata=OBJECT_META, value=INT32, globalDefault=BOOL, preemptionPolicy=STR,
                         description=STR),
    "Namespace": obj(metadata=OBJECT_META, status=obj(phase=STR)),
    "Service": obj(metadata=OBJECT_META, spec=obj(selector=STRING_MAP, type=STR, clusterIP=STR)),
    "ReplicaSet": obj(metadata=OBJECT_META, spec=obj(selector=LABEL_SELECTOR, replicas=NONNEG_INT32,
                                                     template=POD_TEMPLATE),
                      status=obj(replicas=NONNEG_INT32, readyReplicas=NONNEG_INT32)),
    "ReplicationController": obj(metadata=OBJECT_META, spec=obj(selector=STRING_MAP, replicas=NONNEG_INT32,
                                                                template=POD_TEMPLATE),
                                 status=obj(replicas=NONNEG_INT32)),
    "StatefulSet": obj(metadata=OBJECT_META, spec=obj(selector=LABEL_SELECTOR, replicas=NONNEG_INT32,
                                                      serviceName=STR, template=POD_TEMPLATE,
                                                      volumeClaimTemplates=list_of(PVC)),
                       status=obj(replicas=NONNEG_INT32)),
    "PersistentVolumeClaim": PVC,
    "PersistentVolume": obj(
        metadata=OBJECT_META,
        spec=obj(capacity=RESOURCE_LIST, accessModes=STRINGS, storageClassName=STR, volumeMode=STR,
                 persistentVolumeReclaimPolicy=STR, mountOptions=STRINGS,
                 claimRef=obj(kind=STR, namespace=STR, name=STR, uid=STR),
                 nodeAffinity=obj(required=NODE_SELECTOR), volumeAttributesClassName=STR,
                 local=obj(path=STR), **VOLUME_SOURCES),
        status=obj(phase=STR),
    ),
    "StorageClass": obj(
        metadata=OBJECT_META, provisioner=STR, volumeBindingMode=STR, reclaimPolicy=STR, allowVolumeExpansion=BOOL,
        parameters=STRING_MAP, mountOptions=STRINGS,
        allowedTopologies=list_of(obj(matchLabelExpressions=list_of(obj(key=STR, values=STRINGS)))),
    ),
    "CSINode": obj(metadata=OBJECT_META, spec=obj(drivers=list_of(obj(
        name=STR, nodeID=STR, topologyKeys=STRINGS, allocatable=obj(count=NONNEG_INT32))))),
    "CSIDriver": obj(metadata=OBJECT_META, spec=obj(attachRequired=BOOL, podInfoOnMount=BOOL, storageCapacity=BOOL,
                                                    requiresRepublish=BOOL, seLinuxMount=BOOL)),
    "CSIStorageCapacity": obj(metadata=OBJECT_META, storageClassName=STR, nodeTopology=LABEL_SELECTOR,
                              capacity=QUANTITY, maximumVolumeSize=QUANTITY),
    "VolumeAttachment": obj(metadata=OBJECT_META,
                            spec=obj(attacher=STR, nodeName=STR,
                                     source=obj(persistentVolumeName=STR, inlineVolumeSpec=_any)),
                            status=obj(attached=BOOL)),
    "ResourceClaim": obj(
        metadata=OBJECT_META,
        spec=obj(devices=obj(
            requests=list_of(obj(name=STR, exactly=obj(**DEVICE_REQUEST_DETAIL),
                                 firstAvailable=list_of(obj(name=STR, **DEVICE_REQUEST_DETAIL)))),
            constraints=list_of(obj(requests=STRINGS, matchAttribute=STR)),
            config=list_of(DEVICE_CONFIG))),
        status=obj(allocation=obj(devices=obj(results=list_of(obj(request=STR, driver=STR, pool=STR, device=STR,
                                                                  adminAccess=BOOL)),
                                              config=list_of(DEVICE_CONFIG)),
                                  nodeSelector=NODE_SELECTOR),
                   reservedFor=list_of(obj(resource=STR, name=STR, uid=STR, apiGroup=STR))),
    ),
    "DeviceClass": obj(metadata=OBJECT_META, spec=obj(selectors=list_of(DEVICE_SELECTOR),
                                                      config=list_of(DEVICE_CONFIG))),
    "ResourceSlice": obj(metadata=OBJECT_META, spec=obj(
        driver=STR, nodeName=STR, nodeSelector=NODE_SELECTOR, allNodes=BOOL, perDeviceNodeSelection=BOOL,
        pool=obj(name=STR, generation=INT64, resourceSliceCount=INT64),
        devices=list_of(obj(name=STR, attributes=map_of(DEVICE_ATTRIBUTE), capacity=map_of(obj(value=QUANTITY)),
                            nodeName=STR, nodeSelector=NODE_SELECTOR, allNodes=BOOL, taints=list_of(TAINT))))),
}

_GENERIC = obj(metadata=OBJECT_META)


def check_object(o: Mapping[str, Any]) -> None:
    """InputError naming the field (relative to the object) when `o`'s shape is not one the API
    server would have stored; kinds the scheduler does not read get their metadata checked."""
    try:
        KINDS.get(o.get("kind"), _GENERIC).check(o)  # type: ignore[arg-type]
    except _Bad as e:
        path = "".join(reversed(e.path)).lstrip(".")
        raise InputError(e.message, field=path or None) from None


_get_kind = methodcaller("get", "kind")
_get_metadata = methodcaller("get", "metadata")
_get_name = methodcaller("get", "name")


def basics_ok(objects: list) -> bool:
    """Every item an object with a non-empty string kind and metadata.name: the identity every
    reader and message goes by. Answered in C for the whole list; the caller words any error."""
    if set(map(type, objects)) - {dict}:
        return False
    kinds = [*map(_get_kind, objects)]
    if set(map(type, kinds)) - {str} or "" in kinds:
        return False
    mds = [*map(_get_metadata, objects)]
    if set(map(type, mds)) - {dict}:
        return False
    names = [*map(_get_name, mds)]
    return not (set(map(type, names)) - {str} or "" in names)


def check_objects(objects: Iterable[Mapping[str, Any]], where: Any = None) -> None:
    """check_object on every object, column by column per kind: fast when all is well; when a
    column is wrong, the objects are checked one by one, in order, to name the first bad one.
    `where(i, o)` gives the prefix of an error's field (default: `items[i] (Kind ns/name)`)."""
    objects = objects if isinstance(objects, list) else list(objects)
    by_kind: dict[Any, list] = {}
    for o in objects:
        by_kind.setdefault(o.get("kind"), []).append(o)
    if all(KINDS.get(k, _GENERIC).all_ok(group) for k, group in by_kind.items()):
        return
    for i, o in enumerate(objects):
        try:
            check_object(o)
        except InputError as e:
            prefix = where(i, o) if where is not None else f"items[{i}] ({object_label(o)})"
            raise e.located(field_prefix=prefix) from None


def object_label(o: Mapping[str, Any]) -> str:
    """`Pod ns/name`, as an error names the object it is about."""
    md = o.get("metadata")
    md = md if isinstance(md, Mapping) else {}
    ns, name = md.get("namespace"), md.get("name")
    ns_part = f"{ns}/" if isinstance(ns, str) and ns else ""
    return f"{o.get('kind')} {ns_part}{name if isinstance(name, str) else '?'}"


__all__ = ["basics_ok", "check_object", "check_objects", "object_label", "describe", "KINDS", "INT32_MIN", "INT32_MAX"]
