"""Fluent builders for test objects, as upstream's st.MakePod()/MakeNode().

    make_pod("a").ns("default").priority(10).req(cpu="1", memory="1Gi").on("node-1").obj()
    make_node("node-1").alloc(cpu="4", memory="8Gi", pods="110").label("zone", "a").obj()
"""
from __future__ import annotations

import copy
from typing import Any


class PodBuilder:
    def __init__(self, name: str) -> None:
        self._o: dict[str, Any] = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "main", "image": "registry.example/app:1"}],
                     "schedulerName": "default-scheduler"},
            "status": {"phase": "Pending"},
        }

    def ns(self, namespace: str) -> "PodBuilder":
        self._o["metadata"]["namespace"] = namespace
        return self

    def uid(self, uid: str) -> "PodBuilder":
        self._o["metadata"]["uid"] = uid
        return self

    def label(self, key: str, value: str) -> "PodBuilder":
        self._o["metadata"].setdefault("labels", {})[key] = value
        return self

    def labels(self, **kv: str) -> "PodBuilder":
        self._o["metadata"].setdefault("labels", {}).update(kv)
        return self

    def priority(self, value: int) -> "PodBuilder":
        self._o["spec"]["priority"] = value
        return self

    def priority_class(self, name: str) -> "PodBuilder":
        self._o["spec"]["priorityClassName"] = name
        return self

    def preemption_policy(self, policy: str) -> "PodBuilder":
        self._o["spec"]["preemptionPolicy"] = policy
        return self

    def req(self, **res: str) -> "PodBuilder":
        """Requests of the first container (resource names with '_' for '-' and '__' for '/')."""
        c = self._o["spec"]["containers"][0]
        reqs = c.setdefault("resources", {}).setdefault("requests", {})
        for k, v in res.items():
            reqs[_res_name(k)] = v
        return self

    def container(self, **res: str) -> "PodBuilder":
        """Add one more container with these requests."""
        i = len(self._o["spec"]["containers"])
        self._o["spec"]["containers"].append(
            {"name": f"c{i}", "image": "registry.example/app:1",
             "resources": {"requests": {_res_name(k): v for k, v in res.items()}}})
        return self

    def init_container(self, sidecar: bool = False, **res: str) -> "PodBuilder":
        ics = self._o["spec"].setdefault("initContainers", [])
        c: dict[str, Any] = {"name": f"init{len(ics)}", "image": "registry.example/init:1",
                             "resources": {"requests": {_res_name(k): v for k, v in res.items()}}}
        if sidecar:
            c["restartPolicy"] = "Always"
        ics.append(c)
        return self

    def overhead(self, **res: str) -> "PodBuilder":
        self._o["spec"]["overhead"] = {_res_name(k): v for k, v in res.items()}
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> "PodBuilder":
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            p["hostIP"] = host_ip
        self._o["spec"]["containers"][0].setdefault("ports", []).append(p)
        return self

    def image(self, image: str) -> "PodBuilder":
        self._o["spec"]["containers"][0]["image"] = image
        return self

    def on(self, node: str) -> "PodBuilder":
        self._o["spec"]["nodeName"] = node
        self._o["status"]["phase"] = "Running"
        self._o["status"].setdefault("startTime", "2026-01-01T00:00:05Z")
        return self

    def nominated(self, node: str) -> "PodBuilder":
        self._o["status"]["nominatedNodeName"] = node
        return self

    def start_time(self, t: str) -> "PodBuilder":
        self._o["status"]["startTime"] = t
        return self

    def terminating(self, t: str = "2026-01-01T01:00:00Z") -> "PodBuilder":
        self._o["metadata"]["deletionTimestamp"] = t
        return self

    def node_selector(self, **kv: str) -> "PodBuilder":
        self._o["spec"].setdefault("nodeSelector", {}).update(kv)
        return self

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal") -> "PodBuilder":
        t = {"key": key, "operator": operator, "value": value, "effect": effect}
        self._o["spec"].setdefault("tolerations", []).append({k: v for k, v in t.items() if v})
        return self

    def affinity(self, affinity: dict[str, Any]) -> "PodBuilder":
        self._o["spec"]["affinity"] = affinity
        return self

    def spread(self, constraints: list[dict[str, Any]]) -> "PodBuilder":
        self._o["spec"]["topologySpreadConstraints"] = constraints
        return self

    def scheduler(self, name: str) -> "PodBuilder":
        self._o["spec"]["schedulerName"] = name
        return self

    def pvc(self, claim: str, volume: str | None = None) -> "PodBuilder":
        """A volume backed by the PersistentVolumeClaim `claim` (the volume named after it)."""
        return self.volume({"name": volume or claim, "persistentVolumeClaim": {"claimName": claim}})

    def ephemeral(self, volume: str, storage_class: str = "", size: str = "1Gi") -> "PodBuilder":
        """A generic ephemeral volume; its claim is named <pod>-<volume>."""
        tmpl: dict[str, Any] = {"spec": {"accessModes": ["ReadWriteOnce"],
                                         "resources": {"requests": {"storage": size}}}}
        if storage_class:
            tmpl["spec"]["storageClassName"] = storage_class
        return self.volume({"name": volume, "ephemeral": {"volumeClaimTemplate": tmpl}})

    def volume(self, volume: dict[str, Any]) -> "PodBuilder":
        self._o["spec"].setdefault("volumes", []).append(volume)
        return self

    def resource_claim(self, name: str, claim: str | None = None, template: str | None = None) -> "PodBuilder":
        """spec.resourceClaims entry naming a ResourceClaim or a ResourceClaimTemplate."""
        rc: dict[str, Any] = {"name": name}
        if claim is not None:
            rc["resourceClaimName"] = claim
        if template is not None:
            rc["resourceClaimTemplateName"] = template
        self._o["spec"].setdefault("resourceClaims", []).append(rc)
        return self

    def set(self, path: str, value: Any) -> "PodBuilder":
        """Set any field by dotted path, e.g. set("spec.hostNetwork", True)."""
        _set(self._o, path, value)
        return self

    def group(self, name: str, scheduler: str = "kube-batch") -> "PodBuilder":
        """A kube-batch task: the pod names its PodGroup and kube-batch as its scheduler."""
        self._o["metadata"].setdefault("annotations", {})["scheduling.k8s.io/group-name"] = name
        self._o["spec"]["schedulerName"] = scheduler
        return self

    def in_pod_group(self, name: str) -> "PodBuilder":
        """A member of a scheduling.k8s.io PodGroup (v1.36: spec.schedulingGroup.podGroupName)."""
        self._o["spec"]["schedulingGroup"] = {"podGroupName": name}
        return self

    def workload_ref(self, workload: str, pod_group: str, replica_key: str = "") -> "PodBuilder":
        """A member of a v1.35 Workload's pod group (spec.workloadRef)."""
        ref = {"name": workload, "podGroup": pod_group}
        if replica_key:
            ref["podGroupReplicaKey"] = replica_key
        self._o["spec"]["workloadRef"] = ref
        return self

    def running(self, node: str) -> "PodBuilder":
        self._o["spec"]["nodeName"] = node
        self._o["status"]["phase"] = "Running"
        return self

    def created(self, t: str) -> "PodBuilder":
        self._o["metadata"]["creationTimestamp"] = t
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._o)


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._o: dict[str, Any] = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }

    def alloc(self, **res: str) -> "NodeBuilder":
        a = {_res_name(k): v for k, v in res.items()}
        self._o["status"]["allocatable"] = dict(a)
        self._o["status"]["capacity"] = dict(a)
        self._o["status"]["allocatable"].setdefault("pods", "110")
        return self

    def label(self, key: str, value: str) -> "NodeBuilder":
        self._o["metadata"]["labels"][key] = value
        return self

    def zone(self, zone: str) -> "NodeBuilder":
        return self.label("topology.kubernetes.io/zone", zone)

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> "NodeBuilder":
        t = {"key": key, "effect": effect}
        if value:
            t["value"] = value
        self._o["spec"].setdefault("taints", []).append(t)
        return self

    def unschedulable(self) -> "NodeBuilder":
        self._o["spec"]["unschedulable"] = True
        return self

    def image(self, name: str, size: int) -> "NodeBuilder":
        self._o["status"].setdefault("images", []).append({"names": [name], "sizeBytes": size})
        return self

    def set(self, path: str, value: Any) -> "NodeBuilder":
        _set(self._o, path, value)
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._o)


