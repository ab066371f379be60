"""NodeToStatus, Diagnosis and FitError, as in framework/interface.go and framework/types.go."""
from __future__ import annotations

import operator
from collections import Counter
from itertools import compress, repeat
from typing import Callable, Iterable

from .status import Code, Pending, Status

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
_NODE_NAME = operator.attrgetter("name")


class NodeToStatus:
    """Statuses of rejected nodes, and one status for every node not listed (absent).

    A filter walk's rejections (Diagnosis.add_filter_rejections) are kept as the walk gives them,
    its nodes' names and their statuses in visiting order, until a reader asks for the map
    (`statuses`, get, set): a cycle whose post filter finds every rejected node alike, and whose
    fit error counts reasons, never needs one (plan --max rejects 1,000 nodes per cycle). The map
    made then is the one the walk would have filled, in the same order."""

    # (names, statuses) of one walk, and the distinct statuses; None once they are in the map (a
    # subclass that lists statuses its own way never has any)
    _walk: tuple[list[str], list[Status]] | None = None
    _walk_distinct: set[Status] | None = None
    # a walk kept as the visited nodes' names and answers with the mask of its rejections, cut
    # into _walk when a reader asks for the rejections themselves, and how many they are
    _walk_masked: tuple[list[str], list[Status], bytes] | None = None
    _walk_len = 0
    _asked = False  # whether get() was answered from the walk once

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None) -> None:
        self._statuses: dict[str, Status] = statuses if statuses is not None else {}
        self.absent = absent if absent is not None else Status(Code.UnschedulableAndUnresolvable)

    def _cut(self) -> None:
        """The masked walk cut into its rejections' names and statuses (_walk)."""
        names, statuses, mask = self._walk_masked  # type: ignore[misc]
        self._walk_masked = None
        self._walk = (list(compress(names, mask)), list(compress(statuses, mask)))

    @property
    def statuses(self) -> dict[str, Status]:
        if self._walk_masked is not None:
            self._cut()
        walk = self._walk
        if walk is not None:
            self._walk = self._walk_distinct = None
            self._statuses.update(zip(*walk))
        return self._statuses

    def add_walk(self, names: list[str], statuses: list[Status], distinct: set[Status]) -> None:
        """The statuses of nodes a filter walk rejected, in visiting order (a walk visits each
        node once), `distinct` the set of `statuses`. Kept as given when nothing is listed yet;
        otherwise they join the map, where they replace what an earlier walk said of the same
        nodes (the nominated node's own walk, then the walk over all)."""
        if self._walk is None and not self.statuses:
            self._walk, self._walk_distinct, self._walk_len = (names, statuses), distinct, len(names)
        else:
            self.statuses.update(zip(names, statuses))

    def add_masked_walk(self, names: list[str], statuses: list[Status], mask: bytes, rejected: int,
                        distinct: set[Status]) -> None:
        """add_walk() of the `rejected` nodes where `mask` is nonzero among `names` and `statuses`
        (lists no one else changes): they are picked only when a reader asks for them, a cycle
        that places its pod only counts them."""
        if self._walk is None and self._walk_masked is None and not self.statuses:
            self._walk_masked, self._walk_distinct, self._walk_len = (names, statuses, mask), distinct, rejected
        else:
            self.add_walk(list(compress(names, mask)), list(compress(statuses, mask)), distinct)

    def distinct(self) -> set[Status]:
        """The distinct statuses listed (nodes rejected alike often share one Status object)."""
        if self._walk is not None or self._walk_masked is not None:
            return set(self._walk_distinct)  # type: ignore[arg-type]
        return set(self.statuses.values())

    def counts(self) -> Counter[Status]:
        """How many listed nodes have each status (by object)."""
        if self._walk_masked is not None:
            self._cut()
        walk = self._walk
        if walk is not None:
            statuses = walk[1]
            distinct = self._walk_distinct
            assert distinct is not None
            if len(distinct) <= 8:
                # Status compares by identity: one count per distinct object, at C speed
                return Counter({st: statuses.count(st) for st in distinct})
            return Counter(statuses)
        return Counter(self.statuses.values())

    def get(self, name: str) -> Status:
        if self._walk_masked is not None:
            self._cut()
        walk = self._walk
        if walk is not None and not self._asked:
            # one question (the preemptor's nominated node, mostly none) is a scan of the names;
            # a second makes the map
            self._asked = True
            try:
                return walk[1][walk[0].index(name)]
            except ValueError:
                return self.absent
        return self.statuses.get(name, self.absent)

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def __len__(self) -> int:
        if self._walk is not None or self._walk_masked is not None:
            return self._walk_len
        return len(self.statuses)

    def nodes_for_status_code(self, node_infos: list, get: Callable[[str], object], code: Code,
                              names: list[str] | None = None) -> list:
        """mirrors NodesForStatusCode; explicit nodes are taken in snapshot order (upstream: map
        order). `names`: node_infos' names, when the caller has them. The statuses are of
        node_infos' nodes (one cycle over one snapshot)."""
        absent = self.absent
        listed = len(self)
        if absent.code == code and not listed:
            return list(node_infos)
        # statuses are shared between nodes rejected alike: decide per distinct object, then pick
        # the nodes at C speed
        distinct = self.distinct()
        matching = {st for st in distinct if st.code == code}
        if len(matching) == len(distinct) and (absent.code == code or listed == len(node_infos)):
            return list(node_infos)  # every node listed or absent has the code
        if absent.code != code and not matching:
            return []
        if names is None:
            names = list(map(_NODE_NAME, node_infos))
        if self._walk_masked is not None:
            self._cut()
        walk = self._walk
        if walk is not None and absent.code != code and listed == len(node_infos):
            # the walk lists every node (each once): all of them but those it lists with a
            # status of another code (plan --max: the tainted few among 1,000 full nodes)
            other = distinct - matching
            drop = set(compress(walk[0], map(other.__contains__, walk[1])))
            return list(compress(node_infos, map(operator.not_, map(drop.__contains__, names))))
        statuses = self.statuses
        if absent.code == code:
            matching.add(absent)
            found = map(statuses.get, names, repeat(absent))
        else:
            found = map(statuses.get, names)
        return list(compress(node_infos, map(matching.__contains__, found)))


