"""Runs of a replay on a Ray cluster (`replay --runs N --ray ADDRESS`; the optional extra
`kubectl-preempt[ray]`). The run spec is put in Ray's object store once; each run is one task
that returns what the run leaves (JSON bytes), yielded in run order. A bounded number of tasks is
in flight (a few per CPU of the cluster), so N does not decide what is held here; closing the
iterator (Ctrl-C, an error) shuts down a Ray started here, or cancels the tasks in flight on a
cluster joined."""
from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Any, Callable, Iterator

from ..errors import UsageError
from .workers import InOrder

LOCAL = "local"
# seconds ray.wait blocks at most before Python gets the hand back (and with it, a pending Ctrl-C)
WAIT_SLICE = 0.1


def _ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray: pip install 'kubectl-preempt[ray]'", field="--ray") from None
    return ray


def _cpus(ray: Any) -> int:
    try:
        return max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception:  # noqa: BLE001 - a cluster that cannot say: one at a time is still right
        return 1


def run_on_ray(spec: Any, runs: int, address: str, run_task: Callable[[Any, int], bytes],
               window_per_cpu: int = 4) -> Iterator[bytes]:
    """`run_task(spec, k)` for k in 1..runs as Ray tasks on the cluster at `address` ("local": a
    Ray instance started in this process for the occasion), in run order."""
    ray = _ray_module()
    started_here = not ray.is_initialized()
    finished = False
    pending: dict[Any, int] = {}
    try:
        if started_here:
            kwargs: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False}
            try:
                if address == LOCAL:
                    ray.init(include_dashboard=False, **kwargs)
                else:
                    ray.init(address=address, **kwargs)
            except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
                raise UsageError(f"cannot connect to the Ray cluster at {address}: {e}", field="--ray") from None
        task = ray.remote(run_task)
        spec_ref = ray.put(spec)
        order = InOrder(runs, window_per_cpu * _cpus(ray))
        while not order.complete:
            run = order.next_run()
            while run is not None:
                pending[task.remote(spec_ref, run)] = run
                run = order.next_run()
            # a short wait at a time: Python sees a Ctrl-C only between Ray's calls
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_SLICE)
            for ref in ready:
                order.finished(pending.pop(ref), ray.get(ref))
            yield from order.in_order()
        finished = True
    finally:
        # stopped early, the teardown is not itself stopped by the next Ctrl-C (a user presses it
        # again while Ray cancels and shuts down): Ray's processes would be left running
        with _ctrl_c_ignored(not finished):
            if started_here:
                # its shutdown ends the tasks with their workers. Cancelling them first raced
                # with their replies: a reply for a task cancelled a moment before aborts Ray's
                # core worker in this process (task_manager.cc CompletePendingTask, "Check
                # failed: it != submissible_tasks_.end()"), which then exits 1 with no teardown
                _shutdown(ray, quickly=not finished)
            else:
                # a cluster this process joined goes on: the tasks in flight are cancelled
                for ref in pending:
                    try:
                        ray.cancel(ref, force=True)
                    except Exception:  # noqa: BLE001 - a task that finished meanwhile cannot be cancelled
                        pass


@contextlib.contextmanager
def _ctrl_c_ignored(ignored: bool) -> Iterator[None]:
    """SIGINT ignored while the block runs, when `ignored` (in the main thread, the only one a
    handler may be set from); its handler restored after."""
    if not ignored or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _shutdown(ray: Any, *, quickly: bool) -> None:
    """ray.shutdown(), which stops what ray.init started here. Stopped early (Ctrl-C, an error),
    every process but the raylet is killed at once instead of being given a second to go (Ray's
    autoscaler monitor takes all of it): the raylet alone is stopped gracefully, since it stops the
    agents it started, which SIGKILL would orphan for seconds. A raylet that does not stop them in
    time (a loaded machine: Ray then kills the raylet itself) leaves its agents to the init
    process, so every process below this one is listed before and killed after, if still there."""
    node = getattr(getattr(getattr(ray, "_private", None), "worker", None), "_global_node", None)
    kill = getattr(node, "_kill_process_type", None)
    below = _descendants(os.getpid()) if quickly else set()
    if quickly and kill is not None:
        def kill_quickly(process_type: str, *args: Any, **kwargs: Any) -> Any:
            if process_type != "raylet":
                kwargs["allow_graceful"] = False
            return kill(process_type, *args, **kwargs)

        node._kill_process_type = kill_quickly  # type: ignore[union-attr]
    try:
        ray.shutdown()
    finally:
        # also when a second Ctrl-C interrupts the shutdown itself (a user pressing it again on a
        # loaded machine): what was listed is killed all the same
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone already, as it should be
                pass


def _descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc (Linux; elsewhere none is known and none is killed),
    whatever session it moved to: Ray's processes start sessions of their own."""
    seen: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                continue
            for child in children:
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
    return seen
