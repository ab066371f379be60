"""The CLI is thin: every command parses its flags, makes ONE call through api's door for it, and
renders what comes back (issue 35, "one door per command"). Checked on the code's AST: from the
function each command registers, every call is followed into the cli/ functions it reaches (its
own module's helpers, cli/common.py, cli/live.py, ...); the calls into api found on the way are
counted. Exactly one of them is one of api.DOORS; every other is one of api.HELPERS (flag parsing
and writing a finished output, which read no input and decide nothing)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kubectl_preempt import api

CLI = Path(__file__).resolve().parents[1] / "kubectl_preempt" / "cli"

# command -> the door it goes through; None: the command asks nothing of the package (completion
# prints the shell's script; its __complete callbacks are the shell's, not a command's)
DOOR_OF = {
    "explain": "explain_request",
    "replay": "replay_request",
    "check": "check_request",
    "plan": "plan_request",
    "history": "history_request",
    "session": "session_request",
    "capture": "capture_snapshot",
    "record": "record_trace",
    "version": "server_version_document",
    "demo": "bundled_demo",
    "completion": None,
}


@dataclass
class Module:
    name: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    api_module: set[str] = field(default_factory=set)       # local names bound to the api module
    api_names: dict[str, str] = field(default_factory=dict)  # local name -> api attribute
    cli_modules: dict[str, str] = field(default_factory=dict)  # local name -> cli module
    cli_names: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, function)


def _load() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted(CLI.glob("*.py")):
        m = Module(path.stem, ast.parse(path.read_text()))
        for node in ast.walk(m.tree):
            if isinstance(node, ast.ImportFrom):
                names = [(a.name, a.asname or a.name) for a in node.names]
                if node.level == 2 and node.module is None:
                    m.api_module.update(local for name, local in names if name == "api")
                elif node.level == 2 and node.module == "api":
                    m.api_names.update({local: name for name, local in names})
                elif node.level == 1 and node.module is None:
                    m.cli_modules.update({local: name for name, local in names})
                elif node.level == 1 and node.module:
                    m.cli_names.update({local: (node.module, name) for name, local in names})
        m.functions = {n.name: n for n in m.tree.body if isinstance(n, ast.FunctionDef)}
        modules[m.name] = m
    return modules


def _registered(modules: dict[str, Module]) -> dict[str, tuple[str, str]]:
    """command -> (module, function), from each register(): app.command("NAME", ...)(function)."""
    out = {}
    for m in modules.values():
        reg = m.functions.get("register")
        for node in ast.walk(reg) if reg is not None else ():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) \
                    and isinstance(node.func.func, ast.Attribute) and node.func.func.attr == "command":
                name = node.func.args[0].value  # type: ignore[attr-defined]
                out[name] = (m.name, node.args[0].id)  # type: ignore[attr-defined]
    return out


def _api_attr(m: Module, func: ast.expr) -> str | None:
    """What of api a call calls (api.X -> "X", api.X.Y and X.Y with X imported from api -> "X.Y"), else None."""
    chain = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    if func.id in m.api_module and chain:
        return ".".join(reversed(chain))
    if func.id in m.api_names:
        return ".".join([m.api_names[func.id], *reversed(chain)])
    return None


def _cli_target(modules: dict[str, Module], m: Module, func: ast.expr) -> tuple[str, str] | None:
    if isinstance(func, ast.Name):
        if func.id in m.functions:
            return m.name, func.id
        if func.id in m.cli_names:
            return m.cli_names[func.id]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in m.cli_modules:
        return m.cli_modules[func.value.id], func.attr
    return None


def _api_calls(modules: dict[str, Module], start: tuple[str, str]) -> list[str]:
    """Every call into api reachable from `start` through cli/ functions, one entry per call site."""
    seen: set[tuple[str, str]] = set()
    todo, calls = [start], []
    while todo:
        key = todo.pop()
        if key in seen or key[0] not in modules or key[1] not in modules[key[0]].functions:
            continue
        seen.add(key)
        m = modules[key[0]]
        for node in ast.walk(m.functions[key[1]]):
            if not isinstance(node, ast.Call):
                continue
            attr = _api_attr(m, node.func)
            if attr is not None:
                calls.append(attr)
                continue
            target = _cli_target(modules, m, node.func)
            # demo runs explain and replay as the commands they are: each has its own door
            if target is not None and not (key[0] == "demo" and target[0] in ("explain", "replay")):
                todo.append(target)
    return calls


MODULES = _load()
COMMANDS = _registered(MODULES)


def test_every_command_is_named_here_with_its_door() -> None:
    assert set(COMMANDS) == set(DOOR_OF)
    for door in filter(None, DOOR_OF.values()):
        assert door in api.DOORS


@pytest.mark.parametrize("command", sorted(DOOR_OF))
def test_a_command_makes_one_call_through_its_door_and_otherwise_only_parses_flags_and_writes_output(
        command: str) -> None:
    calls = _api_calls(MODULES, COMMANDS[command])
    doors = [c for c in calls if c in api.DOORS]
    assert doors == ([DOOR_OF[command]] if DOOR_OF[command] else [])
    others = sorted({c for c in calls if c not in api.DOORS and c not in api.HELPERS})
    assert others == [], f"{command} calls api's {others}: a request's work belongs behind its door"


def test_the_ast_walk_sees_calls_through_helpers_of_other_cli_modules() -> None:
    # the test above can fail: a call into api made in a cli/ helper of another module is found
    # (finish_outputs in cli/common.py writes --html's page with api.write_atomic)
    assert "write_atomic" in _api_calls(MODULES, ("common", "finish_outputs"))
