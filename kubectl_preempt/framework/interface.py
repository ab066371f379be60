"""Plugin protocols of the scheduling framework, and the results they return.

A plugin is a class with a `name` and any of the extension-point methods below; the framework
looks for each method with getattr, as upstream type-asserts each interface.

    pre_filter(state, pod, nodes)               -> (PreFilterResult | None, Status)
    pre_filter_extensions()                     -> object with add_pod/remove_pod, or None
        add_pod(state, pod_to_schedule, pod_to_add, node_info)       -> Status
        remove_pod(state, pod_to_schedule, pod_to_remove, node_info) -> Status
    filter(state, pod, node_info)               -> Status
    post_filter(state, pod, node_to_status)     -> (PostFilterResult | None, Status)
    pre_score(state, pod, nodes)                -> Status   (Skip: Score is not called)
    score(state, pod, node_info)                -> (int, Status)
    score_extensions()                          -> object with normalize_score, or None
        normalize_score(state, pod, scores: list[NodeScore]) -> Status
        normalize_values(state, pod, values: list[int]) -> list[int]   (optional, MemoTraits: the
                                                   same on the plain scores in node order)
    less(a: QueuedPodInfo, b: QueuedPodInfo)    -> bool    (QueueSort)
    pre_enqueue(pod)                            -> Status
    events_to_register()                        -> list[ClusterEventWithHint] (EnqueueExtensions)
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, Sequence, runtime_checkable

from .status import Status

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1


class PreFilterResult:
    """The set of nodes a PreFilter plugin allows; None means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: set[str] | None = None) -> None:
        self.node_names = node_names

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if other is None or other.all_nodes():
            return PreFilterResult(None if self.node_names is None else set(self.node_names))
        if self.all_nodes():
            return PreFilterResult(set(other.node_names or ()))
        return PreFilterResult(self.node_names & other.node_names)  # type: ignore[operator]


@dataclass
class NodeScore:
    name: str
    score: int


@dataclass
class PluginScore:
    name: str
    score: int


class NodePluginScores:
    """A node's weighted score per plugin and in total; per-plugin objects are made on demand."""

    __slots__ = ("name", "plugin_names", "values", "total_score")

    def __init__(self, name: str, plugin_names: tuple[str, ...] = (), values: list[int] | None = None,
                 total_score: int = 0) -> None:
        self.name = name
        self.plugin_names = plugin_names
        self.values = values if values is not None else []
        self.total_score = total_score

    @property
    def scores(self) -> list[PluginScore]:
        return [PluginScore(n, v) for n, v in zip(self.plugin_names, self.values)]


class ScoreTable:
    """Every feasible node's weighted plugin scores, kept as columns; a node's NodePluginScores is
    made only when someone asks for it (an explanation), not for every cycle of a replay."""

    __slots__ = ("node_names", "plugin_names", "columns", "totals")

    def __init__(self, node_names: list[str], plugin_names: tuple[str, ...], columns: list[list[int]],
                 totals: list[int]) -> None:
        self.node_names = node_names
        self.plugin_names = plugin_names
        self.columns = columns
        self.totals = totals

    def __len__(self) -> int:
        return len(self.node_names)

    def __getitem__(self, i: int) -> NodePluginScores:
        return NodePluginScores(self.node_names[i], self.plugin_names, [c[i] for c in self.columns], self.totals[i])

    def __iter__(self):  # noqa: ANN204 - an iterator of NodePluginScores
        for i in range(len(self.node_names)):
            yield self[i]


@dataclass
class PostFilterResult:
    """What PostFilter decided: the node nominated for the pod (empty for none)."""

    nominated_node_name: str = ""
    mode: str = "Override"  # ModeOverride; "Noop" leaves the nomination alone


class Plugin(Protocol):
    name: str


# A plugin declares, next to its name, the extension points where it reads nothing but the pod
# and the NodeInfo it is given (`node_local = frozenset({"filter", "score"})`): there the
# scheduler's equivalence cache may answer for it while the node is unchanged.
NODE_LOCAL_POINTS = frozenset({"filter", "score"})


def is_node_local(plugin: Any, point: str) -> bool:
    return point in getattr(plugin, "node_local", ())


class NodeAnswers(Protocol):
    """One pod shape's remembered answers of one group of node-local plugins."""

    def get(self, nodes: Any, compute: Any) -> list: ...


# the points whose answers the equivalence cache keeps per node (scheduler/memo/equivalence.py):
# the node-local ones and the preemption dry runs of a plugin declaring MemoTraits.repeatable_dry_run
DRY_RUN_POINT = "preemptionDryRun"
REMEMBERED_POINTS = NODE_LOCAL_POINTS | {DRY_RUN_POINT}


class EquivalenceAnswers(Protocol):
    """The scheduler's equivalence cache as one cycle sees it (scheduler/memo/equivalence.py)."""

    def answers(self, point: str, plugins: tuple[str, ...]) -> NodeAnswers: ...


