"""Shell completion, in cobra's protocol, so that kubectl completes `kubectl preempt ...` as it
completes its own commands.

kubectl (1.26+) completes a plugin's arguments by running `kubectl_complete-<plugin> ARGS...
TO_COMPLETE` and reading cobra's `__complete` answer: one candidate a line (optionally
`candidate<TAB>description`), then `:DIRECTIVE` (kubectl pkg/cmd/plugin_completion.go,
GetPluginCommandGroup / the plugin's ValidArgsFunction; cobra completions.go, ShellCompDirective).
`kubectl-preempt __complete ARGS... TO_COMPLETE` answers the same, and the scripts of
`kubectl preempt completion bash|zsh|fish` call it for the command used on its own.

What completes: subcommands, flags, the values of flags with a fixed set (-o, --kubernetes-version,
--fail-on), files where a flag takes one, kubeconfig contexts, and POD names and namespaces: from
--snapshot when the line gives one, else from the live cluster (GET only, a short timeout, and
nothing printed when the cluster cannot be read).
"""
from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import typer

from ..errors import UsageError, quote
from ..api import SUPPORTED
from .common import guard, write_output

# cobra's ShellCompDirective bits (cobra completions.go)
DIRECTIVE_ERROR = 1
DIRECTIVE_NO_SPACE = 2
DIRECTIVE_NO_FILE_COMP = 4
DIRECTIVE_FILTER_FILE_EXT = 8
DIRECTIVE_FILTER_DIRS = 16
DIRECTIVE_KEEP_ORDER = 32
DIRECTIVE_DEFAULT = 0

# the hidden command of cobra's protocol: `kubectl-preempt __complete ARGS... TO_COMPLETE`
COMPLETE_COMMAND = "__complete"
SHELLS = ("bash", "zsh", "fish")

# how long a TAB may wait for the live cluster before it gives up, silently: per request, and for
# the whole lookup (credentials plugins included)
LIVE_REQUEST_TIMEOUT = "2s"
LIVE_TOTAL_TIMEOUT = 3.0

# flags whose value is a file or a folder (their metavar, as --help shows them)
FILE_METAVARS = frozenset({"FILE", "MANIFEST", "TRACE", "PATH"})
DIR_METAVARS = frozenset({"DIR"})
# flags whose value is a namespace
NAMESPACE_PARAMS = frozenset({"namespace", "protect_namespace"})


@dataclass
class Line:
    """What the words before the one being completed say: the command, the flags given with
    their values, and the positional arguments."""

    command: Optional[Any] = None            # the click command of the subcommand, None at the root
    values: dict[str, list[str]] = field(default_factory=dict)   # param name -> values given
    flags: set[str] = field(default_factory=set)                 # param names given
    positionals: list[str] = field(default_factory=list)
    pending: Optional[Any] = None            # an option still waiting for its value


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if isinstance(p, typer.core.TyperOption)]


def _arguments(command: Any) -> list[Any]:
    return [p for p in command.params if isinstance(p, typer.core.TyperArgument)]


def _takes_value(opt: Any) -> bool:
    return not getattr(opt, "is_flag", False) and not getattr(opt, "count", False)


def _find_option(command: Any, name: str) -> Optional[Any]:
    for opt in _options(command):
        if name in opt.opts or name in opt.secondary_opts:
            return opt
    return None


def _parse(root: Any, words: Sequence[str]) -> Line:
    """Read the words as click would, enough to know what the next word is."""
    line = Line()
    rest = list(words)
    while rest:
        w = rest.pop(0)
        if not w.startswith("-") or w == "-":
            line.command = root.commands.get(w)
            if line.command is None:
                line.positionals.append(w)  # an unknown command: nothing completes after it
            break
    if line.command is None:
        return line
    only_positionals = False
    for w in rest:
        if line.pending is not None:
            line.values.setdefault(line.pending.name, []).append(w)
            line.pending = None
            continue
        if only_positionals or not w.startswith("-") or w == "-":
            line.positionals.append(w)
            continue
        if w == "--":
            only_positionals = True
            continue
        name, eq, value = w.partition("=")
        opt = _find_option(line.command, name if name.startswith("--") or eq else w)
        if opt is None and not w.startswith("--") and len(w) > 2:
            # -nteam-a: a short flag with its value attached, as click reads it
            opt = _find_option(line.command, w[:2])
            if opt is not None and _takes_value(opt):
                line.flags.add(opt.name)
                line.values.setdefault(opt.name, []).append(w[2:])
                continue
            opt = None
        if opt is None:
            continue
        line.flags.add(opt.name)
        if not _takes_value(opt):
            continue
        if eq:
            line.values.setdefault(opt.name, []).append(value)
        else:
            line.pending = opt
    return line


