from __future__ import annotations

import pytest

from kubectl_preempt.errors import InputError
from kubectl_preempt.model.quantity import milli_value, parse_quantity, value


@pytest.mark.parametrize("text, milli, whole", [
    pytest.param("1", 1000, 1, id="a plain integer"),
    pytest.param("100m", 100, 1, id="milli-units round up to a whole unit"),
    pytest.param("0.1", 100, 1, id="a decimal fraction"),
    pytest.param("0.1m", 1, 1, id="below a milli rounds up to one milli"),
    pytest.param("1Gi", 1073741824000, 1073741824, id="binary suffix"),
    pytest.param("134217k", 134217000000, 134217000, id="decimal suffix"),
    pytest.param("1e3", 1000000, 1000, id="decimal exponent"),
    pytest.param("2E", 2 * 10**21, 2 * 10**18, id="exa, not an exponent"),
    pytest.param("1.5Gi", 1610612736000, 1610612736, id="fraction with binary suffix"),
    pytest.param("+3", 3000, 3, id="explicit plus sign"),
    pytest.param(".5", 500, 1, id="leading point"),
])
def test_quantities_parse_as_resource_quantity_does(text, milli, whole) -> None:
    assert milli_value(text) == milli
    assert value(text) == whole


@pytest.mark.parametrize("bad", ["", "1.2.3", "abc", "1Kb", "1 Gi", "--1", "1ki"])
def test_a_bad_quantity_is_an_input_error_naming_the_field(bad) -> None:
    with pytest.raises(InputError) as e:
        parse_quantity(bad, field="spec.containers[0].resources.requests.cpu")
    assert "spec.containers[0].resources.requests.cpu" in str(e.value)
