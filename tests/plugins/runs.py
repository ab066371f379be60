"""How the plugin tests run one plugin's extension points over a snapshot, as the framework calls
them in a cycle (runtime/framework.go RunPreFilterPlugins/RunFilterPlugins, RunPreScorePlugins/
RunScorePlugins with NormalizeScore)."""
from __future__ import annotations

from typing import Any

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import NodeScore
from kubectl_preempt.framework.snapshot import Snapshot
from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.objects import Pod


def filter_all(pl: Any, pod: Pod, snap: Snapshot) -> dict[str, Any]:
    """Each node's verdict: "ok" or (code, reasons); or the PreFilter's refusal alone."""
    state = CycleState()
    _, st = pl.pre_filter(state, pod, snap.list())
    if not st.is_success():
        return {"prefilter": (st.code, st.message())}
    out: dict[str, Any] = {}
    for ni in snap.list():
        s = pl.filter(state, pod, ni)
        out[ni.name] = "ok" if s.is_success() else (s.code, tuple(s.reasons))
    return out


def score_all(pl: Any, pod: Pod, snap: Snapshot, nodes: list[str] | None = None) -> dict[str, int] | Code:
    """Each node's normalised score, or the PreScore's code when it does not succeed."""
    state = CycleState()
    infos = [snap.get(n) for n in nodes] if nodes else snap.list()
    s = pl.pre_score(state, pod, infos)
    if not s.is_success():
        return s.code
    scores = []
    for ni in infos:
        sc, st = pl.score(state, pod, ni)
        assert st.is_success()
        scores.append(NodeScore(ni.name, sc))
    assert pl.normalize_score(state, pod, scores).is_success()
    return {x.name: x.score for x in scores}


def update_clone(pl: Any, state: CycleState, pod: Pod, snap: Snapshot, op: str, other: Any) -> tuple[CycleState, Any]:
    """A clone of `state` told of one pod removed (op "remove", `other` its key) or added (`other`
    the Pod), through the plugin's RemovePod/AddPod as preemption's dry run calls them
    (SelectVictimsOnNode), and the NodeInfo it was told with."""
    dry = state.clone()
    if op == "remove":
        victim = next(x.pod for n in snap.list() for x in n.pods if x.pod.key == other)
        info = snap.get(victim.node_name).snapshot()
        info.remove_pod(victim)
        assert pl.remove_pod(dry, pod, victim, info).is_success()
    else:
        info = snap.get(other.node_name).snapshot()
        info.add_pod(other)
        assert pl.add_pod(dry, pod, other, info).is_success()
    return dry, info