def _last(line: Line, name: str) -> Optional[str]:
    values = line.values.get(name)
    return values[-1] if values else None


def _summary(text: Optional[str], limit: int = 72) -> str:
    """A help text's first sentence, as a description beside a candidate (one line)."""
    words = " ".join((text or "").split())
    m = re.search(r"[.:;](\s|$)", words)
    first = words[:m.start()] if m else words
    return first if len(first) <= limit else first[:limit - 1].rstrip() + "…"


def _choices(metavar: Optional[str]) -> Optional[list[str]]:
    """The values of a flag whose metavar lists them (table|wide|json); `word=VALUE` pieces
    (jsonpath=TEMPLATE) offer `word=`, for the rest to be typed."""
    if not metavar or "|" not in metavar:
        return None
    out: list[str] = []
    for piece in metavar.split("|"):
        word, eq, rest = piece.partition("=")
        if not word or not all(c.isalnum() or c == "-" for c in word) or not word[0].isalpha():
            return None   # GATE=true|false,...: a syntax, not a list of values
        if word != word.lower():
            return None
        out.append(word + eq)
    return out


def kubernetes_versions() -> list[str]:
    """The releases --kubernetes-version names: each imitated release, and its minor."""
    out: list[str] = []
    for v in SUPPORTED:
        out += [v.name, v.short]
    return out


# --- what the cluster holds: from --snapshot, else live ---------------------------------------

def _quietly(fn: Callable[[], list[str]], timeout: Optional[float] = None) -> list[str]:
    """Run a lookup with nothing reaching the terminal, and nothing at all when it fails or takes
    longer than `timeout` (the thread, a daemon, is left behind)."""
    result: list[list[str]] = []

    def work() -> None:
        try:
            result.append(fn())
        except BaseException:  # noqa: BLE001 - a completion never fails loudly
            pass

    sink = io.StringIO()
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stderr(sink):
            if timeout is None:
                work()
            else:
                t = threading.Thread(target=work, daemon=True)
                t.start()
                t.join(timeout)
    finally:
        logging.disable(previous)
    return result[0] if result else []


def _snapshot_objects(path: str) -> list[dict]:
    from ..api import load_objects

    return [o for o in load_objects(path) if isinstance(o, dict)]


def _namespace_default(line: Line) -> str:
    return _last(line, "namespace") or "default"


def pod_names(line: Line, to_complete: str) -> list[str]:
    """Pods as explain takes them: a name in the namespace of -n (the snapshot's default, the
    context's namespace live), or namespace/name once a `/` is typed, as kubectl completes pods
    of one namespace at a time."""
    if "all_namespaces" in line.flags:
        return []   # explain refuses a POD with -A
    typed_ns, slash, _ = to_complete.partition("/")
    snapshot = _last(line, "snapshot")
    if snapshot is not None:
        if snapshot == "-":
            return []  # standard input is the shell's, not ours to read
        ns = typed_ns if slash else _namespace_default(line)

        def from_file() -> list[str]:
            return [(o.get("metadata") or {}).get("name") or "" for o in _snapshot_objects(snapshot)
                    if o.get("kind") == "Pod" and ((o.get("metadata") or {}).get("namespace") or "default") == ns]
        names = _quietly(from_file)
    else:
        def from_cluster() -> list[str]:
            from .. import api

            target, pods = api.live_pod_names(_last(line, "context"), _last(line, "kubeconfig"), LIVE_REQUEST_TIMEOUT,
                                              typed_ns if slash else _last(line, "namespace") or None)
            return [f"{target}\0{name}" for name in pods]
        raw = _quietly(from_cluster, LIVE_TOTAL_TIMEOUT)
        names = [r.partition("\0")[2] for r in raw]
        ns = raw[0].partition("\0")[0] if raw else typed_ns
    prefix = f"{ns}/" if slash else ""
    given = set(line.positionals)
    return sorted({prefix + n for n in names if n and prefix + n not in given})


