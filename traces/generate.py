"""Generate the bundled traces: recordings of clusters that never existed, made the way `record`
makes them from real ones.

Each scenario lists what people and controllers do (nodes, PriorityClasses, PDBs, deployments
scaling, jobs arriving, a node drained...). Those events are fed to the offline scheduler
(kube-scheduler v1.34.1's, with its queue), and everything the cluster would then show in a watch
is written down as the recording: bindings, nominations, victims getting their DisruptionTarget
condition and deletionTimestamp, deletions after the grace period, jobs completing, controllers
replacing the pods that were preempted. Replaying a generated trace in simulate mode reproduces
its recorded preemptions; --follow agrees with them; a what-if tells a different story.

    python traces/generate.py            # rewrites traces/*.jsonl.gz
    python traces/generate.py --out DIR

Deterministic: the same code writes byte-identical files.
"""
from __future__ import annotations

import argparse
import copy
import os
import random
import sys
import zlib
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kubectl_preempt.batch.conf import ALL_ACTIONS_CONF  # noqa: E402
from kubectl_preempt.framework.config import default_config  # noqa: E402
from kubectl_preempt.framework.versions import V1_34_1  # noqa: E402
from kubectl_preempt.io.trace import TraceWriter, format_rfc3339, parse_rfc3339, trace_header  # noqa: E402
from kubectl_preempt.model.objects import Pod  # noqa: E402
from kubectl_preempt.replay.batch import BatchOptions  # noqa: E402
from kubectl_preempt.replay.simulate import Listener, Simulation  # noqa: E402
from kubectl_preempt.replay.state import format_time, pdb_manifest, pod_manifest  # noqa: E402
from kubectl_preempt.replay.timeline import Timeline, TraceEvent  # noqa: E402

START = parse_rfc3339("2026-03-02T09:00:00Z")


def _stable(text: str) -> int:
    # str hashes change from one Python process to the next; names must not
    return zlib.crc32(text.encode())


# --- objects -----------------------------------------------------------------------------------------

def node(name: str, zone: str, cpu: str = "8", memory: str = "32Gi", *, labels: dict | None = None,
         taints: list | None = None, extra: dict | None = None) -> dict[str, Any]:
    lb = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "topology.kubernetes.io/zone": zone,
          "topology.kubernetes.io/region": "eu-west-1", "node.kubernetes.io/instance-type": "m6i.2xlarge"}
    lb.update(labels or {})
    alloc = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "100Gi"}
    alloc.update(extra or {})
    spec: dict[str, Any] = {"providerID": f"aws:///{zone}/i-{_stable(name) % 10**12:012d}"}
    if taints:
        spec["taints"] = taints
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"node-{name}", "labels": lb,
                         "creationTimestamp": format_rfc3339(START - 86400 * 7)},
            "spec": spec,
            "status": {"capacity": dict(alloc), "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                       "nodeInfo": {"kubeletVersion": "v1.34.1"}}}


def priority_class(name: str, value: int, *, default: bool = False, never: bool = False,
                   description: str = "", created: float | None = None) -> dict[str, Any]:
    o: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                         "metadata": {"name": name, "uid": f"pc-{name}",
                                      "creationTimestamp": format_rfc3339(created or START - 86400 * 30)},
                         "value": value, "globalDefault": default, "description": description}
    o["preemptionPolicy"] = "Never" if never else "PreemptLowerPriority"
    return o


def pdb(name: str, ns: str, selector: dict, *, min_available: Any = None, max_unavailable: Any = None,
        allowed: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": {"matchLabels": selector}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns, "uid": f"pdb-{ns}-{name}"},
            "spec": spec, "status": {"disruptionsAllowed": allowed, "currentHealthy": 0, "desiredHealthy": 0,
                                     "expectedPods": 0, "observedGeneration": 1}}


