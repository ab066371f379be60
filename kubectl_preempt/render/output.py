"""kubectl's output habits, shared by every command that prints a table: `-o name`,
`-o jsonpath=TEMPLATE`, `--no-headers`, and `-o wide` (never cut to the terminal).

A command keeps its own formats (table, json, yaml, markdown...) and adds these with
`extended_formats`; `render_habit` answers for the formats it knows and returns None for the
command's own. New commands (plan, history...) adopt them the same way: give the document, the
names of the objects its table lists, and the rows of that table.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

from ..errors import UsageError
from . import jsonpath as _jsonpath
from . import width

NAME = "name"
JSONPATH_PREFIX = "jsonpath="
HABIT_FORMATS = (NAME, "jsonpath=TEMPLATE")


def extended_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """A command's formats, then `name` and `jsonpath=TEMPLATE` (for help and errors)."""
    return tuple(formats) + tuple(f for f in HABIT_FORMATS if f not in formats)


def is_jsonpath(fmt: str) -> bool:
    return fmt.startswith(JSONPATH_PREFIX) or fmt == "jsonpath"


def check_format(fmt: str, formats: Sequence[str]) -> Optional[str]:
    """None when `fmt` is one of `formats`, name, or a jsonpath template that parses; else why not,
    in kubectl's words where kubectl has them."""
    if fmt in formats or fmt == NAME:
        return None
    if is_jsonpath(fmt):
        template = fmt[len(JSONPATH_PREFIX):] if fmt.startswith(JSONPATH_PREFIX) else ""
        if not template:
            return "template format specified but no template given (give -o jsonpath=TEMPLATE)"
        try:
            _jsonpath.parse(template)
        except _jsonpath.JSONPathError as e:
            return f"error parsing jsonpath {template}, {e}"
        return None
    return f"{fmt!r} is not one of " + ", ".join(extended_formats(formats))


def is_data(fmt: str) -> bool:
    """Formats that print the document (json, yaml, a jsonpath template), not a table."""
    return fmt in ("json", "yaml") or is_jsonpath(fmt)


def pod_name(key: str) -> str:
    """`ns/name` -> `pod/name`, as `kubectl get pods -o name` prints a pod (without its namespace)."""
    return "pod/" + str(key).rpartition("/")[2]


def names(keys: Iterable[str]) -> str:
    """-o name: one `pod/NAME` a line, each once, in order."""
    seen = dict.fromkeys(pod_name(k) for k in keys if k)
    return "".join(f"{n}\n" for n in seen)


def execute_jsonpath(fmt: str, document: Any) -> str:
    """-o jsonpath=TEMPLATE on the document -o json prints (its JSON form: tuples as lists...)."""
    import orjson

    from .json import dumps

    data = orjson.loads(dumps(document))
    try:
        return _jsonpath.execute(fmt[len(JSONPATH_PREFIX):], data)
    except _jsonpath.JSONPathError as e:
        # an error in the template's execution is the user's input: the CLI makes it one line, exit 2
        raise TemplateError(f"error executing jsonpath {fmt[len(JSONPATH_PREFIX):]}: {e}", field="--output") from None


class TemplateError(UsageError):
    """A jsonpath template that failed on the document: the user's input, one line and exit 2."""


def no_headers_rows(rows: Sequence[Sequence[Any]]) -> str:
    """--no-headers: the rows of the command's list, columns aligned, no header line, never cut
    (a script reads them)."""
    with width.unlimited():
        from .wording import columns

        if not rows:
            return ""
        # one line a row, whatever its lists hold: their items joined, as the table shows them on a line
        flat = [[width.LIST_SEPARATOR.join(map(str, c)) if isinstance(c, (list, tuple)) else c for c in r]
                for r in rows]
        lines = columns([""] * len(rows[0]), flat, hide_empty=False)[1:]
    return "".join(line + "\n" for line in lines)


def render_habit(fmt: str, *, document: Callable[[], Any], keys: Callable[[], Iterable[str]]) -> Optional[str]:
    """The text for `name` or `jsonpath=...`; None for any other format (the command's own)."""
    if fmt == NAME:
        return names(keys())
    if is_jsonpath(fmt):
        return execute_jsonpath(fmt, document())
    return None
