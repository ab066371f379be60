"""`plan` without --snapshot reads the live cluster as `capture` does: GET only."""
from __future__ import annotations

import json

from tests.live.conftest import api, clean_env, cli, kubeconfig  # noqa: F401 - fixtures
from tests.live.fakeapi import FakeAPIServer


def test_plan_scales_a_live_replica_set_with_reads_only(cli, api: FakeAPIServer) -> None:  # noqa: F811
    code, out, err = cli("plan", "--scale", "batch/replicaset/etl-rs=3", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    w = doc["workloads"][0]
    # etl-2 is terminating: not active (FilterActivePods), so two new pods join etl-1
    assert w["workload"] == "batch/etl-rs" and w["replicas"] == 2
    assert doc["snapshot"]["source"] == "context fake"
    assert api.methods == {"GET"}


def test_plan_live_scale_target_missing_is_bad_input(cli, api: FakeAPIServer) -> None:  # noqa: F811
    code, out, err = cli("plan", "--scale", "batch/statefulset/nope=3")
    assert code == 2 and out == ""
    assert err.startswith("error: context fake: --scale batch/statefulset/nope=3: NAME: StatefulSet batch/nope is not")


def test_plan_reads_the_cluster_kubeconfig_and_context_name(cli, api: FakeAPIServer, kubeconfig,  # noqa: F811
                                                            monkeypatch) -> None:
    # kubectl's --kubeconfig and --context pick the cluster, $KUBECONFIG unset; -o name lists the new pods
    monkeypatch.delenv("KUBECONFIG")
    code, out, err = cli("plan", "--scale", "batch/replicaset/etl-rs=3", "--kubeconfig", str(kubeconfig),
                         "--context", "fake", "-o", "name")
    assert code == 0, err
    assert len(out.splitlines()) == 2 and all(line.startswith("pod/etl-rs-") for line in out.splitlines())
    assert api.methods == {"GET"}
    code, out, err = cli("plan", "--scale", "batch/replicaset/etl-rs=3", "--kubeconfig", str(kubeconfig),
                         "--context", "elsewhere")
    # a context the file does not hold is bad input: the file and the flag named, exit 2
    assert code == 2 and out == "" and err == f'error: {kubeconfig}: --context: context "elsewhere" not found\n'
