"""The cluster as one set of objects: what a snapshot holds and what a cycle reads."""
from __future__ import annotations

import itertools
import operator
from typing import Any, Iterable, Mapping

from ..errors import InputError
from .bulk import bulk_allocation
from .memory import MEMORY
from .objects import Node, Pod, PodDisruptionBudget, PriorityClass
from .priority import resolve
from .resources import calculate_resource, remembered_resource
from .podshape import container_requests_key
from .schema import check_object, fast_checker, object_label, pod_ok, pod_spec_key
from .workload import check_workload_object, is_workload_object

# kinds the scheduler's informers watch beyond nodes, pods, PDBs and classes; kept raw
EXTRA_KINDS = ("Namespace", "Service", "ReplicaSet", "StatefulSet", "ReplicationController",
               "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
               "CSIStorageCapacity", "VolumeAttachment", "ResourceClaim", "DeviceClass", "ResourceSlice",
               # workload-aware scheduling (scheduling.k8s.io; model/workload.py)
               "PodGroup", "Workload")
KNOWN_KINDS = ("Node", "Pod", "PodDisruptionBudget", "PriorityClass") + EXTRA_KINDS


# kinds whose objects the scheduler keys by name: a second one of the same name is a broken
# snapshot (two `kubectl get` outputs concatenated, a hand edit), not a second object
_UNIQUE = frozenset(("Node", "Pod", "PodDisruptionBudget", "PriorityClass", "Namespace", "PersistentVolumeClaim",
                     "PersistentVolume", "StorageClass", "CSINode", "CSIDriver"))
_NAMESPACED = frozenset(("Pod", "PodDisruptionBudget", "PersistentVolumeClaim"))
_WORKLOAD_KINDS = frozenset(("PodGroup", "Workload"))
_NODE_NAME = operator.attrgetter("node_name")
_KEY = operator.attrgetter("key")
_HAS_PRIORITY = operator.attrgetter("has_priority")
_PHASE = operator.attrgetter("phase")
# the phases of a pod no node counts (a finished pod)
_FINISHED = frozenset(("Succeeded", "Failed"))
_SPEC = operator.attrgetter("spec")
_POD_RESOURCES = operator.methodcaller("get", "resources")
# one counter for every cluster's PDB list, so that a generation names one state of one list for
# the whole process (a pod's PDB matches are kept per generation; check's two clusters share pods)
_pdb_generations = itertools.count(1)


_EMPTY: Mapping[str, Any] = {}


def _checked_pod_key(spec: Any, status: Mapping[str, Any]) -> bytes | None:
    """The key a checked pod's requests are cached by (model/resources.py calculate_resource)."""
    key = container_requests_key(spec, status) if type(spec) is dict else None
    return key if key is not None else pod_spec_key(spec)


def read_pod(obj: Mapping[str, Any], by_containers: dict[int, Any] | None = None) -> Pod | None:
    """The Pod view of a pod object the typed read has checked (io/snapshot.py), with its requests
    computed while the object is still in the processor's cache (a pass over 150,000 pods each
    made long before is paid in memory reads); Cluster.from_objects takes it as it is. None when
    its requests do not compute: from_objects then reads the object again, in file order, and
    names what is wrong after whatever is wrong before it.

    `by_containers`: one read's requests of the pods whose requests are their containers' alone
    (container_requests_key keys them), by the container list object itself: pods that share one
    list (io/snapshot.py reads a workload's pods so, model/schema.py typed_pod_reader) share
    their requests without the key being made again for each."""
    pod = Pod(obj)
    phase = pod.phase
    if phase == "Succeeded" or phase == "Failed":
        return pod  # not counted anywhere: its requests are never asked
    spec, status = pod.spec, pod.status
    key = None
    if type(spec) is dict:
        if by_containers is not None:
            containers = spec.get("containers")
            kept = by_containers.get(id(containers))
            # the list itself, not another that had its id once: and the requests are the
            # containers' alone, as container_requests_key has it
            if kept is not None and kept[0] is containers and not (
                    spec.get("initContainers") or spec.get("overhead") or spec.get("resources")
                    or status.get("containerStatuses") or status.get("initContainerStatuses")):
                pod._resource = kept[1]
                return pod
        key = container_requests_key(spec, status)
    if key is not None:
        # most pods share their requests with a pod read before: taken as calculate_resource
        # would take them (the key holds all it reads of such a pod), without its calls
        kept = remembered_resource(key)
        if kept is None:
            try:
                kept = calculate_resource(spec, status, spec_key=key)
            except InputError:
                return None
        pod._resource = kept
        if by_containers is not None:
            containers = spec.get("containers")
            by_containers[id(containers)] = (containers, kept)
        return pod
    try:
        pod._resource = calculate_resource(spec, status, spec_key=pod_spec_key(spec))
    except InputError:
        return None
    return pod


