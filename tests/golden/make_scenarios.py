"""Writes the inputs of the golden scenarios (tests/golden/<scenario>/) and README's examples/.

    .venv/bin/python tests/golden/make_scenarios.py      # inputs
    .venv/bin/python -m pytest --update-golden           # expected outputs; review the diff

Each scenario is a small cluster built with tests/builders.py, the arguments of one run (`cmd`,
paths relative to the folder) and optionally `stdin`.
"""
from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from kubectl_preempt.batch.conf import ALL_ACTIONS_CONF  # noqa: E402
from tests.builders import (make_node, make_pdb, make_pod, make_pod_group, make_priority_class,  # noqa: E402
                            make_queue)

EXAMPLES = REPO / "examples"


def as_list(objs: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objs}


def json_bytes(objs: list[dict]) -> bytes:
    return (json.dumps(as_list(objs), indent=2) + "\n").encode()


def yaml_stream(objs: list[dict]) -> bytes:
    return yaml.safe_dump_all(objs, explicit_start=True, sort_keys=False).encode()


# --- clusters ---------------------------------------------------------------------------------

def shop() -> list[dict]:
    """Four nodes, full of batch work; a checkout pod of higher priority arrives.

    node-a: two priority-10 batch pods of 2 CPUs; node-b: two priority-100 reports of 2 CPUs;
    node-c: one priority-10 pod of 3 CPUs guarded by a PDB that allows no disruption;
    node-d: tainted for GPUs. checkout needs 3 CPUs at priority 1000.
    """
    objs: list[dict] = [
        make_priority_class("batch", 10),
        make_priority_class("reports", 100),
        make_priority_class("serving", 1000),
        make_node("node-a").alloc(cpu="4", memory="16Gi").zone("zone-1").obj(),
        make_node("node-b").alloc(cpu="4", memory="16Gi").zone("zone-1").obj(),
        make_node("node-c").alloc(cpu="4", memory="16Gi").zone("zone-2").obj(),
        make_node("node-d").alloc(cpu="4", memory="16Gi").zone("zone-2").taint("dedicated", "gpu").obj(),
        make_pdb("ledger", {"matchLabels": {"app": "ledger"}}, 0, namespace="batch"),
    ]
    objs += [
        make_pod("etl-1").ns("batch").priority_class("batch").priority(10).label("app", "etl")
        .req(cpu="2", memory="2Gi").on("node-a").start_time("2026-03-01T08:00:00Z").obj(),
        make_pod("etl-2").ns("batch").priority_class("batch").priority(10).label("app", "etl")
        .req(cpu="2", memory="2Gi").on("node-a").start_time("2026-03-01T09:30:00Z").obj(),
        make_pod("report-1").ns("batch").priority_class("reports").priority(100)
        .req(cpu="2", memory="4Gi").on("node-b").start_time("2026-03-01T07:00:00Z").obj(),
        make_pod("report-2").ns("batch").priority_class("reports").priority(100)
        .req(cpu="2", memory="4Gi").on("node-b").start_time("2026-03-01T07:05:00Z").obj(),
        make_pod("ledger-0").ns("batch").priority_class("batch").priority(10).label("app", "ledger")
        .req(cpu="3", memory="1Gi").on("node-c").start_time("2026-03-01T06:00:00Z").obj(),
        make_pod("cuda-0").ns("ml").priority(500).toleration("dedicated", "gpu", "NoSchedule")
        .req(cpu="3", memory="8Gi").on("node-d").start_time("2026-03-01T05:00:00Z").obj(),
        make_pod("checkout").ns("shop").priority_class("serving").priority(1000)
        .req(cpu="3", memory="1Gi").obj(),
    ]
    return objs


def roomy() -> list[dict]:
    """Three nodes with room; web fits on two of them and node-3's image cache favours it."""
    return [
        make_node("node-1").alloc(cpu="8", memory="16Gi").obj(),
        make_node("node-2").alloc(cpu="8", memory="16Gi").obj(),
        make_node("node-3").alloc(cpu="8", memory="16Gi").image("registry.example/web:2", 400 * 1024 * 1024).obj(),
        make_node("node-4").alloc(cpu="1", memory="16Gi").obj(),
        make_pod("api-0").req(cpu="4", memory="8Gi").on("node-1").obj(),
        make_pod("web").image("registry.example/web:2").req(cpu="2", memory="1Gi").obj(),
    ]


