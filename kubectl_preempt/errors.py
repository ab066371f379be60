"""Errors that end a command, and the one mapping from error to exit code."""
from __future__ import annotations

import json
from enum import IntEnum
from typing import Any

_GO_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
               "\t": "\\t", "\v": "\\v"}


def quote(value: Any) -> str:
    """A value in a message as Go's %q prints a string (strconv.Quote: double quotes, Go escapes),
    so our errors read as kube-scheduler's; a value that is not a string as JSON writes it."""
    if not isinstance(value, str):
        return json.dumps(value, default=str)
    out = ['"']
    for ch in value:
        esc = _GO_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


class ExitCode(IntEnum):
    OK = 0
    POLICY_VIOLATION = 1
    BAD_INPUT = 2
    CLUSTER = 3


# how an error names standard output, where a file is named by its path
STANDARD_OUTPUT = "standard output"


class PreemptError(Exception):
    """Base of every error the CLI turns into one line on stderr."""

    exit_code: ExitCode = ExitCode.BAD_INPUT


class InputError(PreemptError):
    """Bad input: a file, a field or a value the user gave. Names where it is."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.source = source
        self.field = field
        self.detail = message
        parts = []
        if source:
            parts.append(source)
        if field:
            parts.append(field)
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)

    def located(self, source: str | None = None, field_prefix: str | None = None) -> "InputError":
        """The same error, with the file and an outer field path filled in where missing."""
        field = self.field
        if field_prefix:
            field = f"{field_prefix}.{field}" if field else field_prefix
        return InputError(self.detail, source=self.source or source, field=field)


def output_error(e: OSError | None = None, *, path: str | None = None, field: str | None = None) -> InputError:
    """The one error of output that cannot be written, to `path` or else to standard output:
    `e` the write's failure, None when standard output is closed (started with `>&-`)."""
    if e is None:
        return InputError("is closed: the output has nowhere to go", source=path or STANDARD_OUTPUT, field=field)
    return InputError(f"cannot write: {e.strerror or e}", source=path or STANDARD_OUTPUT, field=field)


class UsageError(InputError):
    """Flags that do not go together or name nothing."""


class MissingInput(UsageError):
    """A command run without the input it cannot do without: the command line prints its one-line
    usage after the error, as kubectl does, rather than the whole help."""


class ClusterError(PreemptError):
    """The cluster could not be read: unreachable, refused, timed out."""

    exit_code = ExitCode.CLUSTER


