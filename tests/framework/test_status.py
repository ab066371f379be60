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


def test_a_status_survives_copy_and_pickle_and_success_is_shared() -> None:
    import copy
    import pickle

    st = Status(Code.Unschedulable, "Insufficient cpu", plugin="NodeResourcesFit")
    for again in (copy.copy(st), copy.deepcopy(st), pickle.loads(pickle.dumps(st))):
        assert (again.code, again.reasons, again.plugin) == (st.code, st.reasons, st.plugin)
    assert Status() is Status() and Status().is_success() and Status(plugin="X").plugin == "X"


@pytest.mark.parametrize("code,reasons", [
    (Code.Unschedulable, ("Insufficient cpu",)),
    (Code.UnschedulableAndUnresolvable, ("Too many pods", "Insufficient cpu")),
], ids=["one reason", "two reasons, in order"])
def test_a_refusal_made_directly_is_the_status_the_constructor_makes(code: Code, reasons: tuple) -> None:
    from kubectl_preempt.framework.status import refusal
    st = refusal(code, reasons, "NodeResourcesFit")
    want = Status(code, *reasons, plugin="NodeResourcesFit")
    assert (st.code, st.reasons, st.plugin, st.error, st.message(), st.to_dict()) == (
        want.code, want.reasons, want.plugin, want.error, want.message(), want.to_dict())
    assert type(st) is Status and st.is_rejected() and st.with_plugin("NodeResourcesFit") is st
    with pytest.raises(AttributeError):
        st.code = Code.Success  # type: ignore[misc]