def make_pod(name: str) -> PodBuilder:
    return PodBuilder(name)


def make_node(name: str) -> NodeBuilder:
    return NodeBuilder(name)


def make_pdb(name: str, selector: dict[str, Any], allowed: int, namespace: str = "default",
             disrupted: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": selector},
            "status": {"disruptionsAllowed": allowed, "disruptedPods": disrupted or {}}}


def make_priority_class(name: str, value: int, global_default: bool = False,
                        policy: str | None = None) -> dict[str, Any]:
    o: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                         "metadata": {"name": name}, "value": value, "globalDefault": global_default}
    if policy:
        o["preemptionPolicy"] = policy
    return o


def _res_name(k: str) -> str:
    return k.replace("__", "/").replace("_", "-")


def _set(o: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for p in parts[:-1]:
        o = o.setdefault(p, {})
    o[parts[-1]] = value


# ---------------------------------------------------------------- storage objects
def with_value(obj: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    """`obj` with the field at `path` (keys and list indexes, one step each) set to `value`: a
    field of another type, as the bad-input tests give one."""
    o: Any = obj
    for step in path[:-1]:
        o = o[step]
    o[path[-1]] = value
    return obj


def make_pvc(name: str, namespace: str = "default", *, storage_class: str | None = None, volume: str = "",
             size: str = "10Gi", modes: tuple[str, ...] = ("ReadWriteOnce",), bound: bool | None = None,
             annotations: dict[str, str] | None = None, phase: str | None = None, deleting: bool = False,
             owner_uid: str | None = None, selector: dict[str, Any] | None = None) -> dict[str, Any]:
    """A PersistentVolumeClaim; bound defaults to whether a volume name is given (then it carries
    pv.kubernetes.io/bind-completed and phase Bound); owner_uid makes a pod its controller."""
    bound = bool(volume) if bound is None else bound
    o: dict[str, Any] = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-pvc-{namespace}-{name}",
                     "annotations": dict(annotations or {})},
        "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}},
        "status": {"phase": phase or ("Bound" if bound else "Pending")}}
    if storage_class is not None:
        o["spec"]["storageClassName"] = storage_class
    if volume:
        o["spec"]["volumeName"] = volume
    if bound:
        o["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
    if deleting:
        o["metadata"]["deletionTimestamp"] = "2026-01-01T01:00:00Z"
    if owner_uid is not None:
        o["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "owner",
                                             "uid": owner_uid, "controller": True}]
    if selector is not None:
        o["spec"]["selector"] = selector
    return o


