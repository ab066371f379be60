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

Every artefact carries the repository's traces/ and examples/ as package data
(kubectl_preempt/_bundled, kubectl_preempt/io/bundled_layout.py says what), so that
`kubectl preempt demo` works in each install.

Reproducible: two builds of one commit with the same tools give byte-identical wheels, sdists,
executables and krew archives. Times are SOURCE_DATE_EPOCH (default: the commit's time), archive
entries are sorted with fixed owners and modes, PyInstaller runs with PYTHONHASHSEED=0. The
manifest's header records a digest of everything the executable is made of (the sources, the
bundled data, Python's, PyInstaller's and each run-time dependency's version): a build from the
same inputs gives the archive whose sha256 the manifest holds.

The repository the manifest points at is filled in by the build: --repository OWNER/NAME, else
$GITHUB_REPOSITORY (as GitHub Actions sets it), else the GitHub repository of the `origin` remote.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import io
import os
import platform
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Iterable

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package, whatever else the environment holds

from kubectl_preempt.framework.versions import DEFAULT, SUPPORTED  # noqa: E402
from kubectl_preempt.io.bundled_layout import PACKAGED, bundled_files  # noqa: E402

NAME = "kubectl-preempt"
PLUGIN = "preempt"
DIST_NAME = "kubectl-preempt"
KREW_API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
# the manifest's uri points at the archive attached to the GitHub release of the version built (as
# goreleaser's krew pipe does): https://github.com/OWNER/NAME/releases/download/vVERSION/ARCHIVE
GITHUB = "https://github.com/"
# zip's earliest time (1980-01-01): SOURCE_DATE_EPOCH when neither the environment nor git says
EPOCH_FLOOR = 315532800
MANIFEST_HEADER = ("# krew plugin manifest of kubectl-preempt: written by scripts/build.py, which builds each\n"
                   "# platform's archive and fills in its uri and sha256. Edit the texts in the script.\n")
# the line of the header that says what the archives were built from (see inputs_digest)
INPUTS_LINE = "# built from inputs "

# imported only by code paths the executable does not offer (--ray: the extra [ray]) or by the
# tests; left out so that the file stays small and starts fast
EXCLUDED_MODULES = ("ray", "pytest", "_pytest", "hypothesis", "tkinter", "IPython", "numpy", "pandas",
                    "matplotlib", "PyInstaller", "setuptools", "pip")

SHORT_DESCRIPTION = "Explain kube-scheduler preemptions offline"
def description() -> str:
    """The manifest's description, naming every release the code imitates (framework/versions.py)."""
    names = [v.name for v in SUPPORTED]
    releases = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    text = (f"Which pods would kube-scheduler preempt for a pod, on which node, and why there? "
            f"kubectl-preempt carries an offline copy of kube-scheduler's decision as releases {releases} "
            f"make it (default {DEFAULT.name}; the cluster's own release when it says): the default "
            "profile's filters, scores and DefaultPreemption. It explains a pending pod against a live "
            "cluster or a snapshot: the victims, what each frees, every other node's reason and the "
            "scheduler's exact message. It also says who preempted a pod, replays recorded traces, checks "
            "PriorityClass changes before they merge, and explains kube-batch's sessions. It only ever "
            "reads the cluster (GET requests). No cluster at hand: kubectl preempt demo.")
    return _wrap(text, 84)


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width=width, break_on_hyphens=False)) + "\n"
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


