"""GoMap lays out and ranges a map as Go's Swiss-table runtime does (internal/runtime/maps), and a
session draws its ranges from it: each rule on a small input built for it."""
from __future__ import annotations

import random

import kubectl_preempt
from kubectl_preempt.batch.util.gomap import GoMap, go_range


class FixedRand(random.Random):
    """A generator whose every getrandbits(k) is `value` modulo 2**k: one chosen range start."""

    def __init__(self, value: int) -> None:
        super().__init__(0)
        self.value = value

    def getrandbits(self, k: int) -> int:
        return self.value % (1 << k)


class HashedMap(GoMap):
    """A GoMap whose keys hash to chosen values (Go's hash is the runtime's, under a random seed)."""
    __slots__ = ()
    HASHES: dict = {}

    def _hash(self, key: object, rng: random.Random) -> int:
        return self.HASHES[key]


class NoDraw(random.Random):
    """For maps whose hashes are chosen (HashedMap): a layout that drew would be a test's mistake."""

    def getrandbits(self, k: int) -> int:
        raise AssertionError("a HashedMap's layout drew a random number")


NO_DRAW = NoDraw(0)


def small(*keys: str) -> GoMap:
    m: GoMap = GoMap()
    for k in keys:
        m[k] = k
    return m


def test_a_small_map_ranges_as_a_rotation_of_its_eight_slots() -> None:
    # Iter.Next: slot (i + rand()) % 8 for i in 0..7, empty slots skipped
    m = small("a", "b", "c")
    orders = [m.ranged(FixedRand(off)) for off in range(8)]
    assert orders[0] == ["a", "b", "c"]
    assert orders[1] == ["b", "c", "a"]
    assert orders[2] == ["c", "a", "b"]
    assert all(o == ["a", "b", "c"] for o in orders[3:])  # starts on an empty slot: wraps to slot 0
    # so of three entries the first comes first 6 times in 8
    assert sum(o[0] == "a" for o in orders) == 6


def test_a_deleted_slot_is_emptied_and_the_next_key_takes_the_lowest_empty_slot() -> None:
    # Map.deleteSmall empties the slot; putSlotSmall takes matchEmpty().first()
    m = small("a", "b", "c")
    del m["a"]
    m["d"] = "d"
    assert m.values() == ["d", "b", "c"]
    del m["b"]
    del m["c"]
    m["e"] = "e"
    assert m.values() == ["d", "e"]


def test_a_hole_is_a_slot_the_range_can_start_on() -> None:
    m = small("a", "b", "c")
    del m["b"]  # slots: a, _, c
    orders = [m.ranged(FixedRand(off)) for off in range(8)]
    assert [o[0] for o in orders] == ["a", "c", "c", "a", "a", "a", "a", "a"]


def test_updating_a_key_keeps_its_slot() -> None:
    m = small("a", "b")
    m["a"] = "A"
    assert m.values() == ["A", "b"]


def _hashed(hashes: dict[str, int]) -> HashedMap:
    HashedMap.HASHES = hashes
    m = HashedMap()
    for k in hashes:
        m[k] = k
    return m


def test_a_ninth_key_makes_a_table_of_sixteen_slots_placed_by_hash() -> None:
    # growToTable: the group's entries in slot order into 2 groups, group = (hash >> 7) & 1,
    # the first empty slot of it; then the 9th key the same way
    g0, g1 = 0 << 7, 1 << 7
    hashes = {"k0": g1, "k1": g0, "k2": g1, "k3": g0, "k4": g0, "k5": g1, "k6": g0, "k7": g0, "k8": g1}
    m = _hashed(hashes)
    assert m.slot_order(NO_DRAW) == ["k1", "k3", "k4", "k6", "k7", "k0", "k2", "k5", "k8"]
    # a range starts at slot rand() & 15 of the table and wraps around
    assert m.ranged(FixedRand(8)) == ["k0", "k2", "k5", "k8", "k1", "k3", "k4", "k6", "k7"]
    assert m.ranged(FixedRand(3)) == ["k6", "k7", "k0", "k2", "k5", "k8", "k1", "k3", "k4"]


def test_a_full_group_sends_a_key_along_the_probe_sequence() -> None:
    # probeSeq: from group h1 & mask, then +1, +2, ... (triangular); 8 keys of group 0 fill it
    hashes = {f"k{i}": 0 for i in range(9)}
    m = _hashed(hashes)
    assert m.slot_order(NO_DRAW) == [f"k{i}" for i in range(9)]
    table = m._tables(NO_DRAW)[0]
    assert table.keys[:8] == [f"k{i}" for i in range(8)] and table.keys[8] == "k8"


