"""The fast cores beside the decision (scheduler/fast/, framework/interface.py FastCores) give what
the upstream-shaped functions give: the whole conformance corpus, explained as every imitated
release, comes out byte-identical with them on (the default) and off (model/memory.py
MEMORY.off(), which also turns every memory off); and each core on its own agrees with its plain
function on small inputs built for it."""
from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

import kubectl_preempt
from kubectl_preempt.model.memory import MEMORY

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
CASES = [p for d in ("cases", "cases-real") for p in sorted((SHARED / d).glob("*.json"))]
RELEASES = ["v1.30", "v1.31", "v1.32", "v1.33", "v1.34", "v1.35", "v1.36"]


def _doc(case: dict, release: str) -> bytes:
    return orjson.dumps(kubectl_preempt.explain(case["objects"], case["pod"], config=case.get("config"),
                                                kubernetes_version=release),
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


@pytest.mark.skipif(not CASES, reason="../shared/conformance is absent")
@pytest.mark.parametrize("release", RELEASES)
def test_the_corpus_explains_alike_with_the_fast_cores_on_and_off(release: str) -> None:
    differ = []
    for case_file in CASES:
        case = json.loads(case_file.read_text())
        on = _doc(case, release)
        with MEMORY.off():
            off = _doc(case, release)
        if on != off:
            differ.append(case_file.name)
    assert differ == []
