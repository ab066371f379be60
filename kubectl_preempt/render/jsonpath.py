"""-o jsonpath=TEMPLATE in kubectl's dialect (k8s.io/client-go/util/jsonpath: parser.go, jsonpath.go).

No maintained PyPI library implements this dialect: jsonpath-ng and friends read Goessner's
JSONPath, not kubectl's templates (text between `{...}` actions, `{range ...}{end}`, quoted text
like `{"\\n"}`, `['a.b']` meaning two fields, results joined by spaces, maps printed as JSON).
So this is a small module of our own, held to the examples of kubectl's JSONPath page
(kubernetes.io/docs/reference/kubectl/jsonpath) in tests/render/test_jsonpath.py.

What it imitates, from client-go:
- parser.go parseText/parseInsideAction: text outside braces is printed as is; inside an action
  spaces, `$` and `@` are skipped, `.name` is a field (a backslash escapes a dot), `..` recursive
  descent, `[n]`/`[a:b:c]`/`[*]` slices, `['k']` a field path, `[a,b]` a union, `[?(...)]` a
  filter, `"text"`/`'text'` quoted text with Go escapes, numbers and true/false literals,
  `range`/`end` identifiers.
- jsonpath.go: kubectl allows missing keys (a missing field yields nothing, no error); an index
  out of bounds is an error; PrintResults joins one action's results with a space, prints maps and
  lists as compact JSON (Go's json.Marshal: sorted keys, <>& escaped) and anything else as Go's
  fmt.Fprint would (true, 3, 1.5, 1e+06, <nil>).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable

__all__ = ["JSONPathError", "parse", "execute"]


class JSONPathError(ValueError):
    """A template that does not parse or cannot be executed on the document (kubectl's words)."""


# --- nodes -------------------------------------------------------------------------------------------

@dataclass
class Text:
    text: str


@dataclass
class Field:
    name: str


@dataclass
class Wildcard:
    pass


@dataclass
class Recursive:
    pass


@dataclass
class Slice:
    # (value, known) for start, end, step; `derived` marks the end of a single index ([n] is [n:n+1])
    start: tuple[int, bool]
    end: tuple[int, bool]
    step: tuple[int, bool]
    derived: bool = False


@dataclass
class Union:
    branches: list[list[Any]]


@dataclass
class Filter:
    left: list[Any]
    right: list[Any]
    op: str  # ==, !=, <, >, <=, >=, or "exists"


@dataclass
class Literal:
    value: Any  # int, float or bool


@dataclass
class Identifier:
    name: str  # range, end, or an unknown word (an error when evaluated)


@dataclass
class Action:
    nodes: list[Any] = field(default_factory=list)


# --- parser ------------------------------------------------------------------------------------------

_TERMINATORS = set(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_DICT_KEY = re.compile(r"^'([^']*)'$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)


def _is_alnum(c: str) -> bool:
    return c == "_" or c.isalnum()


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0

    def peek(self) -> str:
        return self.s[self.pos] if self.pos < len(self.s) else ""

    def template(self) -> list[Any]:
        out: list[Any] = []
        while self.pos < len(self.s):
            i = self.s.find("{", self.pos)
            if i < 0:
                out.append(Text(self.s[self.pos:]))
                break
            if i > self.pos:
                out.append(Text(self.s[self.pos:i]))
            self.pos = i + 1
            action = Action()
            self.inside(action.nodes)
            out.append(action)
        return out

    def inside(self, cur: list[Any]) -> None:
        """parser.go parseInsideAction: one action's nodes, up to its closing brace."""
        while True:
            rest = self.s[self.pos:]
            if rest.startswith("}"):
                self.pos += 1
                return
            if rest.startswith("[?("):
                self.pos += 3
                cur.append(self.filter())
                continue
            if rest.startswith(".."):
                if cur and isinstance(cur[-1], Recursive):
                    raise JSONPathError("invalid multiple recursive descent")
                self.pos += 2
                cur.append(Recursive())
                if _is_alnum(self.peek()):
                    cur.append(self.field())
                continue
            if not rest or rest[0] == "\n":
                raise JSONPathError("unclosed action")
            c = rest[0]
            self.pos += 1
            if c in " $@":
                continue
            if c == "[":
                cur.extend(self.array())
            elif c in "\"'":
                cur.append(Text(self.quote(c)))
            elif c == ".":
                cur.append(self.field())
            elif c in "+-" or c.isdigit():
                self.pos -= 1
                cur.append(self.number())
            elif _is_alnum(c):
                self.pos -= 1
                cur.append(self.identifier())
            else:
                raise JSONPathError(f"unrecognized character in action: {c!r}")

    def field(self) -> Any:
        start = self.pos
        while self.pos < len(self.s):
            c = self.s[self.pos]
            if c == "\\":
                self.pos += 2
                continue
            if c in _TERMINATORS:
                break
            self.pos += 1
        name = self.s[start:self.pos]
        if name == "*":
            return Wildcard()
        return Field(name.replace("\\", ""))

    def identifier(self) -> Any:
        start = self.pos
        while self.pos < len(self.s) and self.s[self.pos] not in _TERMINATORS:
            self.pos += 1
        word = self.s[start:self.pos]
        if word in ("true", "false", "True", "False", "TRUE", "FALSE", "t", "f", "T", "F", "1", "0"):
            return Literal(word.lower() in ("true", "t", "1"))
        return Identifier(word)

    def number(self) -> Any:
        start = self.pos
        if self.peek() in "+-":
            self.pos += 1
        while self.pos < len(self.s) and (self.s[self.pos] == "." or self.s[self.pos].isdigit()):
            self.pos += 1
        text = self.s[start:self.pos]
        try:
            return Literal(int(text))
        except ValueError:
            try:
                return Literal(float(text))
            except ValueError:
                raise JSONPathError(f"cannot parse number {text}") from None

    def quote(self, end: str) -> str:
        start = self.pos - 1
        while True:
            c = self.peek()
            if c in ("", "\n"):
                raise JSONPathError("unterminated quoted string")
            self.pos += 1
            if c == "\\":
                if self.peek() not in ("", "\n"):
                    self.pos += 1
                    continue
                raise JSONPathError("unterminated quoted string")
            if c == end:
                break
        return _unquote(self.s[start:self.pos])

    def array(self) -> list[Any]:
        """parser.go parseArray: a union, a quoted field path, or a slice."""
        end = self.s.find("]", self.pos)
        nl = self.s.find("\n", self.pos)
        if end < 0 or (0 <= nl < end):
            raise JSONPathError("unterminated array")
        text = self.s[self.pos:end]
        self.pos = end + 1
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            return [Union([_action(f"[{p.strip()}]") for p in parts])]
        m = _DICT_KEY.match(text)
        if m:
            return _action("." + m.group(1))
        m = _SLICE.match(text)
        if not m:
            raise JSONPathError(f"invalid array index {text}")
        groups = list(m.groups())
        params: list[tuple[int, bool]] = []
        derived = False
        for i, g in enumerate(groups):
            if g:
                if i > 0:
                    g = g[1:]
                if i > 0 and g == "":
                    params.append((0, False))
                else:
                    try:
                        params.append((int(g), True))
                    except ValueError:
                        raise JSONPathError(f"array index {g} is not a number") from None
            elif i == 1:
                params.append((params[0][0] + 1, True))
                derived = True
            else:
                params.append((0, False))
        return [Slice(params[0], params[1], params[2], derived)]

    def filter(self) -> Filter:
        """parser.go parseFilter: `[?(left op right)]`, or `[?(path)]` for existence."""
        start = self.pos
        begin = end = False
        pair = ""
        while True:
            c = self.peek()
            if c in ("", "\n"):
                raise JSONPathError("unterminated filter")
            self.pos += 1
            if c in "\"'":
                if not begin:
                    begin, pair = True, c
                    continue
                if self.s[self.pos - 2] != "\\" and c == pair:
                    end = True
            elif c == ")" and begin == end:
                break
        if self.peek() != "]":
            raise JSONPathError("unclosed array expect ]")
        self.pos += 1
        text = self.s[start:self.pos - 2]
        m = _FILTER.match(text)
        if m is None:
            return Filter(_action(text), [], "exists")
        return Filter(_action(m.group(1)), _action(m.group(3)), m.group(2))


def _action(text: str) -> list[Any]:
    """parser.go parseAction: `text` parsed as the inside of one action."""
    p = _Parser(text + "}")
    nodes: list[Any] = []
    p.inside(nodes)
    return nodes


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
            "'": "'", '"': '"'}


def _unquote(quoted: str) -> str:
    """Go's strconv.Unquote, for either quote (parser.go UnquoteExtend)."""
    body = quoted[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in ("x", "u", "U"):
            size = {"x": 2, "u": 4, "U": 8}[nxt]
            digits = body[i + 2:i + 2 + size]
            if len(digits) != size or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise JSONPathError(f"unquote string {quoted} error invalid syntax")
            out.append(chr(int(digits, 16)))
            i += 2 + size
        elif nxt in "01234567":
            digits = body[i + 1:i + 4]
            if len(digits) != 3 or not all(d in "01234567" for d in digits):
                raise JSONPathError(f"unquote string {quoted} error invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 4
        else:
            raise JSONPathError(f"unquote string {quoted} error invalid syntax")
    return "".join(out)


def parse(template: str) -> list[Any]:
    """The template's nodes: Text and Action, in order. Raises JSONPathError."""
    return _Parser(template).template()


# --- evaluation ----------------------------------------------------------------------------------------

_MISSING = object()


def _eval(values: list[Any], nodes: Iterable[Any]) -> list[Any]:
    for node in nodes:
        values = _step(values, node)
    return values


def _step(values: list[Any], node: Any) -> list[Any]:
    if isinstance(node, Text):
        return [node.text]
    if isinstance(node, Literal):
        return [node.value for _ in values]
    if isinstance(node, Field):
        if node.name == "":
            return values
        return [v[node.name] for v in values if isinstance(v, dict) and node.name in v]
    if isinstance(node, Wildcard):
        out: list[Any] = []
        for v in values:
            if isinstance(v, dict):
                out.extend(v.values())
            elif isinstance(v, list):
                out.extend(v)
            elif isinstance(v, str):
                out.extend(v.encode())
        return out
    if isinstance(node, Recursive):
        return _recursive(values)
    if isinstance(node, Slice):
        return _slice(values, node)
    if isinstance(node, Union):
        out = []
        for branch in node.branches:
            out.extend(_eval(values, branch))
        return out
    if isinstance(node, Filter):
        return _filter(values, node)
    if isinstance(node, Identifier):
        raise JSONPathError(f"unrecognized identifier {node.name}")
    raise JSONPathError(f"unexpected node {node!r}")  # pragma: no cover


def _recursive(values: list[Any]) -> list[Any]:
    """jsonpath.go evalRecursive: each container, then its descendants, depth first."""
    out: list[Any] = []
    for v in values:
        if v is None:
            continue
        # a string's elements are its bytes, as reflect's Index gives them: numbers, not strings
        children = list(v.values()) if isinstance(v, dict) else list(v) if isinstance(v, list) else \
            list(v.encode()) if isinstance(v, str) else []
        if children:
            out.append(v)
            out.extend(_recursive(children))
    return out


def _slice(values: list[Any], node: Slice) -> list[Any]:
    """jsonpath.go evalArray, with its bounds checks and messages."""
    out: list[Any] = []
    for v in values:
        if v is None:
            continue
        if not isinstance(v, list):
            raise JSONPathError(f"{_go_type(v)} is not array or slice")
        n = len(v)
        start = node.start[0] if node.start[1] else 0
        if start < 0:
            start += n
        end = node.end[0] if node.end[1] else n
        if end < 0 or (end == 0 and node.derived):
            end += n
        if end == start:
            return out
        if start >= n or start < 0:
            raise JSONPathError(f"array index out of bounds: index {start}, length {n}")
        if end > n or end < 0:
            raise JSONPathError(f"array index out of bounds: index {end - 1}, length {n}")
        if start > end:
            raise JSONPathError(f"starting index {start} is greater than ending index {end}")
        step = 1
        if node.step[1]:
            if node.step[0] <= 0:
                raise JSONPathError("step must be > 0")
            step = node.step[0]
        out.extend(v[start:end:step])
    return out


def _filter(values: list[Any], node: Filter) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not isinstance(v, list):
            raise JSONPathError(f"{_text(v)} is not array or slice and cannot be filtered")
        for item in v:
            lefts = _eval([item], node.left)
            if node.op == "exists":
                if lefts:
                    out.append(item)
                continue
            if not lefts:
                continue
            if len(lefts) > 1:
                raise JSONPathError("can only compare one element at a time")
            rights = _eval([item], node.right)
            if not rights:
                continue
            if len(rights) > 1:
                raise JSONPathError("can only compare one element at a time")
            if _compare(lefts[0], rights[0], node.op):
                out.append(item)
    return out


def _compare(left: Any, right: Any, op: str) -> bool:
    """Go template's eq/ne/lt/le/gt/ge (client-go's fork): basic values of one kind only."""
    def kind(x: Any) -> str:
        if isinstance(x, bool):
            return "bool"
        if isinstance(x, (int, float)):
            return "number"
        if isinstance(x, str):
            return "string"
        return "other"

    if op not in ("==", "!=", "<", ">", "<=", ">="):
        raise JSONPathError(f"unrecognized filter operator {op}")
    kl, kr = kind(left), kind(right)
    if op in ("==", "!="):
        if kl != kr or kl == "other":
            if kl == "other" or kr == "other":
                raise JSONPathError("invalid type for comparison")
            raise JSONPathError("incompatible types for comparison")
        return (left == right) == (op == "==")
    if kl != kr or kl in ("bool", "other"):
        raise JSONPathError("invalid type for comparison" if kl in ("bool", "other") else
                            "incompatible types for comparison")
    return {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[op]


# --- printing -------------------------------------------------------------------------------------------

def _go_float(x: float) -> str:
    """fmt.Fprint of a float64: strconv's 'g' format with the shortest digits that round-trip,
    which switches to an exponent below 1e-4 and from 1e+06 (ftoa.go: eprec 6 when shortest)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    e = len(mantissa) + int(exponent) - 1
    neg = "-" if x < 0 else ""
    if e < -4 or e >= 6:
        m = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
        return f"{neg}{m}e{'-' if e < 0 else '+'}{abs(e):02d}"
    return neg + f"{Decimal(repr(abs(x))):.{max(0, len(mantissa) - 1 - e)}f}"


def _go_json(v: Any) -> str:
    """encoding/json.Marshal: compact, map keys sorted, <, > and & escaped for HTML."""
    text = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _go_type(v: Any) -> str:
    return {dict: "map[string]interface {}", str: "string", bool: "bool", int: "int64",
            float: "float64"}.get(type(v), "interface {}")


def _text(v: Any) -> str:
    if isinstance(v, (dict, list)):
        return _go_json(v)
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _go_float(v)
    return str(v)


def _print(results: list[Any]) -> str:
    return " ".join(_text(r) for r in results)


def execute(template: str | list[Any], data: Any) -> str:
    """The text kubectl prints for `-o jsonpath=TEMPLATE` of `data` (plain JSON values)."""
    nodes = parse(template) if isinstance(template, str) else template
    out: list[str] = []
    _run(nodes, data, out, 0)
    return "".join(out)


# `{range}` inside `{range}`: each level is a call here, and Python's stack ends where Go's grows
# (a thousand levels raised RecursionError); no template a person writes nests past a handful
MAX_RANGE_DEPTH = 100


def _run(nodes: list[Any], current: Any, out: list[str], depth: int) -> int:
    """jsonpath.go FindResults: run the nodes on `current`; `{range X}` runs what follows up to its
    `{end}` once per result of X. Returns the index after the `{end}` that closed this level."""
    i = 0
    while i < len(nodes):
        node = nodes[i]
        if isinstance(node, Text):
            out.append(node.text)
            i += 1
            continue
        first = node.nodes[0] if node.nodes else None
        if isinstance(first, Identifier) and first.name == "end":
            if depth == 0:
                raise JSONPathError("not in range, nothing to end")
            return i + 1
        if isinstance(first, Identifier) and first.name == "range":
            if depth >= MAX_RANGE_DEPTH:
                raise JSONPathError(f"ranges nested more than {MAX_RANGE_DEPTH} deep")
            items = _eval([current], node.nodes[1:])
            body = nodes[i + 1:]
            consumed = None
            for item in items:
                consumed = _run(body, item, out, depth + 1)
            if consumed is None:
                consumed = _run(body, _MISSING, [], depth + 1)  # advance past the body, print nothing
            i += 1 + consumed
            continue
        if current is _MISSING:
            i += 1
            continue
        out.append(_print(_eval([current], node.nodes)))
        i += 1
    return i
