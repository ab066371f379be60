"""kubectl preempt plan: bad input as one line and exit 2, the outputs, --html and --dump-decisions."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEMO = "examples/cluster.json"
DEPLOYMENT = "examples/storefront-deployment.yaml"
POD = "examples/api-pod.yaml"


def _write(tmp_path: Path, name: str, docs: list) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump_all(docs))
    return str(p)


@pytest.mark.parametrize("make, want", [
    (lambda t: ["-f", _write(t, "ds.yaml", [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"}}])],
     "ds.yaml: DaemonSet d: kind: kind DaemonSet cannot be planned"),
    (lambda t: ["--scale", "shop/deployment/nope=4"],
     "--scale shop/deployment/nope=4: NAME: Deployment shop/nope is not in the snapshot"),
    (lambda t: ["-f", _write(t, "gold.yaml", [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
         "spec": {"replicas": 2, "template": {"spec": {"priorityClassName": "gold", "containers": [{"name": "c"}]}}}}])],
     "gold.yaml: items[1] (Deployment web): spec.template.spec.priorityClassName: no PriorityClass named \"gold\""),
    (lambda t: ["--scale", "shop/daemonset/x=1"], "--scale shop/daemonset/x=1: KIND: kind \"daemonset\" cannot be scaled"),
    (lambda t: ["--scale", "shop-web-4"], "--scale: expected NAMESPACE/KIND/NAME=REPLICAS"),
    (lambda t: ["-f", DEPLOYMENT, "--duration", "2h"], "--duration: 2h is more than 1h of virtual time"),
    (lambda t: [], "nothing to plan"),
], ids=["an unknown kind", "a --scale target not in the snapshot", "a template no PriorityClass resolves",
        "a kind that cannot be scaled", "a --scale that is not NS/KIND/NAME=N", "a duration beyond 1h", "nothing given"])
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path: Path, make, want: str) -> None:
    run = cli(["plan", "--snapshot", DEMO, *make(tmp_path)], cwd=REPO)
    assert run.code == 2, run
    assert run.out == ""
    # nothing to plan is a missing input: the error, then the usage line, as kubectl prints them
    usage = ["Usage: kubectl preempt plan (-f MANIFEST | --scale NS/KIND/NAME=N) [OPTIONS]"] if want == "nothing to plan" else []
    assert run.err.splitlines()[1:] == usage, run.err
    assert run.err.startswith("error: ") and want in run.err.splitlines()[0], run.err
    assert "Traceback" not in run.err


def test_plan_table_and_data(cli) -> None:
    table = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO], cwd=REPO)
    assert table.code == 0, table
    assert "shop/storefront  Deployment  3" in table.out
    data = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "-o", "json"], cwd=REPO)
    doc = json.loads(data.out)
    assert doc["kind"] == "PlanReport" and doc["workloads"][0]["placed"] == 3
    assert "activity" not in doc
    y = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "-o", "yaml"], cwd=REPO)
    assert yaml.safe_load(y.out) == doc
    wide = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "-o", "wide"], cwd=REPO)
    assert "Pods of shop/storefront" in wide.out


def test_plan_writes_html_and_decision_cases(cli, tmp_path: Path) -> None:
    html, cases = tmp_path / "plan.html", tmp_path / "cases"
    run = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "--html", str(html), "--dump-decisions", str(cases)],
              cwd=REPO)
    assert run.code == 0, run
    assert html.read_text().startswith("<!DOCTYPE html>") or "<html" in html.read_text()[:500]
    files = sorted(cases.glob("*.json"))
    assert len(files) == len(json.loads(cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "-o", "json"],
                                            cwd=REPO).out)["preemptions"])


def test_plan_runs_gives_distributions(cli) -> None:
    run = cli(["plan", "-f", DEPLOYMENT, "--snapshot", DEMO, "--runs", "3", "--jobs", "1", "-o", "json"], cwd=REPO)
    doc = json.loads(run.out)
    assert doc["run"]["of"] == 3 and doc["distribution"]["workloads"][0]["workload"] == "shop/storefront"


def test_plan_max(cli) -> None:
    run = cli(["plan", "--max", "-f", POD, "--snapshot", DEMO, "-o", "json"], cwd=REPO)
    doc = json.loads(run.out)
    assert doc["kind"] == "PlanMaxReport"
    assert doc["withPreemption"]["count"] >= doc["withoutPreemption"]["count"]
    bounded = json.loads(cli(["plan", "--max", "-f", POD, "--snapshot", DEMO, "--max-count", "2", "-o", "json"],
                             cwd=REPO).out)
    assert bounded["withPreemption"]["count"] == 2 and bounded["withPreemption"]["stoppedAt"]["reason"] == "MaxCount"
    bad = cli(["plan", "--max", "--scale", "batch/rs/x=1", "--snapshot", DEMO], cwd=REPO)
    assert bad.code == 2


def test_help_has_examples(cli) -> None:
    run = cli(["plan", "--help"], cwd=REPO)
    assert run.code == 0
    assert "Examples:" in run.out and "kubectl preempt plan --max -f" in run.out and "--scale" in run.out


def test_a_bad_quantity_in_a_template_names_its_field(cli, tmp_path: Path) -> None:
    path = _write(tmp_path, "q.yaml", [{"apiVersion": "apps/v1", "kind": "Deployment",
                                        "metadata": {"name": "web", "namespace": "shop"},
                                        "spec": {"replicas": 1, "template": {"spec": {"containers": [
                                            {"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}}}])
    run = cli(["plan", "-f", path, "--snapshot", DEMO], cwd=REPO)
    assert run.code == 2 and run.err.count("\n") == 1
    assert run.err.startswith(f"error: {path}: Deployment web: spec.template.spec.containers[0].resources.requests.cpu: ")