@runtime_checkable
class MemoTraits(Protocol):
    """What a plugin declares, once, so the scheduler's memory (scheduler/memo) may reuse an answer
    instead of asking it again. Upstream has no such declaration (its scheduler remembers nothing
    between cycles), so each default is the answer that makes the memory ask afresh: a plugin
    subclasses this Protocol and overrides only the traits it has; a plugin that does not subclass
    it (an out-of-tree one) has none (memo_traits). tests/framework/test_extension_points.py holds
    every in-tree plugin that defines one of these methods to subclassing this, with its signature.
    Whether a plugin is node-local (`node_local`, above) is declared next to its name instead."""

    def pre_filter_reads_labels(self, pod: Any) -> bool:
        """Whether its PreFilter's outcome for this pod may depend on more than the pod's shape
        (its labels, name or uid): a failed cycle is then not recalled by shape alone."""
        return True

    def repeatable_post_filter(self, state: Any, pod: Any) -> bool:
        """Whether its PostFilter's answer is a function of the pod's shape, the nodes, the
        nominator and the PDBs (a failed cycle may then be remembered)."""
        return False

    def same_answer_after_change(self, state: Any, pod: Any, record: Any, node_info: Any, status: Status) -> bool:
        """Whether its remembered PostFilter answer (`record`) holds after `node_info` changed while
        the node's filters still reject the pod with `status`."""
        return False

    def scores_nothing(self, state: Any, pod: Any) -> bool:
        """Whether, for this pod, Score gives 0 on every node and NormalizeScore keeps 0 (the
        framework then asks no node)."""
        return False

    def normalize_values(self, state: Any, pod: Any, values: list[int]) -> list[int] | None:
        """Its NormalizeScore over the plain scores in node order, without a NodeScore per node;
        None: not declared, NormalizeScore is called."""
        return None

    def repeatable_dry_run(self, state: Any, pod: Any) -> bool:
        """Whether its preemption dry run on a node (SelectVictimsOnNode) is a function of the
        pod's node shape and priority, the node's pods in their order, the pods nominated there at
        the pod's priority or above and the PDBs, while the cycle's filters are all node-local and
        no PreFilter extension runs: the equivalence cache may then keep it, under DRY_RUN_POINT
        (scheduler/fast/preemption.py DryRunMemo)."""
        return False

    def filter_ignores_pods(self, state: Any, pod: Any, others: Any) -> bool:
        """Whether putting any of the pods `others` on a node, or taking it off, changes neither
        this plugin's Filter answer for `pod` there nor what its PreFilter extension keeps in
        `state` (its AddPod/RemovePod would change nothing): the fast core's dry runs then leave
        the plugin out of the checks while they reprieve those pods (scheduler/fast/preemption.py)."""
        return False

    def signs_no_pod(self) -> bool:
        """Whether its SignPod refuses every pod, whatever the pod, for a setting of its own (a
        profile's PodTopologySpread with default constraints): no pod of the profile has a
        signature then, and the fast core gives that answer without asking every plugin
        (OpportunisticBatching, framework/batch.py sign_pod)."""
        return False


class _Undeclared(MemoTraits):
    name = ""


_UNDECLARED = _Undeclared()


def memo_traits(plugin: Any) -> MemoTraits:
    """The traits `plugin` declares (itself, when it subclasses MemoTraits), else none at all.
    Declaring is subclassing: a look at the class's MRO, not a structural Protocol check (which
    asks for every member and is slow)."""
    return plugin if MemoTraits in type(plugin).__mro__ else _UNDECLARED


class FastCores(Protocol):
    """The fast cores beside the decision (scheduler/fast/): each gives exactly the answer of the
    upstream-shaped function it is named after (scheduler/schedule_one.py find_nodes_that_pass_filters,
    Framework.run_score_plugins, preemption/evaluator.py Evaluator.dry_run_preemption), with the
    same side effects on the diagnosis, the cycle state and the preemption's record, only faster:
    answers of node-local plugins kept in the scheduler's equivalence cache (`equivalence`, None:
    none kept), nodes walked in steps, score columns, candidates screened and dry runs remembered
    or done in arithmetic. A core returns None for a case it does not take, and the plain function
    runs.

    Upstream has no such seam (Go is fast enough plain). The Scheduler hands its cores to a
    cycle's Framework (`Framework.fast`) unless every memory is off (model/memory.py
    MEMORY.off()), the one switch: with it off every cycle runs the plain functions alone, and
    tests/test_memo_off.py holds both to byte-identical documents."""

    def find_nodes_that_pass_filters(self, fwk: Any, state: Any, pod: Any, diagnosis: Any, nodes: Any,
                                     start_index: int, equivalence: "EquivalenceAnswers | None") -> Any: ...

    def run_score_plugins(self, fwk: Any, state: Any, pod: Any, nodes: Any,
                          equivalence: "EquivalenceAnswers | None", node_names: Any) -> Any: ...

    def dry_run_preemption(self, evaluator: Any, state: Any, pod: Any, potential: Any, pdbs: Any,
                           offset: int, num: int, details: Any) -> Any: ...

    def sign_pod(self, fwk: Any, pod: Any) -> str | None:
        """framework/batch.py sign_pod's answer for the profile's batchable plugins: None without
        asking them when one of them signs no pod (MemoTraits.signs_no_pod)."""
        ...

    def pods_maybe_matching(self, node_info: Any, selector: Any) -> Sequence[Any]:
        """The node's PodInfos `selector` may match, from the node's label index
        (scheduler/fast/labels.py pods_with_label): a superset of those it matches, in no
        particular order, for counts that test each pod they are given (node_pods beside it)."""
        ...


