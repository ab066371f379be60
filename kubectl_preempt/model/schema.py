"""The shape of every kind the scheduler reads, checked as the API server's decoding and
validation would check it, before any typed view or plugin looks inside.

One table per kind (the fields kube-scheduler v1.34.1 and its plugins read, plus the object
metadata every reader uses): a field of the wrong type, an integer outside int32 where the API
type is int32, or a negative quantity where the API server requires one >= 0 is an InputError
naming the field (e.g. `spec.containers[0].resources.requests.cpu`). Fields the scheduler never
reads are not checked: the API server would have decoded them, and nothing here depends on them.
A null value is an absent field, as in the API's JSON.

The tables serve twice. Compiled into Python functions (`fast_checker`, `pod_ok`), they answer
"all good?" at about the cost of reading the object once more: that runs on every object of a
150,000-pod snapshot. Walked as objects (`check_object`), they name the field that is wrong; that
runs only once the fast answer is no.
"""
from __future__ import annotations

from typing import Annotated, Any, Iterable, Literal, Mapping, Optional, TypedDict, Union

from itertools import repeat

import orjson

from ..errors import InputError, quote
from .memory import MEMORY
from .podshape import NODE_NAME_BLANK, NODE_NAME_TEXT, node_name_text, pod_spec_key

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
# Each has `check(v)`, which raises _Bad naming the step that is wrong; `_Gen` below compiles the
# same tables into the fast pass.

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



class _Memo:
    """A subtree that repeats across a workload's objects (a pod spec, its containers, affinity,
    volumes): the fast pass keeps the JSON of each value it found good and does not walk an equal
    one again. Equal JSON means an equal verdict (orjson keeps 1, 1.0, "1" and true apart).
    `volatile` names string fields that differ from object to object (a pod's nodeName): their
    type is checked, and their value is left out of the key."""

    def __init__(self, inner: Any, volatile: tuple[str, ...] = ()) -> None:
        self.inner = inner
        self.volatile = volatile
        self.good: set[bytes] = set()

    def check(self, v: Any) -> None:
        self.inner.check(v)


class _List:
    def __init__(self, item: Any) -> None:
        self.item = item

    def check(self, v: Any) -> None:
        if type(v) is not list:
            raise _want("a list", v)
        for i, x in enumerate(v):
            _check_member(self.item, x, f"[{i}]")


def _check_member(checker: Any, x: Any, where: str) -> None:
    """A list's item or a map's value: never null, then as `checker` says; a fault is said with
    `where` (`[i]`, `.key`) on its path."""
    try:
        if x is None:
            raise _Bad("must not be null")
        checker.check(x)
    except _Bad as e:
        e.path.append(where)
        raise


class _Map:
    """An object whose keys are names (map[string]T); values never null."""

    def __init__(self, value: Any, what: str = "an object (a map of names to values)") -> None:
        self.value = value
        self.what = what

    def check(self, v: Any) -> None:
        if type(v) is not dict:
            raise _want(self.what, v)
        for k, x in v.items():
            if type(k) is not str:
                bad = _Bad(f"keys must be strings, got {describe(k)}")
                bad.path.append(f".{k}")
                raise bad
            _check_member(self.value, x, f".{k}")



def obj(**fields: Any) -> _Obj:
    return _Obj(fields)


def list_of(item: Any) -> _List:
    return _List(item)


def map_of(value: Any) -> _Map:
    return _Map(value)


def memo(check: Any, *volatile: str) -> _Memo:
    return _Memo(check, volatile)