def archive_inputs() -> list[Path]:
    """The files the single file (and so krew's archive) is made of, from this checkout: the
    package, the bundled traces and examples, the entry point, LICENSE."""
    paths = sorted(p for p in (ROOT / "kubectl_preempt").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo"))
    paths += [ROOT / rel for rel in bundled_files(ROOT)]
    return paths + [ROOT / "scripts" / "onefile_entry.py", ROOT / "LICENSE"]


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH: the environment's, else the time of the last commit that changed what the
    artefacts are made of (so that two builds of one commit agree, and a commit that only writes
    the manifest's sha256 does not change the archive it names), else zip's earliest time."""
    if os.environ.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        return max(EPOCH_FLOOR, int(os.environ["SOURCE_DATE_EPOCH"]))
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct", "--",
                              *(str(p.relative_to(ROOT)) for p in archive_inputs())],
                             capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip().isdigit():
            return max(EPOCH_FLOOR, int(out.stdout.strip()))
    except (OSError, subprocess.SubprocessError):
        pass
    return EPOCH_FLOOR


_GITHUB_REMOTE = re.compile(r"github\.com[:/]([\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_REPOSITORY = re.compile(r"^[\w.-]+/[\w.-]+$")


def repository(given: str | None) -> str | None:
    """OWNER/NAME of the GitHub repository the releases are published from: --repository, else
    $GITHUB_REPOSITORY, else the origin remote's; None when nothing says."""
    for value in (given, os.environ.get("GITHUB_REPOSITORY")):
        if value:
            if not _REPOSITORY.match(value):
                raise SystemExit(f"build.py: repository {value!r} is not OWNER/NAME")
            return value
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = _GITHUB_REMOTE.search(out.stdout.strip()) if out.returncode == 0 else None
    return m.group(1) if m else None


def runtime_distributions() -> dict[str, str]:
    """name -> version of kubectl-preempt's run-time dependencies, as installed here (what
    PyInstaller puts in the executable besides the package)."""
    seen: dict[str, str] = {}

    def walk(name: str) -> None:
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            return
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return
        seen[key] = dist.version
        for req in dist.requires or ():
            if ";" in req and "extra" in req.split(";", 1)[1]:
                continue  # an optional extra (ray, dev, build)
            walk(re.split(r"[ <>=!~;\[(]", req.strip(), maxsplit=1)[0])

    walk(DIST_NAME)
    seen.pop(DIST_NAME, None)  # this checkout's sources stand for it
    return dict(sorted(seen.items()))


def inputs_digest(epoch: int) -> str:
    """A digest of what the executable is made of: the package's sources and data, the bundled
    traces and examples, the entry point, LICENSE, the versions of Python, PyInstaller and each
    run-time dependency, and SOURCE_DATE_EPOCH. Two builds with the same digest give the same
    archive."""
    h = hashlib.sha256(f"SOURCE_DATE_EPOCH={epoch}\0".encode())
    for p in archive_inputs():
        h.update(p.relative_to(ROOT).as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    try:
        pyinstaller = importlib.metadata.version("pyinstaller")
    except importlib.metadata.PackageNotFoundError:
        pyinstaller = "none"
    tools = {"python": platform.python_version(), "implementation": sys.implementation.name,
             "pyinstaller": pyinstaller, **runtime_distributions()}
    h.update(repr(sorted(tools.items())).encode())
    return h.hexdigest()


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


def build_env(epoch: int, repo: str) -> dict[str, str]:
    """The environment of the builders: SOURCE_DATE_EPOCH for every time they write, a fixed hash
    seed so that PyInstaller's sets come out in one order, and the repository whose links the
    package's metadata carries (setup.py)."""
    return {**os.environ, "SOURCE_DATE_EPOCH": str(epoch), "PYTHONHASHSEED": "0", "KUBECTL_PREEMPT_REPOSITORY": repo}


def python_dist(dist: Path, epoch: int, repo: str) -> tuple[Path, Path]:
    """The sdist, then the wheel built from it (as `build` does without --wheel or --sdist: from a
    clean copy, so that nothing left in build/ from an earlier build gets in, and the sdist is
    known to carry what the wheel needs), with this environment's setuptools (no download); then
    both written again entry by entry with fixed times, owners and modes."""
    for old in list(dist.glob("kubectl_preempt-*.whl")) + list(dist.glob("kubectl-preempt-*.tar.gz")):
        old.unlink()
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)], env=build_env(epoch, repo))
    wheel = next(dist.glob("kubectl_preempt-*.whl"))
    sdist = next(dist.glob("kubectl-preempt-*.tar.gz"))
    normalize_wheel(wheel, epoch)
    normalize_sdist(sdist, epoch)
    return wheel, sdist