def make_pv(name: str, *, storage_class: str = "", size: str = "10Gi", modes: tuple[str, ...] = ("ReadWriteOnce",),
            hostname: str | None = None, zone: str | None = None, claim: tuple[str, str] | None = None,
            csi: tuple[str, str] | None = None, phase: str | None = None, labels: dict[str, str] | None = None,
            affinity: dict[str, Any] | None = None) -> dict[str, Any]:
    """A PersistentVolume: hostname/zone add a required node affinity on that label; claim is
    (namespace, name) of a claimRef; csi is (driver, volumeHandle); phase defaults to Bound with
    a claim, Available without."""
    o: dict[str, Any] = {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "uid": f"uid-pv-{name}", "labels": dict(labels or {})},
        "spec": {"capacity": {"storage": size}, "accessModes": list(modes), "storageClassName": storage_class},
        "status": {"phase": phase or ("Bound" if claim else "Available")}}
    exprs = []
    if hostname is not None:
        exprs.append({"key": "kubernetes.io/hostname", "operator": "In", "values": [hostname]})
    if zone is not None:
        exprs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]})
        o["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
    if affinity is not None:
        o["spec"]["nodeAffinity"] = affinity
    elif exprs:
        o["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}
    if claim is not None:
        o["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": claim[0], "name": claim[1]}
    if csi is not None:
        o["spec"]["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    else:
        o["spec"]["local"] = {"path": f"/mnt/{name}"}
    return o


def make_storage_class(name: str, provisioner: str = "kubernetes.io/no-provisioner",
                       mode: str | None = "WaitForFirstConsumer",
                       allowed_topologies: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    o: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
                         "provisioner": provisioner}
    if mode is not None:
        o["volumeBindingMode"] = mode
    if allowed_topologies is not None:
        o["allowedTopologies"] = allowed_topologies
    return o


def make_csi_node(node: str, drivers: dict[str, int | None], migrated: str = "") -> dict[str, Any]:
    """A CSINode with each driver's allocatable count (None: no count published)."""
    o: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": node},
                         "spec": {"drivers": []}}
    for d, count in drivers.items():
        entry: dict[str, Any] = {"name": d, "nodeID": node}
        if count is not None:
            entry["allocatable"] = {"count": count}
        o["spec"]["drivers"].append(entry)
    if migrated:
        o["metadata"]["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": migrated}
    return o


def make_csi_driver(name: str, storage_capacity: bool = False) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": name},
            "spec": {"attachRequired": True, "storageCapacity": storage_capacity}}


def make_volume_attachment(name: str, node: str, pv: str, attacher: str) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": name},
            "spec": {"attacher": attacher, "nodeName": node, "source": {"persistentVolumeName": pv}},
            "status": {"attached": True}}


