"""A yes-or-no question about a large read, answered on the machine's other core while this process
decodes (io/snapshot.py _typed_list asks whether a document is plain text as it reads its objects).

The answer comes back as the exit status of a forked child: nothing but one bit crosses between the
processes, so the child costs its fork (a few milliseconds for a process holding an 80 MB document:
its pages are shared, not copied) and no memory of its own beyond the pieces it looks at.

It forks only where that is safe and pays:
- on Linux (macOS's system libraries do not survive a fork without exec);
- with a second core to run on;
- in a process with one thread (a fork copies the calling thread alone, and a lock another thread
  holds would stay held in the child);
- with the package's memories on (model/memory.py): the switch that turns every fast path off
  turns this one off too, and the question is then answered first, in this process, as before.

Anywhere else, and whenever the child does not answer (it was killed, or could not start), the
question is answered here: the answer never depends on where it was computed.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable

from ..model.limits import usable_cores
from ..model.memory import MEMORY

# the child's exit statuses: its answer, yes or no (any other status: no answer)
_YES, _NO = 0, 1


def can_fork() -> bool:
    """Whether a question may be answered beside this process now (see the module's text)."""
    return (MEMORY.on and sys.platform.startswith("linux") and hasattr(os, "fork")
            and threading.active_count() == 1 and usable_cores() >= 2)


class Answer:
    """The answer to one question: `get()` waits for it (the child has long finished when the
    decode it runs beside has), or computes it here when no child was forked (`beside` False);
    `cancel()` stops the child when the answer is no longer wanted. A with-block cancels on the
    way out, so that no child outlives its reader (Ctrl-C included)."""

    __slots__ = ("_ask", "_pid", "_value")

    def __init__(self, ask: Callable[[], bool], pid: int | None) -> None:
        self._ask = ask
        self._pid = pid
        self._value: bool | None = None

    @property
    def beside(self) -> bool:
        """Whether a child is computing the answer (a forked one, not yet asked for it)."""
        return self._pid is not None

    def get(self) -> bool:
        if self._value is None:
            status = self._reap()
            self._value = status == _YES if status in (_YES, _NO) else self._ask()
        return self._value

    def cancel(self) -> None:
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone and reaped elsewhere
                pass
            self._reap()

    def _reap(self) -> int | None:
        """The child's exit code once it has ended (None: no child, or one reaped elsewhere)."""
        pid, self._pid = self._pid, None
        if pid is None:
            return None
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by someone else (a SIGCHLD handler): no answer
            return None
        return os.waitstatus_to_exitcode(status)

    def __enter__(self) -> "Answer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def ask_beside(ask: Callable[[], bool]) -> Answer:
    """`ask()`'s answer, computed in a forked child when can_fork(), else here when it is asked
    for (get)."""
    if not can_fork():
        return Answer(ask, None)
    try:
        pid = os.fork()
    except OSError:  # no process to be had (a limit on processes): answered here
        return Answer(ask, None)
    if pid == 0:  # pragma: no cover - the child: coverage does not follow it
        status = 2
        try:
            # Ctrl-C reaches the whole process group: the child goes at once, and its reader
            # (the parent) stops it too on its way out
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            status = _YES if ask() else _NO
        finally:
            # no atexit handlers, no flushing of the parent's buffered output: only the status
            os._exit(status)
    return Answer(ask, pid)
