from __future__ import annotations

import pytest

from kubectl_preempt.model.admission import admit
from kubectl_preempt.model.objects import PriorityClass
from tests.builders import make_pod, make_priority_class


def _term(**extra):
    t = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
    t.update(extra)
    return t


@pytest.mark.parametrize("term, want", [
    pytest.param(_term(matchLabelKeys=["version"]),
                 [{"key": "version", "operator": "In", "values": ["v2"]}], id="matchLabelKeys becomes an In requirement"),
    pytest.param(_term(mismatchLabelKeys=["team"]),
                 [{"key": "team", "operator": "NotIn", "values": ["blue"]}], id="mismatchLabelKeys becomes NotIn"),
    pytest.param(_term(matchLabelKeys=["absent"]), [], id="a key the pod lacks adds nothing"),
])
def test_admission_merges_label_keys_into_pod_affinity(term, want) -> None:
    raw = make_pod("p").labels(app="web", version="v2", team="blue").affinity(
        {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}).obj()
    pod = admit(raw, {})
    got = pod.spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert got["labelSelector"].get("matchExpressions", []) == want
    # the caller's manifest is not changed
    assert "matchExpressions" not in raw["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]


def test_admission_gives_priority_from_the_class_and_unbinds() -> None:
    raw = make_pod("p").priority_class("high").on("node-1").obj()
    classes = {"high": PriorityClass(make_priority_class("high", 1000, policy="Never"))}
    pod = admit(raw, classes)
    assert (pod.priority, pod.preemption_policy, pod.node_name) == (1000, "Never", "")
