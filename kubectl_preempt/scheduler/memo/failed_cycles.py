"""Whole failed scheduling cycles, remembered and given back while the world they ran on holds.

A replay retries the pods that fit nowhere each time an event may help them, and most such retries
run on a cluster no different from the previous failure of a pod of the same shape. This module
wraps schedule_one (scheduler/schedule_one.py, which reads as upstream's schedulingCycle and
knows nothing of it but the two questions of its `memo` argument): schedule_one_remembering asks
before the PreFilter (a pod whose PreFilter reads nothing but its shape), CycleMemo.recall after
it (the full key), and CycleMemo.remember keeps a failure. Upstream remembers nothing between
cycles: every answer given back here is the one the cycle would compute, which
tests/replay/test_equivalence_on_off.py and tests/test_memo_off.py check byte for byte.
"""
from __future__ import annotations

import copy
from typing import Any

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import Diagnosis, NodeToStatus
from ...framework.interface import PreFilterResult, is_node_local
from ...framework.runtime import Framework
from ...framework.status import Code, Status
from ...framework.types import NodeInfo
from ...model.objects import Pod
from ..schedule_one import UNSCHEDULABLE, CycleResult, schedule_one

MAX_ENTRIES = 64  # failed cycles (and PreFilter keys) remembered at once; the oldest is forgotten first
MAX_MOVED = 64  # node changes a remembered failed cycle is checked against before it is run again

# the scheduler's equivalence cache as a cycle sees it (equivalence.py PodAnswers): its profile,
# the pod's shape, and node-local answers per group of plugins
PodAnswers = Any


class FailedCycles:
    """Whole failed scheduling cycles, remembered per (profile, pod shape, what the PreFilter
    plugins decided, start index) with the state of the world they ran on.

    A cycle qualifies (failed_cycle_key decides) when every Filter plugin it runs is node-local,
    the pod has no nominated node, and its PostFilter plugins declare `repeatable_post_filter`
    (framework/interface.py MemoTraits: their answer is a function of the pod's shape, the nodes,
    the nominator and the PDBs) and drew nothing from the random source. Its outcome is then a
    function of the key and of the world: the snapshot (its identity and journal position: every
    NodeInfo change is journaled), the nominator's version, the cluster's version (every object
    other than pods and nodes) and the PDBs' generation and disruptionsAllowed. A remembered cycle
    is given back only while all of those are unchanged; anything else is a miss."""

    __slots__ = ("_memo", "_keys", "max_entries", "hits", "checked")

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._memo: dict[tuple, tuple[tuple, Any]] = {}
        # per (profile, pod shape): the key the PreFilter's outcome gave in a world, for pods whose
        # PreFilter reads nothing but their shape (there the outcome is the shape's in that world)
        self._keys: dict[tuple, tuple[tuple, tuple]] = {}
        self.max_entries = max_entries
        self.hits = 0  # given back on an unchanged world
        self.checked = 0  # given back to be checked against the nodes that changed

    def remembered(self) -> int:
        return len(self._memo) + len(self._keys)

    @staticmethod
    def _held(memo: dict[tuple, tuple[tuple, Any]], key: tuple, world: tuple) -> Any | None:
        """What `memo` keeps under `key` when its world is `world` (the snapshot by identity: a
        rebuilt one is another world; the rest by value), else None."""
        got = memo.get(key)
        if got is None:
            return None
        then, value = got
        if then[0] is not world[0] or then[1:] != world[1:]:
            return None  # kept (for recall_moved); a new entry replaces it
        return value

    def recall(self, key: tuple, world: tuple) -> Any | None:
        value = self._held(self._memo, key, world)
        if value is not None:
            self.hits += 1
        return value

    def recall_key(self, shaped: tuple, world: tuple) -> tuple | None:
        return self._held(self._keys, shaped, world)

    def remember_key(self, shaped: tuple, world: tuple, key: tuple) -> None:
        self._put(self._keys, shaped, world, key)

    def recall_moved(self, key: tuple, world: tuple) -> tuple[Any, list[NodeInfo]] | None:
        """When only nodes changed since the cycle remembered under `key` ran (the same snapshot,
        its journal further on, nothing else moved): the value and the NodeInfos that changed, in
        the order they did, for the caller to judge (at most MAX_MOVED of them)."""
        got = self._memo.get(key)
        if got is None:
            return None
        then, value = got
        snapshot = world[0]
        if then[0] is not snapshot or then[2:] != world[2:]:
            return None
        journal = snapshot.journal
        if journal is None or then[1] < journal.base or world[1] - then[1] > MAX_MOVED:
            return None
        self.checked += 1
        return value, journal.since(then[1])[:world[1] - then[1]]

    def remember(self, key: tuple, world: tuple, value: Any) -> None:
        self._put(self._memo, key, world, value)

    def _put(self, memo: dict[tuple, tuple[tuple, Any]], key: tuple, world: tuple, value: Any) -> None:
        if key not in memo and len(memo) >= self.max_entries:
            del memo[next(iter(memo))]
        memo[key] = (world, value)

    def clear(self) -> None:
        self._memo.clear()
        self._keys.clear()


