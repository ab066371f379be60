"""The tool's version and the kube-scheduler version it imitates: a leaf every layer may import."""
from __future__ import annotations

__version__ = "0.1.0"
# the kube-scheduler whose decisions the core reproduces (conformance corpus recorded against it)
KUBERNETES_VERSION = "v1.34.1"
