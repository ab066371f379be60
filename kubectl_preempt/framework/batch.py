"""OpportunisticBatching (beta and on from v1.35): a cycle that reuses the cycle before it.

Mirrors pkg/scheduler/framework/runtime/batch.go (OpportunisticBatch: GetNodeHint,
StoreScheduleResults, batchStateCompatible), the framework's signing (framework.go
computeBatchablePlugins and SignPod) and the common signers of k8s.io/kube-scheduler/framework
signers.go (HostPortsSigner, NodeAffinitySigner, TolerationsSigner, VolumesSigner). Each plugin's
own SignPod is its `sign_pod` method, in the plugin's module.

What upstream does, and so what this does:
- A pod is signed when every PreFilter, Filter, PreScore and Score plugin of its profile can sign
  (each has SignPod) and each signs this pod (returns Success); the signature is the map of the
  plugins' fragments and the schedulerName. Pods alike in everything the plugins read sign alike.
  In the default profile PodTopologySpread's system default constraints sign no pod, so batching
  needs a profile without them.
- A cycle whose pod was signed and that scored more than one node keeps the other nodes, in their
  score order (StoreScheduleResults). The next cycle (the very next one: cycle count + 1, the last
  one placed its pod) of a pod with the same signature, within maxBatchAge of that, whose pod no
  longer fits on the node the last pod took (the pods go one per node: the kept scores are still
  those of the nodes left) gets the next kept node as a hint (GetNodeHint).
- The hinted node is filtered first, as a nominated node is (findNodesThatFitPod /
  evaluateNominatedNode; a pod's own nomination comes first and the hint is then left unused):
  if it passes, the pod goes there without scoring; else a full cycle runs.
- A cycle that used its hint keeps the batch (less the node it took); one that did not replaces it
  with its own results, or drops it when its pod could not be signed or scored one node.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..model.objects import Pod
from .status import Code, Status

# batch.go maxBatchAge: a batch older than this is not used (on the replay's clock)
MAX_BATCH_AGE = 0.5

# signers.go: the keys of a signature's fragments
DYNAMIC_RESOURCES_SIGNER = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES_SIGNER = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER = "v1.Pod.Labels"
NODE_NAME_SIGNER = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER = "v1.Pod.Spec.RequiredFeatures()"

Fragments = list[tuple[str, Any]]


def _json(value: Any) -> str:
    # json.Marshal's canonical form for what a signer returns: map keys sorted
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _containers(pod: Pod) -> list[Mapping[str, Any]]:
    spec = pod.spec
    return [c for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())] if isinstance(c, Mapping)]


# --- signers.go ---------------------------------------------------------------------------------
def host_ports_signer(pod: Pod) -> list[int]:
    """HostPortsSigner: the containers' and init containers' host ports, sorted, once each."""
    ports = {p.get("hostPort") for c in _containers(pod) for p in (c.get("ports") or ())
             if isinstance(p, Mapping) and p.get("hostPort")}
    return sorted(ports)


def _requirements(reqs: Any) -> list[str]:
    # NodeSelectorRequirementsSigner: each requirement with its values sorted, as JSON, sorted
    out = []
    for r in reqs or ():
        r = dict(r)
        if isinstance(r.get("values"), list):
            r["values"] = sorted(r["values"])
        out.append(_json(r))
    return sorted(out)


def _term(t: Mapping[str, Any]) -> dict[str, list[str]]:
    # NodeSelectorTermSigner
    return {"MatchExpressions": _requirements(t.get("matchExpressions")),
            "MatchFields": _requirements(t.get("matchFields"))}


def node_affinity_signer(pod: Pod) -> Any:
    """NodeAffinitySigner: the required terms and the preferred ones, each signed and sorted; None
    without a node affinity."""
    na = (pod.spec.get("affinity") or {}).get("nodeAffinity")
    if not isinstance(na, Mapping):
        return None
    pref = sorted(_json({"Weight": t.get("weight"), "Preference": _term(t.get("preference") or {})})
                  for t in na.get("preferredDuringSchedulingIgnoredDuringExecution") or ())
    req_terms = (na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or ()
    return {"Required": sorted(_json(_term(t)) for t in req_terms), "Preferred": pref}


def tolerations_signer(pod: Pod) -> list[Any]:
    """TolerationsSigner: the tolerations ordered by key, then value."""
    tols = [t for t in pod.spec.get("tolerations") or () if isinstance(t, Mapping)]
    return sorted(tols, key=lambda t: (t.get("key") or "", t.get("value") or ""))


def volumes_signer(pod: Pod) -> list[str]:
    """VolumesSigner: every volume's source but ConfigMaps' and Secrets' (they do not touch
    scheduling, and would make every pod's signature its own), as JSON, sorted."""
    out = []
    for v in pod.spec.get("volumes") or ():
        if not isinstance(v, Mapping) or "configMap" in v or "secret" in v:
            continue
        out.append(_json({k: x for k, x in v.items() if k != "name"}))
    return sorted(out)


