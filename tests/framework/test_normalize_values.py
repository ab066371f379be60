"""A score extension's fast form (normalize_values, on plain scores in node order) answers
exactly as its NormalizeScore over NodeScore objects, for every plugin that offers it."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kubectl_preempt.framework.cycle_state import CycleState
from kubectl_preempt.framework.interface import MemoTraits, NodeScore
from kubectl_preempt.framework.versions import SUPPORTED
from kubectl_preempt.model.cluster import Cluster
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.scheduler.scheduler import Scheduler
from kubectl_preempt.framework.config import default_config
from tests.builders import make_node, make_pod


def _extensions(version) -> list:  # noqa: ANN001
    sched = Scheduler(Cluster.from_objects([make_node("x").obj()]), default_config(version))
    fwk = sched.framework_for(Pod(make_pod("p").obj()))
    out = []
    for pl in fwk.score_plugins:
        ext = pl.score_extensions() if hasattr(pl, "score_extensions") else None
        # declared: overridden from MemoTraits' default (None: "not offered")
        if ext is not None and getattr(type(ext), "normalize_values", None) not in (None, MemoTraits.normalize_values):
            out.append((pl.name, ext))
    return out


@pytest.mark.parametrize("version", SUPPORTED, ids=lambda v: str(v.name))
def test_the_plugins_normalizing_by_default_offer_the_fast_form(version) -> None:  # noqa: ANN001
    assert {"NodeAffinity", "TaintToleration"} <= {name for name, _ in _extensions(version)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 10_000), max_size=40))
def test_normalize_values_equals_normalize_score(values: list[int]) -> None:
    pod = Pod(make_pod("p").obj())
    for version in SUPPORTED:
        for name, ext in _extensions(version):
            scores = [NodeScore(f"n{i}", v) for i, v in enumerate(values)]
            assert ext.normalize_score(CycleState(), pod, scores).is_success()
            assert ext.normalize_values(CycleState(), pod, list(values)) == [s.score for s in scores], name