def make_storage_capacity(name: str, storage_class: str, capacity: str | None, *,
                          node_labels: dict[str, str] | None = None, maximum: str | None = None,
                          namespace: str = "kube-system") -> dict[str, Any]:
    o: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                         "metadata": {"name": name, "namespace": namespace}, "storageClassName": storage_class}
    if capacity is not None:
        o["capacity"] = capacity
    if maximum is not None:
        o["maximumVolumeSize"] = maximum
    if node_labels is not None:
        o["nodeTopology"] = {"matchLabels": node_labels}
    return o


def make_queue(name: str, weight: int = 1, group: str = "scheduling.incubator.k8s.io/v1alpha1") -> dict[str, Any]:
    """A kube-batch Queue (or Volcano's, with group="scheduling.volcano.sh/v1beta1")."""
    return {"apiVersion": group, "kind": "Queue", "metadata": {"name": name}, "spec": {"weight": weight}}


def make_pod_group(name: str, min_member: int, queue: str, namespace: str = "default",
                   priority_class: str = "", group: str = "scheduling.incubator.k8s.io/v1alpha1") -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": min_member, "queue": queue}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": group, "kind": "PodGroup", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def make_gang(name: str, min_count: int | None = None, *, namespace: str = "default", priority: int | None = None,
              priority_class: str = "", disruption_mode: str | None = None, workload: str = "",
              template: str = "") -> dict[str, Any]:
    """A scheduling.k8s.io/v1alpha2 PodGroup (v1.36): a gang of `min_count`, else basic."""
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}} if min_count is not None
                            else {"basic": {}}}
    if disruption_mode is not None:
        spec["disruptionMode"] = disruption_mode
    if priority is not None:
        spec["priority"] = priority
    if priority_class:
        spec["priorityClassName"] = priority_class
    if workload:
        spec["podGroupTemplateRef"] = {"workload": {"workloadName": workload, "podGroupTemplateName": template}}
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-pg-{namespace}-{name}"}, "spec": spec}


def make_workload(name: str, templates: dict[str, int | None], *, namespace: str = "default",
                  version: str = "v1alpha2") -> dict[str, Any]:
    """A scheduling.k8s.io Workload: v1alpha2 (v1.36) with pod group templates, or v1alpha1 (v1.35)
    with pod groups inside; each named group a gang of its minCount, else basic."""
    def policy(n: int | None) -> dict[str, Any]:
        return {"gang": {"minCount": n}} if n is not None else {"basic": {}}
    if version == "v1alpha1":
        spec = {"podGroups": [{"name": t, "policy": policy(n)} for t, n in templates.items()]}
    else:
        spec = {"podGroupTemplates": [{"name": t, "schedulingPolicy": policy(n)} for t, n in templates.items()]}
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-wl-{namespace}-{name}"}, "spec": spec}
