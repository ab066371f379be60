"""A map laid out and ranged as a Go map is: kube-batch's maps (jobs, nodes, queues, a node's or a
job's tasks, tasks by status) and the order a `range` over them gives.

Which Go runtime: the Swiss-table maps of Go 1.24 and later (src/internal/runtime/maps: map.go,
table.go, group.go), as in go1.27.3, the runtime the kube-batch corpus was recorded with. Go 1.23's
bucket maps also start each range at a random bucket and offset and gave the same outcome sets, but
not the same frequencies, and the frequencies are what the corpus holds, so the layout and the
range below follow the Swiss-table runtime step by step:

- A map of at most 8 entries is one group of 8 slots (Map.putSlotSmall): a new key takes the first
  empty slot, a deleted key's slot is emptied at once (Map.deleteSmall), so the slot order is the
  insertion order with freed slots reused lowest first. A range (Iter.Init / Iter.Next) starts at
  slot `rand() % 8` and wraps around all 8 slots, skipping the empty ones: of 3 entries in slots
  0..2 the first comes first 6 times in 8.
- A 9th key turns the group into a table of 16 slots (Map.growToTable), each key re-placed by its
  hash: the group `h1 & mask` (h1 = hash >> 7), then the triangular probe sequence over groups
  (probeSeq), the first empty-or-deleted slot of the first group that has one (PutSlot,
  uncheckedPutSlot). A table holds 7/8 of its slots (growthLeft); when full it first prunes
  tombstones (pruneTombstones), else doubles (rehash / grow: every entry re-placed in slot
  order), and past 1024 slots splits in two by the next hash bit from the top (split,
  installTableSplit: the directory). A deletion empties its slot if its group has an empty slot,
  else leaves a tombstone (table.Delete). A range starts each table at slot `rand() & (cap - 1)`
  and the directory at entry `rand() & (dirLen - 1)` (Iter.Next).
- The hash is the runtime's hash of the key under the map's random seed (NewMap: `seed =
  rand()`): for the layout it is a uniform 64-bit number per key, the same for the life of the
  map. Each map draws its seed when it first needs hashes (when it grows to a table); each key's
  hash is then drawn from the map's own generator.

All random numbers come from one generator: a session's (the `rng` given to `go_range`), and for
seeds, the generator installed by `go_runtime` while the cache and the session are built (as Go's
runtime `rand()` serves every map of the process).
"""
from __future__ import annotations

import contextlib
import random
from typing import Generic, Iterator, TypeVar

K = TypeVar("K")
V = TypeVar("V")

GROUP_SLOTS = 8          # abi.MapGroupSlots
MAX_TABLE_CAPACITY = 1024  # maxTableCapacity
MAX_AVG_GROUP_LOAD = 7   # maxAvgGroupLoad (of 8 slots)
_DELETED = object()      # ctrlDeleted: a tombstone

_default_source = random.Random(0)
_source: list[random.Random] = [_default_source]


@contextlib.contextmanager
def go_runtime(rng: random.Random) -> Iterator[random.Random]:
    """Maps made (and grown) inside draw their hash seeds from `rng`, as Go's maps do from the
    runtime's one source."""
    _source.append(rng)
    try:
        yield rng
    finally:
        _source.pop()


