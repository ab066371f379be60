"""How much input a command accepts before it refuses, so that a hostile or broken file ends in
one line and exit 2 instead of a crash, gigabytes of memory or hours of replay.

Each limit has its own error; the CLI's --max-input-size, --max-trace-span and --max-trace-events
raise the ones a user may legitimately need more of. The nesting depth is fixed: no Kubernetes
object is nested anywhere near it, and deeper documents crash YAML parsers.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

import yaml

from ..errors import InputError, UsageError, quote

try:  # the C parser: events without recursion, and fast
    from yaml import CSafeLoader as _EventLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _EventLoader  # type: ignore[assignment]

# deeper YAML crashes libyaml's composer (a C recursion without a limit); orjson stops JSON at 1024
MAX_DEPTH = 512
# YAML aliases expand to copies when walked: a few kilobytes of anchors can stand for billions of values
MAX_ALIASES = 10_000


@dataclass(frozen=True)
class Limits:
    max_input_bytes: int = 2**30  # a file as read, after gunzip (150,000 pods are about 130 MB)
    max_trace_span: float = 31 * 86400.0  # seconds from a trace's start to its last event
    max_trace_events: int = 5_000_000


DEFAULT = Limits()

# the most runs one command takes (replay, check, plan and session --runs): far more than a
# distribution needs (its percentiles settle within a few thousand runs); memory does not grow with
# the count (runs are folded as they finish), so this bounds the time a mistyped count can cost
MAX_RUNS = 10_000_000


def check_runs(runs: object, field: str = "--runs") -> int:
    """`runs` as a count of runs: 1 to MAX_RUNS, else one line naming the flag."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise UsageError(f"must be 1 or more, got {quote(runs)}", field=field)
    if runs > MAX_RUNS:
        raise UsageError(f"{runs:,} runs is more than the {MAX_RUNS:,} one command takes", field=field)
    return runs


def usable_cores() -> int:
    """The cores this process may run on (its affinity, which a container's cpuset narrows), not
    those the machine has: what a fan-out of processes can use at once."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without sched_getaffinity
        return os.cpu_count() or 1


_current = DEFAULT


def current() -> Limits:
    """The limits in force: the defaults, or what the command line set."""
    return _current


def set_current(limits: Limits) -> None:
    global _current
    _current = limits


def override(**changes: object) -> None:
    """Raise some limits for the rest of the process (the CLI's --max-* flags)."""
    set_current(replace(_current, **{k: v for k, v in changes.items() if v is not None}))


# the longest duration Go's time.ParseDuration reads (an int64 of nanoseconds): past it, it says
# `time: invalid duration`, and so do kubectl's duration flags (--since, --request-timeout)
GO_LONGEST_DURATION_SECONDS = (2**63 - 1) / 1e9
GO_LONGEST_DURATION = "2562047h47m16.854775807s"


def too_long_for_go(text: str) -> str:
    """The error of a duration flag given more than GO_LONGEST_DURATION_SECONDS."""
    return f"{quote(text)} is longer than the longest duration Go reads ({GO_LONGEST_DURATION})"

_SIZE = re.compile(r"^(\d+)(Ki|Mi|Gi|Ti|K|M|G|T)?B?$")
_SIZE_UNITS = {None: 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
               "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_SPAN = re.compile(r"^(\d+)(s|m|h|d)$")
_SPAN_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_size(text: str, flag: str) -> int:
    m = _SIZE.match(text.strip())
    if not m:
        raise UsageError(f"{quote(text)} is not a size such as 4Gi or 500M", field=flag)
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


def parse_span(text: str, flag: str) -> float:
    m = _SPAN.match(text.strip())
    if not m:
        raise UsageError(f"{quote(text)} is not a duration such as 90d, 12h or 30m", field=flag)
    return float(int(m.group(1)) * _SPAN_UNITS[m.group(2)])


def format_size(n: int) -> str:
    for unit in ("Ti", "Gi", "Mi", "Ki", "T", "G", "M", "K"):
        if n >= _SIZE_UNITS[unit] and n % _SIZE_UNITS[unit] == 0:
            return f"{n // _SIZE_UNITS[unit]}{unit}"
    return str(n)


def format_span(seconds: float) -> str:
    for unit in ("d", "h", "m"):
        if seconds >= _SPAN_UNITS[unit] and seconds % _SPAN_UNITS[unit] == 0:
            return f"{int(seconds // _SPAN_UNITS[unit])}{unit}"
    return f"{int(seconds)}s"


# --- YAML depth and aliases, for every YAML reader (snapshots, traces, manifests, configurations,
# kubeconfigs, kube-batch's scheduler configuration) ---------------------------------------------

_DEEP_BLOCK = re.compile(r"^[ \t?:-]{%d}" % (MAX_DEPTH // 2), re.M)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&[^\s]")


def _bracket_depth(text: str) -> int:
    depth = most = 0
    for c in _NOT_BRACKETS.sub("", text):  # an upper bound: brackets inside strings count too
        depth = depth + 1 if c in "[{" else max(depth - 1, 0)
        most = max(most, depth)
    return most


def check_yaml_depth(text: str, name: str) -> None:
    """Refuse YAML nested deeper than MAX_DEPTH, or with more aliases than MAX_ALIASES, before it
    is composed: libyaml composes by C recursion, and a document 30,000 levels deep crashes the
    process. Block nesting needs a column of indentation (or a "- ") per level and flow nesting a
    bracket, so most files are cleared by two scans in C; a file that might be deep (or uses
    anchors) is walked event by event, which the parser does without recursion."""
    half = MAX_DEPTH // 2
    if not (_DEEP_BLOCK.search(text) or _bracket_depth(text) > half or _ANCHOR.search(text)):
        return
    depth = aliases = 0
    try:
        for ev in yaml.parse(text, Loader=_EventLoader):
            if isinstance(ev, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = ev.start_mark.line + 1 if ev.start_mark else 0
                    raise InputError(f"nested more than {MAX_DEPTH} levels deep (no Kubernetes object is)",
                                     source=name, field=f"line {line}")
            elif isinstance(ev, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(ev, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise InputError(f"more than {MAX_ALIASES} YAML aliases (*name): refused, as the API "
                                     "server refuses excessive aliasing", source=name)
    except yaml.YAMLError as e:
        # PyYAML >= 6.0.3 stops at its own nesting limit, possibly before this walk reached ours
        if "nesting depth" in str(getattr(e, "problem", "") or ""):
            mark = getattr(e, "problem_mark", None)
            raise InputError(f"nested more than {MAX_DEPTH} levels deep (no Kubernetes object is)",
                             source=name, field=f"line {mark.line + 1 if mark is not None else 0}") from None
        return  # malformed: the loader words the error, naming the line
