"""The kubectl-preempt command line: one typer app, one module per command."""
from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

import typer

from ..api import KUBERNETES_VERSION, KUBERNETES_VERSIONS, __version__, limits
from ..errors import ExitCode, MissingInput, PreemptError, output_error
from ..render import width
from . import capture, demo, explain
from . import record, replay
from . import check
from . import session
from . import history
from . import plan
from . import completion, version
from .common import INTERRUPTED, PROG, USAGE_NAME, discard_stdout, error_line, interrupt_once, one_line
from .flags import normalize_argv, usage_line

HELP = f"""Which pods would kube-scheduler ({', '.join(KUBERNETES_VERSIONS)}) preempt for a pod, on which node, and why.

Offline and reproducible: the scheduler's own PreFilter, Filter, Score and DefaultPreemption
logic, reimplemented and held to the real scheduler's verdicts.

Exit codes: 0 success, 1 a check policy violation, 2 bad input or usage, 3 cluster access failure."""

app = typer.Typer(
    name=PROG,
    help=HELP,
    add_completion=False,
    no_args_is_help=True,
    # kubeconfigs hold credentials: never print local variables in a traceback
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"{PROG} {__version__} (kube-scheduler {', '.join(KUBERNETES_VERSIONS)}; "
                   f"default {KUBERNETES_VERSION})")
        raise typer.Exit(0)


@app.callback()
def _root(version: Optional[bool] = typer.Option(None, "--version", callback=_version, is_eager=True,
                                                  help="Print the version and exit.")) -> None:
    pass


demo.register(app)
explain.register(app)
capture.register(app)
record.register(app)
replay.register(app)
check.register(app)
session.register(app)
history.register(app)
plan.register(app)
completion.register(app)
version.register(app)


def _is_click_exception(err: BaseException) -> bool:
    # typer bundles its own click in recent releases and depends on click in older ones: recognise
    # the usage errors of either by their shape rather than by importing a private module
    return hasattr(err, "format_message") and hasattr(err, "exit_code") and not isinstance(err, PreemptError)


def _kubectl_style(command: typer.core.TyperGroup) -> None:
    """Help as kubectl's: arguments shown by their metavar (POD...), not with Python's types
    (`POD <list[str]>`)."""
    for sub in command.commands.values():
        for param in sub.params:
            if isinstance(param, typer.core.TyperArgument):
                param.display_type_rich = lambda ctx: None  # type: ignore[method-assign]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script; returns the exit code."""
    command = typer.main.get_command(app)
    _kubectl_style(command)  # type: ignore[arg-type]
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == [completion.COMPLETE_COMMAND]:
        return completion.complete_main(args[1:], command)  # cobra's protocol, for the shells' scripts
    limits.set_current(limits.DEFAULT)  # each command starts from the default limits; its flags raise them
    # tables fit a terminal's width, never a pipe's or a file's (render/width.py); for this command
    # only: a renderer called from Python afterwards sees no limit
    width.set_limit(width.terminal_limit(sys.stdout))
    try:
        with interrupt_once():
            code = _run(command, normalize_argv(command, args))
    finally:
        width.set_limit(None)
    if code == INTERRUPTED and argv is None:
        # the console script, stopped by Ctrl-C: what it started is stopped and its files are
        # cleaned up already (worker processes killed, Ray shut down, temporary files removed), so
        # leave without the interpreter's teardown, where Ray's threads can crash the process
        # (SIGSEGV) and turn exit 130 into -11, seconds later
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(INTERRUPTED)
    return code


def _run(command: typer.core.TyperGroup, args: list[str]) -> int:
    try:
        rv = command.main(args=args, prog_name=USAGE_NAME, standalone_mode=False)
    except PreemptError as err:
        print(error_line(err), file=sys.stderr)
        if isinstance(err, MissingInput):
            print(usage_line(command, args), file=sys.stderr)
        return int(err.exit_code)
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:
        # the reader of stdout went away (| head): it had what it wanted, so stop quietly and
        # successfully, and let nothing flush into the closed pipe at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as err:
        # written to stdout by click itself (--help into `> /dev/full`); the commands' own output
        # goes through cli/common.py write_output, which says so the same way
        if not _writing_stdout(err):
            raise
        discard_stdout()
        print(error_line(output_error(err)), file=sys.stderr)
        return int(ExitCode.BAD_INPUT)
    except Exception as err:  # noqa: BLE001 - only click's usage errors are handled here
        if not _is_click_exception(err):
            raise
        if type(err).__name__ == "Abort" and isinstance(err.__context__, KeyboardInterrupt):
            return INTERRUPTED  # click before typer 0.13 turns Ctrl-C into Abort
        if type(err).__name__ == "NoArgsIsHelpError":
            print(err.format_message(), file=sys.stderr)
            return int(ExitCode.BAD_INPUT)
        ctx = getattr(err, "ctx", None)
        where = ctx.command_path if ctx is not None else USAGE_NAME
        print(f"error: {where}: " + one_line(err.format_message())
              + f" (see {where} --help)", file=sys.stderr)
        if type(err).__name__ == "MissingParameter":
            print(usage_line(command, args), file=sys.stderr)
        code = getattr(err, "exit_code", 2)
        return int(code) if code else int(ExitCode.BAD_INPUT)
    return rv if isinstance(rv, int) else 0


def _writing_stdout(err: OSError) -> bool:
    """Whether `err` was raised writing to stdout: the innermost frame of its traceback holds
    stdout (or its byte stream) as it writes."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    streams = (sys.stdout, getattr(sys.stdout, "buffer", None))
    return any(v is s for v in tb.tb_frame.f_locals.values() for s in streams if s is not None)


def complete_plugin() -> int:
    """The console script kubectl_complete-preempt: kubectl (1.26+) runs it to complete
    `kubectl preempt ...` (cli/completion.py)."""
    return completion.complete_main(sys.argv[1:], typer.main.get_command(app))


if __name__ == "__main__":
    sys.exit(main())
