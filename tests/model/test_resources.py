from __future__ import annotations

import pytest

from kubectl_preempt.model.objects import Pod
from tests.builders import make_pod


def _res(builder):
    r = Pod(builder.obj()).resource
    return r.resource.milli_cpu, r.resource.memory, r.non0_cpu, r.non0_mem


MI = 1024 * 1024


@pytest.mark.parametrize("builder, want", [
    pytest.param(make_pod("a").req(cpu="1", memory="1Gi"), (1000, 1024 * MI, 1000, 1024 * MI),
                 id="one container"),
    pytest.param(make_pod("a").req(cpu="1").container(cpu="500m"), (1500, 0, 1500, 400 * MI),
                 id="containers add up; missing memory counts 200Mi for scoring"),
    pytest.param(make_pod("a"), (0, 0, 100, 200 * MI), id="best effort pod scores as 100m and 200Mi"),
    pytest.param(make_pod("a").req(cpu="1").init_container(cpu="2"), (2000, 0, 2000, 200 * MI),
                 id="an init container larger than the containers sets the request"),
    pytest.param(make_pod("a").req(cpu="1").init_container(sidecar=True, cpu="500m").init_container(cpu="1"),
                 (1500, 0, 1500, 400 * MI),
                 id="a sidecar adds to the containers and runs beside later init containers"),
    pytest.param(make_pod("a").req(cpu="1").overhead(cpu="250m", memory="120Mi"), (1250, 120 * MI, 1250, 320 * MI),
                 id="overhead is added"),
    pytest.param(make_pod("a").req(cpu="1").set("spec.resources", {"requests": {"cpu": "3"}}),
                 (3000, 0, 3000, 200 * MI), id="pod-level requests override the containers' sum"),
])
def test_pod_requests_as_the_scheduler_computes_them(builder, want) -> None:
    assert _res(builder) == want


def test_a_resize_in_progress_counts_the_larger_of_spec_and_status() -> None:
    b = make_pod("a").req(cpu="1").on("n").set("status.containerStatuses", [
        {"name": "main", "resources": {"requests": {"cpu": "2"}}, "allocatedResources": {"cpu": "2"}}])
    assert _res(b)[0] == 2000