def _pre_filter_reads_labels(fwk: Framework, pod: Pod) -> bool:
    """Whether some PreFilter plugin's outcome for this pod, in this cluster, may depend on more
    than the pod's shape (its labels, name or uid); a plugin that does not say is taken to."""
    for reads_labels in fwk.pre_filter_label_readers:
        if reads_labels(pod):
            return True
    return False


def failed_cycle_key(fwk: Framework, state: CycleState, pod: Pod,
                     pre_filtered: tuple[PreFilterResult | None, Status, set[str]],
                     equivalence: PodAnswers) -> tuple | None:
    """The key a failure of this cycle is remembered under (FailedCycles),
    None when its outcome could depend on more than the key and the world: the PreFilter did not
    pass every node, a Filter plugin it runs is not node-local (it may read the pod's labels or
    other pods), the pod has a nominated node (tried first, and read by preemption), or a
    PostFilter plugin does not say it is repeatable for this pod.

    The start index is no part of it: a failed walk visits every node, and where it started only
    orders the rejected nodes' statuses (_again puts them in this cycle's order)."""
    pre_res, s, unsched_plugins = pre_filtered
    if pod.nominated_node_name or s.code != Code.Success:
        return None
    if pre_res is not None and not pre_res.all_nodes():
        return None
    skip = state.skip_filter_plugins
    if not all(is_node_local(pl, "filter") for pl in fwk.filter_plugins if pl.name not in skip):
        return None
    traits = fwk.memo_traits
    if not all(traits[pl.name].repeatable_post_filter(state, pod) for pl in fwk.post_filter_plugins):
        return None
    return (equivalence.profile, equivalence.shape, frozenset(skip), frozenset(unsched_plugins))


def _still_fails(fwk: Framework, state: CycleState, pod: Pod, equivalence: PodAnswers, res: CycleResult,
                 moved: list[NodeInfo]) -> bool:
    """Whether a remembered failed cycle holds after `moved` nodes changed (nothing else did): each
    such node's node-local filters still reject the pod with the very status remembered (statuses
    are shared objects), it has no pods nominated to it, and every PostFilter plugin says its
    answer there is unchanged (DefaultPreemption: the node still holds no possible victim, and the
    remembered dry run looked at none)."""
    statuses = res.diagnosis.node_to_status
    skip = state.skip_filter_plugins
    answers = equivalence.answers("filter", tuple(pl.name for pl in fwk.filter_plugins if pl.name not in skip))
    nominated = fwk.nominator.by_node
    post_filters = [fwk.memo_traits[pl.name] for pl in fwk.post_filter_plugins]
    seen: set[str] = set()
    for ni in moved:
        name = ni.name
        if name in seen:
            continue
        seen.add(name)
        if name in nominated or fwk.snapshot.get(name) is not ni:
            return False
        st = answers.get([ni], lambda n: fwk.run_filter_plugins(state, pod, n), [name])[0]
        if st is not statuses.statuses.get(name):
            return False
        if not all(pl.same_answer_after_change(state, pod, res.preemption, ni, st) for pl in post_filters):
            return False
    return True


class _Relisted(NodeToStatus):
    """A remembered cycle's rejected nodes listed as a walk from another start index lists them:
    the same statuses, rotated when first read (a replay seldom reads them)."""

    def __init__(self, base: NodeToStatus, names: list[str], start: int) -> None:  # noqa: D107
        self.absent = base.absent
        self._base, self._names, self._start = base.statuses, names, start
        self._statuses: dict[str, Status] | None = None

    @property
    def statuses(self) -> dict[str, Status]:  # type: ignore[override]
        if self._statuses is None:
            base, names = self._base, self._names
            order = names[self._start:] + names[:self._start]
            if len(base) == len(order):
                self._statuses = dict(zip(order, map(base.__getitem__, order)))
            else:
                self._statuses = {name: base[name] for name in order if name in base}
        return self._statuses

    def __len__(self) -> int:
        return len(self._base)