_NAME = operator.attrgetter("name")


class NamedNodes(list):
    """A list of NodeInfos that carries their names in the same order (`names`): what a fast core
    returns when it had the names at hand (the filter walk cuts them from the snapshot's name
    list), so that the cycle does not read each node's name again. A plain list is as good."""

    __slots__ = ("names",)

    def __init__(self, nodes: Iterable[Any], names: list[str]) -> None:
        super().__init__(nodes)
        self.names = names


def node_names_of(nodes: list) -> list[str]:
    """The names of `nodes`, in order: those a NamedNodes carries, else each node's."""
    names = getattr(nodes, "names", None)
    return names if names is not None else list(map(_NAME, nodes))


# The pods of a node a PreFilter or Score count walks for one label selector (PodTopologySpread's
# countPodsMatchSelector, InterPodAffinity's incoming counts): upstream walks nodeInfo.Pods
# (node_pods); with fast cores, the pods the selector may match (FastCores.pods_maybe_matching).
# Either way each pod given is tested in full, so the count is the same.
PodsOf = Callable[[Any, Any], Sequence[Any]]


def node_pods(node_info: Any, selector: Any) -> Sequence[Any]:
    """nodeInfo.Pods: every pod of the node, whatever the selector."""
    return node_info.pods


def pods_of(handle: Any) -> PodsOf:
    """What a count walks per node and selector: the cycle's fast core when it has one
    (framework/runtime.py Framework.fast, None while every memory is off), else node_pods."""
    fast = getattr(handle, "fast", None)
    return fast.pods_maybe_matching if fast is not None else node_pods


# One Protocol per extension point (framework/interface.go's PreEnqueuePlugin, QueueSortPlugin, ...).
# The framework checks a plugin against the Protocol of each point it is enabled at, as upstream
# type-asserts each interface; tests check every in-tree plugin's methods against them.

@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: Any) -> Status: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: Any, b: Any) -> bool: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> tuple[PreFilterResult | None, Status]: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: Any, pod: Any, node_info: Any) -> Status: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(self, state: Any, pod: Any, node_to_status: Any) -> tuple[PostFilterResult | None, Status]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: Any, pod: Any, nodes: Any) -> Status: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: Any, pod: Any, node_info: Any) -> tuple[int, Status]: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: Any, pod: Any, node_name: str) -> Status: ...

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: Any, pod: Any, node_name: str) -> Status: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: Any, pod: Any, node_name: str) -> Status: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: Any, pod: Any, node_name: str) -> Status: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: Any, pod: Any, node_name: str) -> None: ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    """The events that may make a pod this plugin rejected schedulable again, each with its
    queueing hint (framework/events.py). Only PreEnqueue, PreFilter, Filter, Reserve and Permit
    plugins are asked; one of those without it is registered for every event (upstream's
    defaultEnqueueExtension)."""

    def events_to_register(self) -> list[Any]: ...


# configuration's extension point -> (its Protocol, the method that implements it)
EXTENSION_POINT_PROTOCOLS: dict[str, tuple[type, str]] = {
    "preEnqueue": (PreEnqueuePlugin, "pre_enqueue"), "queueSort": (QueueSortPlugin, "less"),
    "preFilter": (PreFilterPlugin, "pre_filter"), "filter": (FilterPlugin, "filter"),
    "postFilter": (PostFilterPlugin, "post_filter"), "preScore": (PreScorePlugin, "pre_score"),
    "score": (ScorePlugin, "score"), "reserve": (ReservePlugin, "reserve"), "permit": (PermitPlugin, "permit"),
    "preBind": (PreBindPlugin, "pre_bind"), "bind": (BindPlugin, "bind"), "postBind": (PostBindPlugin, "post_bind"),
}


class Handle(Protocol):
    """What a plugin may reach: the snapshot, the cluster's other objects, the framework."""

    snapshot: Any
    cluster: Any
    framework: Any
    # the run's one source of random choices (framework/randomness.py RandomSource)
    random_source: Any
