"""Which kube-scheduler release the data names, and what a captured snapshot says of itself.

Every request that reads a cluster (explain, plan, history) asks this once, then carries the
answer (framework/versions.py Resolved) with it: the release is never picked twice.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from ..errors import InputError
from ..framework.versions import KubernetesVersion, Resolved, kubelet_versions, resolve_kubernetes_version
from ..model.cluster import Cluster
from .snapshot import ANN_SERVER_VERSION, read_bytes


def data_server_version(objects: Any) -> str | None:
    """The server version the objects were read from, where they say it: a captured List's
    `kubectl-preempt/server-version` annotation (the List itself, or load_snapshot's result)."""
    v = getattr(objects, "server_version", None)
    if v is not None:
        return str(v)
    if isinstance(objects, Mapping):
        if "objects" in objects and isinstance(objects.get("kubernetesVersion"), str):
            return objects["kubernetesVersion"]  # a conformance case: the release that recorded it
        ann = (objects.get("metadata") or {}).get("annotations") or {}
        v = ann.get(ANN_SERVER_VERSION)
        return str(v) if v is not None else None
    return None


def scheduler_version(objects: Any = None,
                      kubernetes_version: str | KubernetesVersion | Resolved | None = None) -> Resolved:
    """Which kube-scheduler release decides, where that came from, and a note when it is not the
    one the data names (resolve_kubernetes_version: the flag, the snapshot's server version, its
    nodes' newest kubelet, else the newest imitated)."""
    return resolve_kubernetes_version(kubernetes_version, data_server_version(objects),
                                      data_source="the snapshot", kubelets=_kubelets(objects))


def _kubelets(objects: Any) -> Iterable[tuple[str, Any]]:
    """(node, kubeletVersion) of the nodes among `objects` (a Cluster, a List, a case, a list), read
    only when the release is not named otherwise."""
    if isinstance(objects, Cluster):
        # the decoded nodes' own status (the raw objects' kinds are known): one look per node
        return ((name, info["kubeletVersion"]) for name, n in objects.nodes.items()
                if type(info := n.status.get("nodeInfo")) is dict and "kubeletVersion" in info)
    items = data_items(objects)
    return kubelet_versions(items) if isinstance(items, (list, tuple)) else ()


def data_items(objects: Any) -> Any:
    """The objects of a List (its items) or of a conformance case (its objects), else `objects`."""
    if isinstance(objects, Mapping):
        if "items" in objects:
            return objects.get("items") or []
        if "objects" in objects:  # a conformance case
            return objects.get("objects") or []
    return objects


_CAPTURED_AT = re.compile(rb"""kubectl-preempt/captured-at["']?\s*:\s*["']?([0-9][0-9T:.\-+Z]+)""")
_CAPTURED_SERVER_VERSION = re.compile(rb"""kubectl-preempt/server-version["']?\s*:\s*["']?(v?[0-9][0-9A-Za-z.\-+]*)""")


def captured_at(path: str) -> str | None:
    """The captured-at annotation of a snapshot `capture` wrote."""
    return _captured(path, _CAPTURED_AT)


def captured_server_version(path: str) -> str | None:
    """The server-version annotation of a snapshot `capture` wrote."""
    return _captured(path, _CAPTURED_SERVER_VERSION)


def _captured(path: str, pattern: re.Pattern[bytes]) -> str | None:
    """An annotation of a snapshot `capture` wrote, found in its bytes (a List's metadata may come
    after its items, so the whole file is searched, at C speed)."""
    if path == "-":
        return None
    try:
        m = pattern.search(read_bytes(path))
    except InputError:
        return None
    return m.group(1).decode() if m else None
