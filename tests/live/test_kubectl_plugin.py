"""kubectl finds the plugin that install.sh puts on PATH, and `kubectl preempt` runs it."""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KUBECTL = shutil.which("kubectl")


def _clone_files(dest: Path) -> Path:
    """The project's files as a fresh clone has them (no .venv, no caches), copied into dest: the
    install runs there, so the checkout's own .venv and link are never touched."""
    skip = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")
    shutil.copytree(REPO, dest, ignore=skip, symlinks=True)
    return dest


def _seed_venv(clone: Path) -> None:
    """A .venv in the copy that sees the test run's own packages (pip and the dependencies) but not
    its kubectl-preempt: install.sh then has only the project itself to install, in seconds."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(clone / ".venv")], check=True, timeout=120)
    purelib = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    # a directory named in a .pth file is searched, but the .pth files inside it (the checkout's
    # editable install) are not run
    Path(purelib, "_test_run_packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_plugin_list_finds_the_plugin_after_install_sh(tmp_path: Path) -> None:
    clone = _clone_files(tmp_path / "kubectl-preempt")
    _seed_venv(clone)
    bin_dir = tmp_path / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # HOME elsewhere keeps the user's ~/.local/bin untouched; pip keeps its own cache
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.update({"BIN_DIR": str(bin_dir), "HOME": str(tmp_path)})
    install = subprocess.run([str(clone / "install.sh")], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=600)
    assert install.returncode == 0, install.stderr
    link = bin_dir / "kubectl-preempt"
    assert link.exists() and Path(os.readlink(link)) == clone / ".venv" / "bin" / "kubectl-preempt"
    # the command installed runs the copy's code, not the checkout's
    where = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c",
                            "import kubectl_preempt; print(kubectl_preempt.__file__)"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()).is_relative_to(clone), where

    # PATH as the user would set it: the link folder first, kubectl from wherever it is
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(KUBECTL).parent)])
    listed = subprocess.run([KUBECTL, "plugin", "list"], env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert str(bin_dir / "kubectl-preempt") in listed.stdout

    helped = subprocess.run([KUBECTL, "preempt", "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0, helped.stderr
    assert "explain" in helped.stdout and "capture" in helped.stdout

    # a live command through kubectl, with no cluster configured: exit 3 and one line
    no_cluster = {k: v for k, v in env.items() if not k.startswith("KUBERNETES_SERVICE_")}
    down = subprocess.run([KUBECTL, "preempt", "capture", "-o", "-"], env={**no_cluster, "KUBECONFIG": ""},
                          capture_output=True, text=True, timeout=60)
    assert down.returncode == 3
    assert down.stderr.startswith("error: no kubeconfig found") and down.stderr.count("\n") == 1
