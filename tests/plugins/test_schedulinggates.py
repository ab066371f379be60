"""SchedulingGates: gated pods wait outside the active queue."""
from __future__ import annotations

import pytest

from kubectl_preempt.framework.status import Code
from kubectl_preempt.model.objects import Pod
from kubectl_preempt.plugins import schedulinggates as sg
from tests.builders import make_pod


@pytest.mark.parametrize("gates,code,reasons", [
    ([], Code.Success, []),
    (["example.com/quota"], Code.UnschedulableAndUnresolvable, ["waiting for scheduling gates: [example.com/quota]"]),
    (["a", "b"], Code.UnschedulableAndUnresolvable, [sg.ERR_REASON_WAITING % "a b"]),
], ids=["no gates enqueue", "one gate, printed as a Go slice", "several gates, space separated"])
def test_pre_enqueue(gates: list[str], code: Code, reasons: list[str]) -> None:
    pod = Pod(make_pod("p").set("spec.schedulingGates", [{"name": g} for g in gates]).obj())
    st = sg.new({}, None).pre_enqueue(pod)
    assert (st.code, st.reasons) == (code, reasons)
