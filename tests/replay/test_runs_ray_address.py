"""replay --runs --ray HOST:PORT: runs go to a Ray cluster that is already up, reached by its
address as a user passes it. A Ray head is started here in a process of its own (its GCS address
read back from it) with token authentication, as Ray starts clusters by default; the command runs
as a user runs it, with the cluster's token in RAY_AUTH_TOKEN (Ray authenticates a connection to
an explicit address only when RAY_AUTH_MODE=token says so). Its JSON is the one `--jobs 1` gives,
byte for byte."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid

import pytest

from tests.conftest import REPO, run_cli

try:
    import ray
except ImportError:  # a checkout set up without --dev; CI's is set up with it
    ray = None

# a head of its own: prints its GCS address (host:port), then waits for stdin to close and
# shuts down what it started (only its own Ray processes: nothing else on the machine is touched)
HEAD = textwrap.dedent("""
    import sys
    import ray
    ctx = ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
                   configure_logging=False)
    print(ctx.address_info["gcs_address"], flush=True)
    sys.stdin.read()
    ray.shutdown()
""")


# the console script beside this interpreter, as install.sh installs it
KUBECTL_PREEMPT = os.path.join(os.path.dirname(sys.executable), "kubectl-preempt")


@pytest.fixture(scope="module")
def ray_env() -> dict[str, str]:
    """The environment of a user of a token-authenticated Ray cluster; this test's own token."""
    return {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": uuid.uuid4().hex}


@pytest.fixture(scope="module")
def ray_head(ray_env: dict[str, str]):
    if ray is None:
        if os.environ.get("CI"):
            pytest.fail("Ray is missing: ./install.sh --dev installs it (the extra kubectl-preempt[ray])")
        pytest.skip("Ray is not installed here: ./install.sh --dev installs it")
    head = subprocess.Popen([sys.executable, "-c", HEAD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=ray_env)
    try:
        address = head.stdout.readline().strip()
        assert ":" in address, "the Ray head printed no address"
        yield address
    finally:
        head.stdin.close()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()


def test_ray_host_port_address_gives_the_json_of_one_local_process(ray_head: str, ray_env: dict[str, str]) -> None:
    host, _, port = ray_head.rpartition(":")
    assert host and port.isdigit()
    trace = str(REPO / "traces" / "demo.jsonl.gz")
    args = ["replay", trace, "--runs", "3", "-o", "json"]
    on_ray = subprocess.run([KUBECTL_PREEMPT, *args, "--ray", ray_head],
                            capture_output=True, text=True, env=ray_env, timeout=300)
    assert on_ray.returncode == 0, on_ray.stderr[-2000:]
    local = run_cli([*args, "--jobs", "1"])
    assert local.code == 0, local.err
    assert on_ray.stdout == local.out