def test_deleting_from_a_full_group_leaves_a_tombstone_and_else_empties_the_slot() -> None:
    # table.Delete: an empty slot in the group ends every probe, so the slot can be emptied
    hashes = {f"k{i}": 0 for i in range(9)}
    m = _hashed(hashes)
    table = m._tables(NO_DRAW)[0]
    del m["k3"]
    m._tables(NO_DRAW)  # the layout follows the operations when an order is asked for
    assert table.keys[3] is not None and table.keys[3] not in hashes  # a tombstone in the full group 0
    del m["k8"]
    m._tables(NO_DRAW)
    assert table.keys[9] is None  # group 1 has empty slots
    # PutSlot: the group's first free slot is a tombstone, remembered and reused
    HashedMap.HASHES = {**hashes, "n": 0}
    m["n"] = "n"
    m._tables(NO_DRAW)
    assert table.keys[3] == "n"


def test_a_table_grows_at_seven_eighths_and_splits_past_1024_slots() -> None:
    rng = random.Random(7)
    hashes = {f"k{i}": rng.getrandbits(64) for i in range(1000)}
    m = _hashed(dict(list(hashes.items())[:14]))
    assert m._tables(NO_DRAW)[0].cap == 16
    m = _hashed(dict(list(hashes.items())[:15]))
    assert m._tables(NO_DRAW)[0].cap == 32
    m = _hashed(hashes)
    tables = m._tables(NO_DRAW)
    assert len(tables) == 2 and all(t.cap == 1024 for t in tables)
    # split by the top hash bit: the left table holds the keys whose top bit is 0
    assert all(hashes[k] >> 63 == 0 for k in tables[0].keys if k in hashes)
    for off in (0, 5, 2**63 + 77):
        got = m.ranged(FixedRand(off))
        assert sorted(got) == sorted(hashes)
    assert all(m[k] == k for k in hashes) and len(m) == 1000


def test_a_grown_map_ranges_every_entry_once_after_deletions() -> None:
    m: GoMap = GoMap()
    for i in range(40):
        m[i] = i
    for i in range(0, 40, 3):
        del m[i]
    for i in range(40, 60):
        m[i] = i
    want = sorted(set(range(60)) - set(range(0, 40, 3)))
    assert sorted(m.values()) == want
    assert sorted(go_range(m, random.Random(3))) == want
    assert sorted(m.keys()) == want


def test_a_dict_ranges_as_a_small_map_of_its_insertion_order() -> None:
    d = {"a": 1, "b": 2, "c": 3}
    assert go_range(d, FixedRand(1)) == [2, 3, 1]
    assert go_range(d, FixedRand(6)) == [1, 2, 3]


def _backfill_case() -> tuple[list[dict], str]:
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                         "capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"}}} for i in range(3)]
    queue = {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "kind": "Queue",
             "metadata": {"name": "default"}, "spec": {"weight": 1}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
           "spec": {"schedulerName": "kube-batch", "containers": [{"name": "c"}]}, "status": {"phase": "Pending"}}
    conf = 'actions: "backfill"\ntiers:\n- plugins:\n  - name: gang\n'
    return [*nodes, queue, pod], conf


def test_the_session_maps_are_filled_by_ranging_the_caches_so_two_rotations_compose() -> None:
    # backfill puts a best-effort pod on the first node of `range ssn.Nodes`. Snapshot filled
    # ssn.Nodes by ranging the cache's (slots n0, n1, n2): a rotation by r1 (0 w.p. 6/8, 1 and 2 w.p.
    # 1/8 each), and the range rotates that by r2 of the same law: n0 comes first when
    # r1 + r2 = 0 mod 3, with chance 36/64 + 2/64 = 0.594 (one rotation alone would give 0.75)
    objects, conf = _backfill_case()
    seeds = 2000
    firsts = [kubectl_preempt.batch_session(objects, conf, seed=s)["binds"]["default/p"] for s in range(seeds)]
    share = firsts.count("n0") / seeds
    assert abs(share - 38 / 64) < 0.045, share
    assert abs(firsts.count("n1") / seeds - 13 / 64) < 0.04
