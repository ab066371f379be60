"""kubectl finds the plugin that install.sh puts on PATH, and `kubectl preempt` runs it."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_plugin_list_finds_the_plugin_after_install_sh(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    env = {**os.environ, "BIN_DIR": str(bin_dir), "HOME": str(tmp_path)}
    install = subprocess.run([str(REPO / "install.sh")], cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=600)
    assert install.returncode == 0, install.stderr
    assert (bin_dir / "kubectl-preempt").exists()

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
