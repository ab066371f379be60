"""plan --max makes each copy of the pod afresh from the template's JSON text when that text reads
back equal to the template (plain JSON values), and by a deep copy otherwise: either way every
copy is a new object equal to the template's body, never one shared with another copy."""
from __future__ import annotations

import datetime

import pytest

from kubectl_preempt.plan.capacity import _json_text

CASES = [
    ("a plain pod body is copied through its JSON text",
     {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "resources": {}}], "priority": 5}},
     True),
    ("a YAML date among the annotations is not JSON: deep-copied",
     {"metadata": {"annotations": {"since": datetime.date(2024, 1, 1)}}}, False),
    ("integer keys (a YAML mapping may hold them) are not JSON: deep-copied",
     {"metadata": {"labels": {1: "a"}}}, False),
    ("a tuple reads back as a list, unequal: deep-copied",
     {"spec": {"args": ("a", "b")}}, False),
    ("a NaN reads back as null, unequal: deep-copied",
     {"spec": {"overhead": float("nan")}}, False),
]


@pytest.mark.parametrize("body,through_text", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_copy_of_the_template_reads_back_equal_or_is_deep_copied(body: dict, through_text: bool) -> None:
    text = _json_text(body)
    assert (text is not None) is through_text
    if text is not None:
        import orjson

        a, b = orjson.loads(text), orjson.loads(text)
        assert a == body and b == body and a is not b and a["metadata"] is not b["metadata"]
