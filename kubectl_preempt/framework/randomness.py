"""The scheduler's one source of random choices.

kube-scheduler v1.34.1 draws from one source, math/rand's global generator, in three places:
the host among nodes tied on score (pkg/scheduler/schedule_one.go selectHost, reservoir sampling
with rand.Intn), the node a preemption's candidate search starts at
(plugins/defaultpreemption/default_preemption.go GetOffsetAndNumCandidates, rand.Int31n), and
the candidate among those tied after the choice chain (framework/preemption/preemption.go
pickOneNodeForPreemption returns the first of a list built by ranging over a Go map: any of
them). Ours is one `RandomSource` per run, made by whoever starts the run (explain in api.py,
replay/runs.py `run_random_source`, plan, check through replay), handed to the Scheduler, which
hands it to each Framework (`Framework.random_source`), where plugins read it from their handle.

Without a generator (`rng` None, explain's default) every choice is fixed: the first tied host,
the first tied candidate, and the candidate offset the seed gives (seed 0: offset 0), so
explain and a single replay are reproducible. With one (run k >= 2 of `replay --runs`) every
choice draws from it, in the order the scheduler makes them.

A single replay with a non-zero --seed sits between: its host among equal scores draws from a
stream seeded by the seed (`hosts`), the offset follows the seed, the chain's tie keeps the
first (what `replay --seed N` always did; its reports stay as they were).

kube-batch's sessions (batch/) draw too, and always: every `range` over a Go map starts at a
random slot and lays its keys out by a random hash seed, SelectBestNode calls rand.Intn. A session
is handed a source with a generator (`drawn`: `batch_session`'s seed, or in a replay one seed per
session from the replay's `derive()`d stream) and every draw it makes, the Go maps' included
(batch/util/gomap.py), comes from that generator: no draw goes through any module state.
"""
from __future__ import annotations

import random
from typing import Sequence, TypeVar

T = TypeVar("T")


class RandomSource:
    """One run's random choices: `seed` fixes them when there is no generator, `rng` draws every
    one of them when there is, `hosts` draws the host among equal scores (`rng` when set)."""

    __slots__ = ("seed", "rng", "hosts")

    def __init__(self, seed: int = 0, rng: random.Random | None = None, *,
                 hosts: random.Random | None = None) -> None:
        self.seed = seed
        self.rng = rng
        self.hosts = rng if rng is not None else hosts

    @classmethod
    def for_replay(cls, seed: int = 0, rng: random.Random | None = None) -> "RandomSource":
        """A replay run's source: `rng` when the run has one, else the host pick draws from a
        stream seeded by `seed` (none for seed 0: every choice fixed)."""
        return cls(seed, rng, hosts=random.Random(seed) if seed and rng is None else None)

    @classmethod
    def drawn(cls, seed: int) -> "RandomSource":
        """A source whose every choice draws from a generator seeded by `seed` (a kube-batch
        session's: it has no fixed mode)."""
        return cls(seed, random.Random(seed))

    @property
    def draws(self) -> bool:
        """Whether every cycle draws afresh (a preemption's offset then is not repeatable)."""
        return self.rng is not None

    def select_host(self, best: Sequence[T]) -> T:
        """mirrors selectHost: one of the nodes tied on the top score (the first without a stream)."""
        return self.hosts.choice(best) if self.hosts is not None else best[0]

    def candidate_offset(self, num_nodes: int) -> int:
        """mirrors GetOffsetAndNumCandidates' rand.Int31n(numNodes); fixed by the seed without a
        generator (seed 0: no offset)."""
        if self.rng is not None:
            return self.rng.randrange(num_nodes)
        return 0 if not self.seed else random.Random(self.seed).randrange(num_nodes)

    def pick_tied(self, nodes: Sequence[T]) -> T:
        """mirrors pickOneNodeForPreemption's Go-map order among candidates tied after the chain."""
        return self.rng.choice(nodes) if self.rng is not None else nodes[0]

    def map_order(self, items: Sequence[T]) -> list[T]:
        """The order ranging over a Go map gives its values (workload-aware preemption's victim
        units, preemption/podgroup_preemption.py): any order; kept as given without a generator."""
        out = list(items)
        if self.rng is not None:
            self.rng.shuffle(out)
        return out

    def derive(self) -> random.Random:
        """A generator of its own for a consumer beside the scheduler (kube-batch's sessions in a
        replay): seeded from the host stream's next 64 bits when there is one, else from the seed."""
        return random.Random(self.hosts.getrandbits(64) if self.hosts is not None else self.seed)


# every choice fixed, offset 0: explain's default
FIXED = RandomSource()
