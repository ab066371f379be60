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

    def set(self, path: str, value: Any) -> "PodBuilder":
        """Set any field by dotted path, e.g. set("spec.hostNetwork", True)."""
        _set(self._o, path, value)
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
