"""Dependencies point one way (DESIGN.md): cli -> api -> {replay, check, explain} -> scheduler ->
{preemption, plugins} -> framework -> model. Checked on the import statements of every module,
and every module imports on its own."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "kubectl_preempt"

# package -> packages it must never import
FORBIDDEN = {
    "model": {"framework", "plugins", "preemption", "scheduler", "explain", "replay", "check", "render", "cli", "io", "api", "batch"},
    "framework": {"plugins", "preemption", "scheduler", "explain", "replay", "check", "render", "cli", "io", "api", "batch"},
    "plugins": {"scheduler", "explain", "replay", "check", "render", "cli", "io", "api", "batch"},
    "preemption": {"scheduler", "explain", "replay", "check", "render", "cli", "io", "api", "batch"},
    "scheduler": {"explain", "replay", "check", "render", "cli", "io", "api", "batch"},
    "explain": {"replay", "check", "render", "cli", "io", "api", "batch"},
    "replay": {"check", "render", "cli", "io", "api"},
    "check": {"render", "cli", "io", "api", "batch"},
    # kube-batch's session uses model/ and the kube-scheduler plugins' helpers, nothing above them;
    # nothing in the kube-scheduler core imports it
    "batch": {"framework", "preemption", "scheduler", "explain", "replay", "check", "render", "cli", "io", "api"},
}
THIRD_PARTY_ONLY_IN = {"typer": ("cli",), "kubernetes": ("cli", "io/live.py")}


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG).parts
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.add(node.module or "")
            else:
                base = list(rel[:-1])[: len(rel) - 1 - (node.level - 1)]
                mod = ".".join(["kubectl_preempt", *base] + ([node.module] if node.module else []))
                out.add(mod)
                if not node.module:
                    out.update(".".join(["kubectl_preempt", *base, a.name]) for a in node.names)
    return out


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_respect_layering(path: Path) -> None:
    rel = path.relative_to(PKG)
    top = rel.parts[0] if len(rel.parts) > 1 else rel.stem
    for imp in _imports(path):
        parts = imp.split(".")
        if parts[0] == "kubectl_preempt" and len(parts) > 1:
            assert parts[1] not in FORBIDDEN.get(top, set()), f"{rel} imports {imp}"
        for lib, allowed in THIRD_PARTY_ONLY_IN.items():
            if parts[0] == lib:
                assert any(str(rel).startswith(a) for a in allowed), f"{rel} imports {lib}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_on_its_own(path: Path) -> None:
    rel = path.relative_to(PKG).with_suffix("")
    name = ".".join(["kubectl_preempt", *rel.parts]).removesuffix(".__init__")
    importlib.import_module(name)
