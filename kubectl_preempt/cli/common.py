"""What every command shares beyond options: reporting errors as one line, notes on stderr."""
from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator, Optional, Sequence, TypeVar

import typer

from ..errors import MissingInput, PreemptError, UsageError, output_error, quote

PROG = "kubectl-preempt"
# as a user types it (a kubectl plugin): what usage lines and usage errors show
USAGE_NAME = "kubectl preempt"

F = TypeVar("F", bound=Callable[..., Any])


def error_line(err: BaseException) -> str:
    return "error: " + one_line(str(err))


def one_line(text: str) -> str:
    """A message on one line, always: one that spans lines would read as several errors. A control
    character it quotes from the input (a NUL, a terminal's escape sequence) is written as Go's %q
    escapes it, so that the line shows what the input held and does nothing to the terminal."""
    text = " ".join(text.split())
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else quote(ch)[1:-1] for ch in text)


# the exit code of a command stopped by Ctrl-C (SIGINT), as a shell reports it: 128 + 2
INTERRUPTED = 130


def _interrupted(signum: int, frame: Any) -> None:
    # the first Ctrl-C stops the command; the ones that follow while it stops (closing files,
    # stopping worker processes, a Ray instance) are ignored, so that none of them raises a second
    # KeyboardInterrupt in the middle of that and prints a traceback or leaves it half done
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


@contextlib.contextmanager
def interrupt_once() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt once inside the block, and is ignored after that until the
    block ends; the handler before it comes back at the end (a command run from Python, tests)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _interrupted)
    try:
        yield
    finally:
        # after a Ctrl-C the process is on its way out: SIGINT stays ignored to the end, so that
        # one pressed again while Python shuts down prints no traceback either
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, previous)


def write_output(text: str) -> None:
    """The command's output on stdout, flushed here: a stdout that cannot take it (`> /dev/full`, a
    full disk, a closed descriptor) is one line and exit 2, as a --html file that cannot be written
    is, not a traceback, nor Python's complaint at exit. A reader gone away (`| head`) goes on to
    cli/main.py, which ends quietly."""
    out = sys.stdout
    if out is None:  # started with stdout closed (`>&-`)
        raise output_error()
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        discard_stdout()
        raise output_error(e) from None


def discard_stdout() -> None:
    """Point stdout at the null device, so that what is left in its buffer does not fail again at
    exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def stdin_once(*inputs: tuple[str, Any]) -> None:
    """UsageError when two of a command's inputs (flag, value or values) are "-": standard input is
    read once, and the second reader would find it empty and call its file empty."""
    takers = [flag for flag, value in inputs
              for v in (value if isinstance(value, (list, tuple)) else (value,)) if v == "-"]
    if len(takers) > 1:
        raise UsageError(f"{takers[0]} - and {takers[1]} - cannot both read standard input")


def note(text: str) -> None:
    """A remark for the person at the terminal, never mixed into the output on stdout."""
    print(text, file=sys.stderr)


def guard(func: F) -> F:
    """Turn a PreemptError into one line on stderr and its exit code; nothing else is caught. A
    MissingInput goes on to cli/main.py, which knows the command's usage line to print after it."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MissingInput:
            raise
        except PreemptError as err:
            print(error_line(err), file=sys.stderr)
            raise typer.Exit(int(err.exit_code)) from None

    return wrapper  # type: ignore[return-value]


class Progress:
    """One self-overwriting line on stderr while lists are read, only on a terminal."""

    def __init__(self) -> None:
        self.width = 0

    def __call__(self, text: str) -> None:
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()
        self.width = max(self.width, len(text))

    def clear(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.width = 0


def output_path(output_file: Optional[str], output: Optional[str]) -> Optional[str]:
    """capture's and record's file: --output-file, or -o/--output as they always took it. In every
    other command -o is a format (kubectl's habit), so --output-file is the name that reads right;
    -o stays so that scripts written for it keep working."""

    if output_file is not None and output is not None and output_file != output:
        raise UsageError("give the file once: --output-file and -o/--output name different files",
                         field="--output-file")
    return output_file if output_file is not None else output


def finish_outputs(html: Optional[str], page: Callable[[], str], *, private: bool, what: str,
                   dump_decisions: Optional[str], written: Sequence[Any]) -> None:
    """What replay and plan write after their usual output: --html's page (all of stdout with -)
    and the count of --dump-decisions' cases."""
    from ..api import STDOUT, write_atomic

    if html:
        write_atomic(html, page(), private=private, field="--html")
        if html != STDOUT:
            note(f"wrote the HTML {what} to {html}")
    if dump_decisions:
        note(f"wrote {len(written)} decision case{'s' if len(written) != 1 else ''} to {dump_decisions}")
