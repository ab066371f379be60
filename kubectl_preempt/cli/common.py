"""What every command shares beyond options: reporting errors as one line, notes on stderr."""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Optional, Sequence, TypeVar

import typer

from ..errors import PreemptError

PROG = "kubectl-preempt"
# as a user types it (a kubectl plugin): what usage lines and usage errors show
USAGE_NAME = "kubectl preempt"

F = TypeVar("F", bound=Callable[..., Any])


def error_line(err: BaseException) -> str:
    # one line, always: a message that spans lines would read as several errors
    return "error: " + " ".join(str(err).split())


def note(text: str) -> None:
    """A remark for the person at the terminal, never mixed into the output on stdout."""
    print(text, file=sys.stderr)


def guard(func: F) -> F:
    """Turn a PreemptError into one line on stderr and its exit code; nothing else is caught."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
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
    from ..errors import UsageError

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
