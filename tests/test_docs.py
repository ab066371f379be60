"""README's first screen answers in the order a newcomer asks (what it answers, the explain table,
install, the demo, the test command, the commands), README stays short, and every link of README
and of the manual under docs/ lands on a file and a heading that exist. The examples of every page
run in tests/test_cli_explain.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_preempt.cli.main import app
from tests.conftest import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
# one page per command that has a manual of its own, and the pages across commands
COMMAND_PAGES = ["explain", "replay", "record", "capture", "check", "plan", "history", "session", "demo"]
TOPIC_PAGES = ["releases", "formats", "exit-codes", "live", "workloads", "architecture", "install", "development"]

_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The page without its fenced blocks (a `#` in a shell block is no heading, a `](` no link)."""
    return _FENCE.sub("", text)


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated heading suffixed -1, -2..."""
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(text).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _blocks(text: str, lang: str) -> list[list[str]]:
    return [body.splitlines() for body in re.findall(rf"```{lang}\n(.*?)```", text, re.S)]


def test_readme_is_under_250_lines() -> None:
    assert len(README.read_text().splitlines()) < 250


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(REPO).as_posix() for p in PAGES])
def test_every_link_lands_on_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # another site's address
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest.relative_to(REPO) if dest.is_relative_to(REPO) else dest}")
        elif anchor and anchor not in anchors(dest.read_text()):
            broken.append(f"{target}: {dest.name} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_readme_links_every_page_of_the_manual() -> None:
    links = set(_LINK.findall(README.read_text()))
    for name in COMMAND_PAGES + TOPIC_PAGES:
        assert (DOCS / f"{name}.md").is_file(), name
        assert f"docs/{name}.md" in links, f"README does not link docs/{name}.md"
    # every page of the manual is reachable from README
    linked = {target.partition("#")[0] for target in links}
    assert {f"docs/{p.name}" for p in DOCS.glob("*.md")} <= linked


def test_readme_first_screen_answers_in_order() -> None:
    text = README.read_text()
    lines = text.splitlines()
    assert lines[0] == "# kubectl preempt"
    # 1. what it answers, in two sentences, before anything else
    intro = text[len(lines[0]):text.index("```")].strip()
    assert "\n#" not in intro
    sentences = re.split(r"(?<=[.?!])\s+(?=[A-Z`])", " ".join(intro.split()))
    assert len(sentences) == 2, sentences
    # 2. the explain table, a real output on bundled data (tests/test_cli_explain.py runs it)
    first = re.search(r"```(\w*)\n(.*?)```", text, re.S)
    assert first is not None and first.group(1) == "console"
    table = first.group(2)
    assert table.startswith("$ kubectl preempt explain ") and "--snapshot examples/" in table.splitlines()[0]
    assert "Victims on " in table and "Other nodes" in table and "Scheduler message" in table
    # 3. install, 4. the demo, 5. the test command, 6. the commands, in this order
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:4] == ["## Install", "## Try it: no cluster needed", "## Test", "## Commands"]
    assert text.index("```console") < text.index("\n## Install\n")
    install = [line for block in _blocks(_section(text, "## Install"), "sh") for line in block]
    assert any(line.startswith("./install.sh ") for line in install)
    assert any(line.startswith("pipx install ") for line in install)
    assert any(line.startswith("kubectl krew install ") for line in install)
    assert _blocks(_section(text, "## Try it: no cluster needed"), "sh") == [["kubectl preempt demo"]]


def test_the_test_command_is_the_one_ci_runs() -> None:
    [block] = _blocks(_section(README.read_text(), "## Test"), "sh")
    assert block == ["./install.sh --dev", ".venv/bin/python -m pytest -n auto --dist loadfile"]
    ci = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert all(command in ci for command in block), ci


def test_the_command_list_links_every_command_to_its_page() -> None:
    rows = re.findall(r"^\| \[`([a-z-]+)`\]\(([^)]+)\) \|", _section(README.read_text(), "## Commands"), re.M)
    registered = sorted(c.name or c.callback.__name__ for c in app.registered_commands)
    assert sorted(name for name, _ in rows) == registered
    for name, target in rows:
        if name in COMMAND_PAGES:
            assert target == f"docs/{name}.md", (name, target)
        else:
            assert target.startswith("docs/"), (name, target)

