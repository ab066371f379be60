"""A Status is shared between nodes and cycles by the caches: nothing may change one."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.status import Code, Status


def test_a_status_cannot_be_changed() -> None:
    st = Status(Code.Unschedulable, "Insufficient cpu", plugin="NodeResourcesFit")
    for field, value in (("code", Code.Success), ("plugin", "Other"), ("reasons", []), ("error", "x")):
        with pytest.raises(AttributeError):
            setattr(st, field, value)
    st.reasons.append("changed through the list it gave")
    assert st.reasons == ["Insufficient cpu"] and st.message() == "Insufficient cpu"


def test_naming_the_plugin_gives_a_new_status_and_leaves_the_first_as_it_was() -> None:
    st = Status(Code.Unschedulable, "node(s) were unschedulable")
    named = st.with_plugin("NodeUnschedulable")
    assert (named.plugin, st.plugin) == ("NodeUnschedulable", "")
    assert named.reasons == st.reasons and named.code == st.code