class Diagnosis:
    def __init__(self) -> None:
        self.node_to_status = NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_filter_rejections(self, names: Iterable[str], statuses: Iterable[Status],
                              distinct: set[Status] | None = None) -> None:
        """Record the statuses of nodes the filter walk rejected, in the order it visited them
        (mirrors the walk's diagnosis.NodeToStatus.Set then AddPluginStatus per node).
        `distinct`: the set of the statuses, when the caller has it."""
        # copies: the walk's lists may be its cache's rows, which move on after this cycle
        names, statuses = list(names), list(statuses)
        distinct = set(distinct) if distinct is not None else set(statuses)
        self.node_to_status.add_walk(names, statuses, distinct)
        # rejections are shared between nodes rejected alike: each distinct object once
        for st in distinct:
            self.add_plugin_status(st)

    def add_masked_filter_rejections(self, names: list[str], statuses: list[Status], mask: bytes) -> None:
        """add_filter_rejections() of the nodes where `mask` is nonzero among `names` and
        `statuses`, lists made for this cycle alone (the walk's visited nodes and their answers):
        kept as they are, the rejected ones picked only if a reader lists them."""
        rejected = len(mask) - mask.count(0)
        distinct = set(compress(statuses, mask))
        self.node_to_status.add_masked_walk(names, statuses, mask, rejected, distinct)
        for st in distinct:
            self.add_plugin_status(st)

    def add_plugin_status(self, s: Status) -> None:
        if not s.plugin:
            return
        if s.is_rejected():
            self.unschedulable_plugins.add(s.plugin)
        if s.code == Pending:
            self.pending_plugins.add(s.plugin)


def fit_error_reasons(num_all_nodes: int, diagnosis: Diagnosis) -> list[tuple[str, int]]:
    """The reason histogram of FitError.Error() as (reason, nodes) pairs, in the message's order
    (upstream sorts the "N reason" strings); empty when a PreFilter rejected the pod."""
    if diagnosis.pre_filter_msg:
        return []
    counts: dict[str, int] = {}
    nts = diagnosis.node_to_status
    # nodes rejected for the same reasons often share one Status object: count objects first
    for st, n in nts.counts().items():
        for r in st.reasons:
            counts[r] = counts.get(r, 0) + n
    if len(nts) < num_all_nodes:
        for r in nts.absent.reasons:
            counts[r] = counts.get(r, 0) + num_all_nodes - len(nts)
    return sorted(counts.items(), key=lambda kv: f"{kv[1]} {kv[0]}")


def fit_error_message(num_all_nodes: int, diagnosis: Diagnosis,
                      reasons: list[tuple[str, int]] | None = None) -> str:
    """mirrors FitError.Error(): "0/N nodes are available: <PreFilter>. <Filter histogram>. <PostFilter>".
    `reasons`: fit_error_reasons(num_all_nodes, diagnosis), when the caller has it."""
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    if diagnosis.pre_filter_msg:
        msg += f" {diagnosis.pre_filter_msg}."
    else:
        if reasons is None:
            reasons = fit_error_reasons(num_all_nodes, diagnosis)
        parts = [f"{n} {r}" for r, n in reasons]
        if parts:
            msg += f" {', '.join(parts)}."
    if diagnosis.post_filter_msg:
        msg += f" {diagnosis.post_filter_msg}"
    return msg