class Workload:
    """A controller's pod template: name, namespace, class and priority, requests, labels."""

    def __init__(self, name: str, ns: str, pclass: str, priority: int, cpu: str, memory: str, *,
                 owner: str = "ReplicaSet", grace: int = 30, labels: dict | None = None,
                 spread: bool = False, gpus: int = 0, tolerations: list | None = None,
                 node_selector: dict | None = None, image: str = "") -> None:
        self.name, self.ns, self.pclass, self.priority = name, ns, pclass, priority
        self.cpu, self.memory, self.owner, self.grace = cpu, memory, owner, grace
        self.labels = {"app": name, **(labels or {})}
        self.spread, self.gpus = spread, gpus
        self.tolerations = tolerations or []
        self.node_selector = node_selector or {}
        self.image = image or f"registry.example.com/{ns}/{name}:1.{len(name) % 7}.0"
        self.count = 0
        self.rs = f"{name}-{_stable(ns + name) % 10**10:010d}"

    def pod(self, t: float, rng: random.Random, *, node_name: str = "", suffix: str | None = None) -> dict[str, Any]:
        self.count += 1
        if suffix is None:
            suffix = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        name = f"{self.rs}-{suffix}" if self.owner == "ReplicaSet" else f"{self.name}-{suffix}"
        res: dict[str, Any] = {"cpu": self.cpu, "memory": self.memory}
        if self.gpus:
            res["nvidia.com/gpu"] = str(self.gpus)
        spec: dict[str, Any] = {
            "containers": [{"name": self.name, "image": self.image,
                            "resources": {"requests": dict(res), "limits": {k: v for k, v in res.items() if k != "cpu"}},
                            "ports": [{"containerPort": 8080, "protocol": "TCP"}]}],
            "schedulerName": "default-scheduler", "priorityClassName": self.pclass, "priority": self.priority,
            "preemptionPolicy": "PreemptLowerPriority", "terminationGracePeriodSeconds": self.grace,
            "restartPolicy": "Never" if self.owner == "Job" else "Always",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}] + list(self.tolerations),
        }
        if self.node_selector:
            spec["nodeSelector"] = dict(self.node_selector)
        if self.spread:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "ScheduleAnyway",
                                                  "labelSelector": {"matchLabels": {"app": self.name}}}]
        md: dict[str, Any] = {"name": name, "namespace": self.ns, "uid": f"{self.ns}-{name}",
                              "labels": dict(self.labels), "creationTimestamp": format_rfc3339(t),
                              "ownerReferences": [{"apiVersion": "apps/v1" if self.owner == "ReplicaSet" else "batch/v1",
                                                   "kind": self.owner, "name": self.rs if self.owner == "ReplicaSet" else self.name,
                                                   "uid": f"{self.owner.lower()}-{self.ns}-{self.name}", "controller": True}]}
        status: dict[str, Any] = {"phase": "Pending", "qosClass": "Burstable"}
        if node_name:
            spec["nodeName"] = node_name
            status = {"phase": "Running", "startTime": format_rfc3339(t), "qosClass": "Burstable",
                      "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


# --- the recording machinery ----------------------------------------------------------------------------

class Scenario(Listener):
    """World events in, a recording out. Subclasses fill `initial` and `world`; `durations` maps a
    pod name to how long it runs once bound (jobs); `replace` says whether a preempted pod's
    controller creates a new one."""

    name = ""
    title = ""
    duration = 1800.0
    batch: BatchOptions | None = None  # kube-batch beside kube-scheduler (replay/batch.py)

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.initial: list[dict[str, Any]] = []
        self.world: list[tuple[float, str, dict[str, Any]]] = []
        self.durations: dict[str, float] = {}
        self.workloads: dict[str, Workload] = {}
        self.out: list[tuple[float, tuple[int, int], str, dict[str, Any]]] = []
        self._seq = 0
        self.sim: Simulation | None = None
        self.last_message: dict[str, str] = {}
        self.pdb_allowed: dict[str, int] = {}

    def finish(self, pod: dict[str, Any], after: float) -> None:
        """A pod running at the start finishes `after` seconds into the trace."""
        began = parse_rfc3339(pod["status"]["startTime"]) or START
        self.durations[pod["metadata"]["name"]] = START + after - began

    # world events at a time after the start
    def at(self, t: float, typ: str, obj: dict[str, Any]) -> None:
        self.world.append((START + t, typ, obj))

    def record(self, t: float, typ: str, obj: dict[str, Any], *, world: bool = False) -> None:
        # at one instant what people and controllers did comes before what the scheduler did about it
        self._seq += 1
        self.out.append((t, (0 if world else 1, self._seq), typ, copy.deepcopy(obj)))

    def sync_pdbs(self, t: float) -> None:
        """The disruption controller's view: a PDB's status changes as its pods come and go."""
        sim = self.sim
        if sim is None:
            return
        sim.state.recompute_pdb_status()
        for pdb in sim.state.cluster.pdbs:
            if self.pdb_allowed.get(pdb.key) != pdb.disruptions_allowed:
                self.pdb_allowed[pdb.key] = pdb.disruptions_allowed
                self.record(t, "MODIFIED", pdb_manifest(pdb))

    # ---------------------------------------------------------------- what the scheduler did
    def bound(self, t: float, pod: Pod, node: str) -> None:
        m = pod_manifest(pod)
        m["status"]["conditions"] = [{"type": "PodScheduled", "status": "True", "lastTransitionTime": format_time(t)},
                                     {"type": "Ready", "status": "True", "lastTransitionTime": format_time(t + 2)}]
        self.record(t, "MODIFIED", m)
        self.sync_pdbs(t)
        run = self.durations.get(pod.name)
        if run is not None and self.sim is not None:
            self.complete_at(self.sim, pod.uid, t + run)

    def complete_at(self, sim: Simulation, uid: str, at: float) -> None:
        """A job's pod finishes at `at` unless it is gone (preempted) by then."""

        def complete() -> None:
            cur = sim.state.pods_by_uid.get(uid)
            if cur is None or cur.terminating or not cur.node_name:
                return
            done = pod_manifest(cur)
            done["status"]["phase"] = "Succeeded"
            done["status"]["conditions"] = [{"type": "PodScheduled", "status": "True"},
                                            {"type": "Ready", "status": "False", "reason": "PodCompleted"}]
            self.record(sim.engine.now, "MODIFIED", done)
            sim._remove(cur, "completed")
            self.sync_pdbs(sim.engine.now)
            sim._kick()

        sim.engine.schedule(at, complete, name=f"job {uid} completes")

    def nominated(self, t: float, pod: Pod, node: str) -> None:
        m = pod_manifest(pod)
        m["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                      "lastTransitionTime": format_time(t),
                                      "message": self.last_message.get(pod.uid, "")}]
        self.record(t + 0.05, "MODIFIED", m)

    def unschedulable(self, t: float, pod: Pod, message: str, fields: object = None) -> None:
        if self.last_message.get(pod.uid) == message:
            return
        self.last_message[pod.uid] = message
        m = pod_manifest(pod)
        m["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                      "lastTransitionTime": format_time(t), "message": message}]
        self.record(t + 0.05, "MODIFIED", m)

    def preempted(self, t: float, victim: Pod, preemptor: Pod, node: str) -> None:
        m = pod_manifest(victim)
        m["metadata"]["deletionGracePeriodSeconds"] = victim.spec.get("terminationGracePeriodSeconds", 30)
        self.record(t + 0.02, "MODIFIED", m)
        self.sync_pdbs(t + 0.02)

    def deleted(self, t: float, pod: Pod, reason: str) -> None:
        if reason in ("completed", "deleted"):
            self.sync_pdbs(t)
            return  # the world's own events say so
        self.record(t, "DELETED", pod_manifest(pod))
        self.sync_pdbs(t)
        wl = self.workloads.get(pod.labels.get("app", ""))
        if reason == "preempted" and wl is not None and self.sim is not None:
            # the controller notices and creates a replacement a moment later
            replacement = wl.pod(t + 1.0, self.rng)
            if pod.name in self.durations:
                self.durations[replacement["metadata"]["name"]] = self.durations[pod.name]
            self.inject(t + 1.0, replacement)

    def inject(self, t: float, obj: dict[str, Any]) -> None:
        """A world event decided while the scenario runs (a controller reacting)."""
        sim = self.sim
        assert sim is not None
        self.record(t, "ADDED", obj, world=True)

        def apply() -> None:
            sim.apply(TraceEvent(t, "ADDED", obj, "Pod", "generated"))
            self.sync_pdbs(t)
            sim._kick()

        sim.engine.schedule(t, apply, name=f"controller creates {obj['metadata']['name']}")

    # ---------------------------------------------------------------- running
    def build(self) -> None:
        raise NotImplementedError

    def install(self, sim: Simulation) -> None:
        """Events that act on what the replay placed (drains, failures): scheduled on its engine."""

    def run(self) -> list[tuple[float, str, dict[str, Any]]]:
        self.build()
        end = START + self.duration
        initial = [TraceEvent(START, "ADDED", o, o["kind"], "initial") for o in self.initial]
        world = sorted(self.world, key=lambda w: w[0])
        events = [TraceEvent(t, typ, o, o.get("kind", ""), "world") for t, typ, o in world]
        events.append(TraceEvent(end, "BOOKMARK", {}, "", "end"))
        # the bundled traces were made with the preemption calls at the decision (the gate off):
        # the listener writes them into the trace at that instant
        cfg = default_config(V1_34_1)  # the release the headers name (server_version below)
        cfg.feature_gates["SchedulerAsyncPreemption"] = False
        sim = Simulation(Timeline(START, end, initial, events, {}), cfg, listener=self,
                         workloads=False, batch=self.batch)  # the scenario's world runs its own controllers
        self.sim = sim
        # the PDBs' status at the start as the disruption controller has it
        sim.state.recompute_pdb_status()
        for pdb in sim.state.cluster.pdbs:
            self.pdb_allowed[pdb.key] = pdb.disruptions_allowed
            pdb.raw["status"]["disruptionsAllowed"] = pdb.disruptions_allowed
        for o in self.initial:
            run = self.durations.get((o.get("metadata") or {}).get("name", ""))
            if o.get("kind") == "Pod" and run is not None:
                began = parse_rfc3339(o["status"].get("startTime")) or START
                self.complete_at(sim, o["metadata"]["uid"], max(began + run, START + 1))
        self.install(sim)
        sim.run()
        for t, typ, o in world:
            self.record(t, typ, o, world=True)
        self.out.sort(key=lambda e: (e[0], e[1]))
        return [(START, "ADDED", o) for o in self.initial] + [(t, typ, o) for t, _, typ, o in self.out] + \
            [(end, "BOOKMARK", {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "0"}})]

    def write(self, path: str) -> int:
        events = self.run()
        header = trace_header(START, context=self.name, server_version="v1.34.1", redacted=True,
                              description=self.title, generator="traces/generate.py")
        with TraceWriter(path, header) as w:
            for t, typ, o in events:
                w.event(t, typ, o)
        return len(events)


