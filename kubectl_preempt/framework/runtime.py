"""The framework of one profile: plugins per extension point, in upstream's order, and the
Run*Plugins functions of framework/runtime/framework.go."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import InputError, quote
from ..model.objects import Pod
from .batch import OpportunisticBatch, SortedScoredNodes, batchable_plugins, sign_pod
from .claims import ClaimTracker
from .volumeassume import VolumeAssumeCache
from .config import Profile
from .events import ADD, NODE, UPDATE_NODE_TAINT, ClusterEvent, QueueingHintMap, unroll_wildcard_resource
from .cycle_state import CycleState
from .listers import Listers
from .randomness import FIXED, RandomSource
from .interface import (EXTENSION_POINT_PROTOCOLS, MAX_NODE_SCORE, MIN_NODE_SCORE, EnqueueExtensions, FastCores,
                        MemoTraits, NodePluginScores, NodeScore, PostFilterResult, PreFilterResult, memo_traits)
from .status import SUCCESS, Code, Error, Status, Success
from .types import NodeInfo
from .versions import DEFAULT, KubernetesVersion

# extension point -> the method that marks a plugin as implementing it (its Protocol's method)
_METHODS = {ep: method for ep, (_, method) in EXTENSION_POINT_PROTOCOLS.items()}

Factory = Callable[[Mapping[str, Any], "Framework"], Any]

class Nominator:
    """Pods nominated to nodes (backend/queue/nominator.go), in the order they were nominated."""

    def __init__(self) -> None:
        self.by_node: dict[str, list[Pod]] = {}
        # moves on with every change (what a remembered failed cycle ran with must not have moved)
        self.version = 0
        self._held: tuple[int, frozenset[tuple[str, str]]] | None = None  # held() as of a version

    def add(self, pod: Pod, node_name: str) -> None:
        self.delete(pod)
        if node_name:
            self.by_node.setdefault(node_name, []).append(pod)
            self.version += 1

    def delete(self, pod: Pod) -> None:
        for node, pods in list(self.by_node.items()):
            for i, p in enumerate(pods):
                if p.uid == pod.uid:
                    del pods[i]
                    if not pods:
                        del self.by_node[node]
                    self.version += 1
                    return

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return list(self.by_node.get(node_name, ()))

    def held(self) -> frozenset[tuple[str, str]]:
        """What the nominator holds, (node, pod UID), whatever the order: a pod taken out and put
        back (delete, then add) is held as before though `version` moved and it went last. Made
        again only when `version` moved (the replay asks it at every kick while a group waits)."""
        kept = self._held
        if kept is None or kept[0] != self.version:
            kept = self._held = (self.version, frozenset(
                (node, p.uid) for node, pods in self.by_node.items() for p in pods))
        return kept[1]


def _extensions(plugin: Any) -> Any:
    """The plugin's ScoreExtensions (its normalizer), None without."""
    return plugin.score_extensions() if hasattr(plugin, "score_extensions") else None