class _Table:
    """One Swiss table (table.go): `keys[pos]` is a key, None (empty) or _DELETED; `vals` beside."""
    __slots__ = ("cap", "keys", "vals", "growth_left", "used", "local_depth", "index")

    def __init__(self, cap: int, index: int, local_depth: int) -> None:
        self.cap = cap
        self.keys: list = [None] * cap
        self.vals: list = [None] * cap
        self.used = 0
        self.index = index
        self.local_depth = local_depth
        # resetGrowthLeft: a table of one group keeps one slot empty
        self.growth_left = cap - 1 if cap <= GROUP_SLOTS else cap * MAX_AVG_GROUP_LOAD // GROUP_SLOTS

    def tombstones(self) -> int:
        return self.cap * MAX_AVG_GROUP_LOAD // GROUP_SLOTS - self.used - self.growth_left

    def probe(self, h: int) -> Iterator[int]:
        """makeProbeSeq / next: group indexes h1, h1+1, h1+3, h1+6, ... modulo the group count."""
        mask = self.cap // GROUP_SLOTS - 1
        offset = (h >> 7) & mask
        index = 0
        while True:
            yield offset
            index += 1
            offset = (offset + index) & mask

    def unchecked_put(self, key: object, h: int, val: object) -> int:
        """uncheckedPutSlot: the first empty-or-deleted slot of the first group that has one."""
        keys = self.keys
        for g in self.probe(h):
            base = g * GROUP_SLOTS
            for pos in range(base, base + GROUP_SLOTS):
                k = keys[pos]
                if k is None or k is _DELETED:
                    keys[pos] = key
                    self.vals[pos] = val
                    self.growth_left -= 1
                    self.used += 1
                    return pos
        raise AssertionError("unreachable: a table always has an empty slot")

    def group_has_empty(self, g: int) -> bool:
        base = g * GROUP_SLOTS
        return None in self.keys[base:base + GROUP_SLOTS]

    def prune_tombstones(self, hashes: dict) -> None:
        """pruneTombstones: tombstones no probe sequence of a present key walks past are emptied,
        if that frees at least a tenth of the table."""
        if self.tombstones() * 10 < self.cap:
            return
        groups = self.cap // GROUP_SLOTS
        needed = set()
        keys = self.keys
        for g in range(groups):
            base = g * GROUP_SLOTS
            for pos in range(base, base + GROUP_SLOTS):
                k = keys[pos]
                if k is None or k is _DELETED:
                    continue
                for off in self.probe(hashes[k]):
                    if off == g:
                        break
                    ob = off * GROUP_SLOTS
                    if any(x is None or x is _DELETED for x in keys[ob:ob + GROUP_SLOTS]):
                        needed.add(off)
            if self.group_has_empty(g):
                needed.add(g)
        cnt = sum(1 for g in range(groups) if g not in needed
                  for pos in range(g * GROUP_SLOTS, (g + 1) * GROUP_SLOTS) if keys[pos] is _DELETED)
        if cnt * 10 < self.cap:
            return
        for g in range(groups):
            if g in needed:
                continue
            for pos in range(g * GROUP_SLOTS, (g + 1) * GROUP_SLOTS):
                if keys[pos] is _DELETED:
                    keys[pos] = None
                    self.growth_left += 1

    def full(self) -> Iterator[int]:
        for pos, k in enumerate(self.keys):
            if k is not None and k is not _DELETED:
                yield pos


