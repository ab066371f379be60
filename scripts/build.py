#!/usr/bin/env python3
"""Build everything a release of kubectl-preempt ships, from this clone:

  dist/kubectl_preempt-VERSION-py3-none-any.whl and dist/kubectl_preempt-VERSION.tar.gz
      the wheel and sdist (`pipx install dist/kubectl_preempt-VERSION-py3-none-any.whl`)
  dist/kubectl-preempt
      the single-file executable for this machine's OS and CPU (PyInstaller --onefile: Python and
      every dependency inside; nothing else needed on the machine that runs it)
  dist/kubectl-preempt_vVERSION_OS_ARCH.tar.gz
      krew's archive: the executable and LICENSE
  plugins/preempt.yaml
      krew's manifest, with this platform's uri and the archive's sha256 filled in

Run it with the project's virtual environment after `./install.sh --dev` (which installs the
builders, the extra [build]):

  .venv/bin/python scripts/build.py [--skip-python-dist] [--dist DIR] [--manifest FILE]

PyInstaller does not cross-compile: each platform's executable is built on that platform (Linux
amd64 and arm64, macOS amd64 and arm64; Windows is not offered, kubectl-preempt has never run
there). Running the script on another platform adds that platform's entry to the manifest.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
NAME = "kubectl-preempt"
PLUGIN = "preempt"
# the home of the project's releases; the manifest's uri points at the archive attached to the
# release of the version built (as goreleaser's krew pipe does); --release-url changes it
HOMEPAGE = "https://github.com/your-org/kubectl-preempt"
RELEASE_URL = HOMEPAGE + "/releases/download"
KREW_API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"

# imported only by code paths the executable does not offer (--ray: the extra [ray]) or by the
# tests; left out so that the file stays small and starts fast
EXCLUDED_MODULES = ("ray", "pytest", "_pytest", "hypothesis", "tkinter", "IPython", "numpy", "pandas",
                    "matplotlib", "PyInstaller", "setuptools", "pip")

SHORT_DESCRIPTION = "Explain kube-scheduler preemptions offline"
DESCRIPTION = """\
Which pods would kube-scheduler preempt for a pod, on which node, and why there?
kubectl-preempt carries an offline copy of kube-scheduler's decision (v1.34.1 and
v1.36.2: the default profile's filters, scores and DefaultPreemption) and explains a
pending pod against a live cluster or a snapshot: the victims, what each frees, every
other node's reason and the scheduler's exact message. It also says who preempted a
pod, replays recorded traces, checks PriorityClass changes before they merge, and
explains kube-batch's sessions. It only ever reads the cluster (GET requests).
"""
CAVEATS = """\
kubectl-preempt reads the cluster with GET requests only; deploy/rbac.yaml in the
project holds a read-only ClusterRole for it.

Completion of `kubectl preempt <TAB>` (kubectl 1.26+) needs an executable named
kubectl_complete-preempt on your PATH; this one serves under that name too:
  ln -s "${KREW_ROOT:-$HOME/.krew}/bin/kubectl-preempt" \\
        "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-preempt"
Completion of the command on its own: kubectl preempt completion --help
"""


def version() -> str:
    text = (ROOT / "kubectl_preempt" / "version.py").read_text()
    m = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not m:
        raise SystemExit("build.py: kubectl_preempt/version.py has no __version__")
    return m.group(1)


def host_platform() -> tuple[str, str]:
    """(os, arch) of this machine in Go's words, as krew's selectors name platforms."""
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
    arch = {"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine())
    if system is None or arch is None:
        raise SystemExit(f"build.py: no single-file build for {platform.system()}/{platform.machine()} "
                         "(linux and darwin, amd64 and arm64 only)")
    return system, arch


def run(cmd: list[str], **kw: Any) -> None:
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def python_dist(dist: Path) -> None:
    """Wheel and sdist with the `build` frontend, using this environment's setuptools (no download)."""
    run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(dist), str(ROOT)])


