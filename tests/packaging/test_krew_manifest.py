"""plugins/preempt.yaml passes krew's checks, names this version, and is what scripts/build.py
writes (its texts live in the script)."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_preempt.version import __version__
from tests.packaging.krew import Invalid, load_build_script, platform_of, validate_plugin

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "plugins" / "preempt.yaml"
build = load_build_script()



def load() -> dict[str, Any]:
    return yaml.safe_load(MANIFEST.read_text())


def test_the_manifest_passes_krews_validation() -> None:
    validate_plugin(MANIFEST.stem, load())


def _repository(m: dict[str, Any]) -> str:
    assert m["spec"]["homepage"].startswith(build.GITHUB), m["spec"]["homepage"]
    return m["spec"]["homepage"][len(build.GITHUB):]


def test_the_manifest_names_this_release_and_its_archives() -> None:
    m = load()
    assert m["spec"]["version"] == f"v{__version__}"
    repo = _repository(m)
    assert build._REPOSITORY.match(repo)
    for p in m["spec"]["platforms"]:
        os_name, arch = platform_of(p)
        archive = f"kubectl-preempt_v{__version__}_{os_name}_{arch}.tar.gz"
        assert p["uri"] == build.archive_uri(repo, __version__, archive)
        assert p["bin"] == "kubectl-preempt"
        assert {"from": "LICENSE", "to": "."} in p["files"]
    assert ("linux", "amd64") in [platform_of(p) for p in m["spec"]["platforms"]]
    # every platform says what its archive was built from
    assert set(build.read_inputs(MANIFEST.read_text())) == {"/".join(platform_of(p)) for p in m["spec"]["platforms"]}


def test_the_manifest_is_what_the_build_script_writes(tmp_path: Path) -> None:
    """Apart from each platform's uri, sha256 and inputs (what the build of that platform found),
    the committed manifest is the script's output: texts are edited in the script, not here."""
    m = load()
    inputs = build.read_inputs(MANIFEST.read_text())
    out = tmp_path / "preempt.yaml"
    for p in m["spec"]["platforms"]:
        os_name, arch = platform_of(p)
        written = build.write_manifest(out, __version__, os_name, arch, p["uri"], p["sha256"],
                                       homepage=m["spec"]["homepage"], inputs=inputs[f"{os_name}/{arch}"])
    assert yaml.safe_load(out.read_text()) == m == yaml.safe_load(yaml.safe_dump(written))
    assert out.read_text() == MANIFEST.read_text(), "plugins/preempt.yaml is stale: .venv/bin/python scripts/build.py"


def test_the_description_names_every_release_the_code_imitates() -> None:
    from kubectl_preempt.framework.versions import DEFAULT, SUPPORTED

    text = " ".join(load()["spec"]["description"].split())
    for v in SUPPORTED:
        assert v.name in text
    assert f"default {DEFAULT.name}" in text


@pytest.mark.parametrize("path", ["plugins/preempt.yaml", "README.md", "pyproject.toml", "scripts/build.py",
                                  "setup.py", *sorted(p.relative_to(REPO).as_posix()
                                                      for p in (REPO / "docs").glob("*.md"))])
def test_no_placeholder_repository_is_left(path: str) -> None:
    assert "your-org" not in (REPO / path).read_text()


@pytest.mark.parametrize("given,environ,remote,expected", [
    ("me/kp", {"GITHUB_REPOSITORY": "ci/kp"}, "git@github.com:origin/kp.git", "me/kp"),
    (None, {"GITHUB_REPOSITORY": "ci/kp"}, "git@github.com:origin/kp.git", "ci/kp"),
    (None, {}, "git@github.com:origin/kp.git", "origin/kp"),
    (None, {}, "https://github.com/origin/kubectl-preempt.git", "origin/kubectl-preempt"),
    (None, {}, "https://gitlab.example/origin/kp.git", None),
], ids=["the flag first", "then GitHub Actions' variable", "then the origin remote (ssh)",
        "then the origin remote (https)", "nothing that names a GitHub repository"])
def test_the_build_fills_in_the_repository(monkeypatch: pytest.MonkeyPatch, given, environ, remote,
                                           expected) -> None:
    import subprocess

    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    for k, v in environ.items():
        monkeypatch.setenv(k, v)

    def fake_run(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 0, stdout=remote + "\n", stderr="")

    monkeypatch.setattr(build.subprocess, "run", fake_run)
    assert build.repository(given) == expected


def _broken(change) -> dict[str, Any]:
    m = copy.deepcopy(load())
    change(m)
    return m


@pytest.mark.parametrize("change,message", [
    (lambda m: m.update(apiVersion="krew.googlecontainertools.github.com/v1alpha1"), "apiVersion"),
    (lambda m: m.update(kind="Plugins"), "kind"),
    (lambda m: m["metadata"].update(name="preemp"), "should be named"),
    (lambda m: m["spec"].pop("shortDescription"), "short description"),
    (lambda m: m["spec"].pop("description"), "description"),
    (lambda m: m["spec"].update(version="0.1.0"), "version"),
    (lambda m: m["spec"].update(version="v0.1"), "version"),
    (lambda m: m["spec"].update(platforms=[]), "platform"),
    (lambda m: m["spec"]["platforms"][0].update(sha256="B" * 64), "sha256"),
    (lambda m: m["spec"]["platforms"][0].pop("bin"), "bin"),
    (lambda m: m["spec"]["platforms"][0].update(uri="https://example.com/kubectl-preempt"), "uri"),
    (lambda m: m["spec"]["platforms"][0].update(files=[]), "file operations"),
    (lambda m: m["spec"]["platforms"][0].update(selector={"matchLabels": {"os": "linux", "cpu": "x"}}), "cpu"),
    (lambda m: m["spec"]["platforms"][0].update(selector={"matchLabels": {}}), "empty"),
    (lambda m: m["spec"]["platforms"][0].pop("selector"), "nil selector"),
], ids=["an old apiVersion", "another kind", "a name that is not the file's", "no shortDescription",
        "no description", "a version without v", "a version that is not semver", "no platform",
        "an upper-case sha256", "no bin", "a uri that is not an archive", "no files", "a selector key krew ignores",
        "an empty selector", "no selector"])
def test_the_validation_refuses_what_krew_refuses(change, message: str) -> None:
    with pytest.raises(Invalid, match=message):
        validate_plugin("preempt", _broken(change))
