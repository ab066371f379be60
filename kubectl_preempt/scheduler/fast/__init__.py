"""The fast cores beside the decision (framework/interface.py FastCores).

The decision functions read as upstream's (scheduler/schedule_one.py find_nodes_that_pass_filters,
framework/runtime.py Framework.run_score_plugins, preemption/evaluator.py
Evaluator.dry_run_preemption, plugins/defaultpreemption select_victims_on_node); what makes a
cycle fast lives here, one module per core, and gives the same answers:

- filters.py: the filter walk in steps, with node-local answers from the equivalence cache;
- scores.py: Score as columns, node-local rows from the cache, the plugins' declared shortcuts;
- labels.py: a node's pods a label selector may match, from the node's label index (the
  PreFilter and Score counts of PodTopologySpread and InterPodAffinity walk those, not all pods);
- signing (OpportunisticBatching's SignPod): no plugin asked when one of them signs no pod;
- preemption.py: candidates screened without a dry run, dry runs remembered (DryRunMemo), and
  victims chosen in arithmetic where the filters let the plugin say so.

The Scheduler hands them to each cycle's Framework unless every memory is off (MEMORY.off()).
"""
from __future__ import annotations

from typing import Any

from ...framework.batch import sign_pod

from .filters import find_nodes_that_pass_filters
from .labels import pods_maybe_matching
from .preemption import dry_run_preemption
from .scores import run_score_plugins


class FastCores:
    """framework/interface.py FastCores: the cores of this package, stateless (what they remember
    lives in the equivalence cache they are handed)."""

    __slots__ = ()

    def find_nodes_that_pass_filters(self, fwk: Any, state: Any, pod: Any, diagnosis: Any, nodes: Any,
                                     start_index: int, equivalence: Any) -> Any:
        return find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes, start_index, equivalence)

    def run_score_plugins(self, fwk: Any, state: Any, pod: Any, nodes: Any, equivalence: Any, node_names: Any) -> Any:
        return run_score_plugins(fwk, state, pod, nodes, equivalence, node_names)

    def dry_run_preemption(self, evaluator: Any, state: Any, pod: Any, potential: Any, pdbs: Any,
                           offset: int, num: int, details: Any) -> Any:
        return dry_run_preemption(evaluator, state, pod, potential, pdbs, offset, num, details)

    # the function itself, not a method calling it: a PreFilter's count asks it of every node of
    # the snapshot (5,000 calls in bench_explain's decision), and pods_of hands it out as it is
    pods_maybe_matching = staticmethod(pods_maybe_matching)

    def sign_pod(self, fwk: Any, pod: Any) -> str | None:
        # a plugin that signs no pod makes every pod's signature None: the other plugins' fragments
        # (ports, affinity, requests as JSON) were 3% of a replay of a default profile
        return None if fwk.signs_no_pod else sign_pod(fwk.batchable_plugins, pod)


FAST_CORES = FastCores()
