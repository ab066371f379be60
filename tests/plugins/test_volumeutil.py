"""volumeutil: PV node affinity as CheckNodeAffinity matches it, selectors, CSI translation."""
from __future__ import annotations

from typing import Any

import pytest

from kubectl_preempt.plugins.volumeutil import csitranslation as ct
from kubectl_preempt.plugins.volumeutil.helpers import (CompiledNodeSelector, compile_label_selector,
                                                        match_topology_selector_terms)

LABELS = {"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "zone-a", "gen": "5"}


def term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if exprs:
        t["matchExpressions"] = list(exprs)
    if fields:
        t["matchFields"] = fields
    return t


def req(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


@pytest.mark.parametrize("terms,expect", [
    ([term(req("kubernetes.io/hostname", "In", "node-a"))], True),
    ([term(req("kubernetes.io/hostname", "In", "node-b"))], False),
    ([term(req("kubernetes.io/hostname", "In", "node-b")), term(req("gen", "Gt", "4"))], True),
    ([term(req("gen", "Lt", "5"))], False),
    ([term(req("gen", "Gt", "four"))], False),
    ([term(req("kubernetes.io/hostname", "In"))], False),
    ([term(req("kubernetes.io/hostname", "Exists", "x"))], False),
    ([term(req("missing", "DoesNotExist"))], True),
    ([term(req("zone", "NotIn", "zone-a"))], True),
    ([term(fields=[req("metadata.name", "In", "node-z")])], True),
    ([term(fields=[req("metadata.name", "Gt", "1")])], False),
    ([{}], False),
    ([], False),
], ids=["In matches", "In with another value does not", "terms are ORed", "Lt compares integers",
        "Gt with a non-integer value never matches", "In without values is invalid",
        "Exists with values is invalid", "DoesNotExist matches a missing label",
        "NotIn matches a missing label", "matchFields alone match any node: the node has no name",
        "matchFields with an invalid operator never match", "an empty term selects nothing",
        "no terms select nothing"])
def test_pv_node_affinity(terms: list, expect: bool) -> None:
    assert CompiledNodeSelector({"nodeSelectorTerms": terms}).matches(LABELS) is expect


def test_label_selector_validation() -> None:
    assert compile_label_selector({"matchLabels": {"a": "b"}}) is not None
    assert compile_label_selector({"matchLabels": {"a/b/c": "x"}}) is None
    assert compile_label_selector({"matchExpressions": [req("a", "Gt", "1")]}) is None
    assert compile_label_selector({}) == ()


def test_topology_selector_terms() -> None:
    zone = [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-a"]}]}]
    assert match_topology_selector_terms(None, LABELS)
    assert match_topology_selector_terms(zone, LABELS)
    assert not match_topology_selector_terms(zone, {"topology.kubernetes.io/zone": "zone-b"})
    assert not match_topology_selector_terms([{"matchLabelExpressions": []}], LABELS)


@pytest.mark.parametrize("volume,expect", [
    ({"gcePersistentDisk": {"pdName": "d1"}}, ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d1")),
    ({"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-123"}}, ("ebs.csi.aws.com", "vol-123")),
    ({"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/disks/d"}}, ("disk.csi.azure.com", "/subscriptions/s/disks/d")),
    ({"cinder": {"volumeID": "c-1"}}, ("cinder.csi.openstack.org", "c-1")),
], ids=["GCE PD", "AWS EBS with a zone URL", "Azure disk", "Cinder"])
def test_inline_volume_handles(volume: dict, expect: tuple) -> None:
    assert ct.inline_volume_handle({"name": "v", **volume}) == expect


def test_gce_pv_translation_moves_zone_affinity_to_the_driver_key() -> None:
    pv = {"metadata": {"name": "pv", "labels": {"failure-domain.beta.kubernetes.io/zone": "us-central1-a"}},
          "spec": {"gcePersistentDisk": {"pdName": "d1"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                       req("failure-domain.beta.kubernetes.io/zone", "In", "us-central1-a"),
                       req("failure-domain.beta.kubernetes.io/region", "In", "us-central1")]}]}}}}
    out = ct.translated_pv(pv)
    keys = [e["key"] for e in out["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"]]
    assert keys == ["topology.gke.io/zone", "topology.kubernetes.io/region"]
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == \
        "failure-domain.beta.kubernetes.io/zone"  # the snapshot's object is not modified


def test_ebs_pv_translation_adds_affinity_from_zone_labels() -> None:
    pv = {"metadata": {"name": "pv", "labels": {"topology.kubernetes.io/zone": "us-east-1a__us-east-1b"}},
          "spec": {"awsElasticBlockStore": {"volumeID": "vol-1"}}}
    out = ct.translated_pv(pv)
    assert out["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [req("topology.ebs.csi.aws.com/zone", "In", "us-east-1a", "us-east-1b")]}]


def test_bad_ebs_volume_id_fails_translation() -> None:
    with pytest.raises(ct.TranslationError):
        ct.translated_pv({"metadata": {"name": "pv"}, "spec": {"awsElasticBlockStore": {"volumeID": "aws://zone/bad"}}})
