"""A map laid out and ranged as a Go map is: kube-batch's maps (jobs, nodes, queues, a node's or a
job's tasks, tasks by status) and the order a `range` over them gives.

Which Go runtime: the Swiss-table maps of Go 1.24 and later (src/internal/runtime/maps: map.go,
table.go, group.go, at its latest form with pruneTombstones), because the kube-batch corpus was
recorded with go1.27.3 and its frequencies are that runtime's. Go 1.23's bucket maps (a go1.23
build gave the same outcome sets) range a map of one bucket the same way, from a random one of 8
slots, but lay larger maps out differently (buckets by hash, overflow buckets, incremental
evacuation), so they are not imitated. The layout and the range follow the runtime step by step:

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
  rand()`): for the layout it is a uniform 64-bit number per key and map, the same for the life
  of the map, so each key's hash is drawn once, when the map's layout first needs it.
- Not imitated: iteration while the map grows (kube-batch changes no map it is ranging over in a
  way that matters: the values are taken at the range's start), and the 32-bit hash of 386/arm.

All random numbers come from one generator, the one a caller hands in: a range's start from the
`rng` given to `ranged` / `go_range`, and a key's hash from the `rng` of the range (or `slot_order`)
that first needs the map's layout. Go's runtime `rand()` serves every map of the process; ours is
the session's generator (batch/framework/session.py, from the run's RandomSource), which both the
cache's maps and the session's are ranged with, so one seed still fixes every draw of a session in
the order Go makes them, and sessions run side by side (threads) share nothing.
"""
from __future__ import annotations

import bisect
import random
from typing import Any, Generic, Iterator, TypeVar

K = TypeVar("K")
V = TypeVar("V")

GROUP_SLOTS = 8          # abi.MapGroupSlots
MAX_TABLE_CAPACITY = 1024  # maxTableCapacity
MAX_AVG_GROUP_LOAD = 7   # maxAvgGroupLoad (of 8 slots)
_DELETED = object()      # ctrlDeleted: a tombstone
_GROWN = object()        # in a map's log: the end of growToTable's re-placing


class _Delete:
    """In a map's log of key operations: a deletion (a bare key is a put; most operations are)."""
    __slots__ = ("key",)

    def __init__(self, key: object) -> None:
        self.key = key


class _Table:
    """One Swiss table (table.go): `keys[pos]` is a key, None (empty) or _DELETED. Only keys: the
    layout depends on the keys alone, the values live in the GoMap's dict."""
    __slots__ = ("cap", "keys", "growth_left", "used", "local_depth", "index", "order")

    def __init__(self, cap: int, index: int, local_depth: int) -> None:
        self.cap = cap
        self.keys: list = [None] * cap
        self.used = 0
        self.index = index
        self.local_depth = local_depth
        # resetGrowthLeft: a table of one group keeps one slot empty
        self.growth_left = cap - 1 if cap <= GROUP_SLOTS else cap * MAX_AVG_GROUP_LOAD // GROUP_SLOTS
        # (positions, keys) of the full slots in slot order, until the table changes
        self.order: tuple[list[int], list] | None = None

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

    def unchecked_put(self, key: object, h: int) -> int:
        """uncheckedPutSlot: the first empty-or-deleted slot of the first group that has one."""
        keys = self.keys
        self.order = None
        mask = self.cap // GROUP_SLOTS - 1
        g = (h >> 7) & mask  # the probe sequence, as probe()
        step = 0
        while True:
            base = g * GROUP_SLOTS
            for pos in range(base, base + GROUP_SLOTS):
                k = keys[pos]
                if k is None or k is _DELETED:
                    keys[pos] = key
                    self.growth_left -= 1
                    self.used += 1
                    return pos
            step += 1
            g = (g + step) & mask

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

    def full(self) -> tuple[list[int], list]:
        o = self.order
        if o is None:
            poss = [pos for pos, k in enumerate(self.keys) if k is not None and k is not _DELETED]
            o = self.order = (poss, [self.keys[p] for p in poss])
        return o


