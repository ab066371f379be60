"""Values in error messages are quoted as Go's %q does, so they read as kube-scheduler's own."""
from __future__ import annotations

import pytest

from kubectl_preempt.errors import quote


@pytest.mark.parametrize("value,quoted", [
    ("NodeAffinity", '"NodeAffinity"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("back\\slash", '"back\\\\slash"'),
    ("line\nbreak\ttab", '"line\\nbreak\\ttab"'),
    ("\x01", '"\\x01"'),
    ("zone-é", '"zone-é"'),
    ("\u00a0", '"\\u00a0"'),
    ("", '""'),
    (None, "null"),
    (3, "3"),
], ids=["a plain name", "double quotes are escaped", "a backslash is escaped", "control characters as Go escapes",
        "other ASCII control bytes as \\x", "printable unicode kept", "unprintable unicode as \\u", "empty",
        "a missing value as JSON", "a number as JSON"])
def test_quote_matches_go_strconv_quote(value: object, quoted: str) -> None:
    assert quote(value) == quoted


def test_a_configuration_of_another_kind_names_it_in_double_quotes() -> None:
    from kubectl_preempt.errors import InputError
    from kubectl_preempt.framework.config import parse_config

    with pytest.raises(InputError) as e:
        parse_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "Pod"})
    assert 'kind "Pod" is not KubeSchedulerConfiguration' in str(e.value)
