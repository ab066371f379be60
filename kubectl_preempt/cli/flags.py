"""kubectl's flag forms, to the letter, for every command at once.

kubectl parses flags with spf13/pflag, where a shorthand takes its value in three forms: `-o json`,
`-ojson` and `-o=json` (pflag flag.go, parseSingleShortArg: after the letter, a `=` is skipped and
the rest of the argument is the value; `-o=` is an empty value), and a long flag in two:
`--output json`, `--output=json`. click reads all of them but `-o=json`, which it takes as the
value `=json`. `normalize_argv` rewrites that one form, before click sees the arguments, into
`-o` `json`: the same flag the user typed, so an error still names it.
"""
from __future__ import annotations

from typing import Any, Sequence

from .common import USAGE_NAME


def _short_flags(command: Any) -> tuple[dict[str, bool], set[str]]:
    """The command's one-letter flags (letter -> whether it takes a value) and its long flags that
    take a value."""
    shorts: dict[str, bool] = {}
    longs: set[str] = set()
    for param in command.params:
        # typer bundles its own click in recent releases: options are recognised by their kind's
        # name, not by importing a click
        if getattr(param, "param_type_name", None) != "option":
            continue
        takes_value = not param.is_flag and not getattr(param, "count", False)
        for opt in [*param.opts, *param.secondary_opts]:
            if len(opt) == 2 and opt[0] == "-" and opt[1] != "-":
                shorts[opt[1]] = takes_value
            elif opt.startswith("--") and takes_value:
                longs.add(opt)
    return shorts, longs


def _subcommand(group: Any, args: Sequence[str]) -> tuple[int, Any]:
    """Where the command's name is in `args`, and the command (None: no such command)."""
    commands = getattr(group, "commands", {})
    for i, arg in enumerate(args):
        if arg == "--":
            return i, None
        if not arg.startswith("-"):
            return i, commands.get(arg)
    return len(args), None


def normalize_argv(group: Any, args: Sequence[str]) -> list[str]:
    """`args` with each `-X=VALUE` (X a one-letter flag that takes a value, possibly after bundled
    boolean letters, as `-Ao=json`) split into `-X` `VALUE`, as pflag reads it. Nothing else changes:
    values of flags and everything after `--` are left as they are."""
    out = list(args)
    at, command = _subcommand(group, out)
    if command is None:
        return out
    shorts, longs = _short_flags(command)
    i = at + 1
    while i < len(out):
        arg = out[i]
        if arg == "--":
            break
        if arg.startswith("--"):
            if "=" not in arg and arg in longs:
                i += 1  # its value is the next argument, whatever it looks like (--duration -1m)
        elif arg.startswith("-") and len(arg) > 1:
            for k in range(1, len(arg)):
                letter = arg[k]
                if letter not in shorts:
                    break  # not a flag of this command: click says so
                if not shorts[letter]:
                    continue  # a boolean letter (-A), possibly bundled with the next
                if k + 1 == len(arg):
                    i += 1  # `-o json`: the value is the next argument
                elif arg[k + 1] == "=":
                    out[i:i + 1] = [arg[:k + 1], arg[k + 2:]]
                    i += 1  # past the value just split off
                break
        i += 1
    return out


def usage_line(group: Any, args: Sequence[str]) -> str:
    """The one-line usage of the command in `args` (`Usage: kubectl preempt check --trace TRACE
    --proposed PATH [OPTIONS]`), printed under the error of a command missing its input, as kubectl
    prints its usage rather than the whole help; on one line whatever the terminal's width."""
    at, command = _subcommand(group, args)
    parent = group.context_class(group, info_name=USAGE_NAME)
    if command is None:
        command, ctx = group, parent
    else:
        ctx = command.context_class(command, info_name=args[at], parent=parent)
    return " ".join(["Usage:", ctx.command_path, *command.collect_usage_pieces(ctx)])
