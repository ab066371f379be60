"""krew's checks of a plugin manifest, as krew applies them before it installs a plugin
(kubernetes-sigs/krew pkg/index/validation/validate.go: ValidatePlugin, validatePlatform,
validateSelector), and the fields its documentation requires (site/content/docs/developer-guide/
plugin-manifest.md: shortDescription and description required, version "a valid semantic version
string ... the prefix 'v' is required", uri a .zip or .tar.gz archive)."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build.py"

API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"   # krew pkg/constants CurrentAPIVersion
KIND = "Plugin"                                                  # krew pkg/constants PluginKind
SAFE_NAME = re.compile(r"^[\w-]+$")                              # validate.go safePluginRegexp
SHA256 = re.compile(r"^[a-f0-9]{64}$")                           # validate.go sha256Pattern
WINDOWS_FORBIDDEN = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                     *(f"LPT{i}" for i in range(1, 10))}
# semver.org 2.0.0, with krew's required leading v
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$")
SELECTOR_KEYS = {"os", "arch"}


class Invalid(ValueError):
    pass


def validate_plugin(name: str, p: Mapping[str, Any]) -> None:
    """Raise Invalid saying what krew would refuse in the manifest of plugin `name`."""
    if p.get("apiVersion") != API_VERSION:
        raise Invalid(f"plugin manifest has apiVersion={p.get('apiVersion')!r}, not supported")
    if p.get("kind") != KIND:
        raise Invalid(f"plugin manifest has kind={p.get('kind')!r}, but only {KIND!r} is supported")
    if not SAFE_NAME.match(name) or name.upper() in WINDOWS_FORBIDDEN:
        raise Invalid(f"the plugin name {name!r} is not allowed")
    if (p.get("metadata") or {}).get("name") != name:
        raise Invalid(f"plugin should be named {name!r}, not {(p.get('metadata') or {}).get('name')!r}")
    spec = p.get("spec") or {}
    if not spec.get("shortDescription"):
        raise Invalid("should have a short description")
    if not spec.get("description"):
        raise Invalid("should have a description (krew's documentation: required)")
    if not spec.get("platforms"):
        raise Invalid("should have a platform specified")
    if not spec.get("version"):
        raise Invalid("should have a version specified")
    if not SEMVER.match(str(spec["version"])):
        raise Invalid(f"failed to parse plugin version {spec['version']!r} (semver with a leading v)")
    for pl in spec["platforms"]:
        validate_platform(pl)


def validate_platform(p: Mapping[str, Any]) -> None:
    if not p.get("uri"):
        raise Invalid("URI has to be set")
    if not re.search(r"\.(tar\.gz|zip)$", str(p["uri"])):
        raise Invalid(f"uri {p['uri']!r} is not a .tar.gz or .zip archive")
    if not p.get("sha256"):
        raise Invalid("sha256 sum has to be set")
    if not SHA256.match(str(p["sha256"])):
        raise Invalid(f"sha256 value {p['sha256']} is not valid, must match pattern {SHA256.pattern}")
    if not p.get("bin"):
        raise Invalid("bin has to be set")
    # krew before v0.4 refused a platform without files; later ones default them to everything
    if not p.get("files"):
        raise Invalid("can't have a plugin without specifying file operations")
    for op in p["files"]:
        if not op.get("from") or not op.get("to"):
            raise Invalid(f"file operation {op!r} needs from and to")
    validate_selector(p.get("selector"))


def validate_selector(sel: Any) -> None:
    if sel is None:
        raise Invalid("nil selector is not supported")
    labels = sel.get("matchLabels")
    exprs = sel.get("matchExpressions")
    if labels is None and not exprs:
        raise Invalid("empty selector is not supported")
    keys = list(labels or {}) + [e.get("key") for e in exprs or ()]
    for key in keys:
        if key not in SELECTOR_KEYS:
            raise Invalid(f"key {key!r} not supported")
    if labels is not None and len(labels) == 0:
        raise Invalid("matchLabels specified but empty")
    if exprs is not None and len(exprs) == 0:
        raise Invalid("matchExpressions specified but empty")


def platform_of(p: Mapping[str, Any]) -> tuple[str, str]:
    labels = (p.get("selector") or {}).get("matchLabels") or {}
    return labels.get("os", ""), labels.get("arch", "")


def load_build_script() -> ModuleType:
    """scripts/build.py as a module, under a name of its own (`build` is the PyPA builder's)."""
    name = "kubectl_preempt_build_script"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BUILD_SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