# --- framework.go: computeBatchablePlugins, SignPod ----------------------------------------------
def batchable_plugins(fwk: Any) -> list[Any] | None:
    """computeBatchablePlugins: the PreFilter, Filter, PreScore and Score plugins, each once; None
    (signatures disabled for the profile) when one of them cannot sign (has no SignPod)."""
    seen: dict[str, Any] = {}
    for point in ("preFilter", "filter", "preScore", "score"):
        for pl in fwk.points[point]:
            if pl.name in seen:
                continue
            if not hasattr(pl, "sign_pod"):
                return None
            seen[pl.name] = pl
    return list(seen.values())


def sign_pod(plugins: Sequence[Any] | None, pod: Pod) -> str | None:
    """SignPod: the pod's signature, or None when signatures are off for the profile or a plugin
    cannot sign this pod."""
    if plugins is None:
        return None
    sig: dict[str, Any] = {SCHEDULER_NAME_SIGNER: pod.scheduler_name}
    for pl in plugins:
        fragments, status = pl.sign_pod(pod)
        if not status.is_success():
            return None
        for key, value in fragments:
            sig[key] = value
    return _json(sig)


def not_signable(reason: str) -> tuple[Fragments, Status]:
    """A plugin's SignPod answer for a pod it cannot sign (Unschedulable, with its reason)."""
    return [], Status(Code.Unschedulable, reason)


# --- batch.go ------------------------------------------------------------------------------------
class SortedScoredNodes:
    """The nodes of a scored cycle left after its pick, best first (schedule_one.go sortedNodeScores)."""

    __slots__ = ("names",)

    def __init__(self, names: list[str]) -> None:
        self.names = names  # best last: popped from the end

    @classmethod
    def after(cls, names: Sequence[str], totals: Sequence[int], chosen: str) -> "SortedScoredNodes":
        """newSortedNodeScores over every scored node, less the one popped (the pick): by total score,
        best first. Upstream's heap orders nodes tied on score by a Randomizer that only extenders
        set (prioritizeNodes), so by the heap's own moves: here by the order they were scored in, and
        without drawing from the run's random source (its draws stay those of a run without batching)."""
        rest = [(t, n) for n, t in zip(names, totals) if n != chosen]
        rest.sort(key=lambda tn: -tn[0])  # stable: the scored order among ties
        return cls([n for _, n in reversed(rest)])

    def pop(self) -> str:
        return self.names.pop()

    def __len__(self) -> int:
        return len(self.names)


@dataclass
class _BatchState:
    signature: str
    sorted_nodes: SortedScoredNodes
    creation_time: float


@dataclass
class _SchedulingCycle:
    cycle_count: int = -1
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """One profile's batch (frameworkImpl.batch, made when OpportunisticBatching is on)."""

    __slots__ = ("state", "last_cycle", "batched_pods")

    def __init__(self) -> None:
        self.state: _BatchState | None = None
        self.last_cycle = _SchedulingCycle()
        self.batched_pods = 0  # pods placed on a hint (upstream keeps the count for its tests)

    def get_node_hint(self, fwk: Any, state: Any, pod: Pod, signature: str | None, cycle_count: int,
                      now: float) -> str:
        """GetNodeHint: the next kept node when the batch is compatible with this pod, else ""."""
        if not self._compatible(fwk, state, pod, signature, cycle_count, now):
            return ""
        assert self.state is not None
        return self.state.sorted_nodes.pop()

    def store_schedule_results(self, signature: str | None, hinted_node: str, chosen_node: str,
                               other_nodes: SortedScoredNodes | None, cycle_count: int, now: float) -> None:
        """StoreScheduleResults: the cycle placed its pod on `chosen_node`."""
        self.last_cycle = _SchedulingCycle(cycle_count, chosen_node, True)
        if hinted_node == chosen_node:
            # the hint was used: the batch goes on, less the node it gave
            self.batched_pods += 1
            return
        if signature is not None and other_nodes is not None and len(other_nodes) > 0:
            self.state = _BatchState(signature, other_nodes, now)
        else:
            self.state = None

    def _compatible(self, fwk: Any, state: Any, pod: Pod, signature: str | None, cycle_count: int,
                    now: float) -> bool:
        """batchStateCompatible: each check in upstream's order; a failed one leaves the batch as it
        is (upstream only logs it), for the next cycle to replace."""
        s = self.state
        if s is None or len(s.sorted_nodes) == 0:
            return False
        if cycle_count != self.last_cycle.cycle_count + 1:
            return False  # a pod of another profile, or a failed cycle, came in between
        if not self.last_cycle.succeeded:
            return False
        if signature is None or signature != s.signature:
            return False
        if now > s.creation_time + MAX_BATCH_AGE:
            return False
        # the kept scores hold only if this pod no longer fits where the last one went: then the
        # next best node is the next one kept (KEP-5598)
        last = fwk.snapshot.get(self.last_cycle.chosen_node)
        if last is None:
            return False
        return fwk.run_filter_plugins(state, pod, last).is_rejected()