_STR_ITEM = _Leaf((str,), "a string")
_strings = _List(_STR_ITEM)
_string_map = _Map(_STR_ITEM, "an object (a map of strings to strings)")
_int_or_string = INT_OR_STRING
_any = _Any()
# a field some reader reads and the API server's decoding would accept in any shape the reader
# copes with: not checked, but named so that the typed read (below) keeps it
UNCHECKED = _any


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
    restartPolicyRules=UNCHECKED,
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
    # in-tree sources the CSI translation names (plugins/volumeutil/csitranslation.py)
    azureFile=UNCHECKED, vsphereVolume=UNCHECKED, portworxVolume=UNCHECKED,
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
    serviceAccountName=STR, hostname=STR, subdomain=STR, hostUsers=UNCHECKED,
    # the pod's group: v1.36's PodSchedulingGroup, v1.35's WorkloadReference (model/workload.py)
    schedulingGroup=obj(podGroupName=STR), workloadRef=obj(name=STR, podGroup=STR, podGroupReplicaKey=STR),
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
# the pods of a workload differ in their spec only by the node they are bound to
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
    "Pod": obj(metadata=OBJECT_META, spec=memo(POD_SPEC, "nodeName"), status=POD_STATUS),
    "Node": obj(
        metadata=OBJECT_META,
        spec=obj(taints=list_of(TAINT), unschedulable=BOOL, podCIDR=STR, providerID=STR),
        status=obj(allocatable=RESOURCE_LIST, capacity=RESOURCE_LIST, conditions=list_of(CONDITION),
                   images=list_of(obj(names=STRINGS, sizeBytes=NONNEG_INT64)),
                   nodeInfo=obj(kubeletVersion=STR, operatingSystem=STR, architecture=STR),
                   volumesAttached=list_of(obj(name=STR, devicePath=STR)), volumesInUse=STRINGS,
                   declaredFeatures=UNCHECKED),
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
                                                      volumeClaimTemplates=list_of(PVC),
                                                      podManagementPolicy=UNCHECKED),
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
    # scheduling.k8s.io's workload objects (model/workload.py checks what the shape cannot: the
    # policy union, minCount, the disruptionMode enum); v1alpha2's fields, and v1alpha1's podGroups
    "PodGroup": obj(metadata=OBJECT_META, spec=obj(
        podGroupTemplateRef=obj(workload=obj(workloadName=STR, podGroupTemplateName=STR)),
        schedulingPolicy=obj(basic=obj(), gang=obj(minCount=INT32)), disruptionMode=STR,
        priorityClassName=STR, priority=INT32, schedulingConstraints=obj(topology=list_of(obj(key=STR)))),
        status=obj(conditions=list_of(CONDITION))),
    "Workload": obj(metadata=OBJECT_META, spec=obj(
        controllerRef=obj(apiGroup=STR, kind=STR, name=STR),
        podGroupTemplates=list_of(obj(name=STR, schedulingPolicy=obj(basic=obj(), gang=obj(minCount=INT32)),
                                      disruptionMode=STR, priorityClassName=STR, priority=INT32)),
        podGroups=list_of(obj(name=STR, policy=obj(basic=obj(), gang=obj(minCount=INT32)))))),
    "DeviceClass": obj(metadata=OBJECT_META, spec=obj(selectors=list_of(DEVICE_SELECTOR),
                                                      config=list_of(DEVICE_CONFIG))),
    "ResourceSlice": obj(metadata=OBJECT_META, spec=obj(
        driver=STR, nodeName=STR, nodeSelector=NODE_SELECTOR, allNodes=BOOL, perDeviceNodeSelection=BOOL,
        pool=obj(name=STR, generation=INT64, resourceSliceCount=INT64),
        devices=list_of(obj(name=STR, attributes=map_of(DEVICE_ATTRIBUTE), capacity=map_of(obj(value=QUANTITY)),
                            nodeName=STR, nodeSelector=NODE_SELECTOR, allNodes=BOOL, taints=list_of(TAINT))))),
}

_GENERIC = obj(metadata=OBJECT_META)


# --- the fast pass ---------------------------------------------------------------------------------
#
# The tables above, compiled into straight-line Python functions that answer only "all good?" (no
# paths, no messages, as few calls as can be): on a 150,000-pod snapshot the walk above costs
# several microseconds an object in function calls alone, this about one. Objects of a kind hold
# the same fields in the same order, so a table of many fields (metadata, a pod's status) gets one
# function per key list seen (`learn`: the values unpacked in order, each tested in a line, no
# lookup per field), a table of few fields (a pod's shell) reads its fields directly, and a subtree
# a workload repeats (a pod's spec) is tested once per distinct JSON (`_Memo`). A False sends the
# caller to check_object, which names the field (and has the last word: the fast pass may refuse a
# Mapping that is not a dict, which check_object accepts).

_STRING = object()  # a dispatch entry: the field is a string
_SEP = object()  # between the key lists of several objects in one lookup key
_DIRECT_FIELDS = 3  # tables of at most this many fields are read field by field, not walked
# at most this many key lists get a function of their own per table, of at most this many keys
# (a hostile file of many shapes or huge objects compiles a bounded amount, then walks)
_SIGNATURES, _SIGNATURE_KEYS = 32, 24