def namespaces(line: Line) -> list[str]:
    snapshot = _last(line, "snapshot")
    if snapshot is not None:
        if snapshot == "-":
            return []

        def from_file() -> list[str]:
            out = set()
            for o in _snapshot_objects(snapshot):
                md = o.get("metadata") or {}
                if o.get("kind") == "Namespace":
                    out.add(md.get("name") or "")
                elif o.get("kind") == "Pod":
                    out.add(md.get("namespace") or "default")
            return sorted(n for n in out if n)
        return _quietly(from_file)

    def from_cluster() -> list[str]:
        from .. import api

        return api.live_namespace_names(_last(line, "context"), _last(line, "kubeconfig"), LIVE_REQUEST_TIMEOUT)
    return _quietly(from_cluster, LIVE_TOTAL_TIMEOUT)


def contexts(line: Line) -> list[str]:
    """Context names of the kubeconfig files kubectl would read (offline)."""
    def read() -> list[str]:
        import yaml

        from ..api import kubeconfig_paths

        out: list[str] = []
        for path in kubeconfig_paths(_last(line, "kubeconfig")):
            if not os.path.isfile(path):
                continue
            with open(path) as f:
                data = yaml.safe_load(f) or {}
            for c in data.get("contexts") or ():
                if isinstance(c, dict) and c.get("name") and c["name"] not in out:
                    out.append(str(c["name"]))
        return out
    return _quietly(read)


# --- the answer ---------------------------------------------------------------------------------

def _value_candidates(opt: Any, line: Line, to_complete: str) -> tuple[list[str], int]:
    if opt.name == "kubernetes_version":
        return kubernetes_versions(), DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER
    choices = _choices(opt.metavar)
    if choices is not None:
        return choices, DIRECTIVE_NO_FILE_COMP | DIRECTIVE_KEEP_ORDER
    if opt.metavar in FILE_METAVARS:
        return [], DIRECTIVE_DEFAULT
    if opt.metavar in DIR_METAVARS:
        return [], DIRECTIVE_FILTER_DIRS
    if opt.name in NAMESPACE_PARAMS:
        return namespaces(line), DIRECTIVE_NO_FILE_COMP
    if opt.name == "context":
        return contexts(line), DIRECTIVE_NO_FILE_COMP
    return [], DIRECTIVE_NO_FILE_COMP


def _flag_candidates(command: Any, line: Line, to_complete: str) -> list[str]:
    out: list[str] = []
    for opt in _options(command):
        if opt.hidden or (opt.name in line.flags and not opt.multiple):
            continue
        for name in list(opt.opts) + list(opt.secondary_opts):
            desc = _summary(opt.help)
            out.append(f"{name}\t{desc}" if desc else name)
    out += ["--help\tShow this message and exit.", "-h\tShow this message and exit."]
    return [c for c in out if c.split("\t")[0].startswith(to_complete)]