def _mode(mode: int) -> int:
    """A file's mode as archives keep it: 0755 when anyone may run it, else 0644."""
    return 0o755 if mode & 0o111 else 0o644


def normalize_wheel(path: Path, epoch: int) -> None:
    """The wheel with every entry dated SOURCE_DATE_EPOCH and given a fixed mode, in the order
    bdist_wheel wrote them (sorted, the .dist-info last); the contents, and so RECORD, unchanged."""
    stamp = time.gmtime(max(epoch, EPOCH_FLOOR))[:6]
    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info)) for info in src.infolist()]
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, date_time=stamp)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.create_system = 3  # unix, so that the mode below is read
            fixed.external_attr = (0o100000 | _mode(info.external_attr >> 16)) << 16
            out.writestr(fixed, data)
    path.write_bytes(raw.getvalue())


def _tar(entries: Iterable[tuple[tarfile.TarInfo, bytes | None]], epoch: int) -> bytes:
    """A .tar.gz of `entries`, sorted by name, with no owner, fixed modes and every time epoch."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member, data in sorted(entries, key=lambda e: e[0].name):
            info = tarfile.TarInfo(member.name)
            info.type = member.type
            info.mtime = epoch
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if member.isdir():
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.mode = _mode(member.mode)
                info.size = len(data or b"")
                tar.addfile(info, io.BytesIO(data or b""))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def normalize_sdist(path: Path, epoch: int) -> None:
    """The sdist with sorted entries, no owner, fixed modes and every time SOURCE_DATE_EPOCH."""
    with tarfile.open(path) as src:
        entries = [(m, src.extractfile(m).read() if m.isfile() else None)  # type: ignore[union-attr]
                   for m in src.getmembers() if m.isfile() or m.isdir()]
    path.write_bytes(_tar(entries, epoch))


def onefile(dist: Path, work: Path, epoch: int, repo: str) -> Path:
    """The single-file executable of scripts/onefile_entry.py, with every module of the package
    (the plugin registry imports plugins by name), its data (the HTML report's assets) and the
    bundled traces and examples, where kubectl_preempt/io/bundled.py finds them."""
    cmd = [sys.executable, "-m", "PyInstaller", "--onefile", "--noconfirm", "--clean", "--log-level", "WARN", "--strip",
           "--name", NAME, "--distpath", str(dist), "--workpath", str(work / "work"),
           "--specpath", str(work), "--paths", str(ROOT),
           "--collect-submodules", "kubectl_preempt", "--collect-data", "kubectl_preempt"]
    for rel in bundled_files(ROOT):
        folder = Path(rel).parent.as_posix()
        cmd += ["--add-data", f"{ROOT / rel}{os.pathsep}kubectl_preempt/{PACKAGED}/{folder}"]
    for mod in EXCLUDED_MODULES:
        cmd += ["--exclude-module", mod]
    cmd.append(str(ROOT / "scripts" / "onefile_entry.py"))
    run(cmd, cwd=str(work), env=build_env(epoch, repo))
    exe = dist / NAME
    if not exe.is_file():
        raise SystemExit(f"build.py: PyInstaller wrote no {exe}")
    return exe


def archive(exe: Path, dist: Path, ver: str, os_name: str, arch: str, epoch: int) -> Path:
    """krew's archive: the executable and LICENSE at its top. Entries carry no owner, fixed modes
    and the time SOURCE_DATE_EPOCH, so the same executable always gives the same archive (and
    sha256)."""
    out = dist / f"{NAME}_v{ver}_{os_name}_{arch}.tar.gz"
    entries = []
    for path, mode in ((exe, 0o755), (ROOT / "LICENSE", 0o644)):
        info = tarfile.TarInfo(path.name)
        info.mode = mode
        entries.append((info, path.read_bytes()))
    out.write_bytes(_tar(entries, epoch))
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


def release_url(repo: str) -> str:
    return f"{GITHUB}{repo}/releases/download"


def archive_uri(repo: str, ver: str, archive_name: str) -> str:
    return f"{release_url(repo)}/v{ver}/{archive_name}"


def write_manifest(path: Path, ver: str, os_name: str, arch: str, uri: str, digest: str, *,
                   homepage: str, inputs: str) -> dict[str, Any]:
    """krew's Plugin manifest, keeping the other platforms' entries (built elsewhere) and
    replacing this platform's; `inputs` (inputs_digest) goes in the header, for this platform."""
    platforms: list[dict[str, Any]] = []
    built_from: dict[str, str] = {}
    if path.exists():
        text = path.read_text()
        old = yaml.safe_load(text) or {}
        if (old.get("spec") or {}).get("version") == f"v{ver}":
            platforms = [p for p in old["spec"].get("platforms") or []
                         if (p.get("selector") or {}).get("matchLabels") != {"os": os_name, "arch": arch}]
            built_from = {k: v for k, v in read_inputs(text).items() if k != f"{os_name}/{arch}"}
    built_from[f"{os_name}/{arch}"] = inputs
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
            "homepage": homepage,
            "shortDescription": SHORT_DESCRIPTION,
            "description": _Literal(description()),
            "caveats": _Literal(CAVEATS),
            "platforms": platforms,
        },
    }
    header = MANIFEST_HEADER + "".join(f"{INPUTS_LINE}{k} {v}\n" for k, v in sorted(built_from.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump(manifest, sort_keys=False, width=100))
    return manifest


def read_inputs(text: str) -> dict[str, str]:
    """OS/ARCH -> inputs_digest of each platform's archive, from a manifest's header."""
    out = {}
    for line in text.splitlines():
        if line.startswith(INPUTS_LINE):
            platform_, _, digest = line[len(INPUTS_LINE):].partition(" ")
            out[platform_] = digest.strip()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/build.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the artefacts go (default: dist/)")
    ap.add_argument("--work", type=Path, default=None, help="PyInstaller's scratch folder (default: build/)")
    ap.add_argument("--manifest", type=Path, default=ROOT / "plugins" / f"{PLUGIN}.yaml",
                    help="the krew manifest to fill in (default: plugins/preempt.yaml)")
    ap.add_argument("--repository", metavar="OWNER/NAME",
                    help="the GitHub repository the release is published from: the manifest's homepage, and "
                         "its uri https://github.com/OWNER/NAME/releases/download/vVERSION/ARCHIVE (default: "
                         "$GITHUB_REPOSITORY, else the origin remote's)")
    ap.add_argument("--skip-python-dist", action="store_true", help="build only the executable and its archive")
    ap.add_argument("--skip-onefile", action="store_true",
                    help="build only the wheel and the sdist (no executable, archive or manifest)")
    args = ap.parse_args(argv)

    repo = repository(args.repository)
    if repo is None:
        ap.error("which repository are the releases published from? give --repository OWNER/NAME (GitHub "
                 "Actions sets $GITHUB_REPOSITORY; a clone's origin remote says it too)")
    ver = version()
    os_name, arch = host_platform()
    epoch = source_date_epoch()
    dist: Path = args.dist.resolve()
    work: Path = (args.work or ROOT / "build").resolve()
    dist.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    if not args.skip_python_dist:
        python_dist(dist, epoch, repo)
    if args.skip_onefile:
        print(f"built the wheel and the sdist in {dist} in {time.monotonic() - started:.0f}s "
              f"(SOURCE_DATE_EPOCH {epoch})", file=sys.stderr)
        return 0
    exe = onefile(dist, work, epoch, repo)
    tgz = archive(exe, dist, ver, os_name, arch, epoch)
    digest = sha256(tgz)
    write_manifest(args.manifest, ver, os_name, arch, archive_uri(repo, ver, tgz.name), digest,
                   homepage=f"{GITHUB}{repo}", inputs=inputs_digest(epoch))
    print(f"built {exe} ({exe.stat().st_size / 1e6:.1f} MB), {tgz.name} sha256 {digest}, "
          f"{args.manifest} in {time.monotonic() - started:.0f}s (SOURCE_DATE_EPOCH {epoch})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