def _again(res: CycleResult, pod: Pod, start_then: int, start_now: int, names: list[str]) -> CycleResult:
    """A remembered failed cycle as this pod's: its own Diagnosis (the sets are the queue's to keep),
    the statuses shared (nothing writes to a finished cycle's), listed from this cycle's start
    index as its walk would list them (`names`: the snapshot's node names)."""
    d, old = Diagnosis(), res.diagnosis
    d.node_to_status = old.node_to_status
    if start_now != start_then and names:
        d.node_to_status = _Relisted(old.node_to_status, names, start_now % len(names))
    d.unschedulable_plugins = set(old.unschedulable_plugins)
    d.pending_plugins = set(old.pending_plugins)
    d.pre_filter_msg, d.post_filter_msg = old.pre_filter_msg, old.post_filter_msg
    # a copy of the frozen record with the pod and diagnosis swapped (what dataclasses.replace
    # does, without running __init__ over every field)
    again = copy.copy(res)
    object.__setattr__(again, "pod", pod)
    object.__setattr__(again, "diagnosis", d)
    return again


class CycleMemo:
    """The failed cycles as one cycle sees them: the world it runs on, its start index, and the key
    its PreFilter's outcome gave (schedule_one's `memo`)."""

    __slots__ = ("failed_cycles", "world", "equivalence", "start_index", "shaped", "key")

    def __init__(self, failed_cycles: FailedCycles, world: tuple, equivalence: PodAnswers, start_index: int) -> None:
        self.failed_cycles = failed_cycles
        self.world = world
        self.equivalence = equivalence
        self.start_index = start_index
        self.shaped: tuple | None = None  # (profile, shape) when no PreFilter reads more of the pod
        self.key: tuple | None = None

    def recall(self, fwk: Framework, state: CycleState, pod: Pod,
               pre_filtered: tuple[PreFilterResult | None, Status, set[str]]) -> CycleResult | None:
        """After the PreFilter: the remembered failure of this cycle, when the world it ran on holds
        (or only nodes changed since, none of which matters to it), else None."""
        key = self.key = failed_cycle_key(fwk, state, pod, pre_filtered, self.equivalence)
        if key is None:
            return None
        failed, world = self.failed_cycles, self.world
        if self.shaped is not None:
            failed.remember_key(self.shaped, world, key)
        known = failed.recall(key, world)
        if known is None:
            # only nodes changed since: still the same failure if none of them matters
            moved = failed.recall_moved(key, world)
            if moved is not None and _still_fails(fwk, state, pod, self.equivalence, moved[0][0], moved[1]):
                known = moved[0]
                failed.remember(key, world, known)
        if known is None:
            return None
        return _again(known[0], pod, known[1], self.start_index, fwk.snapshot.node_names)

    def remember(self, fwk: Framework, res: CycleResult) -> None:
        """After the PostFilter: keep a failure (a preemption that drew its candidate offset at
        random is not repeated without drawing)."""
        record = res.preemption
        if self.key is not None and res.outcome == UNSCHEDULABLE and \
                (not fwk.random_source.draws or record is None or not record.potential):
            self.failed_cycles.remember(self.key, self.world, (res, self.start_index))


def schedule_one_remembering(fwk: Framework, pod: Pod, *, failed_cycles: FailedCycles, world: tuple,
                             equivalence: PodAnswers, start_index: int = 0,
                             batching: tuple[int, float] | None = None) -> CycleResult:
    """schedule_one with failed cycles remembered: `world` is Scheduler.world() now, `equivalence`
    the equivalence cache's answers for this pod (its shape keys the failures)."""
    memo = CycleMemo(failed_cycles, world, equivalence, start_index)
    if fwk.snapshot.num_nodes() and not pod.nominated_node_name and not _pre_filter_reads_labels(fwk, pod):
        memo.shaped = (equivalence.profile, equivalence.shape)
        # the PreFilter's outcome for this shape in this world is known: so is the key
        known_key = failed_cycles.recall_key(memo.shaped, world)
        if known_key is not None:
            known = failed_cycles.recall(known_key, world)
            if known is not None:
                return _again(known[0], pod, known[1], start_index, fwk.snapshot.node_names)
    # a failed cycle given back skips the batch's hint: a failure leaves the next cycle no batch to
    # use either way (batch.go: the cycle count must follow a cycle that placed its pod)
    return schedule_one(fwk, pod, start_index=start_index, equivalence=equivalence, memo=memo, batching=batching)