class _Gen:
    def __init__(self) -> None:
        self.env: dict[str, Any] = {"_dumps": orjson.dumps, "_STRING": _STRING, "_learn": self.learn,
                                     "_learn_many": self.learn_many, "_SEP": _SEP,
                                     "_NODE_NAME_TEXT": NODE_NAME_TEXT, "_node_name_text": node_name_text}
        self.functions: list[str] = []
        # (dispatch table, field, function name): filled in once the function is compiled
        self.fills: list[tuple[dict[str, Any], str, str]] = []
        self.memo_fns: dict[Any, str] = {}
        # functions named but not written yet (name -> its checker): a table's function is
        # written and compiled when it is first called (`_written`), so that a kind's many
        # subtables no object of a run holds (a pod's volumes, affinity, ephemeral containers...)
        # cost nothing; until then its name stands for a stub that writes it
        self.unwritten: dict[str, Any] = {}
        # name -> the dispatch tables (emit_walk) that hold its stub, given the function once written
        self.stub_holders: dict[str, list[tuple[dict[str, Any], str]]] = {}
        self.n = 0

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def const(self, prefix: str, value: Any) -> str:
        n = self.name(prefix)
        self.env[n] = value
        return n

    def function(self, checker: Any) -> str:
        """A function `f(v) -> bool` for a value that is not None."""
        key = id(checker)
        if key in self.memo_fns:
            return self.memo_fns[key]
        fn = self.name("_ok")
        self.memo_fns[key] = fn
        self.unwritten[fn] = checker

        def stub(v: Any) -> Any:
            return self._written(fn)(v)

        stub.__name__ = fn
        self.env[fn] = stub
        return fn

    def _written(self, fn: str) -> Any:
        """The function named `fn`, written and compiled now if it was not yet: the name is bound
        to it in the generated code's globals, and the dispatch tables holding its stub get it."""
        checker = self.unwritten.pop(fn, None)
        if checker is not None:
            body: list[str] = []
            self.emit(checker, "v", body, 1)
            self.functions.append(f"def {fn}(v):\n" + "".join(body) + "    return True\n")
            self.flush()
            for table, field in self.stub_holders.pop(fn, ()):
                table[field] = self.env[fn]
        return self.env[fn]

    def emit(self, c: Any, var: str, out: list[str], ind: int) -> None:
        """Lines that `return False` unless `var` (not None) passes `c`."""
        if isinstance(c, _Any):
            return
        if isinstance(c, _Leaf):
            self._emit_leaf(c, var, out, ind)
        elif isinstance(c, _Memo):
            self._emit_memo(c, var, out, ind)
        elif isinstance(c, _Obj) and len(c.table) <= _DIRECT_FIELDS:
            self._emit_few_fields(c, var, out, ind)
        elif isinstance(c, _Obj):
            self._emit_obj(c, var, out, ind)
        elif isinstance(c, _List):
            self._emit_list(c, var, out, ind)
        elif isinstance(c, _Map):
            self._emit_map(c, var, out, ind)
        else:
            raise TypeError(f"no fast pass for {c!r}")  # pragma: no cover - a table built of other parts

    def _emit_leaf(self, c: _Leaf, var: str, out: list[str], ind: int) -> None:
        """A leaf: its types, and an int's bounds."""
        pad = "    " * ind
        if c.types == frozenset((str,)):
            out.append(f"{pad}if type({var}) is not str: return False\n")
        else:
            types = self.const("_T", c.types)
            out.append(f"{pad}if type({var}) not in {types}: return False\n")
        if c.lo is not None:
            out.append(f"{pad}if type({var}) is int and not ({c.lo} <= {var} <= {c.hi}): return False\n")

    def _emit_memo(self, c: _Memo, var: str, out: list[str], ind: int) -> None:
        """A subtree a workload repeats: tested once per distinct JSON (its volatile
        string fields blanked)."""
        pad = "    " * ind
        good = self.const("_good", c.good)
        fn = self.function(c.inner)
        k = self.name("k")
        out.append(f"{pad}try:\n{pad}    {k} = _dumps({var})\n{pad}except TypeError:\n{pad}    return False\n")
        if c.volatile:
            out.append(f"{pad}if type({var}) is not dict: return False\n")
        for f in c.volatile:
            # `"nodeName":"node-1"` becomes `"nodeName":""`: only a key can hold that text
            # unescaped, and every value it stands for is a string, as the blank one is
            y, blank = self.name("y"), self.const("_blank", orjson.dumps({f: ""})[1:-1])
            out.append(f"{pad}{y} = {var}.get({f!r})\n{pad}if {y} is not None:\n"
                       f"{pad}    if type({y}) is not str: return False\n")
            if f == "nodeName":
                # the text of a node's name, kept per node (model/podshape.py): a pod's spec is
                # blanked by a lookup, not a dict and a dump of its own
                n = self.name("n")
                out.append(f"{pad}    {n} = _NODE_NAME_TEXT.get({y})\n"
                           f"{pad}    {k} = {k}.replace({n} if {n} is not None else _node_name_text({y}), {blank})\n")
            else:
                out.append(f"{pad}    {k} = {k}.replace(_dumps({{{f!r}: {y}}})[1:-1], {blank})\n")
        out.append(f"{pad}if {k} not in {good}:\n")
        out.append(f"{pad}    if not {fn}({var}): return False\n")
        out.append(f"{pad}    if len({good}) < 100000: {good}.add({k})\n")

    def _emit_few_fields(self, c: _Obj, var: str, out: list[str], ind: int) -> None:
        """A table of few fields (a pod's shell: metadata and status): each field read
        directly, fewer steps than walking every field the object holds."""
        pad = "    " * ind
        out.append(f"{pad}if type({var}) is not dict: return False\n")
        fields = [(k, sub, self.name("x")) for k, sub in c.table.items() if not isinstance(sub, _Any)]
        out.extend(f"{pad}{x} = {var}.get({k!r})\n" for k, sub, x in fields)
        big = [(sub, x) for k, sub, x in fields if isinstance(sub, _Obj) and len(sub.table) > _DIRECT_FIELDS]
        if len(big) > 1:
            # objects that are all there, as usual: one function for their key lists together
            xs = ", ".join(x for sub, x in big)
            sigs, f = self.const("_S", {}), self.name("f")
            tables = self.const("_O", tuple(sub for sub, x in big))
            walks = f"({', '.join(self.walker(sub) for sub, x in big)},)"
            out.append(f"{pad}if {' and '.join(f'type({x}) is dict' for sub, x in big)}:\n"
                       f"{pad}    {f} = {sigs}.get(({', _SEP, '.join(f'*{x}' for sub, x in big)},))\n"
                       f"{pad}    if {f} is None: {f} = _learn_many({sigs}, {tables}, {walks}, {xs})\n"
                       f"{pad}    if not {f}({xs}): return False\n"
                       f"{pad}else:\n")
            for sub, x in big:
                out.append(f"{pad}    if {x} is not None:\n")
                self.emit(sub, x, out, ind + 2)
        for k, sub, x in fields:
            if sub is STR or sub is TIME:
                out.append(f"{pad}if {x} is not None and type({x}) is not str: return False\n")
            elif isinstance(sub, _Obj) and len(sub.table) > _DIRECT_FIELDS:
                if len(big) == 1:
                    # its key list's function called from here: one call fewer per object
                    out.append(f"{pad}if {x} is not None:\n")
                    self.emit(sub, x, out, ind + 1)
            else:
                out.append(f"{pad}if {x} is not None and not {self.function(sub)}({x}): return False\n")

    def _emit_obj(self, c: _Obj, var: str, out: list[str], ind: int) -> None:
        """A table of many fields: a function per key list seen (learn)."""
        pad = "    " * ind
        # objects of one kind hold the same fields in the same order (a pod's metadata: name,
        # namespace, uid, labels, creationTimestamp): each such key list gets a function of
        # its own that unpacks the values and tests each in one step (learn below); the walk
        # serves key lists beyond the first _SIGNATURES of a table
        sigs, walk = self.const("_S", {}), self.walker(c)
        f = self.name("f")
        out.append(f"{pad}if type({var}) is not dict: return False\n"
                   f"{pad}{f} = {sigs}.get(tuple({var}))\n"
                   f"{pad}if {f} is None: {f} = _learn({sigs}, {self.const('_O', c)}, {walk}, {var})\n"
                   f"{pad}if not {f}({var}): return False\n")

    def _emit_list(self, c: _List, var: str, out: list[str], ind: int) -> None:
        """A list: each item tested (strings all at once)."""
        pad = "    " * ind
        out.append(f"{pad}if type({var}) is not list: return False\n")
        if c.item is STR or c.item is _STR_ITEM:
            out.append(f"{pad}try:\n{pad}    ''.join({var})\n{pad}except TypeError:\n{pad}    return False\n")
            return
        fn = self.function(c.item)
        x = self.name("x")
        out.append(f"{pad}for {x} in {var}:\n{pad}    if {x} is None or not {fn}({x}): return False\n")

    def _emit_map(self, c: _Map, var: str, out: list[str], ind: int) -> None:
        """A map: its keys strings, each value tested."""
        pad = "    " * ind
        out.append(f"{pad}if type({var}) is not dict: return False\n")
        if c.value is STR or c.value is _STR_ITEM:
            # a few labels: a loop costs less than copying keys and values for join
            k, x = self.name("k"), self.name("x")
            out.append(f"{pad}if len({var}) <= 8:\n"
                       f"{pad}    for {k}, {x} in {var}.items():\n"
                       f"{pad}        if type({k}) is not str or type({x}) is not str: return False\n"
                       f"{pad}else:\n"
                       f"{pad}    try:\n{pad}        ''.join({var})\n{pad}        ''.join({var}.values())\n"
                       f"{pad}    except TypeError:\n{pad}        return False\n")
            return
        out.append(f"{pad}try:\n{pad}    ''.join({var})\n{pad}except TypeError:\n{pad}    return False\n")
        fn = self.function(c.value)
        x = self.name("x")
        out.append(f"{pad}for {x} in {var}.values():\n{pad}    if {x} is None or not {fn}({x}): return False\n")

    def walker(self, c: _Obj) -> str:
        """A function `f(v) -> bool` for a dict `v` that walks the fields `v` holds."""
        key = ("walk", id(c))
        if key in self.memo_fns:
            return self.memo_fns[key]
        fn = self.memo_fns[key] = self.name("_walk")
        body: list[str] = []
        self.emit_walk(c, "v", body, 1)
        self.functions.append(f"def {fn}(v):\n" + "".join(body) + "    return True\n")
        return fn

    def learn(self, sigs: dict[tuple, Any], c: _Obj, walk: Any, v: dict) -> Any:
        """The function of `v`'s key list (kept in `sigs`), compiled now: it unpacks v's values
        in key order and tests those the table names; fields it does not name are skipped."""
        keys = tuple(v)
        if len(sigs) >= _SIGNATURES or len(keys) > _SIGNATURE_KEYS:
            return walk
        fn = self.name("_sig")
        self.functions.append(f"def {fn}(v):\n" + "".join(self.sig_body(c, keys, "v", walk)) + "    return True\n")
        self.flush()
        f = sigs[keys] = self.env[fn]
        return f

    def learn_many(self, sigs: dict[tuple, Any], cs: tuple[_Obj, ...], walks: tuple[Any, ...], *vs: dict) -> Any:
        """learn for several objects at once (a pod's metadata and status): one function of
        their key lists, called once for all of them."""
        keys = tuple(map(tuple, vs))
        if len(sigs) >= _SIGNATURES or max(map(len, keys)) > _SIGNATURE_KEYS:
            return lambda *xs: all(w(x) for w, x in zip(walks, xs))
        # the key the caller looks up: the key lists in one tuple, _SEP between them
        flat: tuple = keys[0]
        for k in keys[1:]:
            flat += (_SEP, *k)
        fn = self.name("_sig")
        args = [self.name("v") for _ in vs]
        body = [line for c, k, var, walk in zip(cs, keys, args, walks) for line in self.sig_body(c, k, var, walk)]
        self.functions.append(f"def {fn}({', '.join(args)}):\n" + "".join(body) + "    return True\n")
        self.flush()
        f = sigs[flat] = self.env[fn]
        return f

    def sig_body(self, c: _Obj, keys: tuple, var: str, walk: Any) -> list[str]:
        """Lines that unpack dict `var` of key list `keys` and `return False` unless it passes `c`."""
        names: list[str] = []
        strings: list[str] = []
        body: list[str] = []
        for k in keys:
            sub = c.table.get(k) if type(k) is str else None
            if sub is None or isinstance(sub, _Any):
                names.append("_")
                continue
            x = self.name("x")
            names.append(x)
            if sub is STR or sub is TIME:
                strings.append(x)
            elif isinstance(sub, _Map) and (sub.value is STR or sub.value is _STR_ITEM):
                body.append(f"    if {x} is not None:\n")
                self.emit(sub, x, body, 2)
            else:
                body.append(f"    if {x} is not None and not {self.function(sub)}({x}): return False\n")
        if len(strings) > 3:
            # the string fields at once, in C; a null among them (allowed) or a wrong type: the
            # walk decides
            body.insert(0, f"    try:\n        ''.join(({', '.join(strings)},))\n"
                           f"    except TypeError:\n        if not {walk.__name__}({var}): return False\n")
        else:
            body[:0] = [f"    if type({x}) is not str and {x} is not None: return False\n" for x in strings]
        if keys:
            body.insert(0, f"    {', '.join(names)}, = {var}.values()\n")
        return body

    def emit_walk(self, c: _Obj, var: str, out: list[str], ind: int) -> None:
        """A walk over the fields present (an object holds a few of the many its table names):
        a string field is checked here, any other by its function."""
        pad = "    " * ind
        dispatch: dict[str, Any] = {}
        for k, sub in c.table.items():
            if sub is STR or sub is TIME:
                dispatch[k] = _STRING
            elif not isinstance(sub, _Any):
                self.fills.append((dispatch, k, self.function(sub)))
        d, k, x, f = self.const("_D", dispatch), self.name("k"), self.name("x"), self.name("f")
        out.append(f"{pad}if type({var}) is not dict: return False\n"
                   f"{pad}for {k}, {x} in {var}.items():\n"
                   f"{pad}    {f} = {d}.get({k})\n"
                   f"{pad}    if {f} is None or {x} is None: continue\n"
                   f"{pad}    if {f} is _STRING:\n"
                   f"{pad}        if type({x}) is not str: return False\n"
                   f"{pad}    elif not {f}({x}): return False\n")

    def compile_kind(self, kind: Any) -> Any:
        """The fast function of `kind`, compiled with whatever it needs that is not yet."""
        return self.compile_checker(KINDS.get(kind, _GENERIC))

    def compile_checker(self, checker: Any) -> Any:
        """The fast function of one table, compiled with whatever it needs that is not yet."""
        fn = self.function(checker)
        self.flush()
        return self._written(fn)

    def flush(self) -> None:
        """Compile the functions generated since the last flush."""
        if self.functions:
            code = compile("\n".join(self.functions), "<schema fast pass>", "exec")
            self.functions = []
            exec(code, self.env)  # noqa: S102 - source generated above from the tables only
            for table, field, name in self.fills:
                table[field] = self.env[name]
                if name in self.unwritten:
                    self.stub_holders.setdefault(name, []).append((table, field))
            self.fills = []