class GoMap(Generic[K, V]):
    """A Go map's contents and its slot layout. `values()` lists the values in slot order;
    `go_range` gives them in the order one `range` over the map may, drawn from a generator."""
    __slots__ = ("_index", "_slots", "_values", "_dir", "_depth", "_hashes", "_hrng")

    def __init__(self) -> None:
        # small map (one group): _slots[i] is (key, value) or None, at most 8 long (trailing
        # empty slots are left out); _index maps a key to its slot
        self._index: dict = {}
        self._slots: list = []
        self._values: list | None = None  # values() in slot order, until the map changes
        # a table map: the directory of tables (None while small), its global depth, the keys'
        # hashes and the generator they are drawn from
        self._dir: list[_Table] | None = None
        self._depth = 0
        self._hashes: dict | None = None
        self._hrng: random.Random | None = None

    # --- small map --------------------------------------------------------------------
    def __setitem__(self, key: K, value: V) -> None:
        self._values = None
        if self._dir is None:
            i = self._index.get(key)
            if len(self._index) < GROUP_SLOTS:
                if i is not None:
                    self._slots[i] = (key, value)
                    return
                slots = self._slots
                try:
                    i = slots.index(None)
                    slots[i] = (key, value)
                except ValueError:
                    i = len(slots)
                    slots.append((key, value))
                self._index[key] = i
                return
            # Map.PutSlot: a full group grows to a table, even for a key already present
            self._grow_to_table()
        self._table_put(key, value)

    def __getitem__(self, key: K) -> V:
        if self._dir is None:
            return self._slots[self._index[key]][1]
        t, pos = self._index[key]
        return t.vals[pos]

    def get(self, key: K, default: V | None = None) -> V | None:
        i = self._index.get(key)
        if i is None:
            return default
        if self._dir is None:
            return self._slots[i][1]
        return i[0].vals[i[1]]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __delitem__(self, key: K) -> None:
        self._values = None
        i = self._index.pop(key)
        if self._dir is None:
            # deleteSmall: the slot is empty again, the next new key takes the lowest empty one
            slots = self._slots
            slots[i] = None
            while slots and slots[-1] is None:
                slots.pop()
            return
        t, pos = i
        t.used -= 1
        t.vals[pos] = None
        # table.Delete: a group with another empty slot ends every probe there, so the slot may be
        # emptied; in a full group it becomes a tombstone
        if t.group_has_empty(pos // GROUP_SLOTS):
            t.keys[pos] = None
            t.growth_left += 1
        else:
            t.keys[pos] = _DELETED

    def pop(self, key: K, default: V | None = None) -> V | None:
        if key not in self._index:
            return default
        v = self[key]
        del self[key]
        return v

    def __len__(self) -> int:
        return len(self._index)

    def __bool__(self) -> bool:
        return bool(self._index)

    def values(self) -> list[V]:
        """In slot order; a list, safe to keep while the map changes (the map makes a new one then)."""
        v = self._values
        if v is None:
            if self._dir is None:
                v = [s[1] for s in self._slots if s is not None]
            else:
                v = [t.vals[pos] for t in self._tables() for pos in t.full()]
            self._values = v
        return v

    def items(self) -> Iterator[tuple[K, V]]:
        if self._dir is None:
            return (s for s in list(self._slots) if s is not None)
        return iter([(t.keys[pos], t.vals[pos]) for t in self._tables() for pos in t.full()])

    def keys(self) -> Iterator[K]:
        return (k for k, _ in self.items())

    __iter__ = keys

    # --- table map ----------------------------------------------------------------------
    def _hash(self, key: object) -> int:
        hashes = self._hashes
        h = hashes.get(key)  # type: ignore[union-attr]
        if h is None:
            h = hashes[key] = self._hrng.getrandbits(64)  # type: ignore[union-attr,index]
        return h

    def _tables(self) -> list[_Table]:
        """Each table once, in directory order."""
        out: list[_Table] = []
        for t in self._dir or ():
            if not out or out[-1] is not t:
                out.append(t)
        return out

    def _grow_to_table(self) -> None:
        """Map.growToTable: the group's entries, in slot order, into a table of 16 slots."""
        if self._hrng is None:
            self._hrng = random.Random(_source[-1].getrandbits(64))  # NewMap: seed = rand()
            self._hashes = {}
        t = _Table(2 * GROUP_SLOTS, 0, 0)
        index: dict = {}
        for s in self._slots:
            if s is not None:
                index[s[0]] = (t, t.unchecked_put(s[0], self._hash(s[0]), s[1]))
        self._slots = []
        self._index = index
        self._dir = [t]
        self._depth = 0

    def _table_for(self, h: int) -> _Table:
        d = self._dir
        assert d is not None
        return d[0] if len(d) == 1 else d[h >> (64 - self._depth)]  # directoryIndex

    def _table_put(self, key: object, value: object) -> None:
        loc = self._index.get(key)
        if loc is not None:
            loc[0].vals[loc[1]] = value
            return
        h = self._hash(key)
        while True:
            t = self._table_for(h)
            pos = self._put_slot(t, h)
            if pos is not None:
                t.keys[pos] = key
                t.vals[pos] = value
                t.growth_left -= 1
                t.used += 1
                self._index[key] = (t, pos)
                return

    def _put_slot(self, t: _Table, h: int) -> int | None:
        """table.PutSlot for a key not present: the slot it goes to, or None after the table was
        rehashed (then the put starts over)."""
        keys = t.keys
        first_deleted = None
        for g in t.probe(h):
            base = g * GROUP_SLOTS
            pos = None
            for p in range(base, base + GROUP_SLOTS):
                k = keys[p]
                if k is None or k is _DELETED:
                    pos = p
                    break
            if pos is None:
                continue  # a full group: keep probing
            if keys[pos] is _DELETED:
                # the group's first free slot is a tombstone: remember the first one, keep probing
                if first_deleted is None:
                    first_deleted = pos
                continue
            if first_deleted is not None:
                pos = first_deleted
                t.growth_left += 1  # a tombstone reused costs no growth
            if t.growth_left == 0:
                t.prune_tombstones(self._hashes)  # type: ignore[arg-type]
            if t.growth_left > 0:
                return pos
            self._rehash(t)
            return None
        raise AssertionError("unreachable")

    def _rehash(self, t: _Table) -> None:
        if 2 * t.cap <= MAX_TABLE_CAPACITY:
            # grow: one table twice as large, the entries re-placed in slot order
            nt = _Table(2 * t.cap, t.index, t.local_depth)
            for pos in t.full():
                k = t.keys[pos]
                self._index[k] = (nt, nt.unchecked_put(k, self._hash(k), t.vals[pos]))
            self._replace(nt)
            return
        # split: two tables by the next hash bit from the top
        depth = t.local_depth + 1
        left = _Table(MAX_TABLE_CAPACITY, -1, depth)
        right = _Table(MAX_TABLE_CAPACITY, -1, depth)
        mask = 1 << (64 - depth)
        for pos in t.full():
            k = t.keys[pos]
            h = self._hash(k)
            nt = left if h & mask == 0 else right
            self._index[k] = (nt, nt.unchecked_put(k, h, t.vals[pos]))
        d = self._dir
        assert d is not None
        if t.local_depth == self._depth:
            # installTableSplit: the directory doubles, each entry twice
            nd: list[_Table] = []
            for i, x in enumerate(d):
                nd += [x, x]
                if x.index == i:
                    x.index = 2 * i
            self._dir = nd
            self._depth += 1
        left.index = t.index
        self._replace(left)
        right.index = left.index + (1 << (self._depth - left.local_depth))
        self._replace(right)

    def _replace(self, nt: _Table) -> None:
        d = self._dir
        assert d is not None
        for i in range(1 << (self._depth - nt.local_depth)):
            d[nt.index + i] = nt

    # --- range ----------------------------------------------------------------------------
    def ranged(self, rng: random.Random) -> list[V]:
        """The values in the order one `range` gives (Iter.Init / Iter.Next), its random start
        drawn from `rng`."""
        if self._dir is None:
            slots = self._slots
            if len(self._index) <= 1:
                return [s[1] for s in slots if s is not None]
            off = rng.getrandbits(3)  # entryOffset % 8
            return [s[1] for s in slots[off:] + slots[:off] if s is not None]
        entry_off = rng.getrandbits(64)
        dir_off = rng.getrandbits(64)
        d = self._dir
        n = len(d)
        out: list = []
        idx = 0
        while idx < n:
            at = (idx + dir_off) & (n - 1)
            t = d[at]
            if t.index != at:
                # the random start fell inside a run of entries of one table: start at its first
                dir_off -= at - t.index
            start = entry_off & (t.cap - 1)
            keys, vals = t.keys, t.vals
            for pos in list(range(start, t.cap)) + list(range(start)):
                k = keys[pos]
                if k is not None and k is not _DELETED:
                    out.append(vals[pos])
            idx += 1 << (self._depth - t.local_depth)
        return out


def go_range(m: object, rng: random.Random) -> list:
    """The values of `m` in the order a Go `range` over it may give: a GoMap ranged as Go ranges
    its layout; a plain dict (a map the port fills in insertion order and never deletes from,
    at most 8 entries) as a small Go map of that slot order."""
    if isinstance(m, GoMap):
        return m.ranged(rng)
    vals = list(m.values())  # type: ignore[attr-defined]
    if len(vals) <= 1:
        return vals
    if len(vals) > GROUP_SLOTS:
        g: GoMap = GoMap()
        for k, v in m.items():  # type: ignore[attr-defined]
            g[k] = v
        return g.ranged(rng)
    off = rng.getrandbits(3)
    return vals[off:] + vals[:off]
