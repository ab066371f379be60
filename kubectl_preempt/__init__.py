"""kubectl-preempt: kube-scheduler's preemption decisions (v1.34.1 and v1.36.2), offline, explained."""
from __future__ import annotations

__version__ = "0.1.0"
from .framework.versions import DEFAULT as _DEFAULT, SUPPORTED as _SUPPORTED  # noqa: E402

# the release imitated when nothing names one, and every release imitated
KUBERNETES_VERSION = _DEFAULT.name
KUBERNETES_VERSIONS = tuple(v.name for v in _SUPPORTED)

from . import api as _api  # noqa: E402

# bound after the api import: loading the `explain` subpackage sets an attribute of that name,
# and the public function must win
explain = _api.explain
explain_pods = _api.explain_pods
replay = _api.replay
check = _api.check


def load_snapshot(path: str) -> list:
    """The objects of a snapshot file in any supported form ("-" for standard input); a captured
    snapshot's server version rides along (`.server_version`), so explain() imitates that release."""
    from .io.snapshot import load_objects
    return load_objects(path)


__all__ = ["explain", "explain_pods", "replay", "check", "load_snapshot", "KUBERNETES_VERSION", "KUBERNETES_VERSIONS",
           "__version__"]
