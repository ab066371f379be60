"""explain on the live cluster imitates the release the API server reports (/version), the
nearest imitated one with a note, unless --kubernetes-version says otherwise."""
from __future__ import annotations

import json

import pytest

from tests.live.fakeapi import FakeAPIServer


@pytest.mark.parametrize("server,flag,want,note", [
    ("v1.34.1", None, "v1.34.1", None),
    ("v1.36.2", None, "v1.36.2", None),
    ("v1.35.2", None, "v1.35.6", None),
    ("v1.37.0", None, "v1.36.2", "imitating kube-scheduler v1.36.2, the nearest imitated release to 1.37"),
    ("v1.36.2", "v1.34", "v1.34.1", None),
], ids=["a 1.34 server", "a 1.36 server", "a 1.35 server", "a 1.37 server, with a note", "the flag wins"])
def test_live_explain_follows_the_servers_version(cli, api: FakeAPIServer, server: str, flag: str | None,
                                                 want: str, note: str | None) -> None:
    api.version_info["gitVersion"] = server
    code, out, err = cli("explain", "team-a/api-1", "-o", "json", *(["--kubernetes-version", flag] if flag else []))
    assert code == 0, err
    assert json.loads(out)["schedulerVersion"] == want
    assert (f"note: the API server names server version {server}: {note}" in err) if note else "imitating" not in err
    assert api.methods == {"GET"}