def stuck() -> list[dict]:
    """No node can take big: node-1 is full of higher-priority pods, node-2 is too small,
    node-3 is cordoned, node-4 lacks the disk=ssd label."""
    return [
        make_node("node-1").alloc(cpu="4", memory="8Gi").label("disk", "ssd").obj(),
        make_node("node-2").alloc(cpu="2", memory="8Gi").label("disk", "ssd").obj(),
        make_node("node-3").alloc(cpu="8", memory="8Gi").label("disk", "ssd").unschedulable().obj(),
        make_node("node-4").alloc(cpu="8", memory="8Gi").obj(),
        make_pod("db-0").priority(5000).req(cpu="3").on("node-1").obj(),
        make_pod("big").priority(100).node_selector(disk="ssd").req(cpu="4").obj(),
        make_pod("polite").priority(100000).preemption_policy("Never").node_selector(disk="ssd").req(cpu="4").obj(),
    ]


def guarded() -> list[dict]:
    """node-a runs three web replicas under a PDB that allows one disruption; an api pod needs the
    room of all three, so one victim is within the budget and two violate it. node-b is too small."""
    objs: list[dict] = [
        make_node("node-a").alloc(cpu="6", memory="16Gi").obj(),
        make_node("node-b").alloc(cpu="1", memory="16Gi").obj(),
        make_pdb("web", {"matchLabels": {"app": "web"}}, 1, namespace="shop"),
    ]
    objs += [make_pod(f"web-{i}").ns("shop").priority(10).label("app", "web").req(cpu="2", memory="1Gi")
             .on("node-a").start_time(f"2026-03-01T0{i}:00:00Z").obj() for i in (1, 2, 3)]
    objs.append(make_pod("api").ns("shop").priority(1000).req(cpu="6", memory="1Gi").obj())
    return objs


def queue(other_kinds: bool = True) -> list[dict]:
    """Several pending pods in two namespaces, a finished pod, and objects the scheduler does not read."""
    objs = shop()
    objs += [
        make_pod("search").ns("shop").priority(1000).req(cpu="1").obj(),
        make_pod("etl-3").ns("batch").priority(10).req(cpu="2").obj(),
        make_pod("done").ns("batch").set("status.phase", "Succeeded").obj(),
    ]
    if other_kinds:
        objs += [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "flags", "namespace": "shop"}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token", "namespace": "shop"}},
        ]
    return objs


def batch_cluster() -> list[dict]:
    """kube-batch's cluster: three nodes; queue analytics runs six tasks of ml/train (all 12 cpu),
    queue serving (same weight) wants room for shop/api (a gang of 2) and shop/sweep (a gang of 3),
    ml/etl (higher priority, analytics) waits for 2 cpu, and ml/probe (no PodGroup) asks for nothing."""
    objs = [make_node(n).alloc(cpu="4", memory="16Gi", pods="110").obj() for n in ("node-a", "node-b", "node-c")]
    objs += [make_queue("analytics", 1), make_queue("serving", 1), make_queue("default", 1),
             make_priority_class("batch-low", 100), make_priority_class("batch-high", 1000)]
    objs += [make_pod_group("train", 2, "analytics", "ml", "batch-low"),
             make_pod_group("etl", 1, "analytics", "ml", "batch-high"),
             make_pod_group("api", 2, "serving", "shop", "batch-high"),
             make_pod_group("sweep", 3, "serving", "shop", "batch-low")]

    def task(name: str, ns: str, group: str, cpu: str, prio: int, created: str, node: str | None = None) -> dict:
        b = make_pod(name).ns(ns).group(group).req(cpu=cpu, memory="2Gi").priority(prio).created(created)
        b.priority_class("batch-high" if prio == 1000 else "batch-low")
        if node:
            b.running(node)
        return b.obj()

    for i, n in enumerate(["node-a", "node-a", "node-b", "node-b", "node-c", "node-c"]):
        objs.append(task(f"train-{i}", "ml", "train", "2", 100, f"2026-03-01T08:00:0{i}Z", n))
    objs.append(task("etl-0", "ml", "etl", "2", 1000, "2026-03-01T09:00:00Z"))
    for i in range(2):
        objs.append(task(f"api-{i}", "shop", "api", "2", 1000, f"2026-03-01T09:10:0{i}Z"))
    for i in range(3):
        objs.append(task(f"sweep-{i}", "shop", "sweep", "4", 100, f"2026-03-01T09:20:0{i}Z"))
    objs.append(make_pod("probe").ns("ml").set("spec.schedulerName", "kube-batch")
                .created("2026-03-01T09:30:00Z").obj())
    return objs


