"""A scheduler over one cluster state: profiles built from a configuration, a snapshot and the
nominator, ready to run cycles. Used by explain (one instant) and by replay (over time)."""
from __future__ import annotations

import random
from ..framework.config import SchedulerConfig, default_config
from ..framework.runtime import Framework, Nominator
from ..framework.snapshot import Snapshot
from ..framework.status import Status
from ..model.cluster import Cluster
from ..model.objects import Pod
from ..plugins.registry import in_tree_registry
from .schedule_one import UNSCHEDULABLE, CycleResult, schedule_one


class Scheduler:
    def __init__(self, cluster: Cluster, config: SchedulerConfig | None = None, *, seed: int = 0,
                 snapshot: Snapshot | None = None, nominator: Nominator | None = None,
                 rng: random.Random | None = None) -> None:
        self.cluster = cluster
        self.config = config or default_config()
        self.seed = seed
        # one random source for every random choice v1.34.1 makes (host among equal scores, the
        # preemption candidate offset, nodes tied after the choice chain); None keeps them fixed
        self.rng = rng
        self.snapshot = snapshot if snapshot is not None else Snapshot.for_cluster(cluster)
        if nominator is None:
            nominator = Nominator()
            for p in cluster.pods.values():
                if not p.node_name and p.nominated_node_name:
                    nominator.add(p, p.nominated_node_name)
        self.nominator = nominator
        self.registry = in_tree_registry(self.config.version)
        self.frameworks: dict[str, Framework] = {}
        self.next_start_node_index = 0

    def framework_for(self, pod: Pod) -> Framework | None:
        name = pod.scheduler_name
        fwk = self.frameworks.get(name)
        if fwk is None:
            profile = self.config.profile_for(name)
            if profile is None:
                return None
            fwk = Framework(self.registry, profile, snapshot=self.snapshot, cluster=self.cluster,
                            nominator=self.nominator,
                            percentage_of_nodes_to_score=self.config.percentage_of_nodes_to_score)
            fwk.seed = self.seed
            self.frameworks[name] = fwk
        fwk.rng = self.rng
        fwk.snapshot = self.snapshot
        return fwk

    def pre_enqueue(self, fwk: Framework, pod: Pod) -> Status:
        for pl in fwk.points["preEnqueue"]:
            s = pl.pre_enqueue(pod)
            if not s.is_success():
                return s.with_plugin(pl.name)
        return Status()

    def schedule(self, pod: Pod, *, rng: random.Random | None = None) -> CycleResult:
        fwk = self.framework_for(pod)
        if fwk is None:
            msg = f'pod\'s schedulerName "{pod.scheduler_name}" matches no profile of this configuration'
            return CycleResult(pod, UNSCHEDULABLE, self.snapshot.num_nodes(), message=msg, error=msg)
        gate = self.pre_enqueue(fwk, pod)
        if not gate.is_success():
            return CycleResult(pod, UNSCHEDULABLE, self.snapshot.num_nodes(), message=gate.message(),
                               post_filter_status=gate)
        res = schedule_one(fwk, pod, start_index=self.next_start_node_index, rng=rng if rng is not None else self.rng)
        n = self.snapshot.num_nodes()
        if n:
            self.next_start_node_index = (self.next_start_node_index + res.processed_nodes) % n
        return res
