"""Dependencies point one way (DESIGN.md), bottom to top: model, framework, preemption, plugins,
scheduler, {explain, replay}, check, render, api, cli; io is the bottom for I/O, used by each
command's request and by api; cli imports nothing of the package but api, render and errors (api
is its only door). Checked on the import statements of every module (those inside functions too),
for every package and module of the package root; the import graph has no circle; every module
imports on its own."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "kubectl_preempt"

# leaf modules of the package root: any layer may import them, they import no other part
LEAVES = {"errors", "version"}
_CORE = {"model", "framework", "preemption", "plugins", "scheduler"}
# part (package, or module of the root) -> the parts it may import besides itself and LEAVES.
# A part missing here fails the test: a new package says where it sits.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "version": set(),
    "model": set(),
    "framework": {"model"},
    "preemption": {"model", "framework"},
    "plugins": {"model", "framework", "preemption"},
    "scheduler": {"model", "framework", "preemption", "plugins"},
    # each command's request lives in its own package and reads its inputs through io (the
    # bottom floor for files and the live cluster, which imports none of them): one door each
    # explain tells the story of kube-batch's session for the pods that name it
    "explain": _CORE | {"io", "batch"},
    # replay runs kube-batch beside kube-scheduler for the pods that name it
    "replay": _CORE | {"batch", "io"},
    "check": _CORE | {"replay", "io"},
    # history joins the cluster's records of preemptions (Events, conditions, nominations); its
    # request resolves the release that wrote them (framework/versions.py)
    "history": {"model", "framework", "io"},
    # plan: new workloads' pods created into the replay's engine (the layer of explain, replay, check)
    "plan": _CORE | {"replay", "io"},
    # kube-batch's session beside kube-scheduler's core; nothing in that core imports it
    "batch": {"model", "framework", "plugins", "io"},
    # render formats the reports it is given: quantities are its only domain knowledge, besides
    # the decision record's vocabulary (NARROW below)
    "render": {"model"},
    "io": {"model", "framework"},
    "api": _CORE | {"explain", "replay", "check", "batch", "render", "io", "history", "plan"},
    # the CLI parses, calls api and renders: api is its only door to the rest (CLI_ONLY below)
    "cli": {"api", "render"},
    "__init__": {"api", "io"},
    "__main__": {"cli"},
}
# single modules a part may import beyond ALLOWED: render names the preemption choice chain's
# steps from the decision record's one list of them (preemption/decision.py imports model and framework only)
NARROW: dict[str, set[str]] = {"render": {"kubectl_preempt.preemption.decision"}}
# parts that may import nothing of the package but these (and their own modules): not even a leaf
CLI_ONLY = {"cli": {"api", "render", "errors"}}
THIRD_PARTY_ONLY_IN = {"typer": ("cli",), "kubernetes": ("cli", "io/live.py")}


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py"))


def _name(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("")
    return ".".join(["kubectl_preempt", *rel.parts]).removesuffix(".__init__")


def _is_module(dotted: str) -> bool:
    rel = Path(*dotted.split(".")[1:])
    return (PKG / rel).with_suffix(".py").exists() or (PKG / rel / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """The package's modules this file imports (a `from X import name` counts as importing the
    submodule X.name when there is one, else X)."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG).parts
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                here = ["kubectl_preempt", *rel[:-1]]  # the package this file is in
                up = node.level - 1
                base = ".".join(here[: len(here) - up] + ([node.module] if node.module else []))
            subs = [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]
            if len(subs) == len(node.names) and base.startswith("kubectl_preempt"):
                out.update(subs)
            else:
                out.add(base)
                out.update(subs)
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_respect_layering(path: Path) -> None:
    rel = path.relative_to(PKG)
    me = _part(_name(path))
    assert me in ALLOWED, f"{rel}: its package {me!r} has no place in the layers (add it to ALLOWED)"
    for imp in _imports(path):
        parts = imp.split(".")
        if parts[0] == "kubectl_preempt":
            other = _part(imp)
            assert me not in CLI_ONLY or other == me or other in CLI_ONLY[me], f"{rel} imports {imp}"
            assert (other == me or other in LEAVES or other in ALLOWED[me]
                    or imp in NARROW.get(me, ())), f"{rel} imports {imp}"
        for lib, allowed in THIRD_PARTY_ONLY_IN.items():
            if parts[0] == lib:
                assert any(str(rel).startswith(a) for a in allowed), f"{rel} imports {lib}"


def test_the_import_graph_has_no_circle() -> None:
    graph = {_name(p): {m for m in _imports(p) if m.startswith("kubectl_preempt") and m != _name(p)}
             for p in _modules()}
    # Tarjan's strongly connected components: any component of two or more modules is a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_on_its_own(path: Path) -> None:
    importlib.import_module(_name(path))


# upstream's pkg/scheduler/backend (queue, cache, API dispatcher) sits under schedule_one.go and
# scheduler.go: the scheduler drives its backend, the backend never reaches back up into it
_BACKEND = "kubectl_preempt.scheduler.backend"


@pytest.mark.parametrize("path", sorted((PKG / "scheduler" / "backend").glob("*.py")), ids=lambda p: p.name)
def test_the_schedulers_backend_imports_nothing_of_the_scheduler_above_it(path: Path) -> None:
    for imp in _imports(path):
        if imp.startswith("kubectl_preempt.scheduler"):
            assert imp == _BACKEND or imp.startswith(_BACKEND + "."), f"{path.name} imports {imp}"
