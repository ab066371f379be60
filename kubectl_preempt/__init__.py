"""kubectl-preempt: kube-scheduler's preemption decisions (v1.30.1 to v1.36.2), offline, explained."""
from __future__ import annotations

import os as _os
import sys as _sys

if _os.path.basename(_sys.argv[0] if _sys.argv else "") in ("kubectl-preempt", "kubectl_complete-preempt"):
    # run as the plugin's console script: a Ctrl-C while the package loads (half a second and
    # more) ends it quietly, exit 130 as a shell counts it, before anything is started;
    # cli/main.py puts its own handler in place once loaded. An import from Python is untouched.
    import signal as _signal

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, lambda _signum, _frame: _os._exit(130))

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