def onefile(dist: Path, work: Path) -> Path:
    """The single-file executable of scripts/onefile_entry.py, with every module of the package
    (the plugin registry imports plugins by name) and its data (the HTML report's assets)."""
    cmd = [sys.executable, "-m", "PyInstaller", "--onefile", "--noconfirm", "--clean", "--log-level", "WARN", "--strip",
           "--name", NAME, "--distpath", str(dist), "--workpath", str(work / "work"),
           "--specpath", str(work), "--paths", str(ROOT),
           "--collect-submodules", "kubectl_preempt", "--collect-data", "kubectl_preempt"]
    for mod in EXCLUDED_MODULES:
        cmd += ["--exclude-module", mod]
    cmd.append(str(ROOT / "scripts" / "onefile_entry.py"))
    run(cmd, cwd=str(work))
    exe = dist / NAME
    if not exe.is_file():
        raise SystemExit(f"build.py: PyInstaller wrote no {exe}")
    return exe


def archive(exe: Path, dist: Path, ver: str, os_name: str, arch: str) -> Path:
    """krew's archive: the executable and LICENSE at its top. Entries carry no owner and a fixed
    time, so the same executable always gives the same archive (and sha256)."""
    out = dist / f"{NAME}_v{ver}_{os_name}_{arch}.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, mode in ((exe, 0o755), (ROOT / "LICENSE", 0o644)):
            info = tarfile.TarInfo(path.name)
            info.size = path.stat().st_size
            info.mode = mode
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with path.open("rb") as f:
                tar.addfile(info, f)
    with out.open("wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class _Literal(str):
    pass


def _literal(dumper: yaml.SafeDumper, data: _Literal) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")


yaml.SafeDumper.add_representer(_Literal, _literal)


def write_manifest(path: Path, ver: str, os_name: str, arch: str, uri: str, digest: str) -> dict[str, Any]:
    """krew's Plugin manifest, keeping the other platforms' entries (built elsewhere) and
    replacing this platform's."""
    platforms: list[dict[str, Any]] = []
    if path.exists():
        old = yaml.safe_load(path.read_text()) or {}
        if (old.get("spec") or {}).get("version") == f"v{ver}":
            platforms = [p for p in old["spec"].get("platforms") or []
                         if (p.get("selector") or {}).get("matchLabels") != {"os": os_name, "arch": arch}]
    platforms.append({
        "selector": {"matchLabels": {"os": os_name, "arch": arch}},
        "uri": uri,
        "sha256": digest,
        "files": [{"from": NAME, "to": "."}, {"from": "LICENSE", "to": "."}],
        "bin": NAME,
    })
    platforms.sort(key=lambda p: (p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]))
    manifest = {
        "apiVersion": KREW_API_VERSION,
        "kind": "Plugin",
        "metadata": {"name": PLUGIN},
        "spec": {
            "version": f"v{ver}",
            "homepage": HOMEPAGE,
            "shortDescription": SHORT_DESCRIPTION,
            "description": _Literal(DESCRIPTION),
            "caveats": _Literal(CAVEATS),
            "platforms": platforms,
        },
    }
    header = ("# krew plugin manifest of kubectl-preempt: written by scripts/build.py, which builds each\n"
              "# platform's archive and fills in its uri and sha256. Edit the texts in the script.\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump(manifest, sort_keys=False, width=100))
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/build.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the artefacts go (default: dist/)")
    ap.add_argument("--work", type=Path, default=None, help="PyInstaller's scratch folder (default: build/)")
    ap.add_argument("--manifest", type=Path, default=ROOT / "plugins" / f"{PLUGIN}.yaml",
                    help="the krew manifest to fill in (default: plugins/preempt.yaml)")
    ap.add_argument("--release-url", default=RELEASE_URL,
                    help="where the release's archives are downloaded from; the manifest's uri is "
                         "RELEASE_URL/vVERSION/ARCHIVE")
    ap.add_argument("--skip-python-dist", action="store_true", help="build only the executable and its archive")
    args = ap.parse_args(argv)

    ver = version()
    os_name, arch = host_platform()
    dist: Path = args.dist.resolve()
    work: Path = (args.work or ROOT / "build").resolve()
    dist.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    if not args.skip_python_dist:
        python_dist(dist)
    exe = onefile(dist, work)
    tgz = archive(exe, dist, ver, os_name, arch)
    digest = sha256(tgz)
    uri = f"{args.release_url.rstrip('/')}/v{ver}/{tgz.name}"
    write_manifest(args.manifest, ver, os_name, arch, uri, digest)
    print(f"built {exe} ({exe.stat().st_size / 1e6:.1f} MB), {tgz.name} sha256 {digest}, "
          f"{args.manifest} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
