"""Every imitated release is picked from the live API server's /version, a later patch of it too
(a note where a later patch changed a verdict), without a flag."""
from __future__ import annotations

import json

import pytest

from tests.live.fakeapi import FakeAPIServer


@pytest.mark.parametrize("server,want", [
    ("v1.30.1", "v1.30.1"), ("v1.31.1", "v1.31.1"), ("v1.32.2", "v1.32.2"), ("v1.33.0", "v1.33.0"),
    ("v1.34.1", "v1.34.1"), ("v1.35.6", "v1.35.6"), ("v1.36.2", "v1.36.2"), ("v1.36.3", "v1.36.2"),
    ("v1.33.4-eks-1234", "v1.33.0"), ("v1.32.9-gke.1051000", "v1.32.2"), ("v1.35.2-eks-99", "v1.35.6"),
])
def test_live_explain_picks_each_release_from_version(cli, api: FakeAPIServer, server: str, want: str) -> None:
    api.version_info["gitVersion"] = server
    code, out, err = cli("explain", "team-a/api-1", "-o", "json")
    assert code == 0, err
    assert (json.loads(out)["schedulerVersion"], json.loads(out)["schedulerVersionFrom"]) == (want, "live")
    assert "imitating" not in err and "note:" not in err


def test_a_later_patch_that_changed_a_verdict_gets_a_note(cli, api: FakeAPIServer) -> None:
    api.version_info["gitVersion"] = "v1.31.5"
    code, out, err = cli("explain", "team-a/api-1", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["schedulerVersion"] == "v1.31.1"
    assert ("note: the API server names server version v1.31.5: imitating kube-scheduler v1.31.1; later 1.31 "
            "patches pick the minHighestPriority candidate correctly") in err


def test_live_feature_gates_are_checked_against_the_server_s_release(cli, api: FakeAPIServer) -> None:
    api.version_info["gitVersion"] = "v1.33.1"
    code, out, err = cli("explain", "team-a/api-1", "-o", "json", "--feature-gates", "PodLevelResources=true")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["schedulerVersion"], doc["featureGates"]) == ("v1.33.0", {"PodLevelResources": True})
    api.version_info["gitVersion"] = "v1.31.1"
    code, out, err = cli("explain", "team-a/api-1", "--feature-gates", "PodLevelResources=true")
    assert (code, out) == (2, "")
    assert err == "error: --feature-gates: unrecognized feature gate: PodLevelResources (kube-scheduler v1.31.1)\n"
