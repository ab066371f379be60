"""Renderers: the small text helpers, and every conformance case's document in every format."""
from __future__ import annotations


import orjson
import pytest
import yaml

from kubectl_preempt.render import FORMATS, LIST_KIND, as_document, render
from kubectl_preempt.render.table import columns, compact_names, sum_requests
from tests.corpus import case_files, load_json



@pytest.mark.parametrize("names,expected", [
    (["node-00", "node-01", "node-02"], "node-00..node-02"),
    (["node-00", "node-01", "node-03"], "node-00 node-01 node-03"),
    (["node-1", "node-2", "node-3", "node-7", "other"], "node-1..node-3 node-7 other"),
    (["a-9", "a-10", "a-11"], "a-9 a-10 a-11"),
    ([f"n{i}" for i in range(0, 40, 2)], "n0 n2 n4 n6 n8 n10 n12 n14 +12 more"),
], ids=["a run of three is a range", "a gap breaks the run", "runs and singles mix",
        "a change of width is not a run", "long lists end in a count"])
def test_node_names_are_compacted(names: list[str], expected: str) -> None:
    assert compact_names(names) == expected


def test_requests_of_victims_add_up_in_kubernetes_units() -> None:
    total = sum_requests([{"milliCPU": 1500, "memory": 2**30}, {"milliCPU": 1000, "memory": 2**29, "nvidia.com/gpu": 1},
                          {"hugepages-2Mi": 4 * 2**20}])
    assert total == {"cpu": "2500m", "memory": "1536Mi", "hugepages-2Mi": "4Mi", "nvidia.com/gpu": "1"}


def test_columns_indent_rows_under_a_header_at_the_margin() -> None:
    assert columns(["Title", "A"], [["x", 1], ["longer", 22]]) == [
        "Title     A",
        "  x       1",
        "  longer  22",
    ]


def test_one_document_is_itself_and_several_are_a_list() -> None:
    one = {"pod": "a/b"}
    assert as_document([one]) is one
    assert as_document([]) == {"apiVersion": "kubectl-preempt/v1", "kind": LIST_KIND, "items": []}
    assert as_document([one, one])["items"] == [one, one]


def test_every_conformance_case_renders_in_every_format() -> None:
    import kubectl_preempt

    for path in case_files("cases", "cases-real"):
        case = load_json(path)
        doc = kubectl_preempt.explain(case["objects"], case["pod"], case.get("config"))
        out = {fmt: render([doc], fmt) for fmt in FORMATS}
        assert orjson.loads(out["json"]) == doc, path.name
        assert yaml.safe_load(out["yaml"]) == doc, path.name
        for fmt in ("table", "wide"):
            text = out[fmt]
            assert text.startswith(f"Pod        {case['pod']}   "), (path.name, fmt)
            assert text.endswith("\n") and "None" not in text, (path.name, fmt)
            if doc.get("message"):
                assert doc["message"] in text, (path.name, fmt)
