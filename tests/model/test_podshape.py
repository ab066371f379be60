"""Every key a pod is remembered by lives in model/podshape.py: one pod shape (node_shape) and the
keys that differ from it on purpose, each telling apart exactly what its readers read."""
from __future__ import annotations

import copy

from kubectl_preempt.model.podshape import (NOT_READ_BY_NODE_LOCAL, batch_shape, cycle_shape, node_shape,
                                            pod_spec_key, requests_key)


def _spec(**extra: object) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "app:1",
                                  "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
                  "priority": 100, "priorityClassName": "high", "terminationGracePeriodSeconds": 30}
    spec.update(extra)
    return spec


def test_the_node_shape_leaves_out_only_what_no_node_local_plugin_reads() -> None:
    base = node_shape(_spec())
    assert base is not None
    for field, value in (("priority", 5), ("priorityClassName", "low"), ("preemptionPolicy", "Never"),
                         ("terminationGracePeriodSeconds", 1)):
        assert field in NOT_READ_BY_NODE_LOCAL and node_shape(_spec(**{field: value})) == base
    for field, value in (("nodeSelector", {"a": "b"}), ("hostname", "h1"), ("tolerations", [{"operator": "Exists"}])):
        assert node_shape(_spec(**{field: value})) != base
    assert node_shape(_spec(hostname=object())) is None


def test_the_cycle_shape_is_the_node_shape_and_everything_it_leaves_out() -> None:
    spec = _spec()
    shape = cycle_shape("default", 100, "PreemptLowerPriority", spec, node_shape(spec))
    assert shape is not None and shape.startswith(node_shape(spec))  # type: ignore[arg-type]
    # what the node shape leaves out, the namespace, the priority and the policy all count
    for other in (cycle_shape("other", 100, "PreemptLowerPriority", spec, node_shape(spec)),
                  cycle_shape("default", 101, "PreemptLowerPriority", spec, node_shape(spec)),
                  cycle_shape("default", 100, "Never", spec, node_shape(spec)),
                  cycle_shape("default", 100, "PreemptLowerPriority", _spec(priorityClassName="low"),
                              node_shape(_spec(priorityClassName="low"))),
                  cycle_shape("default", 100, "PreemptLowerPriority", _spec(image="x"), node_shape(_spec(image="x")))):
        assert other is not None and other != shape
    again = copy.deepcopy(spec)
    assert cycle_shape("default", 100, "PreemptLowerPriority", again, node_shape(again)) == shape
    assert cycle_shape("default", 100, "PreemptLowerPriority", spec, None) is None


def test_the_batch_shape_reads_what_the_v1_16_predicates_read_and_no_more() -> None:
    base = batch_shape(_spec())
    # tasks of one job differ in their hostname and env: one shape
    assert batch_shape(_spec(hostname="worker-3", subdomain="job")) == base
    # the requests in another order: one shape
    reordered = _spec()
    reordered["containers"][0]["resources"]["requests"] = {"memory": "1Gi", "cpu": "1"}
    assert batch_shape(reordered) == base
    more = _spec()
    more["containers"][0]["resources"]["requests"]["cpu"] = "2"
    ports = _spec()
    ports["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    for other in (more, ports, _spec(nodeSelector={"a": "b"}), _spec(tolerations=[{"operator": "Exists"}]),
                  _spec(affinity={"nodeAffinity": {}})):
        assert batch_shape(other) != base


def test_the_requests_key_reads_the_requests_and_the_status_resources_only() -> None:
    base = requests_key(_spec(), {})
    assert requests_key(_spec(hostname="h", image="other"), {"phase": "Running"}) == base
    assert requests_key(_spec(overhead={"cpu": "100m"}), {}) != base
    resized = {"containerStatuses": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}
    assert requests_key(_spec(), resized) != base


def test_the_spec_key_is_the_whole_spec_with_the_node_name_blanked() -> None:
    pending = pod_spec_key(_spec())
    assert pod_spec_key(_spec(nodeName="node-1")) == pod_spec_key(_spec(nodeName="node-2"))
    assert pod_spec_key(_spec(nodeName="node-1")) != pending  # blanked, not removed
    assert pod_spec_key(_spec(hostname="h")) != pending
    assert pod_spec_key(_spec(nodeName=5)) is None and pod_spec_key({"x": object()}) is None
