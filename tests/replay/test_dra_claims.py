"""A device one pod got is not given to the next (replay/dra_claims.py): dynamicresources.go
PreBind writes the claim's allocation and reservation, and the resourceclaim controller releases
them once the pod is gone."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.replay.api import replay
from kubectl_preempt.replay.simulate import Listener
from tests.builders import make_node, make_pod

from .helpers import START, ev, trace

DRIVER = "gpu.example.com"
DEVICE_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpus"},
         "spec": {"driver": DRIVER, "nodeName": "n1", "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}]}}


def claim(name: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", "uid": f"claim-{name}"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}, "status": {}}


class Bound(Listener):
    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def bound(self, t: float, pod: Any, node: str) -> None:
        self.at[pod.name] = round(t - START, 3)


def test_the_one_device_goes_to_one_pod_until_that_pod_is_gone() -> None:
    p1 = make_pod("p1").req(cpu="1").resource_claim("gpu", claim="c1").obj()
    tr = trace(ev(0, "ADDED", make_node("n1").alloc(cpu="8", memory="8Gi").obj()), ev(0, "ADDED", DEVICE_CLASS),
               ev(0, "ADDED", SLICE), ev(0, "ADDED", claim("c1")), ev(0, "ADDED", claim("c2")),
               ev(1, "ADDED", p1), ev(1, "ADDED", make_pod("p2").req(cpu="1").resource_claim("gpu", claim="c2").obj()),
               ev(10, "DELETED", p1), end=30)
    bound = Bound()
    replay(tr, kubernetes_version="v1.34", listener=bound)
    # p1 took gpu-0 (PreBind: c1 allocated, reserved for p1); p2 got it once p1 was gone and the
    # controller deallocated c1, the claim update requeuing p2
    assert bound.at["p1"] == 1.0
    assert 10.0 <= bound.at["p2"] < 12.0