# The generator's own state (functions by checker and by key list) is code made from the constant
# tables, not an answer about any object: nothing the switch must empty. With every memory off
# (model/memory.py) nothing calls it: fast_checker, pod_ok and objects_ok send every object to the
# detailed checks.
_GEN = _Gen()
# kind -> its compiled fast function; kinds are compiled on first sight (a command that reads
# only traces of pods and nodes does not wait for the other eighteen)
_FAST: dict[Any, Any] = {}
MEMORY.register("model.schema fast passes", _FAST)


def _fast(kind: Any) -> Any:
    f = _FAST.get(kind)
    if f is None:
        f = _FAST[kind] = _GEN.compile_kind(kind if kind in KINDS else None)
    return f


def _no_fast_pass(o: Any) -> bool:
    return False


def fast_checker(kind: Any) -> Any:
    """The compiled fast pass of `kind`'s table: `f(o) -> bool` for one object (False when in
    doubt; check_object then names the field, or passes a Mapping that is not a dict). With every
    memory off (model/memory.py) none is compiled, kept or used: the detailed checks answer alone."""
    if not MEMORY.on:
        return _no_fast_pass
    f = _FAST.get(kind)
    if f is None:
        f = _fast(kind)
    return f


def objects_ok(objects: list) -> bool:
    """True when every object has a non-empty string kind and metadata.name and the shape its
    kind's table asks for; False sends the caller to the detailed checks, which name what is wrong.
    One pass, each object visited once while it is in the processor's cache. With every memory
    off (model/memory.py) no fast pass is compiled and kept: the detailed checks answer alone."""
    if not MEMORY.on:
        return False
    fast = _FAST
    for o in objects:
        if type(o) is not dict:
            return False
        kind = o.get("kind")
        md = o.get("metadata")
        if type(kind) is not str or not kind or type(md) is not dict:
            return False
        name = md.get("name")
        if type(name) is not str or not name:
            return False
        f = fast.get(kind)
        if f is None:
            f = _fast(kind)
        if not f(o):
            return False
    return True