class Framework:
    """One profile's plugins, wired as upstream's frameworkImpl."""

    def __init__(self, registry: Mapping[str, Factory], profile: Profile, *, snapshot: Any = None,
                 cluster: Any = None, nominator: Nominator | None = None, percentage_of_nodes_to_score: int = 0,
                 random_source: RandomSource = FIXED, claim_tracker: ClaimTracker | None = None,
                 volume_assumptions: VolumeAssumeCache | None = None) -> None:
        self.profile = profile
        # the release imitated (the Scheduler sets it): schedule_one asks it how the scheduler's
        # own code behaves (framework/versions.py)
        self.version: KubernetesVersion = DEFAULT
        self.profile_name = profile.scheduler_name
        # eventhandlers.go responsibleForPod: whether the scheduler has a profile for the pod's
        # schedulerName (the Scheduler answers for all its profiles; alone, this one's)
        self.responsible_for: Callable[[Any], bool] = lambda pod: pod.scheduler_name == self.profile_name
        self.snapshot = snapshot
        self.cluster = cluster
        # indexes plugins keep across cycles over the cluster's object lists (informer listers)
        self.listers = Listers(cluster)
        self.nominator = nominator or Nominator()
        # the ResourceClaim allocations in flight (the DRA manager's claimTracker): the Scheduler
        # hands one to all its profiles
        self.claim_tracker = claim_tracker if claim_tracker is not None else ClaimTracker()
        # the volume binder's assumed PVs and PVCs (its assume caches), shared the same way
        self.volume_assumptions = volume_assumptions if volume_assumptions is not None else VolumeAssumeCache()
        # the run's one source of random choices (framework/randomness.py), plugins read it
        # from their handle; the Scheduler hands over its own
        self.random_source = random_source
        # the fast cores beside the decision functions (framework/interface.py FastCores), handed
        # over by the Scheduler for each cycle; None (every memory off, or no Scheduler): the plain
        # functions alone
        self.fast: FastCores | None = None
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.global_percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.plugins: dict[str, Any] = {}
        self.score_weights: dict[str, int] = {}
        needed = {p.name for p in profile.multi_point.enabled}
        for ps in profile.points.values():
            needed.update(p.name for p in ps.enabled)
        for name in needed:
            factory = registry.get(name)
            if factory is None:
                raise InputError(f"plugin {quote(name)} does not exist", field=f"profiles[{profile.scheduler_name}].plugins")
            self.plugins[name] = factory(profile.plugin_args.get(name, {}), self)
        # mirrors getScoreWeights: Score.Enabled weights first, then MultiPoint; 0 means 1
        for ref in list(profile.points["score"].enabled) + list(profile.multi_point.enabled):
            if ref.name not in self.score_weights:
                self.score_weights[ref.name] = ref.weight or 1
        self.points: dict[str, list[Any]] = {ep: self._expand(ep) for ep in _METHODS}
        self.pre_filter_plugins = self.points["preFilter"]
        # PreFilterExtensions are fixed per plugin: look them up once, not on every dry-run step
        self.pre_filter_extensions = [
            (pl.name, ext) for pl in self.pre_filter_plugins
            if (ext := (pl.pre_filter_extensions() if hasattr(pl, "pre_filter_extensions") else None)) is not None]
        self.filter_plugins = self.points["filter"]
        self.post_filter_plugins = self.points["postFilter"]
        self.pre_score_plugins = self.points["preScore"]
        self.score_plugins = self.points["score"]
        # what each plugin declares for the scheduler's memory (interface.MemoTraits), looked up
        # once: a Protocol check is slow, and a plugin's traits are fixed
        self.memo_traits: dict[str, MemoTraits] = {name: memo_traits(pl) for name, pl in self.plugins.items()}
        # the PreFilter plugins' pre_filter_reads_labels, in order: asked of every pod a replay
        # retries (scheduler/memo/failed_cycles.py)
        self.pre_filter_label_readers: tuple[Any, ...] = tuple(
            self.memo_traits[pl.name].pre_filter_reads_labels for pl in self.pre_filter_plugins)
        # OpportunisticBatching (framework/batch.py): the profile's batch, made on the first cycle
        # of a release with the gate on, and the plugins that sign (computeBatchablePlugins)
        self.batch: OpportunisticBatch | None = None
        self.batchable_plugins = batchable_plugins(self)
        # whether one of them refuses every pod (MemoTraits.signs_no_pod), read by the fast core
        self.signs_no_pod = self.batchable_plugins is not None and any(
            self.memo_traits[pl.name].signs_no_pod() for pl in self.batchable_plugins)

    def _expand(self, ep: str) -> list[Any]:
        # mirrors expandMultiPointPlugins
        protocol, method = EXTENSION_POINT_PROTOCOLS[ep]
        ps = self.profile.points[ep]
        enabled = [p.name for p in ps.enabled]
        for n in enabled:
            # mirrors updatePluginList: a plugin named at a point must implement that point's interface
            if not isinstance(self.plugins[n], protocol):
                raise InputError(f"plugin {quote(n)} does not extend {protocol.__name__} plugin",
                                 field=f"profiles[{self.profile_name}].plugins.{ep}.enabled")
        disabled = set(ps.disabled)
        if "*" in disabled:
            return [self.plugins[n] for n in enabled]
        multi: list[str] = []
        override: set[str] = set()
        for ref in self.profile.multi_point.enabled:
            pl = self.plugins[ref.name]
            if not callable(getattr(pl, method, None)):
                continue
            if ref.name in disabled:
                continue
            if ref.name in enabled:
                override.add(ref.name)
                continue
            if ref.name not in multi:
                multi.append(ref.name)
        order = [n for n in enabled if n in override] + multi + [n for n in enabled if n not in override]
        return [self.plugins[n] for n in order if callable(getattr(self.plugins[n], method, None))]

    # ------------------------------------------------------------------ handle
    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self.nominator.nominated_pods_for_node(node_name)

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    # ------------------------------------------------------------------ prefilter
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status, set[str]]:
        nodes = self.snapshot.list()
        skip: set[str] = set()
        result: PreFilterResult | None = None
        plugins_with_nodes: list[str] = []
        return_status = SUCCESS
        try:
            for pl in self.pre_filter_plugins:
                r, s = pl.pre_filter(state, pod, nodes)
                if s.is_skip():
                    skip.add(pl.name)
                    continue
                if not s.is_success():
                    s = s.with_plugin(pl.name)
                    if s.code == Code.UnschedulableAndUnresolvable:
                        return None, s, set()
                    if s.code == Code.Unschedulable:
                        return_status = s
                        continue
                    err = Status.as_error(f"running PreFilter plugin {quote(pl.name)}: {s.message()}", plugin=pl.name)
                    return None, err, set()
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.append(pl.name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(set(plugins_with_nodes))
                    msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1 else
                           f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously")
                    return result, Status(Code.UnschedulableAndUnresolvable, msg), set(names)
            return result, return_status, set(plugins_with_nodes)
        finally:
            state.skip_filter_plugins = skip

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension("add_pod", "AddPod", state, pod, pod_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension("remove_pod", "RemovePod", state, pod, pod_to_remove, node_info)

    def _run_pre_filter_extension(self, method: str, verb: str, state: CycleState, pod: Pod, other: Pod,
                                  node_info: NodeInfo) -> Status:
        skip = state.skip_filter_plugins
        for name, ext in self.pre_filter_extensions:
            if name in skip:
                continue
            s = getattr(ext, method)(state, pod, other, node_info)
            if s.code != Success:
                return Status.as_error(f"running {verb} on PreFilter plugin {quote(name)}: {s.message()}", name)
        return SUCCESS

    # ------------------------------------------------------------------ filter
    def get_node_hint(self, state: CycleState, pod: Pod, cycle_count: int, now: float) -> tuple[str, str | None]:
        """frameworkImpl.GetNodeHint (v1.35): the batch's hint for this pod, and its signature; ("",
        None) when the release has OpportunisticBatching off."""
        if not self.version.features.enable_opportunistic_batching:
            return "", None
        if self.batch is None:
            self.batch = OpportunisticBatch()
        fast = self.fast
        signature = fast.sign_pod(self, pod) if fast is not None else sign_pod(self.batchable_plugins, pod)
        return self.batch.get_node_hint(self, state, pod, signature, cycle_count, now), signature

    def store_schedule_results(self, signature: str | None, hinted_node: str, chosen_node: str,
                               other_nodes: SortedScoredNodes | None, cycle_count: int, now: float) -> None:
        """frameworkImpl.StoreScheduleResults: what a cycle that placed its pod leaves the next one."""
        if self.batch is not None:
            self.batch.store_schedule_results(signature, hinted_node, chosen_node, other_nodes, cycle_count, now)

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if pl.name in skip:
                continue
            s = pl.filter(state, pod, node_info)
            if s.code != Success:
                if not s.is_rejected():
                    msg = f"running {quote(pl.name)} filter plugin: {s.message()}"
                    return Status(Error, msg, plugin=pl.name, error=msg)
                return s.with_plugin(pl.name)
        return SUCCESS

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod, info: NodeInfo) -> Status:
        """Two passes when pods of equal or higher priority are nominated to the node: both must pass."""
        if not self.nominator.by_node.get(info.name):
            # no pod nominated here: the first pass alone, on the node as it is (what the loop
            # below does then; preemption's dry runs ask this of every candidate several times)
            return self.run_filter_plugins(state, pod, info)
        status = SUCCESS
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, info
            if i == 0:
                pods_added, state_to_use, info_to_use, err = self._add_ge_nominated_pods(pod, state, info)
                if err is not None:
                    return err
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_ge_nominated_pods(self, pod: Pod, state: CycleState, info: NodeInfo):
        nominated = self.nominator.by_node.get(info.name)
        if not nominated:
            return False, state, info, None
        out_info: NodeInfo | None = None
        out_state: CycleState | None = None
        added = False
        for p in nominated:
            if p.priority >= pod.priority and p.uid != pod.uid:
                if out_info is None:
                    out_info = info.snapshot()
                    out_state = state.clone()
                out_info.add_pod(p)
                s = self.run_pre_filter_extension_add_pod(out_state, pod, p, out_info)
                if not s.is_success():
                    return False, state, info, s
                added = True
        if not added:
            return False, state, info, None
        return True, out_state, out_info, None

    # ------------------------------------------------------------------ postfilter
    def run_post_filter_plugins(self, state: CycleState, pod: Pod, node_to_status: Any) -> tuple[PostFilterResult | None, Status]:
        result = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            r, s = pl.post_filter(state, pod, node_to_status)
            if s.is_success():
                return r, s
            if s.code == Code.UnschedulableAndUnresolvable:
                return r, s.with_plugin(pl.name)
            if not s.is_rejected():
                return None, Status(Code.Error, *s.reasons, plugin=pl.name, error=s.error)
            if r is not None and r.mode != "Noop":
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = pl.name
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # ------------------------------------------------------------------ score
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        skip: set[str] = set()
        for pl in self.pre_score_plugins:
            s = pl.pre_score(state, pod, nodes)
            if s.is_skip():
                skip.add(pl.name)
                continue
            if not s.is_success():
                state.skip_score_plugins = skip
                return Status.as_error(f"running PreScore plugin {quote(pl.name)}: {s.message()}", pl.name)
        state.skip_score_plugins = skip
        return SUCCESS

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                          ) -> tuple[list[NodePluginScores], Status]:
        """mirrors RunScorePlugins: each plugin's Score on each node, each plugin's NormalizeScore,
        then per node the weighted scores, each checked to lie in [MinNodeScore, MaxNodeScore],
        and their total. (Upstream runs the nodes in parallel and reports whichever failure comes
        first; one after another, the first node's.) The fast core beside it: scheduler/fast/scores.py."""
        plugins: list[Any] = []
        plugin_to_node_scores: dict[str, list[NodeScore]] = {}
        for pl in self.score_plugins:
            if pl.name in state.skip_score_plugins:
                continue
            plugins.append(pl)
            plugin_to_node_scores[pl.name] = [NodeScore("", 0)] * len(nodes)
        if plugins:
            for index, node_info in enumerate(nodes):
                node_name = node_info.name
                for pl in plugins:
                    s, status = pl.score(state, pod, node_info)
                    if not status.is_success():
                        return [], Status.as_error(f"plugin {quote(pl.name)} failed with: {status.message()}", pl.name)
                    plugin_to_node_scores[pl.name][index] = NodeScore(node_name, s)
        for pl in plugins:
            ext = _extensions(pl)
            if ext is None:
                continue
            status = ext.normalize_score(state, pod, plugin_to_node_scores[pl.name])
            if not status.is_success():
                return [], Status.as_error(f"plugin {quote(pl.name)} failed with: {status.message()}", pl.name)
        names = tuple(pl.name for pl in plugins)
        all_node_plugin_scores: list[NodePluginScores] = []
        for index, node_info in enumerate(nodes):
            scores: list[int] = []
            total = 0
            for pl in plugins:
                weight = self.score_weights.get(pl.name, 1)
                score = plugin_to_node_scores[pl.name][index].score
                if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                    return [], Status.as_error(
                        f"plugin {quote(pl.name)} returns an invalid score {score}, it should in the range of "
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing", pl.name)
                weighted_score = score * weight
                scores.append(weighted_score)
                total += weighted_score
            all_node_plugin_scores.append(NodePluginScores(node_info.name, names, scores, total))
        return all_node_plugin_scores, SUCCESS

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """mirrors RunReservePluginsReserve: the first plugin that does not succeed ends it, its
        status an error ("running Reserve plugin ...") unless it rejected the pod."""
        for pl in self.points["reserve"]:
            s = pl.reserve(state, pod, node_name)
            if s.is_success():
                continue
            if s.is_rejected():
                return s.with_plugin(pl.name)
            return Status.as_error(f"running Reserve plugin {quote(pl.name)}: {s.message()}", pl.name)
        return SUCCESS

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """mirrors RunReservePluginsUnreserve: every Reserve plugin, in reverse order."""
        for pl in reversed(self.points["reserve"]):
            pl.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        """mirrors RunPermitPlugins: the first rejection or error ends it; a Wait from any plugin
        (none rejecting) is the answer, with its reason and "one or more plugins asked to wait and
        no plugin rejected pod" appended, and the shortest wait any plugin asked for (at most
        maxTimeout, 15 minutes)."""
        wait: Status | None = None
        timeout = 0.0
        for pl in self.points["permit"]:
            s, t = pl.permit(state, pod, node_name)
            if s.is_success():
                continue
            if s.is_rejected():
                return s.with_plugin(pl.name), 0.0
            if s.code == Code.Wait:
                t = min(t, 900.0)
                timeout = t if wait is None else min(timeout, t)
                wait = s
                continue
            return Status.as_error(f"running Permit plugin {quote(pl.name)}: {s.message()}", pl.name), 0.0
        if wait is not None:
            if self.version.minor < 36:
                # v1.35 and before: the framework's own message, naming the pod, and no plugin's
                return Status(Code.Wait, f"one or more plugins asked to wait and no plugin rejected pod "
                                         f"{quote(pod.name)}"), timeout
            return Status(Code.Wait, *wait.reasons, "one or more plugins asked to wait and no plugin rejected pod",
                          plugin=wait.plugin), timeout
        return SUCCESS, 0.0


# the extension points whose plugins can reject a pod and so tell the queue what may help it
# (upstream's shouldHaveEnqueueExtensions)
_ENQUEUE_POINTS = ("preEnqueue", "preFilter", "filter", "reserve", "permit")


def enqueue_extensions(fwk: Framework) -> list[Any]:
    """The profile's plugins that have a say on requeueing: those at a rejecting point, in the
    profile's order, then those that declare events anyway (DefaultPreemption, whose
    PreEnqueue the replay runs itself)."""
    out: list[Any] = []
    for ep in _ENQUEUE_POINTS:
        out += [pl for pl in fwk.points[ep] if pl not in out]
    out += [pl for _, pl in sorted(fwk.plugins.items()) if pl not in out and isinstance(pl, EnqueueExtensions)]
    return out


def build_queueing_hint_map(fwk: Framework) -> QueueingHintMap:
    """mirrors buildQueueingHintMap: every event each plugin registered, with its hint (the default
    one, Queue, without SchedulerQueueingHints); a plugin at a rejecting point that declares nothing
    is registered for every event of every resource."""
    hints = QueueingHintMap()
    # SchedulerQueueingHints off (v1.30, v1.31): every hint is the default one, which says Queue
    with_hints = fwk.version.features.enable_scheduling_queue_hint
    for pl in enqueue_extensions(fwk):
        events = pl.events_to_register() if isinstance(pl, EnqueueExtensions) else unroll_wildcard_resource()
        node_added = node_taint_updated = False
        for e in events:
            hints.register(pl.name, e.event, e.hint if with_hints else None)
            if e.event.resource == NODE:
                node_added = node_added or bool(e.event.action & ADD)
                node_taint_updated = node_taint_updated or bool(e.event.action & UPDATE_NODE_TAINT)
        if node_added and not node_taint_updated:
            # buildQueueingHintMap's mitigation of kubernetes#109437 (v1.30 to v1.36 alike): a
            # plugin that registered Node/Add but not Node/UpdateNodeTaint is registered for
            # UpdateNodeTaint too, with the default hint (Queue), because the preCheck of node
            # events may have kept a NodeAdd from it; so a pod such a plugin rejected goes back
            # to the queue when any node's taints or spec.unschedulable change
            hints.register(pl.name, ClusterEvent(NODE, UPDATE_NODE_TAINT, "UpdateNodeTaint"), None)
    return hints
