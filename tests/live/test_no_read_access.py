"""Live explain with no read access at all: one line, in capture's words ("forbidden"), exit 3,
no notes first."""
from __future__ import annotations

from tests.live.fakeapi import FakeAPIServer


def test_explain_without_any_read_access_is_one_line_in_capture_s_words(cli, api: FakeAPIServer) -> None:
    api.authorize = lambda verb, resource, ns: False
    code, out, err = cli("explain", "team-a/web-0")

    c_code, c_out, c_err = cli("capture", "-o", "-")

    assert code == 3 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ") and "forbidden" in err
    assert c_code == 3
    # the same refusal, said the same way
    assert err.strip() == c_err.strip(), (err, c_err)