# --- the typed decoders: the same tables, checked while the JSON is decoded ---------------------------
#
# msgspec decodes JSON straight into the types it is given, checking each value as it reads it, in
# C; fields a type does not name are skipped without being made into Python objects. The tables
# above, turned into such types (an object table into a TypedDict: the decoded value is a plain
# dict, its keys in the file's order), check and build an object in one pass: what the fast pass
# and the detailed walk check after a plain decode, and only the fields some reader reads.
#
# They may refuse more than the tables do, never less: a refusal sends the caller back to the plain
# decode and the tables, which accept what they accept and word every error as before. So integers
# are held to int64 (beyond, orjson's decode makes a float where msgspec's keeps the integer); a
# field the tables keep unchecked (UNCHECKED) is kept as msgspec decodes it, and the caller checks
# that the document holds nothing msgspec reads otherwise than orjson (io/snapshot.py _plain_text).
#
# A field a table does not name is not in the object the typed decoders make: a reader that reads
# a field names it in its kind's table, checked or UNCHECKED.

class _Typed:
    """The msgspec type of each table (made once per table object, on first use) and one JSON
    decoder per kind. Code made from the constant tables, as the fast pass's generator is: it holds
    no answer about any object, so the memory switch has nothing to empty here (with every memory
    off, typed_decoder answers None and nothing is made)."""

    def __init__(self) -> None:
        self.types: dict[int, Any] = {}
        self.decoders: dict[str, Any] = {}
        self.list_shell: Any = None
        self.kind_only: Any = None
        self.n = 0

    def type_of(self, c: Any) -> Any:
        t = self.types.get(id(c))
        if t is None:
            t = self.types[id(c)] = self._make(c)
        return t

    def _make(self, c: Any) -> Any:
        import msgspec

        if isinstance(c, _Memo):
            return self.type_of(c.inner)
        if isinstance(c, _Any):
            return Any  # kept as decoded (the caller sees to it that msgspec reads it as orjson)
        if isinstance(c, _Leaf):
            choices: list[Any] = []
            for py in (str, bool, int, float):
                if py not in c.types:
                    continue
                if py is int:
                    lo, hi = (c.lo, c.hi) if c.lo is not None else (INT64_MIN, INT64_MAX)
                    choices.append(Annotated[int, msgspec.Meta(ge=lo, le=hi)])
                else:
                    choices.append(py)
            return choices[0] if len(choices) == 1 else Union[tuple(choices)]
        if isinstance(c, _List):
            return list[self.type_of(c.item)]  # type: ignore[misc]
        if isinstance(c, _Map):
            return dict[str, self.type_of(c.value)]  # type: ignore[misc]
        if isinstance(c, _Obj):
            return self._typed_dict({k: Optional[self.type_of(v)] for k, v in c.table.items()})
        raise TypeError(f"no typed decoder for {c!r}")  # pragma: no cover - a table built of other parts

    def _typed_dict(self, fields: dict[str, Any], required: Iterable[str] = ()) -> Any:
        self.n += 1
        td = TypedDict(f"_T{self.n}", fields, total=False)  # type: ignore[misc, operator]
        required = frozenset(required)
        if required:
            td.__required_keys__ = required
            td.__optional_keys__ = frozenset(fields).difference(required)
        return td

    def decoder(self, kind: str) -> Any:
        """The decoder of one object of `kind`; one decoder serves every kind without a table of
        its own (it checks the metadata)."""
        key = kind if kind in KINDS else ""
        d = self.decoders.get(key)
        if d is None:
            import msgspec

            d = self.decoders[key] = msgspec.json.Decoder(
                self._typed_dict(self.decoder_fields(kind), ("kind", "metadata"))).decode
        return d

    def decoder_fields(self, kind: str) -> dict[str, Any]:
        """The fields of decoder(kind)'s type, each with its type."""
        import msgspec

        key = kind if kind in KINDS else ""
        table = KINDS.get(kind, _GENERIC)
        meta = self.type_of(OBJECT_META)
        # the identity every reader goes by (basics_ok): a non-empty kind and metadata.name
        name = Annotated[str, msgspec.Meta(min_length=1)]
        fields: dict[str, Any] = {"apiVersion": Optional[str], "kind": Literal[kind] if key else name}
        fields.update((k, Optional[self.type_of(v)]) for k, v in table.table.items())
        fields["metadata"] = self._typed_dict({**meta.__annotations__, "name": name}, ("name",))
        return fields

    def pod_with_raw_memos(self) -> Any:
        """The Pod's decoder but for the memo fields of its spec, each left as its JSON text
        (msgspec.Raw, null included) for typed_pod_reader to decode once per distinct text."""
        d = self.decoders.get("Pod raw memos")
        if d is None:
            import msgspec

            spec = self._typed_dict({k: msgspec.Raw if isinstance(c, _Memo) else Optional[self.type_of(c)]
                                     for k, c in POD_SPEC.table.items()})
            fields = dict(self.decoder_fields("Pod"))
            fields["spec"] = Optional[spec]
            d = self.decoders["Pod raw memos"] = msgspec.json.Decoder(
                self._typed_dict(fields, ("kind", "metadata"))).decode
        return d

    def shells(self) -> tuple[Any, Any]:
        """The types of a List read item by item (its kind and metadata, each item undecoded) and
        of an object's kind alone."""
        if self.list_shell is None:
            import msgspec

            self.list_shell = msgspec.defstruct("ListShell", [
                ("kind", Optional[str], None), ("metadata", Optional[msgspec.Raw], None),
                ("items", Optional[list[msgspec.Raw]], None)])  # type: ignore[misc]
            self.kind_only = msgspec.defstruct("KindOnly", [("kind", str)])
        return self.list_shell, self.kind_only


