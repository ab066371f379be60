"""Preemption's dry runs remembered in the equivalence cache (preemption/evaluator.py DryRunMemo)
give the answers a scheduler without the cache gives, also after the changes the replay makes
without a new node generation: a PDB's disruptionsAllowed synced in place, a victim's status
patched in place and moved on its node's list, a pod nominated to the node."""
from __future__ import annotations

from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.scheduler.memo.equivalence import EquivalenceCache
from kubectl_preempt.scheduler.scheduler import Scheduler
from tests.builders import make_node, make_pdb, make_pod


def _objects() -> list[dict]:
    objs = [make_node(n).alloc(cpu="4", memory="8Gi").obj() for n in ("n1", "n2")]
    for node in ("n1", "n2"):
        # `a` started first, so it is the more important of the two and is reprieved first
        objs.append(make_pod(f"{node}-a").priority(0).req(cpu="2").labels(app="batch").on(node)
                    .start_time("2026-01-01T00:00:00Z").obj())
        objs.append(make_pod(f"{node}-b").priority(0).req(cpu="2").labels(app="web").on(node)
                    .start_time("2026-01-01T00:05:00Z").obj())
    objs.append(make_pdb("web", {"matchLabels": {"app": "web"}}, allowed=1))
    return objs


class _Pair:
    """One scheduler with the cache, one without, over clusters built alike and changed alike."""

    def __init__(self) -> None:
        self.cached = Scheduler(Cluster.from_objects(_objects()), equivalence=EquivalenceCache())
        self.plain = Scheduler(Cluster.from_objects(_objects()), equivalence=None)
        self.dry_runs = 0
        probe = Pod(make_pod("probe").priority(100).req(cpu="2").obj())
        plugin = self.cached.framework_for(probe).plugins["DefaultPreemption"]
        inner = plugin.select_victims_on_node

        def counted(*args, **kwargs):
            self.dry_runs += 1
            return inner(*args, **kwargs)

        plugin.select_victims_on_node = counted
        self.n = 0

    def both(self) -> tuple[Scheduler, Scheduler]:
        return self.cached, self.plain

    def preempt(self) -> list:
        """A new pod of the one shape on both; the candidates each found, which must agree."""
        self.n += 1
        out = []
        for s in self.both():
            res = s.schedule(Pod(make_pod(f"p{self.n}").priority(100).req(cpu="2").obj()))
            rec = res.preemption
            out.append([(c.name, [v.key for v in c.victims], c.num_pdb_violations,
                         [(r.pod.key, r.kept, r.pdb_violating) for r in c.reprieves]) for c in rec.candidates])
        assert out[0] == out[1]
        return out[0]


def test_an_unchanged_cluster_is_answered_from_the_memo() -> None:
    pair = _Pair()
    first = pair.preempt()
    assert [c[1] for c in first] == [["default/n1-b"], ["default/n2-b"]]
    assert pair.dry_runs == 2
    assert pair.preempt() == first
    assert pair.dry_runs == 2  # no dry run ran again


def test_a_pdb_synced_in_place_is_seen() -> None:
    pair = _Pair()
    pair.preempt()
    for s in pair.both():
        s.cluster.pdbs[0].disruptions_allowed = 0  # as ReplayState.recompute_pdb_status does
    # `b` now violates its PDB: it is reprieved first and `a` goes
    assert [c[1] for c in pair.preempt()] == [["default/n1-a"], ["default/n2-a"]]
    assert pair.dry_runs == 4
    for s in pair.both():
        s.cluster.pdbs[0].disruptions_allowed = 1
    assert [c[1] for c in pair.preempt()] == [["default/n1-b"], ["default/n2-b"]]


def test_a_status_patched_in_place_and_requeued_is_seen() -> None:
    pair = _Pair()
    pair.preempt()
    gens = {}
    for s in pair.both():
        ni = s.snapshot.get("n1")
        gens[id(s)] = ni.generation
        a = next(pi.pod for pi in ni.pods if pi.pod.name == "n1-a")
        # `a` now starts last (as ReplayState.bind/mark_disruption_target patch a status), and
        # moves to the end of its node's list without a new generation
        a.status = {**a.status, "startTime": "2026-01-01T00:10:00Z"}
        s.snapshot.requeue_pod(a)
        assert ni.generation == gens[id(s)]
    got = pair.preempt()
    assert got[0][1] == ["default/n1-a"] and got[1][1] == ["default/n2-b"]


def test_a_pod_nominated_to_the_node_is_seen() -> None:
    pair = _Pair()
    pair.preempt()
    for s in pair.both():
        s.nominator.add(Pod(make_pod("big").priority(100).req(cpu="2").nominated("n1").obj()), "n1")
    got = pair.preempt()
    # n1 keeps room for the nominated pod: both of its pods go
    assert got[0][0] == "n1" and sorted(got[0][1]) == ["default/n1-a", "default/n1-b"]


def _candidates(s: Scheduler, n: int) -> list:
    return list(s.schedule(Pod(make_pod(f"c{n}").priority(100).req(cpu="2").obj())).preemption.candidates)


def test_an_unchanged_node_gives_back_its_candidate_and_a_patched_start_time_a_new_one() -> None:
    """The memo keeps the Candidate made of a remembered selection; a victim whose status is
    replaced (its start time later) makes the entry miss, and the candidate made afresh carries
    the chain values the scheduler without the cache computes."""
    pair = _Pair()
    first = _candidates(pair.cached, 1)
    again = _candidates(pair.cached, 2)
    assert [c.name for c in again] == ["n1", "n2"] and all(a is b for a, b in zip(first, again))
    before = first[1].chain_scores
    for s in pair.both():
        b = next(pi.pod for pi in s.snapshot.get("n2").pods if pi.pod.name == "n2-b")
        b.status = {**b.status, "startTime": "2026-01-01T00:07:00Z"}
    cached, plain = _candidates(pair.cached, 3), _candidates(pair.plain, 3)
    assert cached[0] is first[0] and cached[1] is not first[1]
    assert [c.chain_scores for c in cached] == [c.chain_scores for c in plain]
    assert cached[1].chain_scores != before


def test_a_nomination_cleared_is_seen() -> None:
    # the entry made while `big` was nominated to n1 read it; once the nomination is gone, the
    # dry run reads the node without it and finds one victim again
    pair = _Pair()
    pair.preempt()
    bigs = {}
    for s in pair.both():
        big = bigs[id(s)] = Pod(make_pod("big").priority(100).req(cpu="2").nominated("n1").obj())
        s.nominator.add(big, "n1")
    assert sorted(pair.preempt()[0][1]) == ["default/n1-a", "default/n1-b"]
    runs = pair.dry_runs
    for s in pair.both():
        s.nominator.delete(bigs[id(s)])
    assert [c[1] for c in pair.preempt()] == [["default/n1-b"], ["default/n2-b"]]
    assert pair.dry_runs > runs


def test_a_victim_whose_metadata_is_replaced_is_asked_again() -> None:
    # a pod's metadata replaced without a new node generation (as a replay's update does): the
    # entry that read the old object is not given back
    pair = _Pair()
    pair.preempt()
    runs = pair.dry_runs
    for s in pair.both():
        b = next(pi.pod for pi in s.snapshot.get("n1").pods if pi.pod.name == "n1-b")
        b.metadata = {**b.metadata, "annotations": {"touched": "yes"}}
    assert [c[1] for c in pair.preempt()] == [["default/n1-b"], ["default/n2-b"]]
    assert pair.dry_runs == runs + 1  # n1 asked again, n2 from the memo
