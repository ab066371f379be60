"""The CLI's requests that api.py answers (issue 23): session's (the snapshot read, kube-batch's
pods required, the kinds it ignores noted, one session or many), capture's default file name and
summary, record's duration and summary; cli/ only parses, calls them and renders."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

from kubectl_preempt import api
from kubectl_preempt.errors import InputError, UsageError
from tests.builders import make_node, make_pod


def _snapshot(tmp_path: Path, *extra: dict) -> str:
    items = [make_node("n1").alloc(cpu="4", memory="8Gi").obj(),
             make_pod("a").set("spec.schedulerName", "kube-batch").req(cpu="1").obj(), *extra]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def test_a_session_request_reads_the_snapshot_notes_what_it_ignores_and_runs_one_session(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
                     {"kind": "Queue", "apiVersion": "scheduling.incubator.k8s.io/v1alpha1",
                      "metadata": {"name": "default"}, "spec": {"weight": 1}})
    heard: list[str] = []
    one = api.session_request(path, note=heard.append)
    assert one["binds"] == {"default/a": "n1"}
    # a Queue is kube-batch's: only the ConfigMap is left out
    assert heard == [f"{api.display_name(path)}: ignored ConfigMap (1)"]
    many = api.session_request(path, runs=3, seed=4)
    assert many == api.batch_session_runs(api.load_objects(path), None, runs=3, seed=4)


def test_a_session_request_without_kube_batch_pods_names_the_snapshot_and_the_pods_schedulers(
        tmp_path: Path) -> None:
    path = _snapshot(tmp_path)
    with pytest.raises(InputError) as e:
        api.session_request(path, scheduler_name="volcano")
    assert e.value.source == api.display_name(path)
    assert "no pod has schedulerName volcano (the pods name kube-batch (1))" in str(e.value)


def test_a_scheduler_conf_that_is_not_text_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "c.conf").write_bytes(b"\xff\xfe")
    with pytest.raises(InputError) as e:
        api.read_scheduler_conf(str(tmp_path / "c.conf"))
    assert "is not UTF-8 text" in str(e.value)
    assert api.read_scheduler_conf(None) == (None, "kube-batch's default configuration")


def test_capture_names_its_file_after_a_plain_context_and_the_time() -> None:
    now = datetime(2026, 3, 1, 10, 0, 5, tzinfo=timezone.utc)
    assert api.default_snapshot_filename("arn:aws:eks:eu:1:cluster/prod", now) == \
        "snapshot-arn_aws_eks_eu_1_cluster_prod-20260301T100005Z.json.gz"
    assert api.default_snapshot_filename(None, now) == "snapshot-in-cluster-20260301T100005Z.json.gz"
    doc = {"items": [{"kind": "Node"}, {"kind": "Pod"}, {"kind": "Pod"}, {"kind": "Service"}]}
    assert api.snapshot_summary(doc) == "1 node, 2 pods, 0 PDBs, 0 PriorityClasses, 1 other objects"


def test_record_refuses_a_duration_of_nothing_and_sums_up_what_it_wrote() -> None:
    assert api.record_duration(None) is None
    assert api.record_duration("1m30s") == 90
    with pytest.raises(UsageError):
        api.record_duration("0")
    stats = SimpleNamespace(initial_objects=10, events=15, started=0.0, ended=42.7, relists=1, reason="",
                            per_kind={"Pod": 12, "Node": 3})
    assert api.record_summary(stats, "-") == ("wrote standard output: 10 objects at the start, 5 events over 42s, "
                                              "1 re-list(s) after 410 Gone (3 Node, 12 Pod); ended: done")