_TYPED = _Typed()


# the most distinct texts of one field a pod reader keeps (each with its value): pods whose parts
# all differ (a value of their own in every container's env) share nothing, and the texts kept for
# them would be memory for nothing; past this many, a new text is decoded and not kept
SHARED_TEXTS = 16_384
# the fields of a pod's spec the tables mark as repeating across a workload's pods (memo above)
_POD_SPEC_MEMOS = tuple(k for k, c in POD_SPEC.table.items() if isinstance(c, _Memo))


def typed_pod_reader() -> Any:
    """`decode(json_bytes) -> dict` for one Pod, as typed_decoder("Pod")'s, for one read of many
    pods: the repeating parts of their specs (the tables' memo fields: containers, affinity,
    tolerations, ...) are decoded once per distinct JSON text and that one value is shared by
    every pod of the read that holds the same text. A workload's pods differ but for their names
    and their node: a snapshot of 150,000 pods holds a few hundred distinct container lists, so
    a quarter of each pod's dicts and strings are made once (less memory, less time). Equal
    JSON text decodes to equal values, checked alike: the pods read as typed_decoder("Pod")
    reads them (tests/test_lean_read.py). The shared values must not be changed in place (the
    readers of a snapshot do not). None as typed_decoder answers None (every memory off, or no
    msgspec). A reader holds its memory (at most SHARED_TEXTS texts per field) for as long as its
    caller keeps it: one read."""
    # typed_decoder's conditions, without the decoder of a whole Pod, which this reader never uses
    if not MEMORY.on:
        return None
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a platform without msgspec's wheel
        return None

    first = _TYPED.pod_with_raw_memos()
    rest = frozenset(_POD_SPEC_MEMOS).difference(("containers",))
    parts: dict[str, tuple[dict[bytes, Any], Any]] = {
        k: ({}, msgspec.json.Decoder(Optional[_TYPED.type_of(POD_SPEC.table[k].inner)]).decode)
        for k in _POD_SPEC_MEMOS}
    containers, decode_containers = parts["containers"]

    def decode(data: Any) -> dict:
        obj = first(data)
        spec = obj.get("spec")
        if spec is not None:
            # containers, in every pod: spelt out
            raw = spec.get("containers")
            if raw is not None:
                text = bytes(raw)
                value = containers.get(text, containers)
                if value is containers:
                    value = decode_containers(text)
                    if len(containers) < SHARED_TEXTS:
                        containers[text] = value
                spec["containers"] = value
            if not rest.isdisjoint(spec):
                for k in rest.intersection(spec):
                    known, decode_part = parts[k]
                    text = bytes(spec[k])
                    value = known.get(text, known)
                    if value is known:
                        value = decode_part(text)
                        if len(known) < SHARED_TEXTS:
                            known[text] = value
                    spec[k] = value
        return obj

    return decode


