"""kubectl-preempt: kube-scheduler's preemption decisions (v1.30.1 to v1.36.2), offline, explained."""
from __future__ import annotations

from . import api as _api
from .version import KUBERNETES_VERSION, KUBERNETES_VERSIONS, __version__

# bound after the api import: loading the `explain` subpackage sets an attribute of that name,
# and the public function must win
explain = _api.explain
explain_pods = _api.explain_pods
replay = _api.replay
check = _api.check
batch_session = _api.batch_session
batch_session_runs = _api.batch_session_runs


def load_snapshot(path: str) -> list:
    """The objects of a snapshot file in any supported form ("-" for standard input); a captured
    snapshot's server version rides along (`.server_version`), so explain() imitates that release."""
    from .io.snapshot import load_objects
    return load_objects(path)


__all__ = ["explain", "batch_session", "batch_session_runs", "explain_pods", "replay", "check", "load_snapshot", "KUBERNETES_VERSION",
           "KUBERNETES_VERSIONS", "__version__"]
