"""Local worker processes for `--runs N --jobs J`: J processes forked from this one, each asked for
one run at a time over a pipe of its own, results taken back in run order.

What concurrent.futures' ProcessPoolExecutor did not give: a bound on what is queued (it took all N
runs at once: 1.3 GB for --runs 100000000 before the first result), and a stop that is immediate
and quiet. The workers ignore SIGINT (a terminal's Ctrl-C reaches every process of its foreground
group, and a worker's KeyboardInterrupt printed a traceback of its own); the process that started
them stops them with SIGKILL, which is safe because a run writes nothing: it computes and answers
through its pipe. A worker whose parent is gone is killed by the kernel (Linux), or finds its
pipe closed and ends.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterator

RunTask = Callable[[Any, int], bytes]
# how long a stopped worker is waited for after SIGKILL, seconds (it cannot refuse to go)
STOP_WAIT = 1.0


class InOrder:
    """Runs 1..N handed out at most `window` ahead of the first one not yet given back, their
    results taken in whatever order they finish and given back in run order: what waits here
    for its turn is bounded whatever N is (local processes and Ray tasks alike)."""

    def __init__(self, runs: int, window: int) -> None:
        self.runs, self.window = runs, window
        self.asked = self.given = 0
        self.done: dict[int, bytes] = {}

    def next_run(self) -> int | None:
        """The next run to hand out, or None while the window is full or every run is out."""
        if self.asked < self.runs and self.asked - self.given < self.window:
            self.asked += 1
            return self.asked
        return None

    def finished(self, run: int, result: bytes) -> None:
        self.done[run] = result

    def in_order(self) -> Iterator[bytes]:
        """The results that are next in run order."""
        while self.given + 1 in self.done:
            self.given += 1
            yield self.done.pop(self.given)

    @property
    def complete(self) -> bool:
        return self.given >= self.runs


class WorkerDied(RuntimeError):
    """A worker process ended without answering (killed from outside, out of memory)."""


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when the one that started it dies, however it dies
    (prctl PR_SET_PDEATHSIG), so that no worker outlives a command killed outright."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def _serve(conn: Connection, task: RunTask, spec: Any, parent: int) -> None:
    """A worker's life: runs asked for by number until told to stop (None) or the pipe closes."""
    # the parent handles Ctrl-C and stops the workers; here SIGINT would only print a traceback.
    # It was blocked across the fork (_Worker), so that none arrives before it is ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_parent()
    if os.getppid() != parent:
        return  # the parent died before the kernel was told to follow it
    while True:
        try:
            run = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if run is None:
            return
        try:
            conn.send((run, True, task(spec, run)))
        except BaseException as err:  # noqa: BLE001 - handed to the parent, which raises it
            try:
                payload = pickle.dumps(err)
            except Exception:  # noqa: BLE001 - an exception that does not pickle travels as text
                payload = pickle.dumps(RuntimeError(f"run {run}: {type(err).__name__}: {err}"))
            try:
                conn.send((run, False, payload))
            except (OSError, ValueError):
                return


class _Worker:
    def __init__(self, ctx: Any, task: RunTask, spec: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, task, spec, os.getpid()), daemon=True)
        # a Ctrl-C during the fork waits for the parent's handler: the child starts with SIGINT
        # blocked (and ignores it before unblocking), the parent gets it once this worker is known
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        child.close()
        self.run: int | None = None  # the run it is computing

    def ask(self, run: int) -> None:
        self.run = run
        self.conn.send(run)

    def stop(self, *, now: bool) -> None:
        if not now:
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                pass
            self.process.join(STOP_WAIT)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(STOP_WAIT)
        self.conn.close()


def _context() -> Any:
    # fork hands the trace to the workers without copying it through a pipe
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else None)


def run_locally(task: RunTask, spec: Any, runs: int, jobs: int, window: int) -> Iterator[bytes]:
    """`task(spec, k)` for k = 1..runs on `jobs` worker processes, yielded in run order. At most
    `window` runs are asked for beyond the first one not yet yielded, so what waits here for its
    turn stays bounded whatever `runs` is. Closing the iterator (its consumer done, an error, a
    KeyboardInterrupt) stops every worker at once."""
    ctx = _context()
    workers: list[_Worker] = []
    finished = False
    order = InOrder(runs, window)
    try:
        for _ in range(max(1, min(jobs, runs))):
            workers.append(_Worker(ctx, task, spec))
        while not order.complete:
            for w in workers:
                run = order.next_run() if w.run is None else None
                if run is not None:
                    w.ask(run)
            busy = {w.conn: w for w in workers if w.run is not None}
            for conn in wait(list(busy)):
                w = busy[conn]  # type: ignore[index]
                try:
                    run, ok, payload = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    w.process.join(STOP_WAIT)
                    raise WorkerDied(f"a worker process ended during run {w.run} "
                                     f"(exit code {w.process.exitcode})") from None
                w.run = None
                if not ok:
                    raise pickle.loads(payload)
                order.finished(run, payload)
            yield from order.in_order()
        finished = True
    finally:
        for w in workers:
            w.stop(now=not finished)