class GoMap(Generic[K, V]):
    """A Go map's contents and its slot layout. `go_range` gives the values in the order one
    `range` over the map may, drawn from a generator; `values()` is for reads of no order.

    Up to 8 entries the slots are kept as they change (the common case, and cheap). From the 9th
    on, the contents live in a dict and the key operations are logged; the table layout is worked
    out from the log only when an order is asked for (a range, values()), since most large maps
    of a session are read but never ranged."""
    __slots__ = ("_index", "_slots", "_values", "_big", "_log", "_dir", "_depth", "_loc", "_hashes")

    def __init__(self) -> None:
        # small map (one group): _slots[i] is (key, value) or None, at most 8 long (trailing
        # empty slots are left out); _index maps a key to its slot
        self._index: dict = {}
        self._slots: list = []
        # until the map changes: values() in slot order (small), or per table its full slots'
        # positions and values in slot order (a table map, for ranges)
        self._values: Any = None
        # a table map: its contents (None while small), the key operations not yet laid out
        # (a key: put, _Delete: delete), the directory of tables, its global depth, each laid-out
        # key's (table, slot) and the keys' hashes (all but _big made when the map grows: most
        # maps stay small, and cheap)
        self._big: dict | None = None
        self._log: list = None  # type: ignore[assignment]
        self._dir: list[_Table] | None = None
        self._depth = 0
        self._loc: dict = None  # type: ignore[assignment]
        self._hashes: dict | None = None

    def __setitem__(self, key: K, value: V) -> None:
        self._values = None
        big = self._big
        if big is None:
            index = self._index
            n = len(index)
            if n < GROUP_SLOTS:
                slots = self._slots
                i = index.get(key)
                if i is not None:
                    slots[i] = (key, value)
                elif len(slots) == n:  # no hole: the first empty slot is the next
                    index[key] = n
                    slots.append((key, value))
                else:
                    i = slots.index(None)
                    slots[i] = (key, value)
                    index[key] = i
                return
            # Map.PutSlot: a full group grows to a table (growToTable: its entries in slot
            # order), even for a key already present
            big = self._big = dict(self._slots)  # 8 full slots, no hole
            self._log = list(big)
            self._log.append(_GROWN)
            self._slots = []
            self._index = {}
        if key not in big:
            self._log.append(key)
        big[key] = value

    def __getitem__(self, key: K) -> V:
        big = self._big
        if big is None:
            return self._slots[self._index[key]][1]
        return big[key]

    def get(self, key: K, default: V | None = None) -> V | None:
        big = self._big
        if big is None:
            i = self._index.get(key)
            return default if i is None else self._slots[i][1]
        return big.get(key, default)

    def __contains__(self, key: object) -> bool:
        big = self._big
        return key in (self._index if big is None else big)

    def __delitem__(self, key: K) -> None:
        self._values = None
        big = self._big
        if big is None:
            # deleteSmall: the slot is empty again, the next new key takes the lowest empty one
            i = self._index.pop(key)
            slots = self._slots
            slots[i] = None
            while slots and slots[-1] is None:
                slots.pop()
            return
        del big[key]
        self._log.append(_Delete(key))

    def pop(self, key: K, default: V | None = None) -> V | None:
        if key not in self:
            return default
        v = self[key]
        del self[key]
        return v

    def __len__(self) -> int:
        big = self._big
        return len(self._index if big is None else big)

    def __bool__(self) -> bool:
        big = self._big
        return bool(self._index if big is None else big)

    def values(self) -> list[V]:
        """The values for reads whose order does not matter (sums, lookups): in slot order while
        the map is small, in insertion order once it is a table (laying it out for an order nobody
        reads would cost the large maps dearly). A read whose order matters ranges (go_range).
        A list, safe to keep while the map changes (the map makes a new one then)."""
        if self._big is not None:
            return list(self._big.values())
        v = self._values
        if v is None:
            v = self._values = [s[1] for s in self._slots if s is not None]
        return v

    def items(self) -> Iterator[tuple[K, V]]:
        """As values(): slot order while small, insertion order once a table."""
        if self._big is None:
            return (s for s in list(self._slots) if s is not None)
        return iter(list(self._big.items()))

    def slot_order(self, rng: random.Random) -> list[V]:
        """The values in slot order: a range that starts at the first slot (a table map laid out
        with hashes drawn from `rng` where it was not yet)."""
        if self._big is None:
            return self.values()
        big = self._big
        return [big[k] for t in self._tables(rng) for k in t.full()[1]]

    def keys(self) -> Iterator[K]:
        return (k for k, _ in self.items())

    __iter__ = keys

    # --- the table layout ------------------------------------------------------------------
    def _hash(self, key: object, rng: random.Random) -> int:
        hashes = self._hashes
        h = hashes.get(key)  # type: ignore[union-attr]
        if h is None:
            # the key's hash under the map's random seed: for the layout, a uniform 64-bit number,
            # drawn once per key and map, from the generator of the range that lays the map out
            h = hashes[key] = rng.getrandbits(64)  # type: ignore[index]
        return h

    def _tables(self, rng: random.Random) -> list[_Table]:
        """Each table once, in directory order, laid out up to the last operation (new keys'
        hashes drawn from `rng`)."""
        self._lay_out(rng)
        out: list[_Table] = []
        for t in self._dir or ():
            if not out or out[-1] is not t:
                out.append(t)
        return out

    def _lay_out(self, rng: random.Random) -> None:
        log = self._log
        if not log:
            return
        self._log = []
        i = 0
        if self._dir is None:
            # Map.growToTable: the group's entries, in slot order, into a table of 16 slots
            self._hashes = {}
            self._loc = {}
            t = _Table(2 * GROUP_SLOTS, 0, 0)
            while log[i] is not _GROWN:
                k = log[i]
                self._loc[k] = (t, t.unchecked_put(k, self._hash(k, rng)))
                i += 1
            i += 1
            self._dir = [t]
            self._depth = 0
        loc = self._loc
        for k in log[i:]:
            if type(k) is _Delete:
                self._table_delete(k.key)
            elif k not in loc:
                self._table_put(k, rng)

    def _table_delete(self, key: object) -> None:
        t, pos = self._loc.pop(key)
        t.used -= 1
        t.order = None
        # table.Delete: a group with another empty slot ends every probe there, so the slot may be
        # emptied; in a full group it becomes a tombstone
        if t.group_has_empty(pos // GROUP_SLOTS):
            t.keys[pos] = None
            t.growth_left += 1
        else:
            t.keys[pos] = _DELETED

    def _table_for(self, h: int) -> _Table:
        d = self._dir
        assert d is not None
        return d[0] if len(d) == 1 else d[h >> (64 - self._depth)]  # directoryIndex

    def _table_put(self, key: object, rng: random.Random) -> None:
        h = self._hash(key, rng)
        d = self._dir
        if len(d) == 1:  # type: ignore[arg-type]
            t = d[0]  # type: ignore[index]
            if t.growth_left > 0 and t.cap * MAX_AVG_GROUP_LOAD // GROUP_SLOTS - t.used == t.growth_left:
                # room and no tombstone (the common case): PutSlot takes the first empty slot of
                # the probe sequence, as uncheckedPutSlot does
                self._loc[key] = (t, t.unchecked_put(key, h))
                return
        while True:
            d = self._dir
            t = d[0] if len(d) == 1 else self._table_for(h)  # type: ignore[arg-type,index]
            pos = self._put_slot(t, h, rng)
            if pos is not None:
                t.keys[pos] = key
                t.growth_left -= 1
                t.used += 1
                t.order = None
                self._loc[key] = (t, pos)
                return

    def _put_slot(self, t: _Table, h: int, rng: random.Random) -> int | None:
        """table.PutSlot for a key not present: the slot it goes to, or None after the table was
        rehashed (then the put starts over)."""
        keys = t.keys
        mask = t.cap // GROUP_SLOTS - 1
        g = (h >> 7) & mask  # makeProbeSeq
        step = 0
        first_deleted = None
        # without tombstones (the common case) the first free slot is the first empty one
        tombstones = t.tombstones() > 0
        while True:
            base = g * GROUP_SLOTS
            grp = keys[base:base + GROUP_SLOTS]
            free = grp.index(None) if None in grp else GROUP_SLOTS
            if tombstones and any(k is _DELETED for k in grp):
                d = next(i for i, k in enumerate(grp) if k is _DELETED)
                if d < free:
                    # the group's first free slot is a tombstone: remember the first, keep probing
                    if first_deleted is None:
                        first_deleted = base + d
                    step += 1
                    g = (g + step) & mask
                    continue
            if free == GROUP_SLOTS:
                step += 1  # a full group: keep probing (probeSeq.next)
                g = (g + step) & mask
                continue
            pos = base + free
            if first_deleted is not None:
                pos = first_deleted
                t.growth_left += 1  # a tombstone reused costs no growth
            if t.growth_left == 0:
                t.prune_tombstones(self._hashes)  # type: ignore[arg-type]
                t.order = None
            if t.growth_left > 0:
                return pos
            self._rehash(t, rng)
            return None

    def _rehash(self, t: _Table, rng: random.Random) -> None:
        loc = self._loc
        if 2 * t.cap <= MAX_TABLE_CAPACITY:
            # grow: one table twice as large, the entries re-placed in slot order
            nt = _Table(2 * t.cap, t.index, t.local_depth)
            for k in t.full()[1]:
                loc[k] = (nt, nt.unchecked_put(k, self._hash(k, rng)))
            self._replace(nt)
            return
        # split: two tables by the next hash bit from the top
        depth = t.local_depth + 1
        left = _Table(MAX_TABLE_CAPACITY, -1, depth)
        right = _Table(MAX_TABLE_CAPACITY, -1, depth)
        mask = 1 << (64 - depth)
        for k in t.full()[1]:
            h = self._hash(k, rng)
            nt = left if h & mask == 0 else right
            loc[k] = (nt, nt.unchecked_put(k, h))
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
        big = self._big
        if big is None:
            slots = self._slots
            n = len(self._index)
            if n <= 1:
                return [s[1] for s in slots if s is not None]
            off = rng.getrandbits(3)  # entryOffset % 8
            if len(slots) == n:
                # no empty slot before the last full one: the values in slot order (kept until
                # the map changes) rotated by the start, as the slots are
                vals = self.values()
                return vals[off:] + vals[:off]
            return [s[1] for s in slots[off:] + slots[:off] if s is not None]
        by_table = self._values
        if by_table is None:
            # per table, its full slots' positions and values in slot order, until the map changes
            by_table = self._values = {id(t): (t.full()[0], [big[k] for k in t.full()[1]]) for t in self._tables(rng)}
        entry_off = rng.getrandbits(64)
        dir_off = rng.getrandbits(64)
        d = self._dir
        assert d is not None
        n = len(d)
        out: list = []
        idx = 0
        while idx < n:
            at = (idx + dir_off) & (n - 1)
            t = d[at]
            if t.index != at:
                # the random start fell inside a run of entries of one table: start at its first
                dir_off -= at - t.index
            poss, vals = by_table[id(t)]
            # the table from slot entryOffset & (cap - 1) on, wrapping around
            i = bisect.bisect_left(poss, entry_off & (t.cap - 1))
            out += vals[i:]
            out += vals[:i]
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
