"""replay --runs over Ray: a local Ray instance started here runs the runs, and the JSON is the
one local processes give, byte for byte. Ray comes with `./install.sh --dev`."""
from __future__ import annotations

import os

import orjson
import pytest

from kubectl_preempt.replay.api import replay

from .test_runs import tied_trace

try:
    import ray
except ImportError:  # a checkout set up without --dev; CI's is set up with it
    ray = None


@pytest.fixture(scope="module")
def local_ray():
    if ray is None:
        if os.environ.get("CI"):
            pytest.fail("Ray is missing: ./install.sh --dev installs it (the extra kubectl-preempt[ray])")
        pytest.skip("Ray is not installed here: ./install.sh --dev installs it")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()


def test_runs_on_ray_give_the_same_json_as_local_processes(local_ray: None) -> None:
    tr = tied_trace()
    on_ray = orjson.dumps(replay(tr, runs=4, ray_address="local"))
    assert ray.is_initialized()  # the runner used the instance it found and left it running
    assert on_ray == orjson.dumps(replay(tr, runs=4, jobs=1))
    assert on_ray == orjson.dumps(replay(tr, runs=4, jobs=2))