KUBE_BATCH_CONF = ALL_ACTIONS_CONF.encode()


def new_pod() -> dict:
    pod = make_pod("fraud-check").ns("shop").priority_class("serving").req(cpu="2", memory="1Gi").obj()
    # a manifest as a person writes it: no status, no admission-set priority
    for k in ("uid", "creationTimestamp"):
        pod["metadata"].pop(k)
    pod.pop("status")
    return pod


SCHED_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: ImageLocality
"""


# --- scenarios ---------------------------------------------------------------------------------

Files = dict[str, bytes]
SCENARIOS: dict[str, Callable[[], tuple[str, Files]]] = {}


def scenario(name: str):  # noqa: ANN201
    def add(fn: Callable[[], tuple[str, Files]]) -> Callable[[], tuple[str, Files]]:
        SCENARIOS[name] = fn
        return fn
    return add


@scenario("preempt-table")
def _() -> tuple[str, Files]:
    return "explain shop/checkout --snapshot snapshot.json", {"snapshot.json": json_bytes(shop())}


@scenario("preempt-wide")
def _() -> tuple[str, Files]:
    return "explain checkout -n shop --snapshot snapshot.json -o wide", {"snapshot.json": json_bytes(shop())}


@scenario("preempt-json")
def _() -> tuple[str, Files]:
    return "explain shop/checkout --snapshot snapshot.json -o json", {"snapshot.json": json_bytes(shop())}


@scenario("preempt-pdb")
def _() -> tuple[str, Files]:
    return "explain shop/api --snapshot snapshot.json", {"snapshot.json": json_bytes(guarded())}


@scenario("preempt-pdb-json")
def _() -> tuple[str, Files]:
    return "explain shop/api --snapshot snapshot.json -o json", {"snapshot.json": json_bytes(guarded())}


@scenario("scheduled-table")
def _() -> tuple[str, Files]:
    return "explain default/web --snapshot snapshot.yaml", {"snapshot.yaml": yaml_stream(roomy())}


@scenario("scheduled-yaml")
def _() -> tuple[str, Files]:
    return "explain web --snapshot snapshot.yaml -o yaml", {"snapshot.yaml": yaml_stream(roomy())}


@scenario("scheduled-config")
def _() -> tuple[str, Files]:
    return ("explain web --snapshot snapshot.yaml --config scheduler.yaml -o wide",
            {"snapshot.yaml": yaml_stream(roomy()), "scheduler.yaml": SCHED_CONFIG.encode()})


@scenario("unschedulable")
def _() -> tuple[str, Files]:
    return "explain default/big --snapshot snapshot.json", {"snapshot.json": json_bytes(stuck())}


@scenario("preemption-never")
def _() -> tuple[str, Files]:
    return "explain default/polite --snapshot snapshot.json", {"snapshot.json": json_bytes(stuck())}


@scenario("all-namespaces-gz")
def _() -> tuple[str, Files]:
    # gzipped YAML stream without a telling extension: detected by its magic number
    return "explain -A --snapshot snapshot.dat", {"snapshot.dat": gzip.compress(yaml_stream(queue()), mtime=0)}


@scenario("namespace-json")
def _() -> tuple[str, Files]:
    return "explain -n shop --snapshot snapshot.json -o json", {"snapshot.json": json_bytes(queue())}


@scenario("manifest")
def _() -> tuple[str, Files]:
    return ("explain -f fraud-check.yaml --snapshot snapshot.json",
            {"snapshot.json": json_bytes(shop()), "fraud-check.yaml": yaml.safe_dump(new_pod(), sort_keys=False).encode()})


@scenario("stdin-case-file")
def _() -> tuple[str, Files]:
    case = {"name": "0000-example", "pod": "shop/checkout", "objects": shop(), "expect": {"outcome": "Preempted"}}
    return "explain shop/checkout --snapshot -", {"stdin": json.dumps(case).encode()}


@scenario("error-unknown-pod")
def _() -> tuple[str, Files]:
    return "explain shop/nope --snapshot snapshot.json", {"snapshot.json": json_bytes(shop())}


@scenario("error-bad-quantity")
def _() -> tuple[str, Files]:
    objs = shop()
    objs[4]["status"]["allocatable"]["cpu"] = "4 cores"
    return "explain shop/checkout --snapshot snapshot.json", {"snapshot.json": json_bytes(objs)}


@scenario("error-malformed-yaml")
def _() -> tuple[str, Files]:
    text = yaml_stream(shop()).decode().replace("name: node-b", "name: [node-b", 1)
    return "explain shop/checkout --snapshot snapshot.yaml", {"snapshot.yaml": text.encode()}


@scenario("error-truncated-gz")
def _() -> tuple[str, Files]:
    data = gzip.compress(json_bytes(shop()), mtime=0)
    return "explain shop/checkout --snapshot snapshot.json.gz", {"snapshot.json.gz": data[: len(data) // 2]}


@scenario("error-manifest-kind")
def _() -> tuple[str, Files]:
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    return ("explain -f deploy.yaml --snapshot snapshot.json",
            {"snapshot.json": json_bytes(shop()), "deploy.yaml": yaml.safe_dump(deploy).encode()})


@scenario("session-table")
def _() -> tuple[str, Files]:
    return ("session --snapshot cluster.yaml --scheduler-conf kube-batch.conf",
            {"cluster.yaml": yaml_stream(batch_cluster()), "kube-batch.conf": KUBE_BATCH_CONF})


@scenario("session-json")
def _() -> tuple[str, Files]:
    return "session --snapshot cluster.json -o json", {"cluster.json": json_bytes(batch_cluster())}


@scenario("explain-batch")
def _() -> tuple[str, Files]:
    return ("explain ml/train-2 shop/api-1 --snapshot cluster.yaml --scheduler-conf kube-batch.conf",
            {"cluster.yaml": yaml_stream(batch_cluster()), "kube-batch.conf": KUBE_BATCH_CONF})


@scenario("error-batch-unknown-queue")
def _() -> tuple[str, Files]:
    objs = batch_cluster()
    for o in objs:
        if o["kind"] == "PodGroup" and o["metadata"]["name"] == "sweep":
            o["spec"]["queue"] = "research"
    return "session --snapshot cluster.yaml", {"cluster.yaml": yaml_stream(objs)}


@scenario("error-batch-conf")
def _() -> tuple[str, Files]:
    return ("session --snapshot cluster.yaml --scheduler-conf kube-batch.conf",
            {"cluster.yaml": yaml_stream(batch_cluster()),
             "kube-batch.conf": KUBE_BATCH_CONF.replace(b"name: drf", b"name: fairshare")})


# --- traces -------------------------------------------------------------------------------------

T0 = "2026-03-01T10:00:00Z"


def _at(seconds: float) -> str:
    whole, frac = divmod(round(seconds * 1000), 1000)
    return f"2026-03-01T10:{whole // 60:02d}:{whole % 60:02d}" + (f".{frac:03d}Z" if frac else "Z")


def checkout_trace() -> bytes:
    """A recording of one preemption, small enough to read whole.

    Two nodes full of batch work (class batch, 100); the PDB `ledger` allows no disruption of
    batch/ledger-0. At 10:00:05 shop/checkout (class serving, 1000, 3 CPUs) is created; the
    recorded scheduler preempts batch/etl-2 on node-a (its DisruptionTarget, then its deletion
    30 s later), nominates node-a and binds checkout there. A report pod created at 10:00:40
    waits: nothing of lower priority is left to evict for it.
    """
    objs: list[dict] = [
        make_priority_class("batch", 100),
        make_priority_class("serving", 1000),
        make_node("node-a").alloc(cpu="4", memory="16Gi").zone("zone-1").obj(),
        make_node("node-b").alloc(cpu="4", memory="16Gi").zone("zone-2").obj(),
        make_pdb("ledger", {"matchLabels": {"app": "ledger"}}, 0, namespace="batch"),
        make_pod("etl-1").ns("batch").priority_class("batch").priority(100).label("app", "etl")
        .req(cpu="1", memory="2Gi").on("node-a").start_time("2026-03-01T08:00:00Z").obj(),
        make_pod("etl-2").ns("batch").priority_class("batch").priority(100).label("app", "etl")
        .req(cpu="3", memory="2Gi").on("node-a").start_time("2026-03-01T09:30:00Z").obj(),
        make_pod("ledger-0").ns("batch").priority_class("batch").priority(100).label("app", "ledger")
        .req(cpu="3", memory="1Gi").on("node-b").start_time("2026-03-01T09:00:00Z").obj(),
    ]
    for o in objs:
        if o["kind"] == "Pod":
            o["metadata"]["creationTimestamp"] = "2026-03-01T07:00:00Z"
    checkout = make_pod("checkout").ns("shop").priority_class("serving").priority(1000) \
        .req(cpu="3", memory="1Gi").obj()
    checkout["metadata"]["creationTimestamp"] = _at(5)
    checkout["status"] = {"phase": "Pending"}
    report = make_pod("report-1").ns("batch").priority_class("batch").priority(100) \
        .req(cpu="2", memory="1Gi").obj()
    report["metadata"]["creationTimestamp"] = _at(40)
    report["status"] = {"phase": "Pending"}
    etl2 = next(o for o in objs if o["metadata"]["name"] == "etl-2")

    def with_(o: dict, **changes: Any) -> dict:
        o = json.loads(json.dumps(o))
        for path, v in changes.items():
            cur = o
            keys = path.split("__")
            for k in keys[:-1]:
                cur = cur.setdefault(k, {})
            cur[keys[-1]] = v
        return o

    target = with_(etl2, status__conditions=[{"type": "DisruptionTarget", "status": "True",
                                              "reason": "PreemptionByScheduler",
                                              "message": "default-scheduler: preempting to accommodate a higher priority pod",
                                              "lastTransitionTime": _at(5.1)}])
    going = with_(target, metadata__deletionTimestamp=_at(5.15), metadata__deletionGracePeriodSeconds=30)
    nominated = with_(checkout, status__nominatedNodeName="node-a")
    bound = with_(nominated, spec__nodeName="node-a", status__phase="Running", status__startTime=_at(36))
    events: list[tuple[float, str, dict]] = [(0, "ADDED", o) for o in objs]
    events += [(5, "ADDED", checkout), (5.1, "MODIFIED", target), (5.15, "MODIFIED", going),
               (5.2, "MODIFIED", nominated), (35.15, "DELETED", going), (35.2, "MODIFIED", bound),
               (40, "ADDED", report),
               (90, "MODIFIED", with_(objs[3], metadata__labels={**objs[3]["metadata"]["labels"], "team": "checkout"}))]
    header = {"apiVersion": "kubectl-preempt/v1", "kind": "Trace", "startTime": T0,
              "source": {"context": "golden", "serverVersion": "v1.34.1"}, "redacted": False}
    lines = [json.dumps(header)] + [json.dumps({"time": _at(t), "type": ty, "object": o}) for t, ty, o in events]
    return ("\n".join(lines) + "\n").encode()


def serving_demoted() -> bytes:
    """A proposal: serving drops to 50, below batch."""
    return yaml_stream([make_priority_class("serving", 50)])


def batch_raised() -> bytes:
    """A proposal: batch rises to 2000, above serving (report-1, created after, may evict checkout)."""
    return yaml_stream([make_priority_class("batch", 2000)])


@scenario("replay-simulate-table")
def _() -> tuple[str, Files]:
    return "replay trace.jsonl", {"trace.jsonl": checkout_trace()}


@scenario("replay-simulate-json")
def _() -> tuple[str, Files]:
    return "replay trace.jsonl -o json", {"trace.jsonl": checkout_trace()}


@scenario("replay-follow-table")
def _() -> tuple[str, Files]:
    return "replay trace.jsonl --follow", {"trace.jsonl": checkout_trace()}


@scenario("replay-follow-json")
def _() -> tuple[str, Files]:
    return "replay trace.jsonl --follow -o json", {"trace.jsonl": checkout_trace()}


@scenario("check-table")
def _() -> tuple[str, Files]:
    return ("check --trace trace.jsonl --proposed proposed.yaml --max-new-victims 0",
            {"trace.jsonl": checkout_trace(), "proposed.yaml": batch_raised()})


@scenario("check-json")
def _() -> tuple[str, Files]:
    return ("check --trace trace.jsonl --proposed proposed.yaml --max-new-victims 0 -o json",
            {"trace.jsonl": checkout_trace(), "proposed.yaml": serving_demoted()})


def preemption_records() -> bytes:
    """A snapshot as `capture` writes it (captured-at 10:30), holding the records `history` joins:
    a victim with its condition and an events.k8s.io/v1 Event whose preemptor still runs; a
    v1 Event of a victim and a preemptor both gone (named by the Event's related); one whose
    preemptor no object names; a victim with only its condition and a pod nominated to its node;
    an Event older than the hour before the capture."""
    from tests.history.objects import preempted_event, with_condition

    def at(clock: str) -> float:
        from kubectl_preempt.model.rfc3339 import parse_seconds

        t = parse_seconds(f"2026-03-01T{clock}Z")
        assert t is not None
        return t

    objs = [make_node(n).alloc(cpu="4", memory="8Gi").obj() for n in ("node-a", "node-b", "node-c")]
    objs.append(make_pod("checkout-7d9f8c6b5-x2k4q").ns("shop").uid("uid-checkout").priority(1000)
                .priority_class("serving").req(cpu="3").running("node-a").obj())
    objs.append(with_condition(make_pod("etl-nightly-29015400-kq7vd").ns("batch").uid("uid-etl").priority(10)
                               .priority_class("batch").req(cpu="3").running("node-a")
                               .terminating("2026-03-01T10:29:50Z").obj(), at("10:29:20")))
    objs.append(preempted_event("batch/etl-nightly-29015400-kq7vd", "uid-etl", "uid-checkout", "node-a",
                                at("10:29:20.218"), related="shop/checkout-7d9f8c6b5-x2k4q", group="events.k8s.io/v1"))
    objs.append(preempted_event("batch/report-weekly-5f7c9d8b4-zzq8l", "uid-report", "uid-sf", "node-b",
                                at("10:12:04.5"), related="shop/storefront-557bf87458-6hxtj"))
    objs.append(preempted_event("batch/cache-warmer-0", "uid-cache", "uid-lost", "node-b", at("10:20:41")))
    objs.append(make_pod("search-indexer-6b8f9c7d5-p2xkq").ns("shop").uid("uid-search").priority(1000)
                .priority_class("serving").req(cpu="3").nominated("node-c").obj())
    objs.append(with_condition(make_pod("ledger-0").ns("batch").uid("uid-ledger").priority(10)
                               .priority_class("batch").req(cpu="3").running("node-c")
                               .terminating("2026-03-01T10:30:20Z").obj(), at("10:29:50")))
    objs.append(preempted_event("batch/old-1", "uid-old", "uid-sf", "node-b", at("09:10:00")))
    doc = as_list(objs)
    doc["metadata"]["annotations"] = {"kubectl-preempt/captured-at": "2026-03-01T10:30:00Z"}
    return (json.dumps(doc, indent=2) + "\n").encode()


@scenario("history-table")
def _() -> tuple[str, Files]:
    return "history -A --snapshot snapshot.json", {"snapshot.json": preemption_records()}


# README's examples run against these files (tests/test_cli_explain.py checks every one)
README_EXAMPLES: Files = {
    "cluster.json": json_bytes(queue(other_kinds=False)),
    "fraud-check.yaml": yaml.safe_dump(new_pod(), sort_keys=False).encode(),
    "broken.json": json_bytes(shop()).replace(b'"cpu": "3"', b'"cpu": "3 cores"', 1),
    "batch-cluster.yaml": yaml_stream(batch_cluster()),
    "kube-batch.conf": KUBE_BATCH_CONF,
}


def write(folder: Path, files: Files, cmd: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    if cmd is not None:
        (folder / "cmd").write_text(cmd + "\n")


def main() -> None:
    for path in HERE.iterdir():
        # a scenario that was removed here; the terminal-width goldens (an `env` file, a `cmd`
        # reading another scenario's or examples/ inputs) are written by hand, not by this script
        if path.is_dir() and path.name not in SCENARIOS and (path / "cmd").exists() \
                and not (path / "env").exists():
            shutil.rmtree(path)
    for name, make in SCENARIOS.items():
        cmd, files = make()
        folder = HERE / name
        for old in folder.glob("*") if folder.exists() else []:
            if old.name != "expected.txt":
                old.unlink()
        write(folder, files, cmd)
    write(EXAMPLES, README_EXAMPLES)
    print(f"wrote {len(SCENARIOS)} scenarios under {HERE.relative_to(REPO)} and {EXAMPLES.relative_to(REPO)}/")


if __name__ == "__main__":
    main()
