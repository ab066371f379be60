"""The tool's version and the kube-scheduler version it imitates: a leaf every layer may import."""
from __future__ import annotations

__version__ = "0.1.0"
# the kube-scheduler imitated when nothing names a release and no kubelet bounds it: the newest
# imitated (framework/versions.py resolve_kubernetes_version), and every release imitated
KUBERNETES_VERSION = "v1.36.2"
KUBERNETES_VERSIONS = ("v1.30.1", "v1.31.1", "v1.32.2", "v1.33.0", "v1.34.1", "v1.35.6", "v1.36.2")