# --- scenario 1: serving and batch across zones, with PDBs ----------------------------------------------

class ServingVsBatch(Scenario):
    name = "demo-serving-vs-batch"
    title = ("An online shop and a nightly ETL share 12 nodes in 3 zones. At 09:05 a traffic spike scales "
             "checkout from 6 to 14 replicas; serving pods preempt ETL pods, avoiding nodes where the ETL "
             "PodDisruptionBudget would be violated. At 09:12 a node in eu-west-1b is drained. At 09:20 the "
             "spike is over and new ETL jobs fill the room again.")

    def build(self) -> None:
        rng = self.rng
        zones = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
        nodes = [node(f"ip-10-0-{i // 4 + 1}-{10 + i % 4 * 7}.eu-west-1.compute.internal", zones[i // 4])
                 for i in range(12)]
        self.initial += nodes
        self.initial += [priority_class("serving", 10000, description="customer-facing traffic"),
                         priority_class("standard", 1000, default=True, description="everything else"),
                         priority_class("batch", 100, description="jobs that can wait")]
        checkout = Workload("checkout", "shop", "serving", 10000, "1500m", "2Gi", spread=True, grace=30)
        cart = Workload("cart", "shop", "serving", 10000, "500m", "1Gi", spread=True, grace=30)
        catalog = Workload("catalog", "shop", "standard", 1000, "1", "2Gi", spread=True, grace=20)
        etl = Workload("etl", "analytics", "batch", 100, "2", "6Gi", owner="Job", grace=60,
                       labels={"team": "data"})
        report = Workload("report", "analytics", "batch", 100, "1", "2Gi", owner="Job", grace=10)
        for wl in (checkout, cart, catalog, etl, report):
            self.workloads[wl.name] = wl
        self.initial.append(pdb("checkout", "shop", {"app": "checkout"}, min_available=5, allowed=1))
        self.initial.append(pdb("etl", "analytics", {"app": "etl"}, max_unavailable=1, allowed=1))
        names = [n["metadata"]["name"] for n in nodes]
        started = START - 3600
        placements = []
        for i in range(6):
            placements.append((checkout, names[(i * 2) % 12]))
        for i in range(4):
            placements.append((cart, names[(i * 3 + 1) % 12]))
        for i in range(6):
            placements.append((catalog, names[(i * 2 + 1) % 12]))
        for i in range(30):
            placements.append((etl, names[i % 12]))
        for i in range(8):
            placements.append((report, names[(i * 5 + 3) % 12]))
        for wl, n in placements:
            p = wl.pod(started + rng.uniform(0, 3000), rng, node_name=n)
            if wl.owner == "Job":
                self.finish(p, rng.uniform(900, 2700) if wl is etl else rng.uniform(200, 900))
            self.initial.append(p)
        # the spike: HPA adds checkout replicas every 20 s, cart follows
        for i in range(8):
            self.at(300 + 20 * i, "ADDED", checkout.pod(START + 300 + 20 * i, rng))
        for i in range(3):
            self.at(330 + 40 * i, "ADDED", cart.pod(START + 330 + 40 * i, rng))
        # batch keeps arriving
        for i in range(10):
            t = 60 + i * 150 + rng.uniform(0, 60)
            p = etl.pod(START + t, rng)
            self.durations[p["metadata"]["name"]] = rng.uniform(600, 1200)
            self.at(t, "ADDED", p)
        for i in range(6):
            t = 120 + i * 240 + rng.uniform(0, 60)
            p = report.pod(START + t, rng)
            self.durations[p["metadata"]["name"]] = rng.uniform(120, 400)
            self.at(t, "ADDED", p)
        # 09:12 a node is cordoned and drained (its pods evicted, controllers recreate the serving ones)
        drained = names[5]
        cordoned = copy.deepcopy(nodes[5])
        cordoned["spec"]["unschedulable"] = True
        cordoned["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
        self.at(720, "MODIFIED", cordoned)
        self.drain_at = (720.5, drained)
        # 09:20 the spike is over: four checkout replicas go away
        self.scale_down_at = 1200.0

    def install(self, sim: Simulation) -> None:
        _drain_and_scale(self, sim)


def _drain_and_scale(s: ServingVsBatch, sim: Simulation) -> None:
    t_drain, drained = s.drain_at

    def drain() -> None:
        for p in list(sim.state.cluster.pods.values()):
            if p.node_name == drained and not p.terminating:
                m = pod_manifest(p)
                sim.state.mark_terminating(p, sim.engine.now, preempted=False)
                m["metadata"]["deletionTimestamp"] = format_time(sim.engine.now)
                s.record(sim.engine.now, "MODIFIED", m)
                grace = float(p.spec.get("terminationGracePeriodSeconds", 30))
                gone_at = sim.engine.now + grace

                def gone(p: Pod = p, m: dict = m) -> None:
                    cur = sim.state.pods_by_uid.get(p.uid)
                    if cur is None:
                        return
                    s.record(sim.engine.now, "DELETED", m)
                    sim._remove(cur, "deleted")
                    _replace(s, sim, p, 1)
                    sim._kick()

                sim.engine.schedule(gone_at, gone, name=f"evicted {p.key} gone")

    def scale_down() -> None:
        checkout = [p for p in sim.state.cluster.pods.values()
                    if p.labels.get("app") == "checkout" and p.node_name and not p.terminating]
        checkout.sort(key=lambda p: p.status.get("startTime") or "", reverse=True)
        for p in checkout[:4]:
            m = pod_manifest(p)
            s.record(sim.engine.now, "DELETED", m)
            sim._remove(p, "deleted")
        sim._kick()

    sim.engine.schedule(START + t_drain, drain, name="drain")
    sim.engine.schedule(START + s.scale_down_at, scale_down, name="scale down")


# --- scenario 2: GPUs, training meets inference ---------------------------------------------------------

class GpuTrainingVsInference(Scenario):
    name = "gpu-training-vs-inference"
    title = ("Eight GPU nodes (8 GPUs each, tainted for GPU workloads). Distributed training jobs hold most "
             "GPUs; research notebooks use the rest but never preempt anyone. From 09:10 the LLM inference "
             "service scales up for the European morning and preempts research first, then training "
             "workers. At 09:18 one GPU node fails and disappears.")
    duration = 2400.0

    def build(self) -> None:
        rng = self.rng
        gpu_taint = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        zones = ["eu-west-1a", "eu-west-1b"]
        nodes = [node(f"gpu-{i:02d}", zones[i % 2], cpu="96", memory="768Gi",
                      labels={"node.kubernetes.io/instance-type": "p4d.24xlarge", "nvidia.com/gpu.product": "A100-SXM4-40GB"},
                      taints=gpu_taint, extra={"nvidia.com/gpu": "8"}) for i in range(8)]
        cpu_nodes = [node(f"cpu-{i:02d}", zones[i % 2], cpu="16", memory="64Gi") for i in range(3)]
        self.initial += nodes + cpu_nodes
        self.initial += [priority_class("inference", 50000, description="online model serving"),
                         priority_class("training", 1000, description="scheduled training runs"),
                         priority_class("research", 500, never=True, description="notebooks; never preempts"),
                         priority_class("default", 0, default=True)]
        serve = Workload("llm-serve", "inference", "inference", 50000, "12", "96Gi", gpus=2, tolerations=tol,
                         grace=45, spread=True)
        train = Workload("train-llama", "training", "training", 1000, "40", "320Gi", gpus=4, owner="Job",
                         tolerations=tol, grace=120, labels={"job": "llama-ft"})
        nb = Workload("notebook", "research", "research", 500, "8", "64Gi", gpus=1, tolerations=tol, grace=30)
        for wl in (serve, train, nb):
            self.workloads[wl.name] = wl
        self.initial.append(pdb("llm-serve", "inference", {"app": "llm-serve"}, max_unavailable=1, allowed=1))
        started = START - 7200
        gnames = [n["metadata"]["name"] for n in nodes]
        # 2 serving replicas (2 GPUs), 10 training workers (4 GPUs), 10 notebooks (1 GPU): no node
        # holds more than its 8 GPUs
        layout = [(serve, 0), (serve, 1)] + [(train, i) for i in (0, 1, 2, 2, 3, 3, 4, 5, 6, 7)] + \
                 [(nb, i) for i in (0, 0, 1, 1, 4, 4, 5, 5, 6, 7)]
        for wl, i in layout:
            p = wl.pod(started + rng.uniform(0, 5000), rng, node_name=gnames[i])
            if wl is train:
                self.finish(p, rng.uniform(2000, 6000))
            self.initial.append(p)
        for i in range(9):
            t = 600 + 45 * i
            self.at(t, "ADDED", serve.pod(START + t, rng))
        for i in range(4):
            t = 300 + 400 * i
            self.at(t, "ADDED", nb.pod(START + t, rng))
        self.fail_at = (1080.0, "gpu-03")

    def install(self, sim: Simulation) -> None:
        _node_failure(self, sim)


def _replace(s: Any, sim: Simulation, p: Pod, after: float) -> None:
    """The pod's controller (its app's workload) creates a replacement `after` seconds from now,
    which runs as long as the pod would have."""
    wl = s.workloads.get(p.labels.get("app", ""))
    if wl is not None:
        rep = wl.pod(sim.engine.now + after, s.rng)
        if p.name in s.durations:
            s.durations[rep["metadata"]["name"]] = s.durations[p.name]
        s.inject(sim.engine.now + after, rep)


def _node_failure(s: GpuTrainingVsInference, sim: Simulation) -> None:
    t, name = s.fail_at

    def fail() -> None:
        n = sim.state.cluster.nodes.get(name)
        if n is None:
            return
        # the node is gone; the pod GC deletes its pods and controllers replace them
        for p in list(sim.state.cluster.pods.values()):
            if p.node_name == name:
                s.record(sim.engine.now, "DELETED", pod_manifest(p))
                sim._remove(p, "deleted")
                _replace(s, sim, p, 2)
        s.record(sim.engine.now, "DELETED", n.raw)
        sim.apply(TraceEvent(sim.engine.now, "DELETED", n.raw, "Node", "generated"))
        sim._kick()

    sim.engine.schedule(START + t, fail, name="node failure")


# --- scenario 3: the rollout of a new high-priority class -------------------------------------------------

class PriorityClassRollout(Scenario):
    name = "priorityclass-rollout"
    title = ("A platform team adds the PriorityClass platform-critical (value 1000000) at 09:05 and rolls "
             "the metrics agent and the ingress gateway onto it. Their new pods outrank every application, "
             "so on a full cluster they preempt standard application pods, not only batch. Replay with "
             "--priorityclasses traces/proposed-platform-critical.yaml to see the rollout with a value below "
             "standard.")
    duration = 1500.0

    def build(self) -> None:
        rng = self.rng
        zones = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
        nodes = [node(f"node-{i:02d}", zones[i % 3], cpu="4", memory="16Gi") for i in range(9)]
        self.initial += nodes
        self.initial += [priority_class("standard", 1000, default=True),
                         priority_class("batch", 100)]
        names = [n["metadata"]["name"] for n in nodes]
        api = Workload("orders-api", "orders", "standard", 1000, "1200m", "2Gi", spread=True, grace=30)
        web = Workload("storefront", "web", "standard", 1000, "800m", "1Gi", spread=True, grace=30)
        batch = Workload("indexer", "search", "batch", 100, "1", "3Gi", owner="Job", grace=30)
        gw_old = Workload("ingress-gateway", "platform", "standard", 1000, "500m", "1Gi", spread=True, grace=15)
        for wl in (api, web, batch, gw_old):
            self.workloads[wl.name] = wl
        self.initial.append(pdb("orders-api", "orders", {"app": "orders-api"}, min_available="60%", allowed=2))
        started = START - 5400
        # nodes 0, 4 and 8 run only applications (3.7 of 4 CPUs); the others also run the indexer
        layout = [(api, i) for i in range(9)] + [(api, i) for i in (0, 4, 8)] + [(web, i) for i in range(9)] + \
                 [(gw_old, i) for i in (0, 4, 8)] + [(batch, i) for i in (1, 2, 3, 5, 6, 7, 1, 5)]
        old_gw: list[dict[str, Any]] = []
        for wl, i in layout:
            p = wl.pod(started + rng.uniform(0, 5000), rng, node_name=names[i])
            if wl is batch:
                self.finish(p, rng.uniform(900, 2400))
            if wl is gw_old:
                old_gw.append(p)
            self.initial.append(p)
        self.at(300, "ADDED", priority_class("platform-critical", 1000000, created=START + 300,
                                             description="platform components"))
        gw = Workload("ingress-gateway", "platform", "platform-critical", 1000000, "1", "2Gi", spread=True, grace=15)
        agent = Workload("metrics-agent", "platform", "platform-critical", 1000000, "500m", "1Gi", grace=10)
        self.workloads["metrics-agent"] = agent
        # the metrics agent: one per node, pinned by node affinity as a DaemonSet's pods are
        for i, n in enumerate(names):
            t = 360 + 10 * i
            p = agent.pod(START + t, rng)
            p["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [n]}]}]}}}
            p["metadata"]["ownerReferences"][0].update({"kind": "DaemonSet", "name": "metrics-agent"})
            self.at(t, "ADDED", p)
        # then the gateway rolls: a new pod every 60 s (bigger requests), an old one deleted 45 s later
        # (install: the old ReplicaSet's pod that is there then, as its controller scales it down)
        self.old_gateways = [p["metadata"]["uid"] for p in old_gw]
        self.scale_downs = []
        for i in range(3):
            t = 600 + 60 * i
            self.at(t, "ADDED", gw.pod(START + t, rng))
            self.scale_downs.append(t + 45)
        for i in range(5):
            t = 200 + 220 * i
            p = batch.pod(START + t, rng)
            self.durations[p["metadata"]["name"]] = rng.uniform(300, 900)
            self.at(t, "ADDED", p)


    def install(self, sim: Simulation) -> None:
        """The old gateway ReplicaSet scaled down one pod at a time: the pod the layout gave it when
        that pod is still there, else one of the old ReplicaSet's that is (a pod the rollout's
        preemptions took was replaced by the ReplicaSet: deleting the one already gone would
        contradict the trace's own deletion)."""
        for i, at in enumerate(self.scale_downs):
            def scale_down(i: int = i) -> None:
                old = [p for p in sim.state.cluster.pods.values()
                       if p.labels.get("app") == "ingress-gateway" and p.priority == 1000 and not p.terminating]
                if not old:
                    return
                first = next((p for p in old if p.uid == self.old_gateways[i]), None)
                # else the newest, as a ReplicaSet scaling down deletes the pods that started last
                p = first or max(old, key=lambda p: (p.status.get("startTime") or "", p.name))
                self.record(sim.engine.now, "DELETED", pod_manifest(p))
                sim._remove(p, "deleted")
                self.sync_pdbs(sim.engine.now)
                sim._kick()

            sim.engine.schedule(START + at, scale_down, name=f"gateway scale-down {i}")

# --- scenario 4: kube-batch and kube-scheduler share a cluster -------------------------------------------

BATCH_API = "scheduling.incubator.k8s.io/v1alpha1"
KUBE_BATCH_CONF = """# kube-batch's configuration for traces/two-schedulers.jsonl.gz (kube-batch --scheduler-conf):
# reclaim and preempt on, the plugins of kube-batch's own examples
""" + ALL_ACTIONS_CONF


def batch_queue(name: str, weight: int) -> dict[str, Any]:
    return {"apiVersion": BATCH_API, "kind": "Queue", "metadata": {"name": name, "uid": f"queue-{name}"},
            "spec": {"weight": weight}}


class BatchJob:
    """A gang of `tasks` identical pods that kube-batch schedules, and its PodGroup."""

    def __init__(self, name: str, ns: str, queue: str, min_member: int, pclass: str, priority: int,
                 cpu: str, memory: str, *, grace: int = 30) -> None:
        self.name, self.ns, self.queue, self.min_member = name, ns, queue, min_member
        self.pclass, self.priority, self.cpu, self.memory, self.grace = pclass, priority, cpu, memory, grace

    def pod_group(self, t: float, phase: str = "Pending") -> dict[str, Any]:
        return {"apiVersion": BATCH_API, "kind": "PodGroup",
                "metadata": {"name": self.name, "namespace": self.ns, "uid": f"pg-{self.ns}-{self.name}",
                             "creationTimestamp": format_rfc3339(t)},
                "spec": {"minMember": self.min_member, "queue": self.queue, "priorityClassName": self.pclass},
                "status": {"phase": phase}}

    def pod(self, i: int, t: float, *, node_name: str = "") -> dict[str, Any]:
        name = f"{self.name}-{i}"
        res = {"cpu": self.cpu, "memory": self.memory}
        spec: dict[str, Any] = {
            "containers": [{"name": "worker", "image": f"registry.example.com/{self.ns}/{self.name}:2.1.0",
                            "resources": {"requests": dict(res), "limits": {"memory": self.memory}}}],
            "schedulerName": "kube-batch", "priorityClassName": self.pclass, "priority": self.priority,
            "preemptionPolicy": "PreemptLowerPriority", "terminationGracePeriodSeconds": self.grace,
            "restartPolicy": "Never"}
        status: dict[str, Any] = {"phase": "Pending", "qosClass": "Burstable"}
        if node_name:
            spec["nodeName"] = node_name
            status = {"phase": "Running", "startTime": format_rfc3339(t), "qosClass": "Burstable",
                      "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]}
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": self.ns, "uid": f"{self.ns}-{name}",
                             "labels": {"job": self.name}, "creationTimestamp": format_rfc3339(t),
                             "annotations": {"scheduling.k8s.io/group-name": self.name}},
                "spec": spec, "status": status}


class TwoSchedulers(Scenario):
    name = "two-schedulers"
    title = ("kube-batch (reclaim, allocate, backfill, preempt) and kube-scheduler share 6 nodes; a research "
             "sweep in kube-batch's queue research holds most of them. At 09:01 a fine-tuning gang of 4 arrives "
             "in queue production: kube-batch reclaims two sweep pods at each of four sessions, 8 where 4 would "
             "have made room, because a session counts only running pods as reclaimable (those evicted a second "
             "earlier are still terminating) and remembers no pipelined task; it stops at the sweep's minMember. "
             "At 09:04 the storefront scales up and kube-scheduler, which knows no queues, preempts pods of a "
             "second sweep. At 09:06 an urgent job preempts within queue research, at the sixth session after "
             "it arrives: in the five before, kube-batch's preempt ranged over queue production first, and its "
             "step within each job used up the urgent job's pending tasks.")
    duration = 600.0
    batch = BatchOptions(conf=KUBE_BATCH_CONF, conf_source="traces/kube-batch.conf")

    def submit(self, job: BatchJob, t: float, pods: int, runs_for: float) -> None:
        """The job's PodGroup and `pods` pods, each running `runs_for` seconds, all added at `t`."""
        self.at(t, "ADDED", job.pod_group(START + t))
        for i in range(pods):
            p = job.pod(i, START + t)
            self.durations[p["metadata"]["name"]] = runs_for
            self.at(t, "ADDED", p)

    def build(self) -> None:
        rng = self.rng
        zones = ["eu-west-1a", "eu-west-1b"]
        nodes = [node(f"node-{z[-1]}{i}", z, cpu="16", memory="64Gi") for z in zones for i in range(1, 4)]
        names = [n["metadata"]["name"] for n in nodes]
        self.initial += nodes
        self.initial += [priority_class("serving", 10000, description="customer-facing traffic"),
                         priority_class("standard", 1000, default=True, description="everything else"),
                         priority_class("training-urgent", 800, description="batch jobs on a deadline"),
                         priority_class("training", 100, description="batch jobs that can wait")]
        self.initial += [batch_queue("research", 1), batch_queue("production", 1)]
        store = Workload("storefront", "shop", "serving", 10000, "2", "4Gi", spread=True, grace=30)
        self.workloads["storefront"] = store
        started = START - 1800
        for n in names:
            self.initial.append(store.pod(started + rng.uniform(0, 600), rng, node_name=n))
        sweep = BatchJob("sweep", "research", "research", 2, "training", 100, "6", "16Gi", grace=5)
        self.initial.append(sweep.pod_group(started, "Running"))
        for i, n in enumerate([0, 0, 1, 1, 2, 2, 3, 3, 4, 5]):
            p = sweep.pod(i, started + 60, node_name=names[n])
            self.finish(p, rng.uniform(1500, 2400))
            self.initial.append(p)
        # 09:01 the fine-tuning gang: 4 workers of 8 CPUs, all or none
        tune = BatchJob("finetune", "production", "production", 4, "training", 100, "8", "24Gi", grace=5)
        self.submit(tune, 60, 4, 900.0)
        # 09:02 a second sweep fills the room the first one lost
        sweep2 = BatchJob("sweep-b", "research", "research", 2, "training", 100, "6", "16Gi", grace=5)
        self.submit(sweep2, 120, 6, 1200.0)
        # 09:04 the storefront doubles
        for i in range(6):
            t = 240 + 5 * i
            self.at(t, "ADDED", store.pod(START + t, rng))
        # 09:06 an urgent job in the research queue
        urgent = BatchJob("urgent-eval", "research", "research", 2, "training-urgent", 800, "6", "16Gi", grace=5)
        self.submit(urgent, 360, 2, 120.0)


PROPOSED = """# What-if for traces/priorityclass-rollout.jsonl.gz: platform-critical below the applications'
# "standard" (1000): platform pods then preempt batch only, and wait for room otherwise.
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: platform-critical
value: 900
preemptionPolicy: PreemptLowerPriority
description: platform components, below customer workloads
"""


SCENARIOS: dict[str, tuple[Callable[[int], Scenario], str]] = {
    "demo": (ServingVsBatch, "demo.jsonl.gz"),
    "gpu": (GpuTrainingVsInference, "gpu-training-vs-inference.jsonl.gz"),
    "rollout": (PriorityClassRollout, "priorityclass-rollout.jsonl.gz"),
    "two-schedulers": (TwoSchedulers, "two-schedulers.jsonl.gz"),
}


def generate(out: str, only: list[str] | None = None) -> list[tuple[str, int]]:
    os.makedirs(out, exist_ok=True)
    written = []
    for key, (cls, filename) in SCENARIOS.items():
        if only and key not in only:
            continue
        scenario = cls(_stable(key))
        written.append((filename, scenario.write(os.path.join(out, filename))))
    with open(os.path.join(out, "proposed-platform-critical.yaml"), "w") as f:
        f.write(PROPOSED)
    with open(os.path.join(out, "kube-batch.conf"), "w") as f:
        f.write(KUBE_BATCH_CONF)
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE, help="directory to write into (default: traces/)")
    ap.add_argument("scenario", nargs="*", help=f"only these scenarios ({', '.join(SCENARIOS)})")
    args = ap.parse_args()
    unknown = [s for s in args.scenario if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario {unknown[0]!r}; choose from {', '.join(SCENARIOS)}")
    for filename, n in generate(args.out, args.scenario or None):
        print(f"wrote {os.path.join(args.out, filename)}: {n} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