def complete(args: Sequence[str], root: Any) -> tuple[list[str], int]:
    """Cobra's `__complete`: `args` are the words after the program's name, the last one being
    the word to complete ("" for a new word); `root` is the click command of the whole program.
    Returns the candidates and the directive."""
    words, to_complete = list(args[:-1]), (args[-1] if args else "")
    line = _parse(root, words)

    if line.command is None:
        if line.positionals:
            return [], DIRECTIVE_NO_FILE_COMP   # after an unknown command
        if to_complete.startswith("-"):
            flags = ["--version\tPrint the version and exit.", "--help\tShow this message and exit.",
                     "-h\tShow this message and exit."]
            return [c for c in flags if c.startswith(to_complete)], DIRECTIVE_NO_FILE_COMP
        subs = [f"{name}\t{_summary(cmd.short_help or cmd.help)}"
                for name, cmd in sorted(root.commands.items()) if not cmd.hidden and name.startswith(to_complete)]
        return subs, DIRECTIVE_NO_FILE_COMP

    command = line.command
    if line.pending is not None:
        cands, directive = _value_candidates(line.pending, line, to_complete)
        return [c for c in cands if c.startswith(to_complete)], directive
    if to_complete.startswith("--") and "=" in to_complete:
        name, _, value = to_complete.partition("=")
        opt = _find_option(command, name)
        if opt is None or not _takes_value(opt):
            return [], DIRECTIVE_NO_FILE_COMP
        cands, directive = _value_candidates(opt, line, value)
        return [f"{name}={c}" for c in cands if c.startswith(value)], directive
    if to_complete.startswith("-"):
        return _flag_candidates(command, line, to_complete), DIRECTIVE_NO_FILE_COMP

    arguments = _arguments(command)
    index = len(line.positionals)
    arg = None
    for a in arguments:
        if a.nargs == -1 or index < a.nargs:
            arg = a
            break
        index -= a.nargs
    if arg is None:
        return [], DIRECTIVE_NO_FILE_COMP
    if command.name == "explain" and arg.name == "pods":
        return [c for c in pod_names(line, to_complete) if c.startswith(to_complete)], DIRECTIVE_NO_FILE_COMP
    if (arg.metavar or "") in FILE_METAVARS:
        return [], DIRECTIVE_DEFAULT
    choices = _choices(arg.metavar)
    if choices is not None:
        return [c for c in choices if c.startswith(to_complete)], DIRECTIVE_NO_FILE_COMP
    return [], DIRECTIVE_NO_FILE_COMP


def answer(args: Sequence[str], root: Any) -> str:
    """The text cobra's `__complete` prints."""
    cands, directive = complete(args, root)
    return "".join(c + "\n" for c in cands) + f":{directive}\n"


def _print_answer(args: Sequence[str], root: Any) -> int:
    try:
        text = answer(args, root)
    except Exception:  # noqa: BLE001 - a TAB never prints a traceback
        text = f":{DIRECTIVE_ERROR}\n"
    sys.stdout.write(text)
    sys.stdout.flush()
    # cobra says on stderr which directive ended the completion; the shells discard it
    return 0


def complete_main(args: Sequence[str], root: Any) -> int:
    """`kubectl-preempt __complete ARGS... TO_COMPLETE`, and `kubectl_complete-preempt ARGS...
    TO_COMPLETE`, which kubectl runs to complete `kubectl preempt ARGS...` (cli.main holds both
    entry points and passes the program's command)."""
    # a live lookup that timed out may still be waiting on the network, in a daemon thread: the
    # interpreter leaves it behind when the command returns
    return _print_answer(args, root)


# --- the scripts --------------------------------------------------------------------------------

BASH = r"""# bash completion for kubectl-preempt (kubectl preempt completion bash)
# Asks `kubectl-preempt __complete ARGS... WORD` (cobra's protocol) for the candidates.
_kubectl_preempt() {
    local cur="${COMP_WORDS[COMP_CWORD]}" i w out directive line
    local -a words=() cands=()
    COMPREPLY=()
    # no mapfile, no negative indexes: macOS still ships bash 3.2
    # bash splits --output=json at "=" (COMP_WORDBREAKS): join such pieces back into one word
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        if ((i > 1)) && [[ "$w" == "=" || "${COMP_WORDS[i-1]}" == "=" ]] && ((${#words[@]} > 0)); then
            words[${#words[@]}-1]+="$w"
        else
            words+=("$w")
        fi
    done
    local word="${words[${#words[@]}-1]}"
    # what bash replaces is only the piece after the last "=": strip what comes before it
    local strip="${word%"$cur"}"
    out="$("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)" || return
    directive="${out##*:}"
    out="${out%:*}"
    [[ "$directive" =~ ^[0-9]+$ ]] || return
    ((directive & 1)) && return
    while IFS= read -r line; do
        line="${line%%$'\t'*}"
        [[ -n "$line" && "$line" == "$word"* ]] && cands+=("${line#"$strip"}")
    done <<< "$out"
    if ((directive & 16)); then
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur")
        return
    fi
    if ((${#cands[@]} == 0)); then
        if ((directive & 4)); then
            compopt +o default 2>/dev/null
            COMPREPLY=()
        else
            compopt -o filenames 2>/dev/null
            while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
        fi
        return
    fi
    ((directive & 2)) && compopt -o nospace 2>/dev/null
    ((directive & 32)) && compopt -o nosort 2>/dev/null
    COMPREPLY=("${cands[@]}")
}
complete -o default -F _kubectl_preempt kubectl-preempt
"""

