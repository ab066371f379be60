"""The tool's version and the kube-scheduler version it imitates: a leaf every layer may import."""
from __future__ import annotations

__version__ = "0.1.0"
# the kube-scheduler whose decisions the core reproduces when nothing names a release (conformance
# corpus recorded against it), and every release imitated (framework/versions.py: their features)
KUBERNETES_VERSION = "v1.34.1"
KUBERNETES_VERSIONS = ("v1.30.1", "v1.31.1", "v1.32.2", "v1.33.0", "v1.34.1", "v1.35.6", "v1.36.2")