def typed_shells() -> tuple[Any, Any]:
    """(List shell, kind alone): msgspec types of a List whose items are left undecoded
    (`kind`, `metadata` and `items`, each item a msgspec.Raw) and of an object's `kind` alone."""
    return _TYPED.shells()


def typed_decoder(kind: str) -> Any:
    """`decode(json_bytes) -> dict` for one object of `kind`, checked as its table checks it and
    holding only the fields the table names; it raises (msgspec's errors) where the tables might
    refuse, and also on some values they accept (see above). None with every memory off
    (model/memory.py: the fast paths stand aside and the tables answer alone) or without msgspec."""
    if not MEMORY.on:
        return None
    try:
        return _TYPED.decoder(kind)
    except ImportError:  # pragma: no cover - a platform without msgspec's wheel
        return None


# --- pods: the fast pass that also keys the pod's spec ------------------------------------------------
#
# A pod's spec is the bulk of it, and the pods of a workload share it but for the node they are
# bound to. Its JSON with nodeName blanked keys both this check (a spec found good once is not
# walked again) and the cache of what the pod requests (model.resources), so the snapshot's
# biggest kind is encoded once, not twice.

_POD_SHELL = obj(metadata=OBJECT_META, status=POD_STATUS)  # KINDS["Pod"] but its spec
# pod specs (by pod_spec_key) the fast pass found good: a spec found good once is not walked again
_POD_SPEC_GOOD: set[bytes] = set()
MEMORY.register("model.schema good pod specs", _POD_SPEC_GOOD)
# the pod's compiled fast passes (its shell, its spec), compiled on the first pod: a memory as
# _FAST is (with every memory off pod_ok compiles none and sends each pod to check_object)
_pod_fns: list[Any] = []
MEMORY.register("model.schema pod fast passes", _pod_fns)


