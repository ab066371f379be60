"""Runs of a replay on a Ray cluster (`replay --runs N --ray ADDRESS`; the optional extra
`kubectl-preempt[ray]`). The run spec is put in Ray's object store once; each run is one task
that returns its report and facts as JSON bytes, gathered in run order."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import UsageError

LOCAL = "local"


def _ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray: pip install 'kubectl-preempt[ray]'", field="--ray") from None
    return ray


def run_on_ray(spec: Any, runs: int, address: str, run_task: Callable[[Any, int], bytes],
               progress: Callable[[int, int], None] | None = None) -> list[bytes]:
    """`run_task(spec, k)` for k in 1..runs as Ray tasks on the cluster at `address` ("local": a
    Ray instance started in this process for the occasion)."""
    ray = _ray_module()
    started_here = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False}
        try:
            if address == LOCAL:
                ray.init(include_dashboard=False, **kwargs)
            else:
                ray.init(address=address, **kwargs)
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
            raise UsageError(f"cannot connect to the Ray cluster at {address}: {e}", field="--ray") from None
        started_here = True
    try:
        task = ray.remote(run_task)
        spec_ref = ray.put(spec)
        pending = {task.remote(spec_ref, k): k for k in range(1, runs + 1)}
        results: dict[int, bytes] = {}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                results[pending.pop(ref)] = ray.get(ref)
                if progress is not None:
                    progress(len(results), runs)
        return [results[k] for k in range(1, runs + 1)]
    finally:
        if started_here:
            ray.shutdown()