class Cluster:
    """Nodes in their listed order, pods that the scheduler sees, PDBs, classes and the rest."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}  # by namespace/name
        self._pdbs: list[PodDisruptionBudget] = []
        self.pdb_generation = next(_pdb_generations)
        self.priority_classes: dict[str, PriorityClass] = {}
        self.extra: dict[str, list[Mapping[str, Any]]] = {k: [] for k in EXTRA_KINDS}
        self.ignored: dict[str, int] = {}
        # bumped by every change, so that derived indexes (the snapshot) know when to rebuild
        self.version = 0
        # bumped whenever a pod joins or leaves `pods` (or one is replaced): what is counted over
        # the set of pods (GangScheduling's members per group) holds while it stays
        self.pod_set_version = 0
        # has_pod_level_resources' answer and the pod_set_version it holds for: given by a lean
        # read, which looks at every spec as it decodes it, or kept from the last time it was asked
        self._pod_level: tuple[int, bool] | None = None
        self.finished_pods = 0
        # things the API server accepts but that change what a verdict can say; the CLI prints them
        self.notes: list[str] = []
        # where each object was listed, to name both places of a duplicate (snapshots only)
        self._seen: dict[tuple[str, str, str], str] | None = None
        self._listing: list[Mapping[str, Any]] = []

    @property
    def pdbs(self) -> list[PodDisruptionBudget]:
        """The PDBs in their listed order. Replace the list to change it (never mutate it in
        place): setting it moves pdb_generation on, which is what a pod's PDB matches are kept for."""
        return self._pdbs

    @pdbs.setter
    def pdbs(self, value: list[PodDisruptionBudget]) -> None:
        self._pdbs = value
        self.pdb_generation = next(_pdb_generations)

    @property
    def namespaces(self) -> dict[str, Mapping[str, Any]]:
        return {(ns.get("metadata") or {}).get("name"): ns for ns in self.extra["Namespace"]}

    def add_object(self, obj: Mapping[str, Any], where: str = "", *, checked: bool = False) -> None:
        """Add one object; `checked` when schema.check_objects has already passed it. Otherwise its
        shape is checked here, just before the typed view reads it: the fast pass answers while the
        object is in the processor's cache, the detailed walk runs only to name what is wrong."""
        if type(obj) is not dict and not isinstance(obj, Mapping):
            raise InputError("expected an object", field=where or None)
        self.version += 1
        kind = obj.get("kind")
        if not isinstance(kind, str) or not kind:
            raise InputError("missing kind", field=f"{where}.kind" if where else "kind")
        md = obj.get("metadata")
        if (type(md) is not dict and not isinstance(md, Mapping)) or not md.get("name"):
            raise InputError("missing metadata.name", field=f"{where}.metadata.name" if where else "metadata.name")
        try:
            if kind == "Pod":
                self._add_pod(obj, md, where, checked)
                return
            if not checked and not fast_checker(kind)(obj):
                check_object(obj)
            if kind in _WORKLOAD_KINDS and is_workload_object(obj):
                check_workload_object(obj)
            if self._seen is not None and kind in _UNIQUE:
                self._listed_once(kind, md.get("namespace") or "default" if kind in _NAMESPACED else "", md["name"],
                                  where)
            if kind == "Node":
                node = Node(obj)
                self.nodes[node.name] = node
            elif kind == "PodDisruptionBudget":
                self._pdbs.append(PodDisruptionBudget(obj))
                self.pdb_generation = next(_pdb_generations)
            elif kind == "PriorityClass":
                pc = PriorityClass(obj)
                self.priority_classes[pc.name] = pc
            elif kind in self.extra:
                self.extra[kind].append(obj)
            else:
                self.ignored[kind] = self.ignored.get(kind, 0) + 1
        except InputError as e:
            raise e.located(field_prefix=f"{where} ({object_label(obj)})" if where else object_label(obj)) from None

    def _add_pod(self, obj: Mapping[str, Any], md: Mapping[str, Any], where: str | int, checked: bool,
                 pod: Pod | None = None) -> None:
        """add_object of a Pod: the kind of which a snapshot holds 150,000 (every step here counts).
        `where` as an int i stands for "items[i]" (from_objects), made only when needed. `pod`: its
        view already made by read_pod (the object is checked)."""
        spec_key = None
        if pod is None:
            if type(obj) is dict:
                # the pod's check also keys its spec, which the requests below are cached by
                if checked:
                    spec_key = _checked_pod_key(obj.get("spec"), obj.get("status") or _EMPTY)
                else:
                    spec_key = pod_ok(obj)
                    if spec_key is None:
                        check_object(obj)
            elif not checked:
                check_object(obj)
            pod = Pod(obj)
        if pod.phase == "Succeeded" or pod.phase == "Failed":
            if self._seen is not None:
                # finished pods are not kept in self.pods: the listing remembers them
                namespace, name = md.get("namespace") or "default", md["name"]
                live = self.pods.get(f"{namespace}/{name}")
                if live is not None:
                    self._listed_twice("Pod", self._where_listed(live.raw))
                self._listed_once("Pod", namespace, name, where if type(where) is str else f"items[{where}]")
            self.finished_pods += 1
            return
        pods = self.pods
        if self._seen is not None:
            # live pods are checked against self.pods itself: a second index of 150,000 pods
            # only to name the first place would cost a tenth of the load
            if pod.key in pods:
                self._listed_twice("Pod", self._where_listed(pods[pod.key].raw))
            if self.finished_pods:
                self._listed_once("Pod", pod.namespace, pod.name, where if type(where) is str else f"items[{where}]")
        if pod._resource is None:
            # bad quantities fail here, at load, naming the pod
            pod._resource = calculate_resource(pod.spec, pod.status, spec_key=spec_key)
        pods[pod.key] = pod
        self.pod_set_version += 1

    def has_pod_level_resources(self) -> bool:
        """Whether any pod sets pod-level resources (spec.resources), which some releases count
        otherwise on a node (framework/types.py NodeCounting); asked at C speed, and kept while
        the set of pods stays the same (a pass over 150,000 pods' specs is 0.03 s of memory
        reads, each spec long out of the processor's cache)."""
        known = self._pod_level
        if known is not None and known[0] == self.pod_set_version and MEMORY.on:
            return known[1]
        answer = any(map(_POD_RESOURCES, map(_SPEC, self.pods.values())))
        self._pod_level = (self.pod_set_version, answer)
        return answer

    def _add_viewed_pods(self, views: list[Pod | None], by_key: dict[str, Pod] | None = None) -> bool:
        """The pods of a lean read (io/snapshot.py _typed_list: checked, each with its view and,
        when live, its requests; a view beside every Pod object) added at once, when _add_pod of
        each in file order could only store it: no two share a namespace and name. False (and
        nothing added) otherwise: from_objects then adds them one by one, naming the duplicate.
        The pods keep their file order in self.pods, and the other objects meet what they met.
        `by_key`: the same views by namespace/name in file order, as the read keyed them (None:
        keyed here)."""
        if by_key is None:
            viewed = [p for p in views if p is not None]
            by_key = dict(zip(map(_KEY, viewed), viewed))
            if len(by_key) != len(viewed):
                return False
        # else the read has kept by_key only when no two views share a key (SnapshotObjects)
        count = len(by_key)
        live = by_key
        # the phases at C speed: a snapshot's pods are seldom finished
        if not _FINISHED.isdisjoint(map(_PHASE, by_key.values())):
            live = {k: p for k, p in by_key.items() if p.phase not in _FINISHED}
        self.pods.update(live)
        self.pod_set_version += 1
        self.finished_pods += count - len(live)
        self.version += count
        return True

    def _listed_once(self, kind: str, namespace: str, name: str, where: str) -> None:
        first = self._seen.setdefault((kind, namespace, name), where)  # type: ignore[union-attr]
        if first is not where:
            self._listed_twice(kind, first)

    def _where_listed(self, raw: Mapping[str, Any]) -> str:
        """Where from_objects listed `raw` (only asked once a duplicate is found)."""
        return next(f"items[{i}]" for i, o in enumerate(self._listing) if o is raw)

    @staticmethod
    def _listed_twice(kind: str, first: str) -> None:
        raise InputError(f"listed twice: {first} is the same {kind} (a namespace holds one object of a kind by a name)")

    def note_unknown_nodes(self) -> None:
        """The API server binds a pod to any node name; a pod on a node the snapshot lacks holds
        room on no node the scheduler sees, so the verdict cannot count it."""
        missing: dict[str, list[str]] = {}
        nodes = self.nodes
        # the node names at C speed first: usually every one is known, and the loop is skipped
        if not set(map(_NODE_NAME, self.pods.values())).difference(nodes, ("",)):
            return
        for p in self.pods.values():
            if p.node_name and p.node_name not in nodes:
                missing.setdefault(p.node_name, []).append(p.key)
        for node, keys in missing.items():
            more = f" and {len(keys) - 1} more" if len(keys) > 1 else ""
            self.notes.append(f"{keys[0]}{more} bound to node {node}, which is not in the snapshot: "
                              "what they request counts on no node")

    def resolve_priorities(self) -> None:
        if all(map(_HAS_PRIORITY, self.pods.values())):  # at C speed: a snapshot's pods all have one
            return
        for pod in self.pods.values():
            if not pod.has_priority:
                resolve(pod, self.priority_classes)

    @classmethod
    def from_objects(cls, objects: Iterable[Mapping[str, Any]]) -> "Cluster":
        c = cls()
        c._seen = {}
        # objects read by load_objects' lean read have passed the schema's checks as they were
        # decoded (io/snapshot.py _typed_list): they are not checked again
        checked = getattr(objects, "checked", 0)
        objects = c._listing = objects if isinstance(objects, list) else list(objects)
        checked = checked == len(objects)
        # and their pods' views made as they were decoded (read_pod), None where the view is
        # to be made here
        views = getattr(objects, "pods", None) if checked else None
        if views is not None and len(views) != len(objects):
            views = None
        with bulk_allocation():
            if views is not None and c._add_viewed_pods(views, getattr(objects, "pods_by_key", None)):
                # the read looked at every pod's spec as it made its view: its answer covers these
                # pods (and the finished ones left out: a True among those only costs a look)
                pod_level = getattr(objects, "pod_level_resources", None)
                if pod_level is not None:
                    c._pod_level = (c.pod_set_version, pod_level)
                # every pod is in: the other objects are read in file order, each checked,
                # deduplicated and read in turn, so the first bad one is the one named (their
                # places found at C speed: 150,000 pods among 5,000 others)
                for i in itertools.compress(range(len(views)), map(operator.is_, views, itertools.repeat(None))):
                    c.add_object(objects[i], f"items[{i}]", checked=True)
            else:
                c._add_in_order(objects, views, checked)
            c._seen = None
            c._listing = []
            c.note_unknown_nodes()
            c.resolve_priorities()
        return c

    def _add_in_order(self, objects: list[Mapping[str, Any]], views: list[Pod | None] | None,
                      checked: bool) -> None:
        """from_objects' one pass: each object is checked, deduplicated and read in turn, so the
        first bad one in file order is the one named. `views`: beside each object, its Pod view
        when the lean read made one."""
        for i, obj in enumerate(objects):
            if views is not None:
                pod = views[i]
                if pod is not None:
                    self.version += 1
                    try:
                        self._add_pod(obj, pod.metadata, i, True, pod)
                    except InputError as e:
                        raise e.located(field_prefix=f"items[{i}] ({object_label(obj)})") from None
                    continue
            # a pod with its identity in place goes straight to _add_pod (add_object's own
            # tests and its "items[i]" string, for 150,000 pods, were a tenth of the load)
            md = obj.get("metadata") if type(obj) is dict and obj.get("kind") == "Pod" else None
            if type(md) is dict and md.get("name"):
                self.version += 1
                try:
                    self._add_pod(obj, md, i, checked)
                except InputError as e:
                    raise e.located(field_prefix=f"items[{i}] ({object_label(obj)})") from None
            else:
                self.add_object(obj, f"items[{i}]", checked=checked)

    def pod(self, key: str) -> Pod:
        p = self.pods.get(key)
        if p is None:
            raise InputError(f"pod {key} not found", field="pod")
        return p
