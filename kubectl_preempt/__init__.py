"""kubectl-preempt: kube-scheduler v1.34.1's preemption decisions, offline, explained."""
from __future__ import annotations

__version__ = "0.1.0"
KUBERNETES_VERSION = "v1.34.1"


def explain(objects, pod, config=None, *, seed=0):  # noqa: ANN001 - documented in api.explain
    from .api import explain as _explain
    return _explain(objects, pod, config, seed=seed)


def load_snapshot(path):  # noqa: ANN001
    from .io.snapshot import load_objects
    return load_objects(path)


__all__ = ["explain", "load_snapshot", "KUBERNETES_VERSION", "__version__"]