ZSH = r"""#compdef kubectl-preempt
# zsh completion for kubectl-preempt (kubectl preempt completion zsh)
# Asks `kubectl-preempt __complete ARGS... WORD` (cobra's protocol) for the candidates.
_kubectl_preempt() {
    local out directive line
    local -a lines cands
    out="$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)" || return 1
    lines=("${(@f)out}")
    directive="${lines[-1]#:}"
    lines=("${(@)lines[1,-2]}")
    [[ "$directive" == <-> ]] || return 1
    (( directive & 1 )) && return 1
    if (( directive & 16 )); then _files -/; return; fi
    for line in "${lines[@]}"; do
        [[ -z "$line" ]] && continue
        if [[ "$line" == *$'\t'* ]]; then
            cands+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
        else
            cands+=("${line//:/\\:}")
        fi
    done
    if (( ${#cands} == 0 )); then
        (( directive & 4 )) && return 1
        _files
        return
    fi
    local -a opts
    (( directive & 2 )) && opts+=(-S '')
    (( directive & 32 )) && opts+=(-V unsorted)
    _describe -t values 'kubectl-preempt' cands "${opts[@]}"
}
if [[ "${funcstack[1]}" == "_kubectl_preempt" ]]; then
    _kubectl_preempt "$@"
else
    compdef _kubectl_preempt kubectl-preempt
fi
"""

FISH = r"""# fish completion for kubectl-preempt (kubectl preempt completion fish)
# Asks `kubectl-preempt __complete ARGS... WORD` (cobra's protocol) for the candidates.
function __kubectl_preempt_complete
    set -l args (commandline -opc)
    set -l cmd $args[1]
    set -e args[1]
    set -l out ($cmd __complete $args (commandline -ct) 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    string match -qr '^[0-9]+$' -- $directive; or return
    test (math "$directive % 2") -eq 1; and return
    if test (math "floor($directive / 16) % 2") -eq 1
        __fish_complete_directories (commandline -ct)
        return
    end
    if test (count $out) -eq 0
        test (math "floor($directive / 4) % 2") -eq 1; and return
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $out
end
complete -c kubectl-preempt -f -a '(__kubectl_preempt_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}

HELP = """Print the shell code that completes kubectl-preempt's commands, flags, flag values and POD
names (from --snapshot when given, else from the live cluster), when the command is typed on its
own (as kubectl-preempt).

`kubectl preempt <TAB>` is completed by kubectl itself (1.26+), through the executable
kubectl_complete-preempt on your PATH, which ./install.sh and pipx put there."""

EPILOG = """\b
Examples:
  # bash: for this shell, then for every new one
  source <(kubectl preempt completion bash)
  kubectl preempt completion bash > ~/.local/share/bash-completion/completions/kubectl-preempt
\b
  # zsh: a file in a folder of $fpath, named _kubectl-preempt
  kubectl preempt completion zsh > "${fpath[1]}/_kubectl-preempt"
\b
  # fish
  kubectl preempt completion fish > ~/.config/fish/completions/kubectl-preempt.fish"""


def register(app: typer.Typer) -> None:
    app.command("completion", help=HELP, epilog=EPILOG)(completion)


@guard
def completion(
    shell: str = typer.Argument(..., metavar="bash|zsh|fish", help="The shell to complete in.",
                                show_default=False),
) -> None:
    if shell not in SCRIPTS:
        raise UsageError(f"unknown shell {quote(shell)}: give one of {', '.join(SHELLS)}")
    write_output(SCRIPTS[shell])