def pod_ok(o: dict) -> bytes | None:
    """The fast pass of one Pod (a dict whose kind and metadata.name are known good), returning
    its spec key (pod_spec_key; b"null" without a spec); None sends the caller to check_object
    (always, with every memory off: model/memory.py)."""
    if not MEMORY.on:
        return None
    if not _pod_fns:
        _pod_fns.extend((_GEN.compile_checker(_POD_SHELL), _GEN.compile_checker(POD_SPEC)))
    if not _pod_fns[0](o):  # the shell: metadata and status
        return None
    spec = o.get("spec")
    if spec is None:
        return b"null"
    if type(spec) is not dict:
        return None
    # pod_spec_key, inline (a call per pod of a 150,000-pod snapshot)
    try:
        key = orjson.dumps(spec)
    except TypeError:
        return None
    node = spec.get("nodeName")
    if node is not None:
        if type(node) is not str:
            return None
        needle = NODE_NAME_TEXT.get(node)
        key = key.replace(needle if needle is not None else node_name_text(node), NODE_NAME_BLANK)
    if key not in _POD_SPEC_GOOD:
        if not _pod_fns[1](spec):
            return None
        if MEMORY.on and len(_POD_SPEC_GOOD) < 100_000:
            _POD_SPEC_GOOD.add(key)
    return key


def check_object(o: Mapping[str, Any]) -> None:
    """InputError naming the field (relative to the object) when `o`'s shape is not one the API
    server would have stored; kinds the scheduler does not read get their metadata checked."""
    try:
        KINDS.get(o.get("kind"), _GENERIC).check(o)  # type: ignore[arg-type]
    except _Bad as e:
        path = "".join(reversed(e.path)).lstrip(".")
        raise InputError(e.message, field=path or None) from None


def check_shape(checker: Any, value: Any) -> None:
    """InputError naming the field (relative to `value`) where `value` is not of the shape
    `checker` (a table built with obj, list_of, map_of and the leaves above) describes: for the
    documents that are not Kubernetes objects (a KubeSchedulerConfiguration), checked alike."""
    try:
        checker.check(value)
    except _Bad as e:
        path = "".join(reversed(e.path)).lstrip(".")
        raise InputError(e.message, field=path or None) from None


_KIND = repeat("kind")
_METADATA = repeat("metadata")
_NAME = repeat("name")


def basics_ok(objects: list) -> bool:
    """Every item a dict with a non-empty string kind and metadata.name: the identity every
    reader and message goes by. Answered in C, touching each object once (a 150,000-object
    snapshot does not fit in the processor's cache: every pass over it is paid in memory reads);
    the caller words any error. `dict.get` unbound refuses anything but a dict; `join` anything
    but strings."""
    try:
        kinds = [*map(dict.get, objects, _KIND)]
        mds = [*map(dict.get, objects, _METADATA)]
        names = [*map(dict.get, mds, _NAME)]
        "".join(kinds)
        "".join(names)
    except TypeError:
        return False
    return "" not in kinds and "" not in names


def check_objects(objects: Iterable[Mapping[str, Any]], where: Any = None) -> None:
    """check_object on every object: the fast pass when all is well; else the objects are
    checked one by one, in order, to name the first bad one.
    `where(i, o)` gives the prefix of an error's field (default: `items[i] (Kind ns/name)`)."""
    objects = objects if isinstance(objects, list) else list(objects)
    if objects_ok(objects):
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


__all__ = ["typed_decoder", "typed_pod_reader", "typed_shells", "basics_ok", "check_object", "check_objects", "fast_checker", "objects_ok", "pod_ok", "pod_spec_key", "object_label", "describe", "KINDS", "INT32_MIN", "INT32_MAX"]
